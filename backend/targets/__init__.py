"""Targets: each Ascend backend's capacities, alignments and cost model, and the L0 tile chooser."""
