"""PTO text: the PTO language printed as PTO-ISA MLIR, and that text parsed back."""
