"""`tensor.*` operators, and the value-level shape / dtype / valid_shape rules they share with
their `tile.*` counterparts (tile_ops.py imports the rules from here).

Valid-shape rules (the operator catalogue): element-wise results keep the operands' valid
shape when both operands have the same physical shape and the same valid region, and drop it
(fresh, fully valid storage) otherwise; tensor-scalar and unary results keep the tensor
operand's; reductions keep the surviving axis; `tensor.matmul` drops its operands' valid shapes.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

import itertools
from dataclasses import replace

import numpy as np

from languages.ops import (
    READ_WRITE,
    WRITE,
    AttrDecl,
    DeductionError,
    OpDef,
    OperandDecl,
    InheritInput,
    ReusesInput,
    TileConversion,
    TileInput,
    ViewValid,
    Window,
    describe,
    describe_type,
    expect_dims,
    static_int,
    static_ints,
    type_of,
)
from languages.ops.target_rules import A2A3, A5, DtypeIn

# A tensor view (slice, reshape, set_validshape, ...) names its operand's GM bytes: a write through
# it lands on the operand (spec convert_tensor_to_tile_ops.md: these ops declare
# set_output_memory_inherit_input()).
VIEW_OF_OPERAND = InheritInput(0)
from languages.types import INDEX, Attrs, DataType, Dims, ScalarType, Extent, SymbolicExtent, TensorType, TileType, Type, ValidDims, attr, known_extents
from languages.layout import reader_row_pitch
from languages.views import make_tile_type, normalize_valid
from nanopass.node import Node

Value = TensorType | TileType
E = TypeVar("E")  # an extent: an int, a runtime extent, or None (unknown)

# Rounding modes of TCVT (NUMERICS.md section 4); "round" (ties away from zero) is the default.
CAST_MODES = ("rint", "round", "floor", "ceil", "trunc", "odd", "none")

# Cube operand dtype -> accumulator dtype (TARGET_FACTS.md "Key operator contracts").
MATMUL_ACCUMULATOR: dict[DataType, DataType] = {
    DataType.FP16: DataType.FP32,
    DataType.BF16: DataType.FP32,
    DataType.FP32: DataType.FP32,
    DataType.INT8: DataType.INT32,
}

# Element-wise functions defined on floats only (transcendentals and reciprocals).
FLOAT_ONLY_UNARY = frozenset({"exp", "log", "sqrt", "rsqrt", "rec"})


# -- small readers -------------------------------------------------------------------------------


def value_at(args: Sequence[Node], index: int) -> Value:
    ty = type_of(args[index])
    if not isinstance(ty, (TensorType, TileType)):
        raise DeductionError(f"expected a tensor or a tile, got {describe(args[index])}", index)
    return ty


def scalar_at(args: Sequence[Node], index: int) -> ScalarType:
    ty = type_of(args[index])
    if not isinstance(ty, ScalarType):
        raise DeductionError(f"expected a scalar, got {describe(args[index])}", index)
    return ty


def dims_at(args: Sequence[Node], index: int, what: str) -> Dims:
    return expect_dims(static_ints(args[index]), what, index)


def optional_dims(args: Sequence[Node], index: int, what: str) -> Dims | None:
    return dims_at(args, index, what) if index < len(args) else None


def extent_of(node: Node, index: int, what: str) -> Extent:
    """One valid extent: a constant, or an integer scalar variable (a runtime extent, kept
    symbolic as PyPTO keeps it)."""
    constant = static_int(node)
    if constant is not None:
        return constant
    ty = type_of(node)
    if node.KIND == "Var" and isinstance(ty, ScalarType) and ty.dtype.is_int:
        return SymbolicExtent(str(getattr(node, "name")), node.node_span)
    if isinstance(ty, ScalarType) and ty.dtype.is_int:
        raise DeductionError(f"{what} expected a constant or a scalar variable, got an expression", index,
                             hint="not supported yet: a valid extent computed in place; assign it to a "
                                  "pl.Scalar[pl.INDEX] variable first and pass the variable")
    raise DeductionError(f"{what} expected integer extents, got {describe(node)}", index)


def extents_at(args: Sequence[Node], index: int, what: str) -> ValidDims:
    """A valid-shape list operand `[rows, 16]`: constants and runtime extents."""
    node = args[index]
    if node.KIND != "TupleExpr":
        return (extent_of(node, index, what),)
    return tuple(extent_of(e, index, what) for e in getattr(node, "elements"))


def optional_extents(args: Sequence[Node], index: int, what: str) -> ValidDims | None:
    return extents_at(args, index, what) if index < len(args) and args[index] is not None else None


def dtype_attr(attrs: Attrs, name: str) -> DataType:
    value = attr(attrs, name)
    if not isinstance(value, DataType):
        raise DeductionError(f"attribute {name!r} expected a dtype such as pl.FP32, got {value!r}")
    return value


def int_attr(attrs: Attrs, name: str) -> int:
    value = attr(attrs, name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise DeductionError(f"attribute {name!r} expected an integer, got {value!r}")
    return value


def rebuild(like: Value, shape: Dims, dtype: DataType, valid: ValidDims | None) -> Value:
    """A fresh value of `like`'s kind (tensor, or an unplaced tile: the registry places it)."""
    if isinstance(like, TensorType):
        return TensorType(tuple(shape), dtype, normalize_valid(shape, valid))
    return make_tile_type(shape, dtype, valid)


def same_valid(a: Value, b: Value) -> ValidDims | None:
    """The common valid shape when the regions provably agree, else None (fully valid). Two
    runtime extents agree when they are the same variable."""
    if a.shape == b.shape and a.valid_extents == b.valid_extents:
        return a.valid_shape
    return None


def check_valid_within(valid: ValidDims, shape: Dims, operand: int, what: str = "valid_shape") -> None:
    """Constant extents must lie in [0, shape]; a runtime extent is checked where it is known
    (the interpreter and the simulator reject one outside its bound)."""
    if len(valid) != len(shape) or any(isinstance(v, int) and (v < 0 or v > s) for v, s in zip(valid, shape)):
        raise DeductionError(f"{what} expected {len(shape)} extents within {list(shape)}, got {list(valid)}", operand)


def check_window(offsets: Dims | None, extent: Dims, bound: Dims, operand: int, what: str) -> None:
    """A static window offsets + extent must lie inside `bound` (dynamic offsets are not checked)."""
    if offsets is None:
        return
    if any(o < 0 or o + e > b for o, e, b in zip(offsets, extent, bound)):
        raise DeductionError(
            f"{what} at offsets {list(offsets)} with extent {list(extent)} expected inside {list(bound)}", operand)


