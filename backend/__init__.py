"""The back end, one room per job:

    targets/      the Ascend targets: capacities, alignments, cost model, the L0 tile chooser
    numerics      the bit-exact arithmetic rules of NUMERICS.md
    arrays        host arrays for a program's parameters: coercion, poison, random inputs, npz
    interpreter   the reference interpreter of the value-level languages
    cross_core    how the cores of one Group launch run and exchange tiles (FIFOs, turns)
    pto_text/     PTO-ISA MLIR text: printer and parser
    sim/          the simulator of PTO programs on a machine model of one cube + vector cores
    fuzzing/      random well-typed programs for fuzzing campaigns

No room imports passes; the reference interpreter and the simulator share only numerics and
the cross-core launch model, never each other's code.
"""
