# The `pypto` import name of kernel files, for type checkers: at run time a finder
# (_nanopass_pypto_alias.py) maps it to this compiler's modules when PyPTO is not installed.
from . import language as language
from . import runtime as runtime
