"""The `pypto` import name for kernel files, when PyPTO itself is not installed: `pypto.language`
is this compiler's `pl` module (`nanopass_pto.language`), `pypto.runtime` its run configuration."""
