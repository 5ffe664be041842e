"""The simulator: runs PTO programs on a machine model of one cube core and its vector cores,
byte-addressed buffers read and written through each tile's layout."""
