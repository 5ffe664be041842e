"""The `pl` module of kernel files: `import pypto.language as pl` (or `import nanopass_pto.language as pl`).

Kernel bodies are never executed: `@pl.jit`, `@pl.function`, `@pl.program` read the source with
`inspect` and `ast` and compile it. What this module provides is what a kernel file evaluates
when it is imported -- decorators, annotation types, dtypes, enums, `pl.dynamic` -- plus a name
for every DSL operation, so that editors and type checkers resolve `pl.*`. Calling an operation
outside a kernel raises (PyPTO's ops build IR; here only the compiler reads them).
"""

from __future__ import annotations

from typing_extensions import override

import enum
from typing import Any, Callable, Generic, NoReturn, TypeVar

from languages.memory_space import MemorySpace
from languages.types import DataType
from nanopass_pto.jit import JITFunction, ProgramFunction, jit, program_of

T = TypeVar("T")

# -- dtypes -------------------------------------------------------------------------------------

BOOL = DataType.BOOL
INT4 = DataType.INT4
INT8 = DataType.INT8
INT16 = DataType.INT16
INT32 = DataType.INT32
INT64 = DataType.INT64
UINT4 = DataType.UINT4
UINT8 = DataType.UINT8
UINT16 = DataType.UINT16
UINT32 = DataType.UINT32
UINT64 = DataType.UINT64
FP4 = DataType.FP4
FP8E4M3FN = DataType.FP8E4M3FN
FP8E5M2 = DataType.FP8E5M2
FP8E8M0 = DataType.FP8E8M0
FP16 = DataType.FP16
BF16 = DataType.BF16
FP32 = DataType.FP32
HF4 = DataType.HF4
HF8 = DataType.HF8
INDEX = DataType.INDEX

# -- enums (read literally by the parser: `pl.Level.CORE_GROUP`) ---------------------------------

Mem = MemorySpace


class Level(enum.IntEnum):
    AIV = 0
    AIC = 1
    CORE_GROUP = 2
    CHIP_DIE = 3
    L2CACHE = 3
    CHIP = 4
    PROCESSOR = 4
    UMA = 4
    HOST = 5
    NODE = 5
    CLUSTER_0 = 6
    POD = 6
    CLUSTER_1 = 7
    CLOS1 = 7
    CLUSTER_2 = 8
    CLOS2 = 8
    GLOBAL = 9


class Role(enum.IntEnum):
    Orchestrator = 0
    SubWorker = 1


class FunctionType(enum.IntEnum):
    Opaque = 0
    Orchestration = 1
    InCore = 2
    AIC = 3
    AIV = 4
    Group = 5
    Spmd = 6
    Inline = 7
    Graph = 8


class AtomicType(enum.IntEnum):
    None_ = 0
    Add = 1


class PipeType(enum.IntEnum):
    MTE1 = 0
    MTE2 = 1
    MTE3 = 2
    M = 3
    V = 4
    S = 5
    FIX = 6
    ALL = 7


class PadValue(enum.IntEnum):
    null = 0
    zero = 1
    max = 2
    min = 3


class SplitMode(enum.IntEnum):
    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2


class TensorLayout(enum.IntEnum):
    ND = 0
    DN = 1
    NZ = 2
    MX_A_ZZ = 3
    MX_B_NN = 4


ND = TensorLayout.ND
DN = TensorLayout.DN
NZ = TensorLayout.NZ
MX_A_ZZ = TensorLayout.MX_A_ZZ
MX_B_NN = TensorLayout.MX_B_NN


class TileLayout(enum.IntEnum):
    none_box = 0
    row_major = 1
    col_major = 2


class CompactMode(enum.IntEnum):
    null = 0
    normal = 1


class ScopeMode(enum.IntEnum):
    AUTO = 0
    MANUAL = 1


class ForKind(enum.IntEnum):
    Sequential = 0
    Parallel = 1
    Unroll = 2
    Pipeline = 3


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    @override
    def __repr__(self) -> str:
        return f"pl.{self.name}"