def check_rank(node: Node, length: int | None, rank: int, operand: int, what: str) -> None:
    if length is not None and length != rank:
        raise DeductionError(f"{what} expected {rank} entries (the rank), got {length}", operand)


def list_len(node: Node) -> int | None:
    return len(getattr(node, "elements")) if node.KIND == "TupleExpr" else None


# -- element-wise ----------------------------------------------------------------------------------


def broadcast_shapes(a: Dims, b: Dims) -> Dims | None:
    """NumPy broadcasting of two shapes, or None when they do not broadcast."""
    out: list[int] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y) if 1 in (x, y) else x)
    return tuple(reversed(out))


def check_same_dtype(lhs: Value | ScalarType, rhs: Value | ScalarType, operand: int) -> None:
    if lhs.dtype != rhs.dtype:
        raise DeductionError(f"expected dtype {lhs.dtype.name} (the first operand's), got {rhs.dtype.name}",
                             operand, hint="insert a cast so both operands have one dtype")


def make_binary(broadcast: bool) -> Callable[[Sequence[Node], Attrs], Type]:
    """Tensor-tensor (broadcasting) or tile-tile (same shape) element-wise deduction; a scalar
    rhs (tensor.maximum / minimum) takes the tensor-scalar rule."""

    def deduce(args: Sequence[Node], attrs: Attrs) -> Type:
        lhs = value_at(args, 0)
        rhs_type = type_of(args[1])
        if isinstance(rhs_type, ScalarType):
            return deduce_scalar(args, attrs)
        rhs = value_at(args, 1)
        check_same_dtype(lhs, rhs, 1)
        if lhs.shape == rhs.shape:
            return rebuild(lhs, lhs.shape, lhs.dtype, same_valid(lhs, rhs))
        shape = broadcast_shapes(lhs.shape, rhs.shape) if broadcast else None
        if shape is None:
            rule = "a shape broadcastable with" if broadcast else "the same shape as"
            raise DeductionError(f"expected {rule} {list(lhs.shape)}, got {list(rhs.shape)}", 1,
                                 hint="" if broadcast else "use tile.row_expand_* for a [rows, 1] operand")
        return rebuild(lhs, shape, lhs.dtype, None)

    return deduce


def deduce_scalar(args: Sequence[Node], attrs: Attrs) -> Type:
    """Value-scalar: the result keeps the value operand's shape, dtype and valid shape."""
    value = value_at(args, 0)
    scalar = scalar_at(args, 1)
    if scalar.dtype is DataType.INDEX and static_int(args[1]) is None:
        raise DeductionError("expected a constant or a typed scalar, got a non-constant index scalar", 1,
                             hint="convert it with pl.cast(x, dtype) first")
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def make_unary(function: str) -> Callable[[Sequence[Node], Attrs], Type]:
    def deduce(args: Sequence[Node], attrs: Attrs) -> Type:
        value = value_at(args, 0)
        if function in FLOAT_ONLY_UNARY and not value.dtype.is_float:
            raise DeductionError(f"expected a float dtype for {function}, got {value.dtype.name}", 0)
        return rebuild(value, value.shape, value.dtype, value.valid_shape)

    return deduce


# -- reductions and row broadcasts ----------------------------------------------------------------


def check_scratch(args: Sequence[Node], index: int, value: Value) -> None:
    """A reduction scratch tile: same dtype and rank, at least as large in every dimension."""
    if index >= len(args):
        return
    tmp = value_at(args, index)
    if tmp.dtype != value.dtype or len(tmp.shape) != len(value.shape) or any(
            t < s for t, s in zip(tmp.shape, value.shape)):
        raise DeductionError(f"expected a {value.dtype.name} tile at least {list(value.shape)}, "
                             f"got {describe_type(tmp)}", index)


