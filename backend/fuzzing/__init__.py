"""Fuzzing: random well-typed programs drawn from the op registry and the DSL grammar."""