RUNTIME = _Marker("RUNTIME")  # a scalar parameter left unspecialized
AUTO = _Marker("AUTO")


# -- annotation types (subscripted at import time when annotations are evaluated) -----------------


class _Annotation:
    """`pl.Tensor[[64, 128], pl.FP32]` and friends, as written (only the compiler reads them)."""

    def __init__(self, head: str, items: Any) -> None:
        self.head = head
        self.items = items

    @override
    def __repr__(self) -> str:
        return f"pl.{self.head}[{self.items!r}]"


class _Subscriptable:
    def __class_getitem__(cls, items: Any) -> Any:
        return _Annotation(cls.__name__, items)


class Tensor(_Subscriptable):
    """A GM tensor parameter: bare `pl.Tensor` under `@pl.jit`, `pl.Tensor[[dims], dtype]` otherwise."""

    def bind_dynamic(self, dim: int, var: DynVar) -> None:
        """Marks dimension `dim` dynamic (read by the jit specializer; never executed)."""


class DistributedTensor(_Subscriptable):
    pass


class Tile(_Subscriptable):
    pass


class Scalar(_Subscriptable):
    pass


class Array(_Subscriptable):
    pass


class Tuple(_Subscriptable):
    pass


class Ptr(_Subscriptable):
    pass


class Out(Generic[T]):
    """An output parameter: `pl.Out[pl.Tensor]`."""


class InOut(Generic[T]):
    """A read-and-written parameter: `pl.InOut[pl.Tensor]`."""


TaskId = Scalar


class _Record:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs


class TensorView(_Record):
    pass


class TileView(_Record):
    pass


class MemRef(_Record):
    def __getitem__(self, slot: Any) -> MemRef:
        return self


class DynVar:
    """`pl.dynamic("M")`: a dynamic dimension (the same object in several annotations is one symbol)."""

    def __init__(self, name: str) -> None:
        if not name.isidentifier():
            raise ValueError(f"pl.dynamic: {name!r} is not a valid identifier")
        self.name = name

    @override
    def __repr__(self) -> str:
        return f"pl.dynamic({self.name!r})"


def dynamic(name: str) -> DynVar:
    return DynVar(name)


# -- decorators -----------------------------------------------------------------------------------