def deduce_reduce_row(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    if len(value.shape) < 1:
        raise DeductionError("expected rank >= 1", 0)
    check_scratch(args, 1, value)
    shape = value.shape[:-1] + (1,)
    return rebuild(value, shape, value.dtype, value.valid[:-1] + (1,))


def deduce_reduce_col(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    if len(value.shape) != 2:
        raise DeductionError(f"expected a 2-D value, got rank {len(value.shape)}", 0)
    check_scratch(args, 1, value)
    return rebuild(value, (1, value.shape[1]), value.dtype, (1, value.valid[1]))


def deduce_row_expand(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    row = value_at(args, 1)
    check_same_dtype(value, row, 1)
    expected = value.shape[:-1] + (1,)
    # A column computed from a boxed tile (a row reduction of a matmul result whose M is rounded
    # up to a fractal box) is taller than its valid rows: what the instruction reads is the valid
    # column, which must have one value per valid row (pto-isa asserts the valid rows agree).
    boxed_rows = len(row.shape) == 2 and len(value.shape) == 2 and row.shape[1] == 1 \
        and row.shape[0] != value.shape[0] and tuple(row.valid) == (value.valid[0], 1)
    if row.shape != expected and not boxed_rows:
        raise DeductionError(f"expected shape {list(expected)} (one value per row), got {list(row.shape)}", 1)
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def deduce_col_expand(args: Sequence[Node], attrs: Attrs) -> Type:
    """out[i, j] = op(x[i, j], col[0, j]): one value per column, broadcast down the rows."""
    value = value_at(args, 0)
    col = value_at(args, 1)
    check_same_dtype(value, col, 1)
    if len(value.shape) != 2:
        raise DeductionError(f"expected a 2-D value, got rank {len(value.shape)}", 0)
    expected = (1, value.shape[1])
    # A boxed one-row tile (a matmul result with M = 1 is boxed to a whole fractal of rows) holds
    # its one row of values in row 0 of a taller buffer: its valid region is what must be [1, n].
    one_row = len(col.shape) == 2 and col.shape[1] == value.shape[1] and col.valid[0] == 1
    if col.shape != expected and not one_row:
        raise DeductionError(f"expected shape {list(expected)} (one value per column), got {list(col.shape)}", 1)
    return rebuild(value, value.shape, value.dtype, value.valid_shape)


def deduce_cast(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    return rebuild(value, value.shape, dtype_attr(attrs, "target_type"), value.valid_shape)


# -- matmul ------------------------------------------------------------------------------------------


def matmul_dims(lhs: Value, rhs: Value, a_trans: bool, b_trans: bool) -> tuple[int, int, int]:
    """(M, N, K) of lhs @ rhs after the transposes; raises on rank, dtype or K mismatch."""
    for index, operand in ((1, rhs), (0, lhs)):
        if len(operand.shape) != 2:
            raise DeductionError(f"expected a 2-D matrix, got rank {len(operand.shape)}", index,
                                 hint="batched (N-D) matmul is not supported; reshape to 2-D")
    if lhs.dtype not in MATMUL_ACCUMULATOR:
        names = ", ".join(d.name for d in MATMUL_ACCUMULATOR)
        raise DeductionError(f"expected dtype one of {names}, got {lhs.dtype.name}", 0)
    check_same_dtype(lhs, rhs, 1)
    m, k = (lhs.shape[1], lhs.shape[0]) if a_trans else lhs.shape
    k_rhs, n = (rhs.shape[1], rhs.shape[0]) if b_trans else rhs.shape
    if k != k_rhs:
        raise DeductionError(f"expected K = {k} rows (lhs is {list(lhs.shape)}), got K = {k_rhs} "
                             f"(rhs is {list(rhs.shape)})", 1)
    _, valid_k, _ = cube_extents(lhs.valid, rhs.valid, a_trans, b_trans)
    valid_k_rhs = rhs.valid[1] if b_trans else rhs.valid[0]
    if isinstance(valid_k, int) and isinstance(valid_k_rhs, int) and valid_k_rhs < valid_k:
        # The cube sums over the left operand's valid K (NUMERICS.md): rhs rows past its own
        # valid region would enter the sum.
        raise DeductionError(f"is valid over K = {valid_k_rhs} only, but the left operand over K = {valid_k}: the "
                             "product would sum rows of the right operand past its valid region", 1,
                             hint="give both operands one valid K (pl.set_validshape on the left one), or load the "
                                  "right operand over the whole K")
    return m, n, k


def cube_extents(lhs_valid: Sequence[E], rhs_valid: Sequence[E], a_trans: bool,
                 b_trans: bool) -> tuple[E, E, E]:
    """(M, K, N) a matmul computes, from its operands' valid extents (their last two axes, after
    a_trans / b_trans): M and K from the left operand's valid shape, N from the right's valid
    columns (NUMERICS.md section 1; pto.tmatmul / mad derive them from the operands' valid
    region, whatever was loaded past it). The one rule of a matmul of a narrowed operand: its
    product is computed over [M, N] only (summed over the first K rows of the right operand),
    whatever the result's type says -- tile.matmul's result is typed valid over it, while
    tensor.matmul's drops its operands' valid_shape (PyPTO) and is typed whole, its elements
    past [M, N] never written (the interpreter's poison; `languages.ops.data_extents` holds
    them as no data, so DefinedReads refuses a read of them)."""
    m, k = (lhs_valid[-1], lhs_valid[-2]) if a_trans else (lhs_valid[-2], lhs_valid[-1])
    n = rhs_valid[-2] if b_trans else rhs_valid[-1]
    return m, k, n


def computed_batch(batch: Sequence[int], lhs_shape: Sequence[int], lhs_valid: Sequence[int | None],
                   rhs_shape: Sequence[int], rhs_valid: Sequence[int | None]) -> tuple[int | None, ...]:
    """The batch indices a batched matmul computes, per batch axis (every axis but the last
    two, aligned from the right): below the valid extent of each operand spanning the axis (an
    operand whose axis is 1, or that has no such axis, is broadcast along it). A batch index
    past an operand's valid batch has no matrix of it to multiply: its product is not written.
    None: a runtime extent (no bound known)."""
    out: list[int | None] = []
    for axis in range(len(batch)):
        bound: int | None = batch[axis]
        for shape, valid in ((lhs_shape, lhs_valid), (rhs_shape, rhs_valid)):
            at = axis - len(batch) + len(shape) - 2
            if at < 0 or shape[at] == 1:
                continue
            extent = valid[at]
            bound = None if bound is None or extent is None else min(bound, extent)
        out.append(bound)
    return tuple(out)


def matmul_valid(lhs: Value, rhs: Value, a_trans: bool, b_trans: bool) -> Dims:
    """Valid (M, N): rows from the left operand's valid M, columns from the right's valid N
    (`cube_extents`)."""
    m, _, n = cube_extents(lhs.valid, rhs.valid, a_trans, b_trans)
    return (m, n)


def check_accumulator(acc: Value, dtype: DataType, shape: Dims, operand: int) -> None:
    if acc.dtype != dtype:
        raise DeductionError(f"expected dtype {dtype.name}, got {acc.dtype.name}", operand)
    if acc.shape != tuple(shape):
        raise DeductionError(f"expected shape {list(shape)} (the product's), "
                             f"got {list(acc.shape)}", operand)


def _trans(attrs: Attrs) -> tuple[bool, bool]:
    return bool(attr(attrs, "a_trans", False)), bool(attr(attrs, "b_trans", False))


def batch_dims(lhs: Value, rhs: Value) -> Dims:
    """The broadcast batch extent of a batched matmul (every axis but the last two); a rank-2
    operand is one matrix for every batch."""
    if len(lhs.shape) < 2 or len(rhs.shape) < 2:
        raise DeductionError("expected matrices of rank >= 2", 0 if len(lhs.shape) < 2 else 1)
    batch = broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2])
    if batch is None:
        raise DeductionError(f"batch dims {list(lhs.shape[:-2])} and {list(rhs.shape[:-2])} do not broadcast", 1)
    return batch


def batched_matmul_dims(lhs: Value, rhs: Value, a_trans: bool, b_trans: bool) -> tuple[Dims, int, int, int]:
    """(batch, M, N, K) of a matmul of rank >= 2 operands (the last two axes are the matrix)."""
    batch = batch_dims(lhs, rhs)
    m, n, k = matmul_dims(_matrix_of(lhs), _matrix_of(rhs), a_trans, b_trans)
    return batch, m, n, k


def _matrix_of(value: Value) -> Value:
    if isinstance(value, TensorType):
        return TensorType(value.shape[-2:], value.dtype, value.valid[-2:] if value.valid_shape is not None else None)
    return make_tile_type(value.shape[-2:], value.dtype, value.valid[-2:] if value.valid_shape is not None else None)


def _default_matmul_dtype(operand: DataType, accumulator: DataType) -> DataType:
    """PyPTO's tensor.matmul without out_dtype keeps the operands' float dtype (BF16 x BF16 is a
    BF16 tensor: its own programs annotate it so, and its parser checks annotations against the
    deduction); the FP32 accumulator narrows on the way out (FIXPIPE). An integer product has
    no narrower form than its INT32 accumulator."""
    return operand if operand.is_float else accumulator


def deduce_tensor_matmul(args: Sequence[Node], attrs: Attrs) -> Type:
    lhs, rhs = value_at(args, 0), value_at(args, 1)
    a_trans, b_trans = _trans(attrs)
    batch, m, n, _ = batched_matmul_dims(lhs, rhs, a_trans, b_trans)
    accumulator = MATMUL_ACCUMULATOR[lhs.dtype]
    out = attr(attrs, "out_dtype")
    dtype = out if isinstance(out, DataType) else _default_matmul_dtype(lhs.dtype, accumulator)
    allowed = {accumulator} | ({DataType.FP16, DataType.BF16} if accumulator is DataType.FP32 else set())
    if dtype not in allowed:
        raise DeductionError(f"attribute 'out_dtype' expected one of {sorted(d.name for d in allowed)}, got {dtype.name}")
    return TensorType((*batch, m, n), dtype)


def deduce_tensor_matmul_acc(args: Sequence[Node], attrs: Attrs) -> Type:
    acc, lhs, rhs = value_at(args, 0), value_at(args, 1), value_at(args, 2)
    a_trans, b_trans = _trans(attrs)
    batch, m, n, _ = batched_matmul_dims(lhs, rhs, a_trans, b_trans)
    check_accumulator(acc, MATMUL_ACCUMULATOR[lhs.dtype], (*batch, m, n), 0)
    check_init_cond(args, 3)
    return acc


def check_init_cond(args: Sequence[Node], index: int) -> None:
    """The optional split-K predicate: a BOOL scalar (true = this step starts the sum at +0)."""
    if len(args) > index and scalar_at(args, index).dtype is not DataType.BOOL:
        raise DeductionError(f"expected a BOOL scalar, got {describe(args[index])}", index,
                             hint="pass a condition such as `k == 0`, or True / False")


# -- reshape ------------------------------------------------------------------------------------------


def reshape_valid(shape: Dims, valid: Dims | None, new_shape: Dims) -> Dims | None:
    """Carry a valid region through a reshape without widening it: the box of `new_shape` that
    holds exactly the same (row-major) cells, or None when no box does (the catalogue's
    "Reshape and the valid region").  A fully valid source maps to a fully valid result."""
    if valid is None or tuple(valid) == tuple(shape):
        return tuple(new_shape)
    if any(v == 0 for v in valid):
        return tuple(0 for _ in new_shape)
    grids = np.meshgrid(*[np.arange(v) for v in valid], indexing="ij")
    flat = np.ravel_multi_index(tuple(g.ravel() for g in grids), tuple(shape))
    coords = np.unravel_index(flat, tuple(new_shape))
    box = tuple(int(c.max()) + 1 for c in coords)
    return box if int(np.prod(box)) == flat.size else None


# How many cells the symbolic reshape rule may enumerate (values of the runtime extents times
# the cells of the region at each): beyond it the reshape is declined rather than guessed.
SYMBOLIC_RESHAPE_BUDGET = 1 << 22


def reshape_extents(shape: Dims, valid: ValidDims, new_shape: Dims) -> ValidDims | None:
    """The operator spec's reshape rule with runtime extents ("A symbolic extent narrows what
    the rule can prove"): a runtime extent is carried unchanged onto the one dimension of
    `new_shape` whose extent is exactly it, for every value it can take, while every other
    dimension stays fixed; None when some value has no box or no such dimension exists. Decided
    by enumerating the values (each extent over [1, its dimension]: 0 is the empty box, which
    any spelling denotes), so it accepts exactly the reshapes that map for all of them."""
    if not any(isinstance(e, SymbolicExtent) for e in valid):
        return reshape_valid(shape, static_valid_dims(valid), new_shape)
    if any(e == 0 for e in valid):
        return tuple(0 for _ in new_shape)
    symbols = [(axis, e) for axis, e in enumerate(valid) if isinstance(e, SymbolicExtent)]
    if len({str(e) for _, e in symbols}) != len(symbols):
        raise DeductionError(f"not supported yet: a reshape of a valid shape {list(valid)} that holds one runtime "
                             "extent on two axes", 0)
    domains = [range(1, shape[axis] + 1) for axis, _ in symbols]
    combos = int(np.prod([len(d) for d in domains]))
    if combos * int(np.prod(shape)) > SYMBOLIC_RESHAPE_BUDGET:
        raise DeductionError(f"not supported yet: a reshape of {list(shape)} with the runtime valid extents "
                             f"{[str(e) for _, e in symbols]} (too many cells to prove the mapping)", 0,
                             hint="reshape before narrowing, or narrow with set_validshape after the reshape")
    # The candidate: the box with every extent at its largest value, then each extent moved
    # to another value alone must move exactly one target axis, to that value.
    top = [shape[axis] if isinstance(e, SymbolicExtent) else e for axis, e in enumerate(valid)]
    base = reshape_valid(shape, tuple(int(v) for v in top), new_shape)
    if base is None:
        return None
    result: list[Extent] = list(base)
    for axis, extent in symbols:
        if shape[axis] < 2:
            return None  # a unit axis gives no second value to tell its target axis by
        probe = list(top)
        probe[axis] = shape[axis] - 1
        moved = reshape_valid(shape, tuple(int(v) for v in probe), new_shape)
        if moved is None:
            return None
        changed = [j for j in range(len(new_shape)) if moved[j] != base[j]]
        if len(changed) != 1 or moved[changed[0]] != shape[axis] - 1 or isinstance(result[changed[0]], SymbolicExtent):
            return None
        result[changed[0]] = extent
    return _verified_symbolic_box(shape, valid, new_shape, tuple(result), symbols, domains)


def _verified_symbolic_box(shape: Dims, valid: ValidDims, new_shape: Dims, result: ValidDims,
                           symbols: list[tuple[int, SymbolicExtent]], domains: list[range]) -> ValidDims | None:
    """`result` if, for every value of the runtime extents, it denotes the very cells of the
    source region (each runtime extent on exactly one target axis)."""
    if sorted(str(e) for e in result if isinstance(e, SymbolicExtent)) != sorted(str(e) for _, e in symbols):
        return None
    for values in itertools.product(*domains):
        env = {str(e): v for (_, e), v in zip(symbols, values)}
        concrete = tuple(env[str(e)] if isinstance(e, SymbolicExtent) else e for e in valid)
        expected = tuple(env[str(e)] if isinstance(e, SymbolicExtent) else e for e in result)
        if reshape_valid(shape, concrete, new_shape) != expected:
            return None
    return result


def static_valid_dims(valid: ValidDims) -> Dims:
    return tuple(int(e) for e in valid if not isinstance(e, SymbolicExtent))


def deduce_reshape(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    new_shape = dims_at(args, 1, "shape")
    if int(np.prod(new_shape)) != int(np.prod(value.shape)):
        raise DeductionError(f"expected a shape of {int(np.prod(value.shape))} elements "
                             f"(as {list(value.shape)}), got {list(new_shape)}", 1)
    valid = reshape_extents(value.shape, value.valid_extents, new_shape)
    if valid is None:
        raise DeductionError(f"the valid region {list(value.valid_extents)} of {list(value.shape)} is not a box of "
                             f"{list(new_shape)}", 0, hint="valid_shape cannot describe the reshaped region")
    narrowed = optional_extents(args, 2, "valid_shape")
    if narrowed is not None:
        check_narrowing(narrowed, valid)
        valid = narrowed
    return rebuild(value, new_shape, value.dtype, valid)


def check_narrowing(narrowed: ValidDims, derived: ValidDims) -> None:
    """An explicit valid shape may only narrow the derived region: a constant within a constant,
    a runtime extent only where the derived one is that same extent."""
    fits = len(narrowed) == len(derived) and all(
        n == d or (isinstance(n, int) and isinstance(d, int) and 0 <= n <= d)
        or (isinstance(n, int) and n == 0) for n, d in zip(narrowed, derived))
    if not fits:
        raise DeductionError(f"valid_shape (within the derived valid region) expected extents within "
                             f"{list(derived)}, got {list(narrowed)}", 2)


def deduce_transpose(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    rank = len(value.shape)
    axes = [int_attr(attrs, "axis1"), int_attr(attrs, "axis2")]
    if any(not -rank <= a < rank for a in axes):
        raise DeductionError(f"attributes axis1/axis2 expected axes within rank {rank}, got {axes}")
    order = list(range(rank))
    a, b = axes[0] % rank, axes[1] % rank
    if a == b:
        # TTRANS always swaps: a "transpose" of an axis with itself would lower to a real one.
        raise DeductionError(f"attributes axis1/axis2 expected two different axes, got {axes}",
                             hint="drop the transpose: swapping an axis with itself changes nothing")
    order[a], order[b] = order[b], order[a]
    return rebuild(value, tuple(value.shape[i] for i in order), value.dtype, tuple(value.valid[i] for i in order))


def deduce_set_validshape(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    if len(value.shape) != 2:
        raise DeductionError(f"expected a 2-D value, got rank {len(value.shape)}", 0)
    extents: list[Extent] = []
    for index in (1, 2):
        scalar_at(args, index)
        extents.append(extent_of(args[index], index, "the valid extent"))
    check_valid_within(tuple(extents), value.shape, 1)
    if isinstance(value, TileType):
        result = TileType(value.shape, value.dtype, normalize_valid(value.shape, tuple(extents)),
                          value.memory_space, value.view)
        return _same_reader_pitch(value, result)
    return rebuild(value, value.shape, value.dtype, tuple(extents))


def _same_reader_pitch(source: TileType, result: TileType) -> TileType:
    """`result` (a re-validated `source`) with the view that keeps `source`'s row pitch: a compact
    accumulator's pitch follows its valid rows (MAD's layout), so narrowing them across a box
    would make readers walk other bytes. Where the source's pitch is its physical rows the result
    is not compact; where it is neither, no view keeps it."""
    pitch = reader_row_pitch(source)
    if pitch is None or reader_row_pitch(result) == pitch or result.view is None:
        return result
    if source.valid_extents[0] == source.shape[0]:
        # A compact tile valid in all its rows is an accumulator's storage being shaped for the
        # MAD that writes it (AutoTileMatmulL0's seed: create, then narrow): it holds no product
        # yet, so its valid rows set the pitch MAD will write at. (AccCompactValid checks that
        # no product is re-viewed this way.)
        return result
    if pitch == source.shape[0]:
        return replace(result, view=replace(result.view, compact=False))
    raise DeductionError(
        f"not supported yet: set_validshape to {result.valid_extents[0]} valid rows of a compact accumulator laid out "
        f"at a row pitch of {pitch} (its {source.valid_extents[0]} valid rows rounded to boxes, less than its "
        f"{source.shape[0]} rows): no view of the tile keeps that layout", 1)


# -- tensor-only memory and creation ops -------------------------------------------------------------


def tensor_at(args: Sequence[Node], index: int) -> TensorType:
    ty = type_of(args[index])
    if not isinstance(ty, TensorType):
        raise DeductionError(f"expected a tensor, got {describe(args[index])}", index)
    return ty


def _check_window_inside_valid(args: Sequence[Node], extent: Sequence[int | None], source: Value) -> None:
    """A slice reads its window's valid region from its source's valid region: past that is no
    value (padding, or data a narrowed view does not name), which the compiled slice and the
    reference would each see differently (campaign finding 6c68afa2aa)."""
    offsets = static_ints(args[2])
    if offsets is None or source.valid_shape is None:
        return
    limits = source.valid_extents
    for axis, (offset, size, limit) in enumerate(zip(offsets, extent, limits)):
        if isinstance(size, int) and isinstance(limit, int) and offset + size > limit:
            raise DeductionError(f"the slice's valid window [{', '.join(map(str, offsets))}] + "
                                 f"[{', '.join(str(e) for e in extent)}] reaches past the valid region "
                                 f"{list(limits)} of its source on axis {axis}: what lies there is no value", 2,
                                 hint="slice inside the source's valid region, or give the slice a valid_shape "
                                      "that ends inside it")


def deduce_slice(args: Sequence[Node], attrs: Attrs) -> Type:
    source = value_at(args, 0)
    shape = dims_at(args, 1, "shape")
    rank = len(source.shape)
    check_rank(args[1], len(shape), rank, 1, "shape")
    check_rank(args[2], list_len(args[2]), rank, 2, "offsets")
    valid = optional_extents(args, 3, "valid_shape")
    if valid is not None:
        check_valid_within(valid, shape, 3)
    check_window(static_ints(args[2]), known_extents(valid) if valid else shape, source.shape, 2, "the slice")
    _check_window_inside_valid(args, known_extents(valid) if valid else shape, source)
    if isinstance(source, TileType):
        space, view = source.memory_space, source.view
        return TileType(shape, source.dtype, normalize_valid(shape, valid), space, view)
    return TensorType(shape, source.dtype, normalize_valid(shape, valid))


def slice_source_region(source: Type, view: Type, args: Sequence[Node], attrs: Attrs,
                        wanted: tuple[int, ...]) -> tuple[int, ...] | None:
    """A window valid over `wanted` shows its source from its (constant) offsets on, so the
    source is valid over the offsets plus `wanted` (deduce_slice: a window lies inside its
    source's valid region)."""
    offsets = static_ints(args[2]) if len(args) > 2 else None
    if offsets is None or len(offsets) != len(wanted):
        return None
    return tuple(o + w for o, w in zip(offsets, wanted))


def reshape_source_region(source: Type, view: Type, args: Sequence[Node], attrs: Attrs,
                          wanted: tuple[int, ...]) -> tuple[int, ...] | None:
    """A reshape valid over `wanted` (its valid_shape, within the region its source's carries
    into its shape): the box of the source holding the same row-major cells, or the source's whole
    shape when no box does (the reshape's own valid_shape then narrows it to `wanted`)."""
    if not isinstance(source, (TensorType, TileType)) or not isinstance(view, (TensorType, TileType)) \
            or not all(isinstance(d, int) for d in (*source.shape, *view.shape)):
        return None
    shape, new = tuple(int(d) for d in view.shape), tuple(int(d) for d in source.shape)
    return reshape_valid(shape, wanted, new) or new


def own_valid_region(source: Type, view: Type, args: Sequence[Node], attrs: Attrs,
                     wanted: tuple[int, ...]) -> tuple[int, ...] | None:
    """set_validshape states its valid region whatever its source's: it needs nothing more of it."""
    if not isinstance(source, (TensorType, TileType)) or not all(isinstance(v, int) for v in source.valid):
        return None
    return tuple(int(v) for v in source.valid)


# The valid regions of the views (`ViewValid`): stated by an operand, given the source's region.
SLICE_VALID = ViewValid((3,), slice_source_region)
RESHAPE_VALID = ViewValid((2,), reshape_source_region)
SET_VALIDSHAPE_VALID = ViewValid((1, 2), own_valid_region)


def deduce_window(args: Sequence[Node], attrs: Attrs) -> Type:
    """A window of a GM tensor keeps the tensor's element strides (its rows stay as far apart as
    the tensor's): a column block of a packed [64, 64] is [64, 16] at strides [64, 1]."""
    source = value_at(args, 0)
    if not isinstance(source, TensorType):
        raise DeductionError(f"expected a GM tensor, got {describe(args[0])}", 0)
    shape = dims_at(args, 1, "shape")
    check_rank(args[1], len(shape), len(source.shape), 1, "shape")
    check_rank(args[2], list_len(args[2]), len(source.shape), 2, "offsets")
    check_window(static_ints(args[2]), shape, source.shape, 2, "the window")
    return TensorType(shape, source.dtype, None, source.element_strides)


def deduce_assemble(args: Sequence[Node], attrs: Attrs) -> Type:
    target, source = value_at(args, 0), value_at(args, 1)
    check_same_dtype(target, source, 1)
    check_rank(args[2], list_len(args[2]), len(target.shape), 2, "offsets")
    check_window(static_ints(args[2]), source.shape, target.shape, 2, "the assembled source")
    return target


def deduce_expand_clone(args: Sequence[Node], attrs: Attrs) -> Type:
    """src broadcast to target: the same rank and dtype, each src axis equal to target's or 1."""
    source, target = value_at(args, 0), value_at(args, 1)
    check_same_dtype(target, source, 0)
    if len(source.shape) != len(target.shape) or any(s not in (1, t) for s, t in zip(source.shape, target.shape)):
        raise DeductionError(f"shape {list(source.shape)} does not broadcast to the target's {list(target.shape)} "
                             "(same rank; each axis equal or 1)", 0)
    return target


def deduce_create(args: Sequence[Node], attrs: Attrs) -> Type:
    return TensorType(dims_at(args, 0, "shape"), dtype_attr(attrs, "dtype"))


def deduce_full(args: Sequence[Node], attrs: Attrs) -> Type:
    scalar_at(args, 1)
    return TensorType(dims_at(args, 0, "shape"), dtype_attr(attrs, "dtype"))


def deduce_read(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    check_rank(args[1], list_len(args[1]), len(value.shape), 1, "indices")
    indices = static_ints(args[1])
    valid = value.valid_extents
    if indices is not None and len(indices) == len(valid) and any(
            isinstance(extent, int) and not 0 <= index < extent for index, extent in zip(indices, valid)):
        # Past the valid region is no value of the tensor (padding, or bytes a narrowed view does
        # not name): the compiled read and the reference would each see something else there.
        raise DeductionError(f"element {list(indices)} lies outside the valid region {list(valid)} of "
                             f"{describe(args[0])}", 1, hint="read an element inside the valid region")
    return ScalarType(value.dtype)


def deduce_write(args: Sequence[Node], attrs: Attrs) -> Type:
    value = value_at(args, 0)
    check_rank(args[1], list_len(args[1]), len(value.shape), 1, "indices")
    scalar_at(args, 2)
    return value


def deduce_dim(args: Sequence[Node], attrs: Attrs) -> Type:
    value = tensor_at(args, 0)
    axis = int_attr(attrs, "axis")
    if not -len(value.shape) <= axis < len(value.shape):
        raise DeductionError(f"attribute 'axis' expected an axis within rank {len(value.shape)}, got {axis}")
    return INDEX


# -- the tensor op table -------------------------------------------------------------------------------

# Windows inside a source (shared with the tile ops of the same spelling).
_ATOMIC_ADD_DTYPES = frozenset({DataType.FP16, DataType.FP32, DataType.INT8, DataType.INT16, DataType.INT32})


def atomic_add_rules(tensor: int) -> tuple[DtypeIn, ...]:
    """The GM element types an atomic-add store accumulates into, per target (operand `tensor`
    is the destination): pto-isa's SetAtomicAdd sets an f16 / f32 / s8 / s16 / s32 / bf16 mode;
    PyPTO rejects BF16 atomic adds on Ascend950 (its codegen test suite)."""
    fix = "accumulate in FP32 (store an FP32 tile into an FP32 tensor) or use a plain store"
    return (
        DtypeIn(A2A3, "A2/A3's atomic-add store accumulates f16 / f32 / bf16 / s8 / s16 / s32 elements", fix,
                (("atomic", "add"),), operand=tensor, dtypes=_ATOMIC_ADD_DTYPES | {DataType.BF16}),
        DtypeIn(A5, "Ascend950's atomic-add store does not accumulate BF16", fix, (("atomic", "add"),),
                operand=tensor, dtypes=_ATOMIC_ADD_DTYPES),
    )


SLICE_WINDOW = Window(0, 2, (("list", 3), ("list", 1)))
ASSEMBLE_WINDOW = Window(0, 2, (("shape", 1),))
ELEMENT_WINDOW = Window(0, 1, (("ones",),))
GM_WINDOW = Window(0, 2, (("list", 1),))

_T = "tensor"
_X = OperandDecl("x", _T)


def _vec_inputs(tile_op: str, count: int) -> tuple[TileInput, ...]:
    return tuple(TileInput(i, (tile_op,)) for i in range(count))


def _binary_ops() -> list[OpDef]:
    table = (("add", "add", True), ("sub", "sub", True), ("mul", "mul", True), ("div", "div", True),
             ("maximum", "max", False), ("minimum", "min", False))
    ops: list[OpDef] = []
    for name, semantic, expands in table:
        tile_op = f"tile.{name}"
        expand = name if expands else semantic
        # A scalar rhs (`pl.add(x, 2.0)`) is the tensor-scalar form (tile.adds, tile.maximums, ...).
        ops.append(OpDef(
            f"tensor.{name}",
            (OperandDecl("lhs", _T), OperandDecl("rhs", "tensor_or_scalar", literal_dtype=0)),
            deduce_tensor_div if name == "div" else make_binary(broadcast=True), ("binary", semantic),
            "elementwise_binary", attrs=_HIGH_PRECISION if name in HIGH_PRECISION_OPS else (),
            to_tile=TileConversion(tile_op, _vec_inputs(tile_op, 2),
                                   scalar_rhs_op=SCALAR_FORMS[name],
                                   row_broadcast_op=f"tile.row_expand_{expand}",
                                   col_broadcast_op=f"tile.col_expand_{expand}"),
        ))
    return ops


# The tile-scalar op each tensor binary op takes for a scalar rhs (PyPTO names: maximum's
# scalar form is tile.maximums).
SCALAR_FORMS = {"add": "tile.adds", "sub": "tile.subs", "mul": "tile.muls", "div": "tile.divs",
                "maximum": "tile.maximums", "minimum": "tile.minimums"}


def _scalar_ops() -> list[OpDef]:
    return [
        OpDef(f"tensor.{name}", (_X, OperandDecl("scalar", "scalar", literal_dtype=0)), deduce_scalar,
              ("scalar_binary", name[:-1]), "elementwise_scalar", to_tile=TileConversion(f"tile.{name}", _vec_inputs(f"tile.{name}", 1)))
        for name in ("adds", "subs", "muls", "divs")
    ]


UNARY_FUNCTIONS = {"exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt", "abs": "abs", "neg": "neg",
                   "recip": "rec", "relu": "relu"}


# The ops with PyPTO's `high_precision=` flag (pto precisionType). tensor.rsqrt lowers its
# high-precision form to the tmp form of tile.rsqrt (the converter synthesizes the tmp).
HIGH_PRECISION_OPS = frozenset({"div", "log", "recip", "rsqrt"})
_HIGH_PRECISION = (AttrDecl("high_precision", "bool", False),)


def _unary_ops() -> list[OpDef]:
    return [
        OpDef(f"tensor.{name}", (_X,), make_unary(function), ("unary", function), "unary",
              attrs=_HIGH_PRECISION if name in HIGH_PRECISION_OPS else (),
              to_tile=TileConversion(f"tile.{name}", _vec_inputs(f"tile.{name}", 1),
                                     scratch_like=0 if name == "rsqrt" else None,
                                     scratch_when="high_precision" if name == "rsqrt" else None))
        for name, function in UNARY_FUNCTIONS.items()
    ]


def deduce_tensor_div(args: Sequence[Node], attrs: Attrs) -> Type:
    """tensor.div; high_precision needs a divisor of the dividend's shape: the scalar and
    broadcast lowerings (tile.divs, tile.row_expand_div / col_expand_div) have no such mode."""
    result = make_binary(broadcast=True)(args, attrs)
    if bool(attr(attrs, "high_precision", False)):
        lhs, rhs = type_of(args[0]), type_of(args[1])
        if not isinstance(rhs, TensorType) or not isinstance(lhs, TensorType) or tuple(rhs.shape) != tuple(lhs.shape):
            raise DeductionError("high_precision=True needs a tensor divisor of the dividend's shape (the scalar and "
                                 "broadcast forms have no high-precision mode)", 1)
    return result


def _reduction_ops() -> list[OpDef]:
    ops: list[OpDef] = []
    for direction, deduce in (("row", deduce_reduce_row), ("col", deduce_reduce_col)):
        for kind in ("sum", "max", "min"):
            name = f"{direction}_{kind}"
            ops.append(OpDef(f"tensor.{name}", (_X,), deduce, (f"reduce_{direction}", kind), f"reduce_{direction}",
                             to_tile=TileConversion(f"tile.{name}", _vec_inputs(f"tile.{name}", 1))))
    for op in ("add", "sub", "mul", "div"):
        name = f"row_expand_{op}"
        ops.append(OpDef(f"tensor.{name}", (_X, OperandDecl("row", _T)), deduce_row_expand, ("row_expand", op),
                         "row_expand", to_tile=TileConversion(f"tile.{name}", _vec_inputs(f"tile.{name}", 2))))
        name = f"col_expand_{op}"
        ops.append(OpDef(f"tensor.{name}", (_X, OperandDecl("col", _T)), deduce_col_expand, ("col_expand", op),
                         "col_expand", to_tile=TileConversion(f"tile.{name}", _vec_inputs(f"tile.{name}", 2))))
    return ops


_TRANS_ATTRS = (AttrDecl("a_trans", "bool", False), AttrDecl("b_trans", "bool", False))


def _matmul_ops() -> list[OpDef]:
    matmul = ("tile.matmul", "tile.batch_matmul")
    matmul_acc = ("tile.matmul_acc", "tile.batch_matmul_acc")
    return [
        OpDef("tensor.matmul", (OperandDecl("lhs", _T), OperandDecl("rhs", _T)), deduce_tensor_matmul, ("matmul",),
              "matmul", attrs=(*_TRANS_ATTRS, AttrDecl("out_dtype", "dtype")),
              to_tile=TileConversion("tile.matmul", (
                  TileInput(0, matmul, transpose_attr="a_trans", cube_m_axis=True),
                  TileInput(1, matmul, transpose_attr="b_trans", cube_n_axis=True)),
                  batched_op="tile.batch_matmul"),
              doc="An out_dtype narrower than the accumulator is a cast of the accumulator."),
        # The accumulator is not bridged: nothing but the cube unit writes Acc, so the converter
        # allocates it (tile.create(target_memory=Acc), boxed and compact with the left operand's M).
        # init_cond true starts the sum at +0 instead of the accumulator (the split-K idiom); it
        # converts to tile.matmul_acc's operand of the same name.
        OpDef("tensor.matmul_acc", (OperandDecl("acc", _T), OperandDecl("lhs", _T), OperandDecl("rhs", _T),
                                    OperandDecl("init_cond", "scalar", optional=True)),
              deduce_tensor_matmul_acc, ("matmul_acc",), "matmul", attrs=_TRANS_ATTRS,
              output_memory=ReusesInput(0),
              to_tile=TileConversion("tile.matmul_acc", (
                  TileInput(1, matmul_acc, transpose_attr="a_trans", cube_m_axis=True),
                  TileInput(2, matmul_acc, transpose_attr="b_trans", aligned_n=True)),
                  batched_op="tile.batch_matmul_acc")),
    ]


def _shape_ops() -> list[OpDef]:
    return [
        OpDef("tensor.cast", (_X,), deduce_cast, ("cast",), "cast",
              attrs=(AttrDecl("target_type", "dtype", positional=True),
                     AttrDecl("mode", "str", "round", CAST_MODES, positional=True)),
              to_tile=TileConversion("tile.cast", _vec_inputs("tile.cast", 1))),
        OpDef("tensor.reshape", (_X, OperandDecl("shape", "int_list"), OperandDecl("valid_shape", "int_list", optional=True)),
              deduce_reshape, ("reshape",), "view", output_memory=VIEW_OF_OPERAND,
              to_tile=TileConversion("tile.reshape", (TileInput(0),))),
        OpDef("tensor.transpose", (_X,), deduce_transpose, ("transpose",), "transpose",
              attrs=(AttrDecl("axis1", "int", positional=True), AttrDecl("axis2", "int", positional=True)),
              to_tile=TileConversion("tile.transpose", _vec_inputs("tile.transpose", 1))),
        OpDef("tensor.set_validshape", (_X, OperandDecl("rows", "scalar"), OperandDecl("cols", "scalar")),
              deduce_set_validshape, ("set_validshape",), "view", output_memory=VIEW_OF_OPERAND,
              to_tile=TileConversion("tile.set_validshape", (TileInput(0),))),
        OpDef("tensor.slice", (_X, OperandDecl("shape", "int_list"), OperandDecl("offsets", "int_list"),
                               OperandDecl("valid_shape", "int_list", optional=True)),
              deduce_slice, ("slice",), "view", output_memory=VIEW_OF_OPERAND,
              to_tile=TileConversion("tile.load", self_loading=True),
              window=SLICE_WINDOW,
              doc="Lowers to a tile.load of the window (or a tile.slice of an on-chip source)."),
        OpDef("tensor.window", (_X, OperandDecl("shape", "int_list"), OperandDecl("offsets", "int_list")),
              deduce_window, ("window",), "view", output_memory=VIEW_OF_OPERAND, window=GM_WINDOW,
              doc="Host code only: the window of a GM tensor a kernel is called on (an orchestration "
                  "pl.slice, or the window a kernel's result is assembled into): no copy, the kernel gets "
                  "the tensor's base plus the window's offset, at the tensor's strides."),
        OpDef("tensor.assemble", (OperandDecl("target", _T, effect=WRITE), OperandDecl("source", "tensor_or_tile"),
                                  OperandDecl("offsets", "int_list")),
              deduce_assemble, ("assemble",), "memory", output_memory=ReusesInput(0),
              to_tile=TileConversion("tile.store", self_loading=True), window=ASSEMBLE_WINDOW,
              attrs=(AttrDecl("atomic", "str", "none", ("none", "add")),),
              effect_when=(("atomic", "add", 0, READ_WRITE),), target_rules=atomic_add_rules(0),
              doc="Writes source into a window of target; the result is target (atomic='add' "
                  "accumulates into it, so it is read as well)."),
        OpDef("tensor.expand_clone", (OperandDecl("src", _T), OperandDecl("target", _T, effect=WRITE)),
              deduce_expand_clone, ("expand_clone",), "memory", output_memory=ReusesInput(1),
              to_tile=TileConversion("tile.store", self_loading=True),
              doc="Writes src broadcast to target's shape (NumPy rules, same rank) over all of target; the "
                  "result is target."),
        OpDef("tensor.create", (OperandDecl("shape", "int_list"),), deduce_create, ("create",), "create",
              attrs=(AttrDecl("dtype", "dtype", positional=True),),
              to_tile=TileConversion("tile.create", self_loading=True)),
        OpDef("tensor.full", (OperandDecl("shape", "int_list"), OperandDecl("value", "scalar", literal_dtype="dtype")), deduce_full,
              ("full",), "create", attrs=(AttrDecl("dtype", "dtype"),), signature=("shape", "dtype", "value"),
              to_tile=TileConversion("tile.full", self_loading=True)),
        OpDef("tensor.read", (_X, OperandDecl("indices", "int_list")), deduce_read, ("read",), "scalar_access",
              pto=("pto.load_scalar",), window=ELEMENT_WINDOW,
              doc="One GM element through the D-cache (pto.load_scalar)."),
        OpDef("tensor.write", (OperandDecl("x", _T, effect=WRITE), OperandDecl("indices", "int_list"),
                               OperandDecl("value", "scalar", literal_dtype=0)),
              deduce_write, ("write",), "scalar_access", output_memory=ReusesInput(0), pto=("pto.store_scalar",),
              window=ELEMENT_WINDOW),
        OpDef("tensor.dim", (_X,), deduce_dim, ("dim",), "scalar_access",
              attrs=(AttrDecl("axis", "int", positional=True),), pto=("pto.get_tensor_view_dim",)),
    ]


OPS: tuple[OpDef, ...] = tuple(
    _binary_ops() + _scalar_ops() + _unary_ops() + _reduction_ops() + _matmul_ops() + _shape_ops()
)

__all__ = ["ASSEMBLE_WINDOW", "ELEMENT_WINDOW", "SLICE_WINDOW", "CAST_MODES", "MATMUL_ACCUMULATOR", "OPS", "broadcast_shapes", "reshape_valid"]