def function(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """`@pl.function` / `@pl.function(type=pl.FunctionType.X, ...)`: inside a `@pl.program` class it
    marks a method; at module level it names a function other programs may call."""
    if func is None:
        return lambda f: ProgramFunction(f, options)
    return ProgramFunction(func, options)


def inline(func: Callable[..., Any]) -> ProgramFunction:
    """`@pl.inline`: a helper spliced into each caller."""
    return ProgramFunction(func, {"type": FunctionType.Inline})


def program(cls: type | None = None, **options: Any) -> Any:
    """`@pl.program` on a class: the compiler's IR program of that class (read from its source)."""
    if cls is None:
        return lambda c: program_of(c)
    return program_of(cls)


# -- DSL operations: names for editors and type checkers; calling one outside a kernel raises -------


def _not_executable(name: str) -> Callable[..., NoReturn]:
    def operation(*args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(f"pl.{name} is a DSL operation: it is compiled inside a @pl.jit / @pl.program kernel, "
                           "never executed as Python")

    operation.__name__ = name.rsplit(".", 1)[-1]
    operation.__qualname__ = f"pl.{name}"
    return operation


class _Namespace:
    """`pl.tile`, `pl.tensor`, `pl.system`, ...: every attribute is a DSL operation."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, op: str) -> Callable[..., Any]:
        if op.startswith("__"):
            raise AttributeError(op)
        return _not_executable(f"{self._name}.{op}")


tile = _Namespace("tile")
tensor = _Namespace("tensor")
system = _Namespace("system")
array = _Namespace("array")
prefetch = _Namespace("prefetch")

_OPERATIONS = (
    # memory and views
    "load", "store", "move", "create_tile", "create_tensor", "slice", "reshape", "transpose", "concat",
    "assemble", "read", "write", "set_validshape", "fillpad", "fillpad_expand", "reinterpret_view",
    "full", "arange", "random", "dim", "expand_clone", "gather", "scatter", "gather_row", "scatter_update",
    # arithmetic
    "add", "sub", "mul", "div", "maximum", "minimum", "fmod", "fmods", "rem", "rems", "exp", "log", "sqrt",
    "rsqrt", "recip", "neg", "abs", "sin", "cos", "relu", "prelu", "lrelu", "maximums", "minimums", "cast",
    "cmp", "cmps", "sel", "sels", "and_", "or_", "xor", "not_", "ands", "ors", "xors", "shl", "shr", "shls",
    "shrs", "addc", "subc", "addsc", "subsc", "part_add", "part_mul", "part_max", "part_min", "expands",
    "max", "min",
    # reductions and broadcasts
    "row_max", "row_sum", "row_min", "row_prod", "col_sum", "col_max", "col_min", "col_prod",
    "row_argmax", "row_argmin", "col_argmax", "col_argmin",
    "row_expand", "row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div", "row_expand_max",
    "row_expand_min", "row_expand_expdif", "col_expand", "col_expand_add", "col_expand_sub", "col_expand_mul",
    "col_expand_div", "col_expand_max", "col_expand_min", "col_expand_expdif",
    # cube
    "matmul", "matmul_acc", "matmul_bias", "batch_matmul", "gemv", "gemv_acc", "gemv_bias",
    "sort32", "mrgsort", "tri",
    # control flow and directives
    "range", "parallel", "unroll", "pipeline", "while_", "cond", "yield_", "const", "static_print",
    "static_assert", "func_attr", "at", "cluster", "spmd", "split_aiv", "scope", "manual_scope", "split",
    "cross_core_slot", "submit", "spmd_submit", "no_dep", "dump_tag", "aiv_shard", "aic_gather",
)

load = _not_executable("load")
store = _not_executable("store")
add = _not_executable("add")
sub = _not_executable("sub")
mul = _not_executable("mul")
div = _not_executable("div")
matmul = _not_executable("matmul")
matmul_acc = _not_executable("matmul_acc")
create_tensor = _not_executable("create_tensor")
create_tile = _not_executable("create_tile")
move = _not_executable("move")
exp = _not_executable("exp")
cast = _not_executable("cast")
at = _not_executable("at")
range = _not_executable("range")  # noqa: A001 (PyPTO's name)
yield_ = _not_executable("yield_")


def __getattr__(name: str) -> Callable[..., Any]:
    """Every other DSL operation (`pl.row_max`, `pl.col_expand_mul`, ...)."""
    if name in _OPERATIONS:
        return _not_executable(name)
    raise AttributeError(f"module 'pl' has no attribute {name!r}")


__all__ = [
    "AUTO", "AtomicType", "BF16", "BOOL", "CompactMode", "DN", "DistributedTensor", "DynVar", "FP16", "FP32", "FP4",
    "FP8E4M3FN", "FP8E5M2", "FP8E8M0", "ForKind", "FunctionType", "HF4", "HF8", "INDEX", "INT16", "INT32", "INT4",
    "INT64", "INT8", "InOut", "JITFunction", "Level", "MX_A_ZZ", "MX_B_NN", "Mem", "MemRef", "MemorySpace", "ND", "NZ",
    "Out", "PadValue", "PipeType", "Ptr", "RUNTIME", "Role", "Scalar", "ScopeMode", "SplitMode", "Tensor",
    "TensorLayout", "TensorView", "Tile", "TileLayout", "TileView", "Tuple", "UINT16", "UINT32", "UINT4", "UINT64",
    "UINT8", "Array", "TaskId", "array", "dynamic", "function", "inline", "jit", "prefetch", "program", "system",
    "tensor", "tile", *_OPERATIONS,
]
