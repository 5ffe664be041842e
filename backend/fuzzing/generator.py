"""Random well-typed Tensor-language programs for fuzzing campaigns (Hypothesis strategies).

A generated program is one or more InCore kernels plus an Orchestration `main` that calls them
(a later kernel may consume an earlier kernel's result, several kernels may read one tensor, a
kernel may write a tensor it also reads). Every call's type comes from the op registry's own
deduction (`REGISTRY.deduce`), so a program is valid by construction: if the frontend rejects
one, the generator has a bug, and the campaign says so.

What it draws from, and why nothing here lists operators:

* Operators come from the op registry (`backend.fuzzing.registry_calls`): a kernel step picks
  any registered `tensor.*` op with a tile lowering (tensor kernels) or any `tile.*` op
  (hand-written tile kernels, which the DSL admits in InCore bodies), and builds the call from
  the op's declaration -- operand kinds, dtypes (`ELEMENT_TYPES`), memory spaces
  (`input_memory` / `accepted_memory`: tile kernels load into Vec and Mat, move into Left / Right /
  Bias, compute into Acc), windows (`OpDef.window`), attributes -- keeping it only when the
  registry's deduction accepts it. A newly registered op is exercised with no edit here; the
  campaign's coverage table shows any op no program reached.
* Constructs come from the DSL grammar, each one a recipe: straight-line vector chains, scalar
  arithmetic on values read from tensors (`tensor.read`, `tensor.dim`), loops carrying one to
  three values (element-wise recurrences, reductions, the online-softmax shape), nested loops,
  `if` / `else` inside loops with phis and stores (`tensor.assemble`) in both branches, cube
  kernels (matmul / matmul_acc chains, M not a box multiple, K peels, outputs beyond L0C (some
  returned with windows of them, or through set_validshape views), int8,
  out_dtype, narrowed left operands, user-written split-K loops), matmuls inside loops with a
  carried accumulator, mixed cube + vector kernels (a matmul result feeding vector steps, flash
  attention), views (slice, set_validshape, reshape, transpose) feeding matmuls and vector ops,
  values with several consumers, and orchestration with several kernels and GM re-reads;
  scalars read from GM parameters (pto.load_scalar) and tile elements (tile.read), FP32 scalars
  round-tripped through FP16 / BF16, unsigned `//` / `%` / compares in `if` conditions, windows
  re-viewed (reinterpret / transpose) and computed on, broadcasts against a narrowed operand, and
  runtime valid extents (a load narrowed by an INDEX parameter, stored into an InOut one). A
  scalar nothing reads is folded into a result (`consume_scalars`), so no scalar is dead code.

Coverage tags (the campaign's coverage table): the name of every op called, `op/DTYPE` per
operand dtype, `op:operand@Space` per operand memory space, `construct:...` per recipe, and the
shape / dtype corners of the cube recipes.

Steering (`programs(focus=...)`): a campaign draws every other chunk toward the registered ops
it has not exercised yet (`registry_calls.steering_focus`); such a program's first kernel is
drawn for one of them. A fifth of the programs are re-spelled in the DSL's own forms
(`dsl_spellings`: pl.at scopes, Inline helpers, reassigned names, pl.unroll), so the frontend
passes are exercised too.

Shrinking works toward the first entry of every choice list: the smallest shapes, one kernel,
few steps, no DSL spelling. Features can be switched off one by one (`Features`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Sequence

from hypothesis import reject
from hypothesis import strategies as st
from typing_extensions import override

from backend.targets.handlers import get_backend
from backend.fuzzing.dsl_spellings import SPELLINGS, dsl_text
from backend.fuzzing.registry_calls import (ELEMENT_TYPES, FLOAT_TYPES, RANK_LIMITS, Pool, draw_call, generatable,
                                            WORKSPACE_OPERANDS, column_major_view, generatable_ops, on_chip_read_gap,
                                            operand_domain, target_violation)
from languages.functions import returned_aliases
from languages.gen import tensor as T
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, SAME_BYTES_VIEWS, Effect, OpDef
from languages.ops.index_ops import GATHER_DTYPES
from languages.ops.target_rules import WholeRows
from languages.ops.data_extents import (WHOLE, Written, array_type, extents, read_extent, reads_past, reads_past_valid,
                                         result_data, views_nothing)
from languages.ops.gm_store_paths import (SCALAR, aliased_operand, gm_accesses, incoherent, shared_through_the_dcache,
                                          store_paths)
from languages.ops.pipe_ops import DEFAULT_SLOT_NUM
from languages.ops.pto_ops import ARITH_BINARY, ARITH_COMPARE, ARITH_UNSIGNED_COMPARE, SCALAR_CAST_TYPES, is_unsigned_int
from languages.ops.tensor_ops import CAST_MODES
from languages.ops.vector_ops import reinterpret_on_chip_gap
from languages.pl_printer import print_program
from languages.types import BOOL, INDEX, AttrValue, DataType, ScalarType, TensorType, TileType, TupleType, Type
from languages.layout import box_shape
from languages.views import flat_reshape_gap, implicit_view
from nanopass.diagnostics import CompileError

Draw = Callable[[st.SearchStrategy[Any]], Any]

F32, F16, BF16, I8, I32 = DataType.FP32, DataType.FP16, DataType.BF16, DataType.INT8, DataType.INT32
U16, U32 = DataType.UINT16, DataType.UINT32


@dataclass(frozen=True)
class Features:
    """What the generator may use; each flag gates one family of constructs."""

    elementwise: bool = True
    reductions: bool = True
    casts: bool = True
    matmul: bool = True
    matmul_acc: bool = True
    int8: bool = True
    low_precision: bool = True  # f16 / bf16 data
    integers: bool = True  # integer element types in vector kernels
    partial_valid: bool = True  # slices with a partial valid_shape
    slices: bool = True
    assemble: bool = True
    loops: bool = True
    nested_loops: bool = True
    branches: bool = True  # if / else with phis and stores in both branches
    multi_kernel: bool = True
    mixed_kernels: bool = True  # cube and vector work in one kernel
    tile_kernels: bool = True  # hand-written tile.* kernels (every tile op, every operand space)
    registry_ops: bool = True  # steps drawn from every registered op (off: the cube recipes only)
    scalar_math: bool = True  # scalars read from tensors, index arithmetic, tensor.dim
    big_shapes: bool = True  # outputs beyond L0C, long K
    small_shapes: bool = False  # only the first few (smallest) shapes: the throughput benchmark's programs
    narrowed_left: bool = True  # a matmul's left operand with valid rows >= 16 short of its rows (compact Acc)
    int8_unaligned_n: bool = True  # int8 matmul whose N is not a multiple of its 32-wide box
    nd_tensors: bool = True  # rank-1 and rank-3 vector kernels (FlattenTileNdTo2D's row packing)
    user_k_loops: bool = True  # a user-written split-K loop: sliced K blocks, matmul_acc carried by pl.range
    dsl_spellings: bool = True  # some programs re-spelled in the DSL (pl.at scopes, Inline helpers, reassignment)
    # Shapes the spec declines (a clear diagnostic, not a compiled program) are never generated:
    # a matmul_acc's N not a whole number of boxes (its right operand is not boxed), and any K
    # not a whole number of the operand's K box (K is never padded: 16, or 32 for int8).

    @staticmethod
    def parse(text: str) -> Features:
        """`"all"`, or a comma list of `name` / `-name` / `+name` edits of the defaults."""
        result = Features()
        names = {f.name for f in fields(Features)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            if item == "all":
                result = Features(**{name: name != "small_shapes" for name in names})
                continue
            flag = not item.startswith("-")
            name = item.lstrip("+-").replace("-", "_")
            if name not in names:
                raise ValueError(f"unknown generator feature {name!r} (known: {', '.join(sorted(names))})")
            result = replace(result, **{name: flag})
        return result

    def describe(self) -> str:
        return ",".join(f.name for f in fields(self) if getattr(self, f.name))


# Choice lists are ordered simplest first: Hypothesis shrinks toward index 0.
VECTOR_ROWS = (1, 16, 8, 2, 3, 17, 32, 5)
VECTOR_COLS = (16, 32, 1, 8, 64, 24, 128, 40, 12)  # 12: rows padded at every width (48 B FP32)
# Element types TCMP / TCMPS take on both targets (pto-isa a2a3 TCmp.hpp: int32_t, half, float).
_COMPARED_EVERYWHERE = (F32, F16, I32)
CUBE_M = (16, 1, 20, 32, 7, 64, 100, 33)
CUBE_N = (16, 32, 1, 64, 48, 128, 20)
CUBE_K = (16, 32, 64, 48, 80, 128, 272)
# (M, K, N): output beyond L0C (an output grid, some with partial last rows / columns of
# sub-tiles), a right panel beyond L0B (a narrow product tiled along N), or long K.
BIG_CUBE = ((300, 16, 128), (256, 64, 256), (200, 32, 256), (128, 512, 64), (512, 32, 128), (300, 64, 200),
            (160, 32, 328), (20, 64, 1152))
# (M, K, N) that split K across L0 blocks (with a peeled tail), most with a row-narrowed (boxed) M.
K_SPLIT_CUBE = ((100, 272, 32), (20, 1040, 48), (64, 272, 32), (33, 528, 32), (1, 1056, 32))
CUBE_DTYPES = (F16, F32, BF16, I8)
# Where a cast loses precision, so its rounding mode is observable.
NARROWING = {F32: F16, F16: BF16, BF16: F16}
SCALARS = (0.5, 2.0, -1.5, 3.0, 0.1, -0.0, 1e-3, 65504.0)
# Leading axes of a rank-3 vector tensor (row packing multiplies them into the rows).
ND_LEADING = (2, 3, 4)
# (K, K block) of a user-written split-K loop: at least two blocks, so the loop runs.
USER_K_SPLITS = ((64, 32), (64, 16), (96, 32), (128, 64), (128, 32))
assert set(CAST_MODES)  # the registry's modes: tensor.cast's `mode` choices are drawn from it


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _index(value: int) -> T.ConstInt:
    return T.ConstInt(value, INDEX.dtype)


def _dims(values: Sequence[int]) -> T.TupleExpr:
    return T.TupleExpr(tuple(_index(v) for v in values))


def _zeros(rank: int) -> T.TupleExpr:
    return _dims((0,) * rank)


FLOAT_DECLINED = frozenset({"//", "%"})
# Scalar parameters the generator names `k<n>` feed arithmetic only (never an extent or a loop
# bound): the fuzz target draws them with either sign, so floor division / modulo see negatives.
SIGNED_SCALAR_PREFIX = "k"
# An INDEX scalar parameter giving a runtime valid extent (`ragged_rows`) is named
# `ve<bound>n<counter>`: the fuzz target draws its value in 1..bound (`valid_extent_bound`).
VALID_EXTENT_PREFIX = "ve"
# Same-width element types a window may be re-viewed as (`window_view`: tile.reinterpret_view).
SAME_WIDTH = {bits: tuple(d for d in ELEMENT_TYPES if d.bits == bits) for bits in (8, 16, 32)}


def valid_extent_bound(name: str) -> int | None:
    """The bound of a `ragged_rows` extent parameter named `name` (`ve<bound>n<counter>`), else None."""
    if not name.startswith(VALID_EXTENT_PREFIX):
        return None
    bound, sep, counter = name[len(VALID_EXTENT_PREFIX):].partition("n")
    return int(bound) if sep and bound.isdigit() and counter.isdigit() else None


# Op families whose result depends on an operand's valid extent, not only on its valid elements.
VALID_OBSERVERS = frozenset({"reduce_row", "reduce_col"})


def _uses(body: Sequence[T.Stmt], name: str) -> int:
    from nanopass.node import walk

    return sum(1 for stmt in body for node in walk(stmt) if node.KIND == "Var" and getattr(node, "name") == name) - 1


# The vector families a window is computed on by `window_computed` (its elements read in place).
_WINDOW_COMPUTE_FAMILIES = frozenset({"unary", "elementwise_binary", "reduce_col", "reduce_row"})


def _by_semantics(prefix: str, semantics: tuple[str, ...]) -> str | None:
    """The registered op of `prefix` with these semantics (e.g. the tensor-scalar `or`)."""
    for op in REGISTRY:
        if op.prefix == prefix and op.semantics == semantics:
            return op.name
    return None


def _ops_of(prefix: str, family: str) -> list[str]:
    return sorted(op.name for op in REGISTRY if op.prefix == prefix and op.family == family)


def _width_minus_log2(dtype: DataType) -> int:
    return dtype.bits - (dtype.bits.bit_length() - 1)


# How a random integer value is brought into an operand's domain, recipe by recipe (each a list of
# scalar steps (semantics, scalar of the element type)); the first the target takes is used.
# shift: AND (width - 1); else an arithmetic shift right keeping log2(width) bits ([-w/2, w/2) when
# signed) plus w/2. nonzero: OR 1; else 2x + 1 (odd, so nonzero even when the product wraps).
DOMAIN_RECIPES: dict[str, tuple[tuple[tuple[str, Callable[[DataType], int]], ...], ...]] = {
    "shift": (
        (("and", lambda dtype: dtype.bits - 1),),
        (("shr", _width_minus_log2), ("add", lambda dtype: dtype.bits // 2 if dtype.is_signed else 0)),
    ),
    "nonzero": (
        (("or", lambda dtype: 1),),
        (("mul", lambda dtype: 2), ("add", lambda dtype: 1)),
    ),
}


def computed_operand_fits(arch: str | None, m: int, k: int, n: int, dtype: DataType) -> bool:
    """Whether an [m, k] left operand computed on chip, times a [k, n] one, compiles on `arch`.
    Where Vec -> Mat is no data path (Ascend910B) the operand crosses the pipe whole (its valid
    rectangle; ExpandMixedKernel pushes the value, the cube pops it boxed) and the product comes
    back: the vector kernel holds the value (beside its source while it is computed, then beside
    the slot region of the product's direction: DEFAULT_SLOT_NUM - 1 slots as large as the largest
    tile the pipe carries, the boxed operand, and the product's own, with the product's consumer),
    in Vec; AllocateMemoryAddr refuses more (finding e4d1c8d667)."""
    target = get_backend(arch or "a2a3")
    if target.can_move(MemorySpace.Vec, MemorySpace.Mat):
        return True
    box_rows = (box_shape(implicit_view(MemorySpace.Mat, (m, k)), dtype) or (16, 16))[0]
    value = m * k * dtype.byte_width
    boxed = _round_up(m, box_rows) * k * dtype.byte_width
    product = _round_up(m, box_rows) * n * 4  # an FP32 accumulator's rows, as they are popped
    return value + max(value, (DEFAULT_SLOT_NUM - 1) * boxed + 2 * product) <= target.vec_capacity_bytes


def _shape_of(arg: T.Expr) -> tuple[object, ...]:
    return tuple(getattr(getattr(arg, "type", None), "shape", ()))


@dataclass
class _KernelBuilder:
    """Draws one InCore kernel: parameters, a body (straight-line, looped, branching), results."""

    draw: Draw
    features: Features
    name: str
    params: list[T.Param] = field(default_factory=list)
    body: list[T.Stmt] = field(default_factory=list)
    values: list[T.Var] = field(default_factory=list)
    ops: set[str] = field(default_factory=set)
    counter: int = 0
    returns: list[T.Var] = field(default_factory=list)
    views: set[str] = field(default_factory=set)  # values that lower to a view of another tile
    gm: set[str] = field(default_factory=set)  # values that are GM tensors (parameters, stores into them)
    param_views: set[str] = field(default_factory=set)  # views of a parameter (placed where their consumer is)
    created: set[str] = field(default_factory=set)  # results of creation ops (fills, seeds)
    undefined: set[str] = field(default_factory=set)  # buffers with undefined contents (tensor / tile create)
    updated: set[str] = field(default_factory=set)  # values an in-place op (ReusesInput) or a loop updates
    boxed: set[str] = field(default_factory=set)  # cube results with a box-rounded M / N, and their derivatives
    reshaped: set[str] = field(default_factory=set)  # reshape / view / reinterpret results (flat data)
    overwritten: set[str] = field(default_factory=set)  # on-chip values an in-place op wrote over
    # The data extent of a value whose padding holds no data (languages.ops.data_extents): an
    # element-wise step over it and a wider operand would read that padding (DefinedReads).
    data: dict[str, Written] = field(default_factory=dict)
    arch: str = ""  # the target architecture (BackendHandler.arch): whose OpDef.target_rules steps keep
    roots: dict[str, str] = field(default_factory=dict)  # a view -> the value whose buffer it re-views
    # Views of some columns of a wider tile (an on-chip slice): their rows lie the parent's pitch
    # apart, which a `WholeRows` operand (the index form of gather / scatter) must not be.
    column_windows: set[str] = field(default_factory=set)
    # The op a steered campaign wants this kernel to call (`programs(focus=...)`): the recipe,
    # the element type and the first steps are drawn for it; None: nothing is steered.
    focus: OpDef | None = None
    transposed: set[str] = field(default_factory=set)  # transpose_view results (column-major once placed)
    steered: tuple[OpDef, ...] = ()  # the steered campaign's other targets: later steps prefer them
    # The GM parameters a value names (a parameter, a write / assemble into one), and the store
    # paths (languages.ops.gm_store_paths) the kernel has written each parameter by.
    gm_roots: dict[str, frozenset[str]] = field(default_factory=dict)
    gm_stores: dict[str, set[str]] = field(default_factory=dict)
    # GM parameter -> (reads, writes, path) of every call touching its data (gm_store_paths).
    gm_touched: dict[str, set[tuple[bool, bool, str]]] = field(default_factory=dict)
    windows: set[str] = field(default_factory=set)  # on-chip tile windows (tile.slice results)
    same_bytes: dict[str, str] = field(default_factory=dict)  # a same-bytes view -> the value it re-views
    conditioned_values: set[str] = field(default_factory=set)  # results of `condition`: in their domain
    # A tile kernel written as a user hand-places one (`nanopass_pto.hand_placed`; a program-wide draw):
    # every tile it makes is placed (loads and scratch buffers name their space), so the program
    # can be spelled at TilePlaced; its stores sometimes go into parameters declared `In`.
    hand_placed: bool = False
    loaded: list[tuple[T.Var, T.Var]] = field(default_factory=list)  # (GM parameter, its whole Vec load)
    kept: list[T.Var] = field(default_factory=list)  # values a recipe has the kernel return (not dead code)

    # -- drawing ------------------------------------------------------------------------------

    def int_draw(self, low: int, high: int) -> int:
        return int(self.draw(st.integers(low, high)))

    def pick(self, options: Sequence[Any]) -> Any:
        # An index draw: `st.integers` strategies are cached by Hypothesis, `sampled_from` over a
        # fresh list is rebuilt and validated on every call (it was half the generation time).
        return options[self.int_draw(0, len(options) - 1)]

    def pick_common(self, options: Sequence[Any], common: int = 3, percent: int = 80) -> Any:
        """Usually one of the first `common` options (small, fast to simulate), sometimes any."""
        if self.features.small_shapes:
            return self.pick(options[:common])
        return self.pick(options[:common] if self.chance(percent) else options)

    def chance(self, percent: int) -> bool:
        return self.int_draw(0, 99) < percent

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def tag(self, *tags: str) -> None:
        self.ops.update(tags)

    # -- values ---------------------------------------------------------------------------------

    def param(self, ty: TensorType, prefix: str = "x", direction: str = "In") -> T.Var:
        var = T.Var(self.fresh(prefix), ty)
        self.gm.add(var.name)
        self.gm_roots[var.name] = frozenset({var.name})
        self.params.append(T.Param(var, direction))
        self.values.append(var)
        return var

    def call(self, op: str, args: Sequence[T.Expr], attrs: tuple[tuple[str, AttrValue], ...] = (),
             prefix: str = "t", block: list[T.Stmt] | None = None, pool: list[T.Var] | None = None) -> T.Var:
        args = self.conditioned(op, args, block)
        ty = REGISTRY.deduce(op, tuple(args), attrs)
        if self.arch and op in REGISTRY and target_violation(REGISTRY.get(op), self.arch, args, attrs, ty, self.roots,
                                                                      self.column_windows):
            raise TargetRuleMiss(op)  # a recipe's own call the target does not take: the kernel is redrawn
        if op in REGISTRY and self.mixes_store_paths(op, args, attrs):
            raise TargetRuleMiss(op)  # GmStoreCoherence would refuse the kernel: it is redrawn
        if op in REGISTRY and self.shares_through_the_dcache(op, args, attrs):
            raise TargetRuleMiss(op)  # ExpandMixedKernel may refuse it (cores sharing via the D-cache)
        if op in REGISTRY and self.reads_no_data(op, args, ty):
            raise TargetRuleMiss(op)  # DefinedReads would refuse the kernel: it is redrawn
        if self.reshapes_a_window(op, args):
            raise TargetRuleMiss(op)  # ViewLegality would refuse the kernel: it is redrawn
        if op in REGISTRY and args and on_chip_read_gap(REGISTRY.get(op), 0, getattr(args[0], "type", None),
                                                        isinstance(args[0], T.Var) and args[0].name in self.gm):
            raise TargetRuleMiss(op)  # ConvertTensorToTileOps would refuse the read: it is redrawn
        var = T.Var(self.fresh(prefix), ty)
        (self.body if block is None else block).append(T.AssignStmt(var, T.Call(op, tuple(args), attrs, ty)))
        self.ops.add(op)
        self.note_stores(var, op, args, attrs)
        self.note_view(var, op, args)
        self.note_data(var, op, args, ty, attrs)
        (self.values if pool is None else pool).append(var)
        return var

    def condition(self, value: T.Var, domain: str, block: list[T.Stmt] | None) -> T.Var | None:
        """`value` brought into an operand domain on integer data (NUMERICS.md section 2) by the first
        recipe of DOMAIN_RECIPES whose steps the target takes (A2/A3's tands / tors take no 32-bit
        elements, so a 32-bit shift count is brought into range by shifting instead)."""
        ty = value.type
        if not isinstance(ty, (TileType, TensorType)) or ty.dtype.is_float:
            return None
        prefix = "tile" if isinstance(ty, TileType) else "tensor"
        for recipe in DOMAIN_RECIPES[domain]:
            made = value
            try:
                for operation, operand in recipe:
                    op = _by_semantics(prefix, ("scalar_binary", operation))
                    if op is None:
                        raise TargetRuleMiss(operation)  # the registry has no such step
                    scalar = operand(ty.dtype)
                    if scalar != 0 or operation not in ("add", "or"):  # adding / OR-ing 0 changes nothing
                        made = self.call(op, (made, T.ConstInt(scalar, ty.dtype)), prefix="d", block=block, pool=[])
            except (TargetRuleMiss, CompileError):
                continue  # a step this element type or target does not take: the next recipe
            if made is not value:
                self.tag(f"domain:{domain}")
                self.conditioned_values.add(made.name)
                return made
        return None

    def conditioned(self, op: str, args: Sequence[T.Expr], block: list[T.Stmt] | None) -> Sequence[T.Expr]:
        """`args` with the operands `op` reads in a domain conditioned: a recipe's own call (a
        construct that calls an op directly, not through the registry step's operand draw) must not
        hand random data to a divisor or shift count, or the program faults in the reference."""
        if op not in REGISTRY:
            return args
        opdef = REGISTRY.get(op)
        out = list(args)
        for index, arg in enumerate(args):
            domain = operand_domain(opdef, index)
            if domain and isinstance(arg, T.Var) and arg.name not in self.conditioned_values:
                made = self.condition(arg, domain, block)
                if made is not None:
                    out[index] = made
        return out

    def load(self, tensor: T.Var, space: MemorySpace | None, block: list[T.Stmt] | None = None,
             pool: list[T.Var] | None = None) -> T.Var:
        assert isinstance(tensor.type, TensorType)
        shape = tensor.type.shape
        attrs: tuple[tuple[str, AttrValue], ...] = (("target_memory", space),) if space is not None else ()
        return self.call("tile.load", (tensor, _zeros(len(shape)), _dims(shape)), attrs, prefix="l", block=block,
                         pool=pool)

    def make_pool(self, block: list[T.Stmt] | None, values: list[T.Var], tiles: bool) -> Pool:
        """The registry step's view of the scope: `values`, plus fresh parameters (tiles: loaded
        into Vec), scratch buffers and the domain conditioning (integer divisors, shift counts)."""

        def fresh_param(ty: Type, prefix: str) -> T.Var | None:
            if isinstance(ty, TileType):
                tensor = self.param(TensorType(ty.shape, ty.dtype), prefix)
                self.values.remove(tensor)
                return self.load(tensor, MemorySpace.Vec, block, values)
            if isinstance(ty, TensorType):
                made = self.param(ty, prefix)
                if values is not self.values:
                    values.append(made)
                return made
            return None

        def fresh_value(ty: Type) -> T.Var | None:
            return fresh_param(ty, "x")

        def fresh_index(ty: Type) -> T.Var | None:
            return fresh_param(ty, INDEX_PARAM)

        def scratch(ty: Type) -> T.Var | None:
            if not isinstance(ty, (TileType, TensorType)):
                return None
            op = "tile.create" if isinstance(ty, TileType) else "tensor.create"
            attrs: tuple[tuple[str, AttrValue], ...] = (("dtype", ty.dtype),)
            if self.hand_placed and isinstance(ty, TileType):
                attrs += (("target_memory", ty.memory_space or MemorySpace.Vec),)
            return self.call(op, (_dims(ty.shape),), attrs, prefix="scratch", block=block, pool=[])

        def condition(value: T.Var, domain: str) -> T.Var | None:
            return self.condition(value, domain, block)

        return Pool(values, fresh_value, scratch, condition, self.views, self.boxed, self.gm, arch=self.arch,
                    roots=self.roots, fresh_index=fresh_index, transposed=self.transposed, reshaped=self.reshaped,
                    column_windows=self.column_windows)

    def registry_step(self, prefix: str, block: list[T.Stmt] | None = None, values: list[T.Var] | None = None,
                      only: Sequence[OpDef] | None = None, prefer: frozenset[str] = frozenset()) -> T.Var | None:
        """One call of a registered op drawn from the whole registry (or from `only`), over the
        values in scope, a first operand usually among `prefer` when it names some; None when the
        drawn op could not be called here."""
        candidates = list(only) if only is not None else generatable_ops(prefix, self.arch)
        steered = [op for op in self.steered if op.prefix == prefix]
        if only is None and steered and self.chance(50):
            candidates = steered  # a steered campaign's steps go where it has not been yet
        if not candidates:
            return None
        scope = self.values if values is None else values
        drawn = None
        preferred: set[str] = set(prefer)
        partial = [v.name for v in scope if self.usable(v) and isinstance(v.type, (TensorType, TileType))
                   and v.type.valid_shape is not None and tuple(v.type.valid) != tuple(v.type.shape)]
        observers = [op for op in candidates if op.family in VALID_OBSERVERS]
        if only is None and partial and observers and self.chance(40):
            # A partially valid value is read by what observes its valid extent (a reduction
            # sums only the valid rows / columns): element-wise steps alone would compare the
            # same valid region whatever extent the compiler gave it.
            candidates, preferred = observers, set(partial)
            self.tag("construct:valid-observed")
        for _ in range(3):  # an op that cannot be called here gives way to another one
            opdef = self.pick(candidates)
            usable = [v for v in scope if self.usable(v)]
            pool = self.make_pool(block, usable, prefix == "tile")
            pool.prefer = preferred
            drawn = draw_call(self.int_draw, opdef, pool)
            if drawn is not None and self.writes_on_chip_tensor(drawn):
                drawn = None  # an open miscompile (see writes_on_chip_tensor): kept off for now
            if drawn is not None and self.mixes_store_paths(drawn.op, drawn.args, drawn.attrs):
                drawn = None  # GmStoreCoherence: one GM tensor written by bulk and scalar stores
            if drawn is not None and self.shares_through_the_dcache(drawn.op, drawn.args, drawn.attrs):
                drawn = None  # ExpandMixedKernel: two cores sharing a GM tensor through the D-cache
            if drawn is not None and self.reads_no_data(drawn.op, drawn.args, drawn.type, drawn.attrs):
                drawn = None  # DefinedReads: it would read padding no op has written
            if drawn is not None and self.reshapes_a_window(drawn.op, drawn.args):
                drawn = None  # ViewLegality: a placed reshape is a handle at its source buffer's base
            if drawn is not None:
                break
        if drawn is None:
            return None
        for arg in drawn.args:
            if isinstance(arg, T.Var) and arg not in scope and arg in pool.values:
                scope.append(arg)  # a fresh value the draw made
        drawn = self.gm_only_attrs(drawn)
        target = self.body if block is None else block
        if not isinstance(drawn.type, (TensorType, TileType, ScalarType, TupleType)):
            # An op with no result (a barrier): a statement evaluated for its effect.
            target.append(T.EvalStmt(T.Call(drawn.op, drawn.args, drawn.attrs, drawn.type)))
            self.note_stores(None, drawn.op, drawn.args, drawn.attrs)
            self.ops.update(drawn.tags)
            return None
        var = T.Var(self.fresh("t"), drawn.type)
        target.append(T.AssignStmt(var, T.Call(drawn.op, drawn.args, drawn.attrs, drawn.type)))
        self.note_stores(var, drawn.op, drawn.args, drawn.attrs)
        self.note_view(var, drawn.op, drawn.args)
        self.note_data(var, drawn.op, drawn.args, drawn.type, drawn.attrs)
        self.ops.update(drawn.tags)
        if isinstance(drawn.type, (TensorType, TileType, ScalarType)):
            scope.append(var)
        return var

    def reshapes_a_window(self, op: str, args: Sequence[T.Expr]) -> bool:
        """Whether a tile-level reshape would re-view an on-chip window (a tile.slice result): once
        placed, a reshape is a handle on its source's whole buffer from its base, which the
        ViewLegality verifier refuses for a window (its offset and pitch would be dropped)."""
        return op in REGISTRY and op.startswith("tile.") and REGISTRY.is_reshape(op) and bool(args) \
            and isinstance(args[0], T.Var) and args[0].name in self.windows

    def _gm_of(self, arg: T.Expr) -> frozenset[str]:
        return self.gm_roots.get(arg.name, frozenset()) if isinstance(arg, T.Var) else frozenset()

    def mixes_store_paths(self, op: str, args: Sequence[T.Expr], attrs: Sequence[tuple[str, AttrValue]]) -> bool:
        """Whether a call of `op` would write a GM parameter by the other store path than the
        kernel already wrote it by (bulk vs scalar, languages.ops.gm_store_paths), which the
        GmStoreCoherence verifier refuses."""
        for index, path in store_paths(REGISTRY.get(op), len(args), tuple(attrs)):
            if any(incoherent({path, *self.gm_stores.get(root, ())}) for root in self._gm_of(args[index])):
                return True
        return False

    def _gm_touches(self, op: str, args: Sequence[T.Expr],
                    attrs: Sequence[tuple[str, AttrValue]]) -> list[tuple[str, tuple[bool, bool, str]]]:
        """(GM root, (reads, writes, path)) of every GM parameter a call touches the data of."""
        out = []
        for index, reads, writes, path in gm_accesses(REGISTRY.get(op), len(args), tuple(attrs)):
            for root in self._gm_of(args[index]):
                out.append((root, (reads, writes, path)))
        return out

    def shares_through_the_dcache(self, op: str, args: Sequence[T.Expr],
                                  attrs: Sequence[tuple[str, AttrValue]]) -> bool:
        """Whether a call would touch a GM parameter by a scalar access and a bulk one with a
        write among them (with what the kernel already did to it): in a mixed kernel the two may
        land on different cores, which ExpandMixedKernel refuses (gm_store_paths)."""
        return any(shared_through_the_dcache({access, *self.gm_touched.get(root, ())})
                   for root, access in self._gm_touches(op, args, attrs))

    def note_stores(self, var: T.Var | None, op: str, args: Sequence[T.Expr],
                    attrs: Sequence[tuple[str, AttrValue]]) -> None:
        """Record the GM parameters a call writes (and by which path), and those its result names."""
        if op not in REGISTRY:
            return
        opdef = REGISTRY.get(op)
        for root, access in self._gm_touches(op, args, attrs):
            self.gm_touched.setdefault(root, set()).add(access)
        for index, path in store_paths(opdef, len(args), tuple(attrs)):
            for root in self._gm_of(args[index]):
                self.gm_stores.setdefault(root, set()).add(path)
        aliased = aliased_operand(opdef, len(args))
        if var is not None and aliased is not None and self._gm_of(args[aliased]):
            self.gm_roots[var.name] = self._gm_of(args[aliased])

    def writes_on_chip_tensor(self, drawn: Any) -> bool:
        """A tensor op writing in place (the registry's ReusesInput) into an on-chip tensor:
        ConvertTensorToTileOps lowers it to the in-place tile op without copying a destination
        that is still live (a loop carry, a value read later), which miscompiles -- found by
        this generator and reported open in issue 8; the generator keeps off it until fixed."""
        if drawn.op not in REGISTRY or not drawn.op.startswith("tensor."):
            return False
        rule = REGISTRY.get(drawn.op).output_memory
        index = getattr(rule, "index", None) if type(rule).__name__ == "ReusesInput" else None
        if index is None or index >= len(drawn.args):
            return False
        target = drawn.args[index]
        return not (isinstance(target, T.Var) and target.name in self.gm)

    def gm_only_attrs(self, drawn: Any) -> Any:
        """`drawn` without the kwarg-dependent effects (`OpDef.effect_when`: atomic='add') whose
        operand is not a GM tensor: an atomic accumulation exists for GM only (on-chip it is
        declined, "not supported yet")."""
        if drawn.op not in REGISTRY:
            return drawn
        dropped = {name for name, value, index, _ in REGISTRY.get(drawn.op).effect_when
                   if index < len(drawn.args) and not (isinstance(drawn.args[index], T.Var)
                                                      and drawn.args[index].name in self.gm)}
        if not dropped:
            return drawn
        return replace(drawn, attrs=tuple((k, v) for k, v in drawn.attrs if k not in dropped))

    def _data_of(self, arg: T.Expr) -> Written:
        return self.data.get(arg.name, WHOLE) if isinstance(arg, T.Var) else WHOLE

    def reads_no_data(self, op: str, args: Sequence[T.Expr], ty: Type,
                      attrs: tuple[tuple[str, AttrValue], ...] = ()) -> bool:
        """Whether a call of `op` would read an operand's padding that holds no data (an
        element-wise op over a narrower operand whose padding no op wrote), which the
        DefinedReads verifier refuses (languages.ops.data_extents)."""
        if op not in REGISTRY:
            return False
        opdef = REGISTRY.get(op)
        for index, arg in enumerate(args):
            operand = array_type(arg)
            if operand is None:
                continue
            if views_nothing(opdef, index, self._data_of(arg)):
                continue  # a view of a created buffer reads nothing (DefinedReads checks its readers)
            read = read_extent(opdef, index, operand, ty, attrs, args)
            if read is not None and reads_past(read, self._data_of(arg)):
                return True
        return False

    def note_data(self, var: T.Var, op: str, args: Sequence[T.Expr], ty: Type,
                  attrs: tuple[tuple[str, AttrValue], ...] = ()) -> None:
        """Record the data extent of `var` when its padding holds no data."""
        if op not in REGISTRY or not isinstance(ty, (TensorType, TileType)):
            return
        opdef = REGISTRY.get(op)
        in_gm = bool(args) and isinstance(args[0], T.Var) and args[0].name in self.gm
        written = result_data(opdef, args, ty, [self._data_of(a) for a in args], in_gm, attrs)
        if written is not None:  # a whole-shape extent too: a block read (gatherb) reaches past the shape
            self.data[var.name] = written
        for index, arg in enumerate(args):
            operand = array_type(arg)
            if operand is not None and reads_past_valid(opdef, index, operand, ty):
                self.tag("construct:padding-read")  # an operand's loaded padding read as data

    def note_view(self, var: T.Var, op: str, args: Sequence[T.Expr]) -> None:
        """Record `var` as a view when its op lowers to one: a reshape / transpose view / on-chip
        slice (a slice of a GM parameter is a load of its own), or a metadata op over a view; and
        as a GM tensor when its op writes into a GM operand in place (assemble, write)."""
        if op in REGISTRY and REGISTRY.get(op).family == "create":
            self.created.add(var.name)
        if op.startswith("tile.") and op in REGISTRY and REGISTRY.is_window_view(op):
            self.windows.add(var.name)
        if op in REGISTRY and REGISTRY.get(op).semantics[:1] == ("transpose_view",):
            self.transposed.add(var.name)
        if op in REGISTRY and REGISTRY.get(op).semantics[:1] in (("reshape",), ("view",), ("reinterpret",)):
            self.reshaped.add(var.name)
        self.note_boxed(var, op, args)
        if op in REGISTRY and REGISTRY.get(op).semantics == ("create",):
            self.undefined.add(var.name)  # the registry: "a fresh buffer of the shape; contents undefined"
        rule = REGISTRY.get(op).output_memory if op in REGISTRY else None
        reused = getattr(rule, "index", None) if type(rule).__name__ == "ReusesInput" else None
        if op in REGISTRY and REGISTRY.get(op).semantics[:1] and REGISTRY.get(op).semantics[0] in SAME_BYTES_VIEWS \
                and args and isinstance(args[0], T.Var):
            self.same_bytes[var.name] = args[0].name
        if reused is not None and reused < len(args) and isinstance(args[reused], T.Var):
            # The operand and every value it re-views the bytes of (matmul_acc on set_validshape(c)
            # updates c's accumulator): none is read again (on 910B a value still read after the
            # in-place update needs an Acc -> Acc copy it has no path for).
            name: str | None = args[reused].name
            kept_value = self.tile_value_kept(op, reused, args[reused])
            while name is not None:
                self.updated.add(name)
                if name not in self.gm and not (kept_value and name == args[reused].name):
                    # Not read again: ConvertTensorToTileOps lowers an on-chip tensor.assemble to the
                    # in-place tile.assemble without copying a destination that is still live (an
                    # open miscompile, issue 8's report), so the generator keeps off it for now.
                    self.overwritten.add(name)
                name = self.same_bytes.get(name)
        if reused is not None and reused < len(args) and isinstance(args[reused], T.Var) \
                and getattr(args[reused], "name") in self.gm:
            self.gm.add(var.name)
        conversion = REGISTRY.get(op).to_tile if op in REGISTRY else None
        if REGISTRY.is_view(op) and conversion is not None and conversion.self_loading and args \
                and isinstance(args[0], T.Var) and args[0].name in self.gm \
                and REGISTRY.get(op).semantics[:1] != ("slice",):
            self.gm.add(var.name)  # a GM view (tensor.view) stays a tensor view of the parameter
        if not REGISTRY.is_view(op) or not args or not isinstance(args[0], T.Var):
            return
        source = args[0]
        params = {p.var.name for p in self.params}
        if source.name in params or source.name in self.param_views:
            self.param_views.add(var.name)
        if REGISTRY.get(op).semantics[:1] in (("slice",), ("set_validshape",)) and source.name in params:
            return
        if REGISTRY.get(op).semantics[:1] == ("set_validshape",) and source.name not in self.views:
            return
        self.views.add(var.name)
        self.roots[var.name] = self.roots.get(source.name, source.name)
        narrower = tuple(getattr(var.type, "shape", ()))[-1:] != tuple(getattr(source.type, "shape", ()))[-1:]
        if source.name in self.column_windows or (REGISTRY.is_window_view(op) and narrower):
            self.column_windows.add(var.name)

    def tile_value_kept(self, op: str, index: int, written: T.Var) -> bool:
        """Whether the Vec tile a tile op writes in place (tile.write, tile.scatter_mask) still
        names its old contents afterwards: a tile the user wrote is a value (`t1 =
        pl.tile.write(t, ...)` leaves `t` as it was; MaterializeSemanticAliases copies it when it
        is still read), so later steps may read it. Not a view of another tile (writing a window
        writes its source's bytes) nor an Acc tile (910B has no Acc -> Acc copy)."""
        if not op.startswith("tile.") or op not in REGISTRY or written.name in self.views | self.windows:
            return False
        decl = REGISTRY.get(op).operands[index]
        return decl.input_memory is MemorySpace.Vec and written.name not in self.same_bytes

    def note_boxed(self, var: T.Var, op: str, args: Sequence[T.Expr]) -> None:
        ty = var.type
        if not isinstance(ty, TensorType) or len(ty.shape) != 2:
            return
        if op in REGISTRY and REGISTRY.get(op).family == "matmul" and any(d % 16 for d in ty.shape):
            self.boxed.add(var.name)
        elif any(self._is_boxed(a) and (_shape_of(a)[:1] == ty.shape[:1] or _shape_of(a)[1:] == ty.shape[1:])
                 for a in args):
            # A value computed row by row from a boxed one keeps its box-rounded rows (a compare's
            # packed mask too, though its columns are the mask's own), one computed column by
            # column (a column reduction) its box-rounded columns (finding ddcde5a297).
            self.boxed.add(var.name)

    def _is_boxed(self, arg: T.Expr) -> bool:
        """A boxed value, or a matmul written inline as an argument whose product is boxed."""
        if isinstance(arg, T.Var):
            return arg.name in self.boxed
        ty = getattr(arg, "type", None)
        return isinstance(arg, T.Call) and arg.op in REGISTRY and REGISTRY.get(arg.op).family == "matmul" \
            and isinstance(ty, TensorType) and len(ty.shape) == 2 and any(int(d) % 16 for d in ty.shape)

    def usable(self, value: T.Var) -> bool:
        """Values a step may read: defined contents only (a fresh create holds garbage)."""
        return not value.name.startswith("scratch") and value.name not in self.undefined | self.overwritten

    def computed(self, value: T.Var) -> bool:
        """An on-chip value (not a GM tensor): what a loop or a branch may yield."""
        return value.name not in self.gm and self.usable(value)

    def results(self, values: Sequence[T.Var]) -> list[T.Var]:
        """Computed tensors a kernel can return (not a parameter, nor a bare view of one)."""
        params = {p.var.name for p in self.params}
        return [v for v in values if isinstance(v.type, TensorType) and v.name not in params and self.usable(v)
                and v.name not in self.param_views
                and not reads_past(extents(v.type.valid_extents), self._data_of(v))]  # stored over its valid region

    # -- dtypes and shapes --------------------------------------------------------------------

    def vector_dtype(self) -> DataType:
        # A steered kernel does not know which element types its op admits (an integer-only
        # bitwise op, a float-only transcendental): integers are then as likely as floats.
        if self.features.integers and self.chance(50 if self.focus is not None else 20):
            dtype: DataType = self.pick([d for d in ELEMENT_TYPES if not d.is_float])
            return dtype
        choice: DataType = self.pick(FLOAT_TYPES if self.features.low_precision else (F32,))
        return choice

    def vector_shape(self) -> tuple[int, ...]:
        """Usually 2-D; sometimes rank 1 ([n] packs to one row) or rank 3 (rows packed across the
        leading axis), the shapes FlattenTileNdTo2D rewrites."""
        shape: tuple[int, ...] = (self.pick_common(VECTOR_ROWS), self.pick_common(VECTOR_COLS))
        if self.features.nd_tensors and not self.features.small_shapes and self.chance(25):
            if self.chance(50):
                shape = shape[1:]
            else:
                shape = (self.pick(ND_LEADING), *shape)
            self.tag(f"shape:rank-{len(shape)}")
        return shape

    # -- vector recipes -----------------------------------------------------------------------

    def steps(self, count: int, block: list[T.Stmt] | None = None, values: list[T.Var] | None = None,
              prefix: str = "tensor") -> None:
        for _ in range(count):
            if self.features.registry_ops and self.chance(6):
                self.registry_step("system", block, values)  # a barrier between the steps
            if self.features.registry_ops or prefix == "tile":
                self.registry_step(prefix, block, values)
            else:
                self.plain_step(block, values)

    def plain_step(self, block: list[T.Stmt] | None, values: list[T.Var] | None) -> None:
        """With registry steps off: one element-wise op of the vector unit (the cube recipes'
        companion), still looked up in the registry by family."""
        scope = self.values if values is None else values
        floats = [v for v in scope if isinstance(v.type, TensorType) and v.type.dtype.is_float]
        if not floats:
            return
        x = self.pick(floats)
        ops = [op for op in _ops_of("tensor", "unary")
               if op.rsplit(".", 1)[1] in ("neg", "abs", "relu", "exp")]
        if ops:
            self.call(self.pick(ops), (x,), block=block, pool=scope)

    def vector_kernel(self) -> None:
        self.tag("construct:vector")
        dtype = self.vector_dtype()
        shape = self.vector_shape()
        ty = TensorType(shape, dtype)
        self.tag(*(t for t, on in (("shape:1-row", shape[0] == 1), ("shape:1-col", shape[-1] == 1),
                                   (f"dtype:{dtype.pl_name}", True)) if on))
        for _ in range(self.int_draw(1, 3)):
            self.param(ty)
        if self.features.scalar_math and self.chance(20):
            self.scalar_math(ty)
        self.steps(self.int_draw(2, 7))
        if self.features.partial_valid and self.features.slices and self.chance(50):
            self.param_window_observed(ty)
        if self.features.partial_valid and self.chance(25):
            self.padding_read(ty)
        if self.features.assemble and self.chance(30):
            self.assemble_into_param()
        if self.features.partial_valid and self.chance(15):
            self.mask_returned(ty)
        if self.features.slices and self.chance(50):
            self.window_gathered()
        if self.features.casts and self.chance(25):
            self.rounding_cast(ty)

    def mask_returned(self, ty: TensorType) -> None:
        """A compare's packed mask returned over its whole compared bytes (set_validshape to
        [rows, cols // 8]): the bits past them are undefined on chip, so DefinedReads refuses a
        mask returned past them. Half the time the mask is returned whole where the shared
        data-extent facts say its valid region holds data (`results`: never, unless they are
        wrong), else narrowed. The compared operand is the kernel's when it is 2-D with whole
        bytes of columns and of a type both targets compare, else a parameter of its own."""
        compare = _by_semantics("tensor", ("compare",))
        narrow_op = _by_semantics("tensor", ("set_validshape",))
        if compare is None or narrow_op is None:
            return
        if len(ty.shape) != 2 or int(ty.shape[1]) < 8 or ty.dtype not in _COMPARED_EVERYWHERE:
            ty = TensorType((self.pick(VECTOR_ROWS), self.pick([c for c in VECTOR_COLS if c >= 8])),
                            self.pick(_COMPARED_EVERYWHERE))
            self.param(ty, "c")
        params = [v for v in self.values if v.name in self.gm and v.type == ty]
        rows, cols = (int(d) for d in ty.shape)
        lhs = self.pick(params)
        rhs: T.Expr = self.pick(params) if self.chance(50) else self.scalar_for(ty.dtype)
        try:
            mask = self.call(compare, (lhs, rhs), (("cmp_type", self.int_draw(0, 5)),), prefix="m", pool=[])
            if self.chance(50) and self.results([mask]):
                self.returns.append(mask)  # where the shared facts say its valid region holds data
                return
            whole = self.call(narrow_op, (mask, _index(rows), _index(cols // 8)), prefix="mw", pool=[])
        except (CompileError, TargetRuleMiss):
            return  # an element type or target the compare does not take
        self.tag("construct:mask-returned")
        self.returns.append(whole)

    def rounding_cast(self, ty: TensorType) -> None:
        """A computed float value cast where the rounding mode shows: to a narrower float or to an
        integer, in a mode other than round-to-nearest-even (the registry's CAST_MODES), the
        result returned. A lowering that drops or replaces the mode rounds the ties and the
        fractions the other way."""
        cast = _by_semantics("tensor", ("cast",))
        scaled = _by_semantics("tensor", ("scalar_binary", "mul"))
        if cast is None or scaled is None:
            return
        dtype = ty.dtype if ty.dtype.is_float else F32
        source = self.param(TensorType(ty.shape, dtype))
        self.values.remove(source)
        # Integers above all: floor / ceil / trunc part from round-to-nearest on every fraction, a
        # narrower float's modes only where its last bit is cut (and `round` only at ties).
        targets = [I32, DataType.INT16, I32] + ([NARROWING[dtype]] if dtype in NARROWING else [])
        modes = [mode for mode in CAST_MODES if mode not in ("rint", "none")]
        try:
            # Scaled by a non-integer, so fractions and ties are there to round.
            value = self.call(scaled, (source, T.ConstFloat(self.pick((0.5, 1.5, 0.1)), dtype)), pool=[])
            for _ in range(3):  # a target type or mode this target does not take gives way
                try:
                    result = self.call(cast, (value,), (("target_type", self.pick(targets)), ("mode", self.pick(modes))),
                                       prefix="rc", pool=[])
                except (CompileError, TargetRuleMiss):
                    continue
                self.values.append(result)
                self.kept.append(result)
                self.tag("construct:rounding-cast")
                return
        except (CompileError, TargetRuleMiss):
            return

    def window_gathered(self) -> None:
        """A column window of an on-chip tensor (a tensor.slice of a computed value, narrower
        than it) read by an op whose tile form indexes its source flat by the source's own columns
        (tensor.gather -> TGATHER, the registry's `WholeRows` rule on the tile op): the window's
        rows lie its parent's pitch apart, so ConvertTensorToTileOps must copy it into a tile of
        its own first; gathering from it in place reads the parent's other columns."""
        slice_op = _by_semantics("tensor", ("slice",))
        scaled = _by_semantics("tensor", ("scalar_binary", "mul"))
        gathers = [op for op in generatable_ops("tensor", self.arch) if _indexes_by_own_columns(op)]
        if slice_op is None or scaled is None or not gathers:
            return
        dtype: DataType = self.pick(GATHER_DTYPES)
        # Two rows at least: a one-row window's pitch is never read. One column too: its packed
        # copy keeps the parent's row-major layout, rows 32 bytes apart, which the flat index counts
        # (tests/regressions/fuzz_mismatch_gather_column_window_pitch.py; construct:window-gathered-column).
        rows, cols = self.pick_common((16, 8, 3)), self.pick_common((16, 32, 12, 24, 64))
        source = self.param(TensorType((rows, cols), dtype))
        self.values.remove(source)
        shape = (self.int_draw(2, rows), self.int_draw(1, cols - 1))
        offsets = (self.int_draw(0, rows - shape[0]), self.int_draw(0, cols - shape[1]))
        try:
            computed = self.call(scaled, (source, self.scalar_for(dtype)), pool=[])
            window = self.call(slice_op, (computed, _dims(shape), _dims(offsets)), prefix="w", pool=[])
        except (CompileError, TargetRuleMiss):
            return
        for _ in range(3):
            # The window is the scope's one value: the draw reads it first (its other operands,
            # the index above all, are fresh conditioned parameters).
            made = self.registry_step("tensor", None, [window], only=gathers, prefer=frozenset({window.name}))
            statement = self.body[-1] if self.body else None
            if made is not None and isinstance(statement, T.AssignStmt) and statement.target == made \
                    and isinstance(statement.value, T.Call) and statement.value.args[:1] == (window,):
                self.values.append(made)
                self.kept.append(made)
                self.tag("construct:window-gathered")
                if shape[1] == 1:
                    self.tag("construct:window-gathered-column")
                return

    def param_window_observed(self, ty: TensorType) -> None:
        """A window of a parameter narrowed by a valid_shape (only the valid part is loaded) and
        read by an op that observes its valid extent (a row / column reduction), returned with
        the kernel's last result: a window given its whole extent, or padding read as data,
        changes the reduction."""
        slice_op = _by_semantics("tensor", ("slice",))
        params = [v for v in self.values if v.name in self.gm and v.type == ty]
        observers = [op for op in generatable_ops("tensor", self.arch) if op.family in VALID_OBSERVERS]
        if slice_op is None or not params or not observers or len(ty.shape) != 2:
            return
        rows, cols = (int(d) for d in ty.shape)
        shape = (self.int_draw(1, rows), self.int_draw(1, cols))
        valid = (self.int_draw(1, shape[0]), self.int_draw(1, shape[1]))
        offsets = (self.int_draw(0, rows - shape[0]), self.int_draw(0, cols - shape[1]))
        try:
            window = self.call(slice_op, (self.pick(params), _dims(shape), _dims(offsets), _dims(valid)), prefix="w")
            observed = self.call(self.pick(observers).name, (window,), prefix="r")
        except CompileError:
            return  # a window the registry declines here (e.g. an observer's dtype rule)
        self.tag("construct:window-observed")
        self.returns.extend([*[v for v in self.results(self.values) if v is not observed][-1:], observed])

    def padding_read(self, ty: TensorType) -> None:
        """A parameter narrowed by set_validshape (its whole tile is loaded, so its padding holds
        data) meeting a wider operand in an element-wise op, whose result is then full-shape (the
        spec's exact-region rule covers equal regions only) and reads the narrower operand's
        padding as data: a pass that re-copies, widens or re-types the narrowed operand over its
        valid region only (LegalizeVecDtypes' FP32 route for BF16) leaves that padding empty."""
        narrow_op = _by_semantics("tensor", ("set_validshape",))
        if self.features.low_precision and ty.dtype is not BF16 and self.chance(40):
            # BF16 above all: A2/A3 compute it in FP32 (LegalizeVecDtypes' widening route), which
            # must widen the narrowed operand's padding too.
            ty = TensorType(ty.shape, BF16)
            self.param(ty)
        params = [v for v in self.values if v.name in self.gm and v.type == ty]
        ops = [op for op in generatable_ops("tensor", self.arch)
               if op.family == "elementwise_binary" and op.semantics[:1] == ("binary",)]
        if narrow_op is None or not params or not ops or len(ty.shape) != 2 or ty.shape == (1, 1):
            return
        rows, cols = (int(d) for d in ty.shape)
        valid = (self.int_draw(1, rows), self.int_draw(1, cols))
        if valid == (rows, cols):
            return
        broadcasts = [s for s in ((rows, 1), (1, cols), (1, 1)) if s != (rows, cols)]
        try:
            base = self.pick(params)
            if self.chance(40):
                # Computed on chip: the narrowed tile is not re-loaded whole, so a consumer reading
                # past its valid region must be handed the tile under it (finding b3fe3e1a0b).
                # x * 1 is x (a signalling NaN quieted, as the simulator and the interpreter both do).
                one: T.Expr = T.ConstFloat(1.0, ty.dtype) if ty.dtype.is_float else T.ConstInt(1, ty.dtype)
                base = self.call("tensor.muls", (base, one), prefix="c")
            slice_op = _by_semantics("tensor", ("slice",))
            if base.name not in self.gm and slice_op is not None and self.chance(30):
                # A window of the computed value narrowed by its own valid_shape (its elements past
                # it are the value's); a re-view of it reads it packed, so the window is taken
                # again over the region read before it is re-viewed (a GM window loads only its
                # valid region, whose padding holds nothing, so only a computed value's).
                narrow = self.call(slice_op, (base, _dims(ty.shape), _zeros(2), _dims(valid)), prefix="n")
            else:
                narrow = self.call(narrow_op, (base, _index(valid[0]), _index(valid[1])), prefix="n")
            viewed = self.narrowed_view(narrow) if self.chance(40) else None
            if viewed is not None:
                # The narrowed value read through a view of it (a reinterpretation, twice over, or a
                # tensor.view): a consumer reading the view past its valid region is handed the
                # view taken again over the region read (finding 9f903e5108).
                narrow = viewed
                ty = TensorType(ty.shape, viewed.type.dtype) if isinstance(viewed.type, TensorType) else ty
                params = [v for v in self.values if v.name in self.gm and v.type == ty] or [self.param(ty)]
            clone_op = _by_semantics("tensor", ("expand_clone",))
            if clone_op is not None and self.chance(30):
                # Copied whole into a target too: expand_clone reads its source over the target's region.
                self.returns.append(self.call(clone_op, (narrow, self.param(ty, "tg")), prefix="e"))
                self.tag("construct:narrowed-copied-whole")
            wide = self.pick(params)
            opdef = self.pick(ops)
            broadcast = self.chance(50)
            if broadcast:
                # A [rows, 1] / [1, cols] / [1, 1] parameter broadcast against the narrowed lhs
                # (a row / column broadcast op once lowered): the result is valid over the whole
                # shape, so the lhs must be widened to it, its padding read as data.
                wide = self.param(TensorType(self.pick(broadcasts), ty.dtype), "bc")
                args = (narrow, wide)
            else:
                args = (narrow, wide) if self.chance(50) else (wide, narrow)
            result = self.call(opdef.name, args, prefix="p")
        except (CompileError, TargetRuleMiss):
            return  # an op this dtype or target does not take
        if tuple(getattr(result.type, "valid", ())) == (rows, cols):
            self.tag("construct:padding-read")
            if broadcast:
                self.tag("construct:padding-broadcast")
            if viewed is not None:
                self.tag("construct:narrowed-view-read-whole")
        self.returns.append(result)

    def narrowed_view(self, narrow: T.Var) -> T.Var | None:
        """A view of the narrowed `narrow` (a same-width reinterpret_view, one reinterpreted there
        and back, or a tensor.view), valid where it is; None when the registry has no such view."""
        ty = narrow.type
        assert isinstance(ty, TensorType)
        reinterpret = _by_semantics("tensor", ("reinterpret",))
        view_op = _by_semantics("tensor", ("view",))
        # Seen as a signed integer of the same width (any bits are one; a float view of arbitrary
        # bits would compute on NaNs), the "twice" form back as the value's own type.
        others = [d for d in SAME_WIDTH.get(ty.dtype.bits, ()) if d is not ty.dtype and d.is_int and d.is_signed
                  and not reinterpret_on_chip_gap(ty, d)]
        how = self.pick(("reinterpret", "twice", "view"))
        if how == "view" or reinterpret is None or not others:
            return self.call(view_op, (narrow,), prefix="v") if view_op is not None else None
        other = self.pick(others)
        once = self.call(reinterpret, (narrow,), (("dtype", other),), prefix="v")
        if how == "reinterpret":
            return once
        return self.call(reinterpret, (once,), (("dtype", ty.dtype),), prefix="v")

    def scalar_math(self, ty: TensorType) -> None:
        """A scalar read from a tensor, combined with index / float arithmetic, fed back into a
        tensor op; and a tensor extent (`tensor.dim`) in index arithmetic."""
        params = [v for v in self.values if isinstance(v.type, TensorType)]
        scalar_first = _by_semantics("tensor", ("scalar_binary", "mul"))
        if scalar_first is None or not params:
            return
        param = self.pick(params)
        source = self.call(scalar_first, (param, self.scalar_for(ty.dtype)))
        assert isinstance(source.type, TensorType)
        # About half the reads are of the GM parameter itself (tensor.read of GM is
        # pto.load_scalar, through the D-cache), the others of the computed on-chip value.
        read_source = param if param.name in self.gm and self.chance(50) else source
        if read_source is param and any(shared_through_the_dcache({(True, False, SCALAR), *self.gm_touched.get(r, ())})
                                        for r in self._gm_of(param)):
            read_source = source  # a tensor written in bulk: the cube may have written it (see _gm_touches)
        read = _by_semantics("tensor", ("read",))
        scalar_op = _by_semantics("tensor", ("scalar_binary", "add"))
        limit = RANK_LIMITS.get(REGISTRY.get(read).family) if read is not None else None
        if read is None or scalar_op is None or not generatable(REGISTRY.get(read), self.arch) \
                or (limit is not None and len(source.type.shape) != limit[0]) \
                or on_chip_read_gap(REGISTRY.get(read), 0, read_source.type, read_source.name in self.gm):
            self.index_math(param if param.name in self.gm else source)
            return
        # Inside the valid region: past it is no value (the deduction refuses a static index there).
        read_type = read_source.type
        assert isinstance(read_type, TensorType)
        bounds = [v if isinstance(v, int) else d for v, d in zip(read_type.valid_extents, read_type.shape)]
        indices = _dims(tuple(self.int_draw(0, int(d) - 1) for d in bounds))
        value = self.call(read, (read_source, indices), prefix="s")
        if read_source is param:
            self.tag("construct:scalar-read-gm")
        assert isinstance(value.type, ScalarType)
        dtype = value.type.dtype
        const: T.Expr = T.ConstFloat(self.pick(SCALARS[:4]), dtype) if dtype.is_float else T.ConstInt(3, dtype)
        op = self.pick(("+", "-", "*"))
        combined = T.Var(self.fresh("s"), ScalarType(dtype))
        expr: T.Expr = T.BinOp(op, value, const, ScalarType(dtype))
        if dtype is F32 and self.chance(30):
            expr = self.round_trip(expr)
        self.body.append(T.AssignStmt(combined, expr))
        self.tag("construct:scalar-math", f"scalar:{op}:{dtype.pl_name}")
        self.call(scalar_op, (source, combined))
        if self.chance(50):
            self.index_math(param if param.name in self.gm else source)

    def round_trip(self, expr: T.Expr) -> T.Expr:
        """An FP32 scalar cast to FP16 or BF16 and back (arith.truncf then arith.extf): the value
        rounded to the narrower type's precision and range (overflowing to infinity), RNE."""
        narrow = self.pick((F16, BF16))
        self.tag("construct:scalar-round-trip", f"scalar:round-trip:{narrow.pl_name}")
        return T.UnaryOp("cast", T.UnaryOp("cast", expr, ScalarType(narrow)), ScalarType(F32))

    def scalar_param(self, dtype: DataType) -> T.Var:
        var = T.Var(self.fresh(SIGNED_SCALAR_PREFIX), ScalarType(dtype))
        self.params.append(T.Param(var, "In"))
        return var

    def scalar_expr(self, dtype: DataType, leaves: Sequence[T.Expr], depth: int = 0) -> T.Expr:
        """Scalar arithmetic over `leaves` and constants, with the operators the DSL's `BinOp`
        and `UnaryOp` admit and PTO lowers (languages.ops.pto_ops.ARITH_BINARY): each one is a
        different arith op in the emitted kernel."""
        if depth >= 2 or self.chance(40):
            if leaves and self.chance(70):
                leaf: T.Expr = self.pick(leaves)
                return leaf
            return self.scalar_for(dtype) if dtype is not INDEX.dtype else _index(self.int_draw(1, 4))
        ty = ScalarType(dtype)
        if dtype is F32 and self.chance(20):
            return self.round_trip(self.scalar_expr(dtype, leaves, depth + 1))
        if self.chance(15):
            self.tag("scalar:neg")
            return T.UnaryOp("-", self.scalar_expr(dtype, leaves, depth + 1), ty)
        if self.chance(15):
            return self.scalar_cast(dtype)
        # Float floor division / modulo have no exact arith form: PTOCodegen declines them;
        # `/` is float division only (the parser rejects it on integers).
        ops = [op for op in ARITH_BINARY if op not in ("and", "or")
               and not (dtype.is_float and op in FLOAT_DECLINED) and not (not dtype.is_float and op == "/")]
        op = self.pick(ops)
        lhs = self.scalar_expr(dtype, leaves, depth + 1)
        rhs = self.scalar_expr(dtype, leaves, depth + 1)
        if op in ("//", "%"):
            rhs = _index(self.int_draw(1, 5)) if dtype is INDEX.dtype else (
                T.ConstFloat(self.pick((2.0, 0.5, 3.0)), dtype) if dtype.is_float else T.ConstInt(3, dtype))
        self.tag(f"scalar:{op}:{dtype.pl_name}")
        return T.BinOp(op, lhs, rhs, ty)

    def scalar_cast(self, dtype: DataType) -> T.Expr:
        """`pl.cast(x, dtype)` of a scalar of another type (UnaryOp "cast"): a scalar parameter
        of that type, or an INDEX constant; float -> int truncation, int -> float rounding and
        INDEX -> float through i64, widening and narrowing between the integer and the float
        widths (extsi / extui / trunci / extf / truncf), signed <-> unsigned of one width
        (bitcast), unsigned -> float (uitofp) and float -> unsigned (fptoui) each emit different
        arith conversions. Sometimes the cast goes through an intermediate type, usually an
        unsigned one, with unsigned arithmetic on it (`+ - *` wrap, `//` / `%` are divui /
        remui): a cast to an unsigned type then meets the kernel's own scalar type."""
        ordered = sorted(SCALAR_CAST_TYPES, key=lambda d: d.name)
        source = self.pick([d for d in ordered if d is not dtype])
        operand: T.Expr = _index(self.int_draw(0, 9)) if source is INDEX.dtype else self.scalar_param(source)
        if self.chance(40):
            middles = [d for d in ordered if d not in (source, dtype)]
            unsigned = [d for d in middles if is_unsigned_int(d)]
            middle = self.pick(unsigned if unsigned and self.chance(70) else middles)
            self.tag(f"scalar:cast:{source.pl_name}->{middle.pl_name}")
            operand = T.UnaryOp("cast", operand, ScalarType(middle))
            if is_unsigned_int(middle) and self.chance(50):
                op = self.pick(("+", "-", "*", "//", "%"))
                self.tag(f"scalar:{op}:{middle.pl_name}")
                operand = T.BinOp(op, operand, T.ConstInt(self.pick((3, 1, 2)), middle), ScalarType(middle))
            source = middle
        self.tag(f"scalar:cast:{source.pl_name}->{dtype.pl_name}")
        return T.UnaryOp("cast", operand, ScalarType(dtype))

    def scalar_operand_kernel(self) -> None:
        """A scalar parameter in scalar arithmetic feeding a tensor-scalar op (tensor.adds, ...),
        and an `if` over a scalar comparison."""
        self.tag("construct:scalar-math")
        dtype = self.pick(FLOAT_TYPES[:1] + ((I32,) if self.features.integers else ()))
        shape = (self.pick_common(VECTOR_ROWS), self.pick_common(VECTOR_COLS))
        x = self.param(TensorType(shape, dtype))
        k = self.scalar_param(dtype)
        leaves: list[T.Expr] = [k]
        read = _by_semantics("tensor", ("read",))
        if read is not None and generatable(REGISTRY.get(read), self.arch) and self.chance(50):
            # An element of the GM parameter in the arithmetic (pto.load_scalar, the D-cache path).
            indices = _dims(tuple(self.int_draw(0, d - 1) for d in shape))
            leaves.append(self.call(read, (x, indices), prefix="s", pool=[]))
            self.tag("construct:scalar-read-gm")
        expr = self.scalar_expr(dtype, leaves)
        value = T.Var(self.fresh("s"), ScalarType(dtype))
        self.body.append(T.AssignStmt(value, expr))
        scalar_ops = [op for op in generatable_ops("tensor", self.arch) if op.family == "elementwise_scalar"
                      and op.semantics[1:2] in (("add",), ("mul",), ("sub",), ("max",), ("min",))]
        if not scalar_ops:
            return
        op = self.pick(scalar_ops)
        y = self.call(op.name, (x, value))
        unsigned = self.features.integers and self.features.branches and self.chance(35)
        if self.features.branches and (unsigned or self.chance(60)):
            cmp_op = self.pick(tuple(ARITH_COMPARE))
            cond: T.Expr = T.BinOp(cmp_op, value, self.scalar_for(dtype), BOOL)
            if self.chance(30):
                cond = T.BinOp(self.pick(("and", "or")), cond, T.BinOp("<", k, self.scalar_for(dtype), BOOL), BOOL)
                self.tag("scalar:bool-logic")
            if unsigned:
                extra = self.unsigned_condition()
                cond = extra if self.chance(40) else T.BinOp(self.pick(("and", "or")), cond, extra, BOOL)
            self.tag(f"scalar:cmp:{cmp_op}:{dtype.pl_name}", "construct:if-scalar")
            then_block: list[T.Stmt] = []
            else_block: list[T.Stmt] = []
            a = self.call(op.name, (y, self.scalar_for(dtype)), block=then_block, pool=[])
            b = self.call("tensor.add" if dtype.is_float else op.name, (y, y) if dtype.is_float else (y, value),
                          block=else_block, pool=[])
            then_block.append(T.YieldStmt((a,)))
            else_block.append(T.YieldStmt((b,)))
            phi = T.Var(self.fresh("phi"), y.type)
            self.body.append(T.IfStmt(cond, tuple(then_block), tuple(else_block), (phi,)))
            self.values.append(phi)

    def unsigned_condition(self) -> T.Expr:
        """A UINT32 / UINT16 scalar parameter minus a constant, floor-divided and / or reduced
        modulo a constant, compared with a constant (arith.divui / remui, cmpi ult / ugt ...): the
        parameters are small, so the subtraction often wraps past zero, where a signed division,
        modulo or compare would take the other branch."""
        dtype = self.pick((U32, U16))
        ty = ScalarType(dtype)
        k = self.scalar_param(dtype)
        value: T.Expr = T.BinOp("-", k, T.ConstInt(self.int_draw(0, 9), dtype), ty)
        for _ in range(self.int_draw(1, 2)):
            op = self.pick(("//", "%"))
            value = T.BinOp(op, value, T.ConstInt(self.pick((3, 2, 7, 1000)), dtype), ty)
            self.tag(f"scalar:{op}:{dtype.pl_name}")
        cmp_op = self.pick(tuple(ARITH_COMPARE))
        bound = T.ConstInt(self.pick((1, 1000, 2, 40000)), dtype)
        self.tag("construct:unsigned-condition", f"scalar:cmp:{cmp_op}:{dtype.pl_name}")
        if cmp_op in ARITH_UNSIGNED_COMPARE:
            self.tag(f"scalar:cmp:{ARITH_UNSIGNED_COMPARE[cmp_op]}")
        return T.BinOp(cmp_op, value, bound, BOOL)

    def index_math(self, source: T.Var) -> None:
        """A tensor extent (`tensor.dim`) in index arithmetic."""
        dim = _by_semantics("tensor", ("dim",))
        if dim is not None:
            extent = self.call(dim, (source,), (("axis", 0),), prefix="n")
            doubled = T.Var(self.fresh("n"), INDEX)
            self.body.append(T.AssignStmt(doubled, T.BinOp(self.pick(("*", "+", "//")), extent, _index(2), INDEX)))
            self.tag("construct:index-math")

    def assemble_into_param(self) -> None:
        """Write a computed value into a window of a (bigger) parameter, which the kernel may read
        again afterwards: a GM re-read after a write (the parameter becomes InOut)."""
        results = [v for v in self.results(self.values)
                   if isinstance(v.type, TensorType) and len(v.type.shape) == 2 and v.type.valid_shape is None]
        if not results:
            return
        x = self.pick(results)
        assert isinstance(x.type, TensorType)
        rows, cols = x.type.shape
        big = (rows + self.int_draw(0, 8), cols + self.pick((0, 8, 16)))
        target = self.param(TensorType(big, x.type.dtype), "big")
        offsets = (self.int_draw(0, big[0] - rows), self.int_draw(0, big[1] - cols))
        reread = target
        if self.chance(50):
            # Through a window of the parameter taken first (a GM view): the assemble lands in
            # the parameter, and a re-read of the window sees it (spec "GM Identity").
            window = self.call("tensor.slice", (target, _dims((rows, cols)), _dims(offsets)), prefix="win")
            written = self.call("tensor.assemble", (window, x, _dims((0, 0))), prefix="asm")
            reread = window
            self.tag("construct:assemble-through-view")
        else:
            written = self.call("tensor.assemble", (target, x, _dims(offsets)), prefix="asm")
        self.tag("construct:assemble")
        if self.chance(50):
            self.tag("param:read-after-write")
            scalar = _by_semantics("tensor", ("scalar_binary", "mul"))
            if scalar is not None:
                self.returns.append(self.call(scalar, (reread, self.scalar_for(x.type.dtype))))
                return
        self.returns.append(written)

    def dead_scalars(self) -> list[T.Var]:
        """Scalar parameters and top-level scalar values of the kernel nothing reads (a registry
        step's tensor.read / tile.read / dim result, index arithmetic): dead code the compiler
        would drop, so what computed them would never reach an output."""
        from nanopass.node import walk

        counts: dict[str, int] = {}
        for stmt in self.body:
            for node in walk(stmt):
                if node.KIND == "Var":
                    name = getattr(node, "name")
                    counts[name] = counts.get(name, 0) + 1
        params = [p.var for p in self.params if isinstance(p.var.type, ScalarType)]
        defined: list[T.Var] = []
        # tensor.dim is GM-only (ConvertTensorToTileOps' GM_ONLY_OPS: pto.get_tensor_view_dim): the
        # extent of an on-chip tensor, and what is computed from it, compiles only while dead.
        on_chip_dims: set[str] = set()
        for stmt in self.body:
            if not isinstance(stmt, T.AssignStmt) or not isinstance(stmt.target.type, ScalarType):
                continue
            value = stmt.value
            if isinstance(value, T.Call) and value.op == "tensor.dim" and not (
                    isinstance(value.args[0], T.Var) and value.args[0].name in self.gm) \
                    or any(n.KIND == "Var" and getattr(n, "name") in on_chip_dims for n in walk(value)):
                on_chip_dims.add(stmt.target.name)
                continue
            defined.append(stmt.target)
        return [v for v in params if not counts.get(v.name)] + [v for v in defined if counts.get(v.name, 0) <= 1]

    def consume_scalars(self, scope: list[T.Var], prefix: str) -> T.Var | None:
        """Every dead scalar (`dead_scalars`) cast to the element type of `scope`'s last value and
        added to it (tensor.adds / tile.adds), so the scalar parameters and reads reach the
        output; the folded value is appended to `scope` and returned (None: nothing folded)."""
        adds = _by_semantics(prefix, ("scalar_binary", "add"))
        if adds is None or not scope or not isinstance(scope[-1].type, (TensorType, TileType)):
            return None
        target = scope[-1]
        assert isinstance(target.type, (TensorType, TileType))
        if column_major_view(target) or (isinstance(target.type, TileType) and target.name in self.transposed
                                         and not (len(target.type.shape) == 2 and target.type.shape[1] == 1)):
            return None  # the vector unit's tadds takes row-major tiles (LegalizeVecLayouts; finding 99abc5125d)
        dtype = target.type.dtype
        folded = target
        for scalar in self.dead_scalars():
            assert isinstance(scalar.type, ScalarType)
            source = scalar.type.dtype
            if source is not dtype and (source not in SCALAR_CAST_TYPES or dtype not in SCALAR_CAST_TYPES):
                continue  # no scalar pl.cast between them (unsigned, bool)
            operand: T.Expr = scalar if source is dtype else T.UnaryOp("cast", scalar, ScalarType(dtype))
            try:
                folded = self.call(adds, (folded, operand), prefix="sc", pool=[])
            except (CompileError, TargetRuleMiss):
                continue  # an element type or target the scalar add does not take
            self.tag("construct:scalar-consumed", f"scalar-consumed:{source.pl_name}->{dtype.pl_name}")
        if folded is target:
            return None
        scope.append(folded)
        return folded

    def scalar_for(self, dtype: DataType) -> T.Expr:
        if dtype.is_float:
            return T.ConstFloat(self.pick(SCALARS), dtype)
        return T.ConstInt(self.pick((1, 3, 2)), dtype)

    # -- loops and branches -------------------------------------------------------------------

    def seed(self, ty: TensorType) -> T.Var:
        """A computed value of `ty` to start a carry with (a carry starts on chip)."""
        source = self.param(ty)
        scalar = _by_semantics("tensor", ("scalar_binary", "add"))
        assert scalar is not None
        return self.call(scalar, (source, self.scalar_for(ty.dtype)))

    def loop_kernel(self) -> None:
        """A `pl.range` loop carrying one to three values through registry steps; sometimes an
        inner loop carrying one of them, sometimes an if / else with phis in the body."""
        self.tag("construct:loop")
        dtype = self.vector_dtype()
        ty = TensorType(self.vector_shape(), dtype)
        step_input = self.param(ty, "y")
        carries = self.int_draw(1, 3)
        seeds = [self.seed(ty) for _ in range(carries)]
        self.updated.update(v.name for v in seeds)
        self.tag(f"construct:loop-carries:{carries}")
        results = self.loop(ty, seeds, [step_input], depth=0, block=self.body)
        self.values.extend(results)
        if len(results) > 1:
            combine = _by_semantics("tensor", ("binary", "add"))
            if combine is not None:
                self.call(combine, (results[0], results[1]))

    def loop(self, ty: TensorType, seeds: list[T.Var], outer: list[T.Var], depth: int,
             block: list[T.Stmt]) -> list[T.Var]:
        trips = self.int_draw(1, 3)
        loop_var = T.Var(self.fresh("i"), INDEX)
        carried = [T.Var(self.fresh("acc"), ty) for _ in seeds]
        body: list[T.Stmt] = []
        scope: list[T.Var] = [*carried, *outer]
        for _ in range(self.int_draw(1, 3)):
            self.registry_step("tensor", body, scope) if self.features.registry_ops else self.plain_step(body, scope)
        if self.features.nested_loops and depth == 0 and self.chance(25):
            self.tag("construct:nested-loop")
            inner = self.loop(ty, [self.pick(carried)], [v for v in scope if v.type == ty], depth + 1, body)
            scope.extend(inner)
        if self.features.branches and self.chance(30):
            scope.extend(self.branch(ty, loop_var, scope, body))
        yielded = []
        for carry in carried:
            same = [v for v in scope if v.type == ty and v is not carry and self.computed(v)]
            if same and self.chance(85):
                yielded.append(self.pick(same[-3:]))  # a recent value of the carry's type
            else:
                partners = [v for v in scope if v.type == ty and self.usable(v)] or [carry]
                partner = self.pick(partners)
                first = carry if self.usable(carry) else partner
                yielded.append(self.call(self.elementwise_add(ty), (first, partner), block=body, pool=scope))
        body.append(T.YieldStmt(tuple(yielded)))
        results = [T.Var(self.fresh("out"), ty) for _ in seeds]
        block.append(T.ForStmt(
            loop_var, _index(0), _index(trips), _index(1),
            tuple(T.IterArg(c, s) for c, s in zip(carried, seeds)), tuple(body), tuple(results), "range", ()))
        self.tag("for")
        return results

    def elementwise_add(self, ty: TensorType) -> str:
        op = _by_semantics("tensor", ("binary", "add"))
        assert op is not None
        return op

    def branch(self, ty: TensorType, loop_var: T.Var, scope: list[T.Var], body: list[T.Stmt]) -> list[T.Var]:
        """`if i == k:` / `else:` each computing a value of `ty` from the scope (and sometimes
        writing a window of a parameter in both branches); the phi joins them."""
        self.tag("construct:if")
        cond = T.BinOp(self.pick(("==", "<", ">=")), loop_var, _index(self.int_draw(0, 2)), BOOL)
        branches: list[tuple[list[T.Stmt], T.Var]] = []
        store_target = None
        if self.features.assemble and len(ty.shape) == 2 and self.chance(40):
            store_target = self.param(TensorType(ty.shape, ty.dtype), "w")
            self.tag("construct:if-stores")
        for _ in range(2):
            block: list[T.Stmt] = []
            local = list(scope)
            for _ in range(self.int_draw(1, 2)):
                self.registry_step("tensor", block, local) if self.features.registry_ops else self.plain_step(block, local)
            candidates = [v for v in local if v.type == ty and self.computed(v)]
            if not candidates:  # every carry was written over in place: compute a fresh value
                scaled = _by_semantics("tensor", ("scalar_binary", "mul"))
                assert scaled is not None
                candidates = [self.call(scaled, (self.param(ty), self.scalar_for(ty.dtype)), block=block, pool=local)]
            value = self.pick(candidates[-3:])
            if store_target is not None:
                self.call("tensor.assemble", (store_target, value, _zeros(2)), prefix="st", block=block, pool=[])
            branches.append((block, value))
        (then_block, then_value), (else_block, else_value) = branches
        if store_target is not None and self.chance(50):
            # An if whose only effect is its stores (no phi): what dead-code elimination must keep.
            self.tag("construct:if-only-stores")
            body.append(T.IfStmt(cond, tuple(then_block), tuple(else_block), ()))
            return []
        result = T.Var(self.fresh("phi"), ty)
        then_block.append(T.YieldStmt((then_value,)))
        else_block.append(T.YieldStmt((else_value,)))
        body.append(T.IfStmt(cond, tuple(then_block), tuple(else_block), (result,)))
        return [result]

    def online_softmax_kernel(self) -> None:
        """The online-softmax shape: row max / denominator / numerator carried over blocks of
        rows, the old maximum read again after the new one exists."""
        self.tag("construct:online-softmax")
        rows, cols = self.pick_common((16, 8, 1, 32)), self.pick_common((32, 16, 64))
        blocks = self.int_draw(1, 3)
        dtype = F32
        s = self.param(TensorType((rows * blocks, cols), dtype), "s")
        v = self.param(TensorType((rows, cols), dtype), "v")
        m0 = self.param(TensorType((rows, 1), dtype), "m")
        m_init = self.call("tensor.muls", (m0, T.ConstFloat(1.0, dtype)))
        l_init = self.call("tensor.muls", (m0, T.ConstFloat(0.0, dtype)))
        o_init = self.call("tensor.muls", (v, T.ConstFloat(0.0, dtype)))
        i = T.Var(self.fresh("i"), INDEX)
        m, l, o = (T.Var(self.fresh(n), t.type) for n, t in (("m", m_init), ("l", l_init), ("o", o_init)))
        body: list[T.Stmt] = []
        pool: list[T.Var] = []
        offset: T.Expr = T.BinOp("*", i, _index(rows), INDEX)
        if self.chance(40):
            # Foldable index arithmetic (`i * ((rows + rows) // 2)`): SimplifyIndexArith's to fold,
            # each constant operator changing the offset if folded wrong.
            half = T.BinOp("//", T.BinOp("+", _index(rows), _index(rows), INDEX), _index(2), INDEX)
            offset = T.BinOp("*", i, half, INDEX)
            self.tag("construct:foldable-index")
        blk = self.call("tensor.slice", (s, _dims((rows, cols)), T.TupleExpr((offset, _index(0)))), block=body, pool=pool)
        m_new = self.call("tensor.maximum", (m, self.call("tensor.row_max", (blk,), block=body, pool=pool)),
                          block=body, pool=pool)
        alpha = self.call("tensor.exp", (self.call("tensor.sub", (m, m_new), block=body, pool=pool),), block=body,
                          pool=pool)
        p = self.call("tensor.exp", (self.call("tensor.row_expand_sub", (blk, m_new), block=body, pool=pool),),
                      block=body, pool=pool)
        l_new = self.call("tensor.add", (self.call("tensor.mul", (l, alpha), block=body, pool=pool),
                                         self.call("tensor.row_sum", (p,), block=body, pool=pool)), block=body, pool=pool)
        o_new = self.call("tensor.add", (self.call("tensor.row_expand_mul", (o, alpha), block=body, pool=pool),
                                         self.call("tensor.mul", (p, v), block=body, pool=pool)), block=body, pool=pool)
        body.append(T.YieldStmt((m_new, l_new, o_new)))
        outs = [T.Var(self.fresh("r"), t.type) for t in (m, l, o)]
        self.body.append(T.ForStmt(i, _index(0), _index(blocks), _index(1),
                                   (T.IterArg(m, m_init), T.IterArg(l, l_init), T.IterArg(o, o_init)),
                                   tuple(body), tuple(outs), "range", ()))
        self.values.extend(outs)
        self.call("tensor.row_expand_div", (outs[2], outs[1]))
        if self.chance(50):
            self.returns.append(self.call("tensor.adds", (outs[0], T.ConstFloat(0.0, dtype))))

    # -- cube recipes -----------------------------------------------------------------------

    def cube_kernel(self) -> None:
        self.tag("construct:cube")
        dtypes = [d for d in CUBE_DTYPES if (self.features.int8 or d != I8)
                  and (self.features.low_precision or d in (F32, I8))]
        dtype = self.pick(dtypes)
        big = self.features.big_shapes and not self.features.small_shapes and self.chance(12)
        if big:
            m, k, n = self.pick(BIG_CUBE)
        elif not self.features.small_shapes and self.chance(30):
            m, k, n = self.pick(K_SPLIT_CUBE)
        else:
            m, k, n = self.pick_common(CUBE_M), self.pick_common(CUBE_K), self.pick_common(CUBE_N)
        n_box = 32 if dtype is I8 else 16
        if dtype is I8:
            k = _round_up(k, 32)
            if not self.features.int8_unaligned_n:
                n = _round_up(n, 32)
        self.tag_cube_shape(m, k, n, big, dtype)
        if self.features.user_k_loops and self.features.matmul_acc and n % n_box == 0 and not big \
                and self.chance(20):
            self.user_k_loop(dtype, m, n)
            return
        a = self.param(TensorType((m, k), dtype), "a")
        b = self.param(TensorType((k, n), dtype), "b")
        # A narrowed left operand's product is narrowed (set_validshape) before anything reads it:
        # past L0C, AutoTileMatmulL0's output grid stores that view per tile when it stays in Acc
        # (an INT8 product's INT32; a narrower float product would be converted whole in Vec).
        lhs = a if big and dtype is not I8 else self.narrowed_left(a)
        if not big and lhs is a and dtype in (F16, F32) and computed_operand_fits(self.arch, m, k, n, dtype) \
                and self.chance(20):
            # An operand computed on chip first: ConvertTensorToTileOps boxes it as its load
            # would be (M = 1 / 7 / 20 / 33 / 100 are not whole 16-row boxes).
            lhs = self.call("tensor.muls", (a, T.ConstFloat(1.0, dtype)), prefix="ca")
            self.tag("construct:cube-operand-computed")
        attrs: tuple[tuple[str, AttrValue], ...] = ()
        # A matmul_acc chain keeps the whole accumulator (and each operand) resident in L0:
        # only K is tiled, so the chain is drawn only where it fits.
        chain = (self.features.matmul_acc and not big and k <= 256 and n % n_box == 0
                 and lhs is a and self.chance(30))
        # tensor.matmul keeps a float operand dtype unless out_dtype says otherwise (PyPTO's
        # deduction); a matmul_acc chain accumulates at FP32, so its seed asks for FP32.
        if dtype.is_float and (chain or self.chance(60)):
            attrs = (("out_dtype", F32 if chain else self.pick((F32, F16, BF16))),)
        # A right operand narrowed on its columns too, where the left one is narrowed on its rows: the
        # product is computed over both narrowings (`cube_extents`).
        rhs = b if chain or big or lhs is a or not dtype.is_float else self.narrowed_right(b, lhs)
        c = self.defined_rows(self.call("tensor.matmul", (lhs, rhs), attrs, prefix="c"), lhs, chain)
        if chain:
            if isinstance(c.type, TensorType) and c.type.valid_shape is not None:
                # tensor.matmul_acc's result is its accumulator, valid region included, while
                # tile.matmul_acc's is the product's (ConvertTensorToTileOps narrows it back).
                self.tag("cube:revalidated-accumulator")
            for _ in range(self.int_draw(1, 2)):
                k2 = self.pick(CUBE_K[:4])
                if dtype is I8:
                    k2 = _round_up(k2, 32)
                a2 = self.param(TensorType((m, k2), dtype), "a")
                b2 = self.param(TensorType((k2, n), dtype), "b")
                c = self.call("tensor.matmul_acc", (c, a2, b2), prefix="c")
        if big and self.features.slices and isinstance(c.type, TensorType) and c.type.dtype.bits == 32 \
                and c.name not in self.undefined and c.type.valid_shape is None and self.chance(40):
            self.big_product_consumers(c)
        if self.features.mixed_kernels and isinstance(c.type, TensorType) and c.type.dtype.is_float \
                and not big and self.chance(30):
            self.tag("construct:mixed")
            if self.chance(50):
                self.all_core_barrier()
            scope = [c]
            self.steps(self.int_draw(1, 2), values=scope)
            self.values.extend(v for v in scope if v not in self.values)

    def all_core_barrier(self, block: list[T.Stmt] | None = None) -> None:
        """A syncall every core of the mixed kernel takes part in (core_type="mix"), soft (on GM
        counters) or hard: ExpandMixedKernel gives it to both the AIC and the AIV kernel, which
        BarriersOnEveryCore checks (finding f530808309)."""
        self.tag("construct:all-core-barrier")
        args: tuple[T.Expr, ...] = ()
        attrs: tuple[tuple[str, AttrValue], ...] = (("core_type", "mix"),)
        if self.chance(75):
            counters = self.param(WORKSPACE_OPERANDS[("system.syncall", 0)], "ws")
            self.values.remove(counters)  # a workspace, not data
            args, attrs = (counters,), (("mode", "soft"), *attrs)
        ty = REGISTRY.deduce("system.syncall", args, attrs)
        (self.body if block is None else block).append(T.EvalStmt(T.Call("system.syncall", args, attrs, ty)))

    def big_product_consumers(self, product: T.Var) -> None:
        """A product past L0C / L0B returned with windows of it: AutoTileMatmulL0's output grid
        serves every store (a window of a matmul result is taken on Vec, so per output tile it
        moves the sub-tile there and stores the part of the window it holds). Only a 32-bit
        product: a narrower one is converted whole in Vec, which it does not fit."""
        assert isinstance(product.type, TensorType)
        rows, cols = (int(d) for d in product.type.shape)
        self.tag("cube:several-consumers")
        consumers = [product]
        for _ in range(self.int_draw(1, 2)):
            height, width = self.int_draw(1, rows), self.int_draw(1, cols)
            origin = (self.int_draw(0, rows - height), self.int_draw(0, cols - width))
            consumers.append(self.call("tensor.slice", (product, _dims((height, width)), _dims(origin)), prefix="w"))
        self.returns.extend(v for v in consumers if v not in self.returns)

    def user_k_loop(self, dtype: DataType, m: int, n: int) -> None:
        """A split-K reduction written by the user: K blocks sliced at the loop variable, the
        accumulator carried by a `pl.range` with a non-unit step. Seeded by the first block's
        matmul (the loop starts at the second block), or by a +0.0 `tensor.full` (the spelling
        SeedZeroAccumulators turns into a predicated matmul_acc chain)."""
        k, block = self.pick(USER_K_SPLITS)
        if dtype is I8:
            k, block = _round_up(k, 64), 32
        a = self.param(TensorType((m, k), dtype), "a")
        b = self.param(TensorType((k, n), dtype), "b")
        acc_dtype = I32 if dtype is I8 else F32
        zero_seed = self.chance(50)
        if zero_seed:
            zero: T.Expr = T.ConstInt(0, acc_dtype) if acc_dtype is I32 else T.ConstFloat(0.0, acc_dtype)
            seed = self.call("tensor.full", (_dims((m, n)), zero), (("dtype", acc_dtype),), prefix="z")
            start = 0
        else:
            a0 = self.call("tensor.slice", (a, _dims((m, block)), _dims((0, 0))), prefix="s")
            b0 = self.call("tensor.slice", (b, _dims((block, n)), _dims((0, 0))), prefix="s")
            seed_attrs: tuple[tuple[str, AttrValue], ...] = (("out_dtype", F32),) if dtype.is_float else ()
            seed = self.call("tensor.matmul", (a0, b0), seed_attrs, prefix="c")
            start = block
        self.tag("cube:user-k-loop" + (":zero-seed" if zero_seed else ""), "construct:matmul-in-loop")
        loop_var = T.Var(self.fresh("k"), INDEX)
        carried = T.Var(self.fresh("acc"), seed.type)
        body: list[T.Stmt] = []
        origin = _index(0)
        pool: list[T.Var] = []
        ak = self.call("tensor.slice", (a, _dims((m, block)), T.TupleExpr((origin, loop_var))), prefix="s",
                       block=body, pool=pool)
        bk = self.call("tensor.slice", (b, _dims((block, n)), T.TupleExpr((loop_var, origin))), prefix="s",
                       block=body, pool=pool)
        nxt = self.call("tensor.matmul_acc", (carried, ak, bk), prefix="c", block=body, pool=pool)
        body.append(T.YieldStmt((nxt,)))
        result = T.Var(self.fresh("out"), seed.type)
        self.body.append(T.ForStmt(loop_var, _index(start), _index(k), _index(block), (T.IterArg(carried, seed),),
                                   tuple(body), (result,), "range", ()))
        self.values.append(result)
        self.updated.add(seed.name)
        if m % 16 or n % 16:
            self.boxed.add(result.name)

    def flash_kernel(self) -> None:
        """Matmuls inside a loop with vector state carried between them (flash attention)."""
        self.tag("construct:flash", "construct:matmul-in-loop", "construct:mixed")
        rows, d, blocks = 16, self.pick_common((64, 32, 16)), self.int_draw(1, 3)
        dtype = self.pick((F16, BF16)) if self.features.low_precision else F32
        q = self.param(TensorType((rows, d), dtype), "q")
        kt = self.param(TensorType((16 * blocks, d), dtype), "k")
        vt = self.param(TensorType((16 * blocks, d), dtype), "v")
        m0 = self.call("tensor.full", (_dims((rows, 1)), T.ConstFloat(-30000.0, F32)), (("dtype", F32),))
        l0 = self.call("tensor.full", (_dims((rows, 1)), T.ConstFloat(0.0, F32)), (("dtype", F32),))
        o0 = self.call("tensor.full", (_dims((rows, d)), T.ConstFloat(0.0, F32)), (("dtype", F32),))
        i = T.Var(self.fresh("i"), INDEX)
        m, l, o = (T.Var(self.fresh(n), t.type) for n, t in (("m", m0), ("l", l0), ("o", o0)))
        body: list[T.Stmt] = []
        pool: list[T.Var] = []
        offset = T.BinOp("*", i, _index(16), INDEX)
        kb = self.call("tensor.slice", (kt, _dims((16, d)), T.TupleExpr((offset, _index(0)))), block=body, pool=pool)
        vb = self.call("tensor.slice", (vt, _dims((16, d)), T.TupleExpr((offset, _index(0)))), block=body, pool=pool)
        s = self.call("tensor.matmul", (q, kb), (("b_trans", True), ("out_dtype", F32)), block=body, pool=pool)
        m_new = self.call("tensor.maximum", (m, self.call("tensor.row_max", (s,), block=body, pool=pool)), block=body,
                          pool=pool)
        alpha = self.call("tensor.exp", (self.call("tensor.sub", (m, m_new), block=body, pool=pool),), block=body,
                          pool=pool)
        p = self.call("tensor.exp", (self.call("tensor.row_expand_sub", (s, m_new), block=body, pool=pool),),
                      block=body, pool=pool)
        l_new = self.call("tensor.add", (self.call("tensor.mul", (l, alpha), block=body, pool=pool),
                                         self.call("tensor.row_sum", (p,), block=body, pool=pool)), block=body, pool=pool)
        p_low = self.call("tensor.cast", (p,), (("target_type", dtype), ("mode", "rint")), block=body, pool=pool)
        if self.chance(50):
            self.all_core_barrier(body)  # between the two products of an iteration, on both cores
        pv = self.call("tensor.matmul", (p_low, vb), (("out_dtype", F32),), block=body, pool=pool)
        o_new = self.call("tensor.add", (self.call("tensor.row_expand_mul", (o, alpha), block=body, pool=pool), pv),
                          block=body, pool=pool)
        body.append(T.YieldStmt((m_new, l_new, o_new)))
        outs = [T.Var(self.fresh("r"), t.type) for t in (m, l, o)]
        self.body.append(T.ForStmt(i, _index(0), _index(blocks), _index(1),
                                   (T.IterArg(m, m0), T.IterArg(l, l0), T.IterArg(o, o0)), tuple(body), tuple(outs),
                                   "range", ()))
        self.values.extend(outs)
        self.call("tensor.row_expand_div", (outs[2], outs[1]))

    def view_chain_kernel(self) -> None:
        """Views feeding a matmul and vector ops: a reshape / slice / set_validshape chain on a
        GM operand, the matmul result consumed twice."""
        self.tag("construct:view-chain", "construct:multi-consumer")
        dtype = self.pick((F16, F32, BF16)) if self.features.low_precision else F32
        # A reshaped operand is not cube-boxed (InferTileMemorySpace says so): M and K whole boxes.
        m, k, n = self.pick_common((16, 32, 8)), self.pick_common((32, 64, 16)), self.pick_common((16, 32))
        # The reshape is a zero-copy re-view on chip: both shapes' padded Vec rows must keep the
        # elements in row-major order (the fact InferTileMemorySpace refuses the others by).
        shapes = [s for s in ((m, k), (m * 2, k // 2), (k, m)) if not flat_reshape_gap(s, (m, k), dtype)]
        source_shape = self.pick(tuple(shapes)) if m % 16 == 0 else (m, k)
        a = self.param(TensorType(source_shape, dtype), "a")
        b = self.param(TensorType((k, n), dtype), "b")
        lhs: T.Var = a
        if source_shape != (m, k):
            lhs = self.call("tensor.reshape", (a, _dims((m, k))), prefix="rs")
            self.tag("construct:reshape-feeds-matmul")
        if self.features.partial_valid and m > 1 and self.chance(40):
            valid = self.int_draw(1, m)
            if lhs is a:
                lhs = self.call("tensor.set_validshape", (lhs, _index(valid), _index(k)), prefix="vs")
            else:  # set_validshape cannot narrow the reshape's view: narrow it in the reshape
                lhs = self.call("tensor.reshape", (a, _dims((m, k)), _dims((valid, k))), prefix="rs")
        c = self.defined_rows(self.call("tensor.matmul", (lhs, b), (("out_dtype", F32),), prefix="c"), lhs)
        first = self.call("tensor.exp", (c,)) if dtype.is_float else c
        self.call("tensor.add", (c, first))

    # -- hand-written tile kernels ------------------------------------------------------------

    def focused_kernel(self, opdef: OpDef) -> None:
        """The recipe that carries `opdef` (a steered campaign's target): a cube recipe for an op
        on Mat / Left / Right / Acc operands, a tile kernel for another tile op, a vector kernel
        for a tensor op; its first steps call `opdef`, the ones after it are drawn as usual."""
        self.tag("campaign:steered")  # not a construct: how the kernel was drawn
        if _cube_operands(opdef):
            self.tile_cube_kernel(target=opdef if opdef.family == "matmul" else None)
            return
        prefix = "tile" if opdef.prefix == "tile" else "tensor"
        if prefix == "tile":
            tiles = self.tile_parameters()
            self.focus_steps(opdef, tiles)
            self.steps(self.int_draw(0, 4), None, tiles, prefix="tile")
            self.store_tiles(tiles)
            return
        ty = TensorType(self.vector_shape(), self.vector_dtype())
        for _ in range(self.int_draw(1, 3)):
            self.param(ty)
        self.focus_steps(opdef, self.values)
        self.steps(self.int_draw(0, 4))

    def focus_steps(self, opdef: OpDef, scope: list[T.Var]) -> None:
        """Up to four tries at a step calling `opdef`, over `scope`, until one draws it."""
        for _ in range(4):
            if self.registry_step(opdef.prefix, None, scope, only=[opdef]) is not None or opdef.name in self.ops:
                return

    def tile_parameters(self) -> list[T.Var]:
        """One or two parameters of one drawn shape and element type, loaded (usually into Vec)."""
        dtype = self.vector_dtype()
        shape = (self.pick_common(VECTOR_ROWS[:4]), self.pick_common(VECTOR_COLS[:5]))
        tiles: list[T.Var] = []
        for _ in range(self.int_draw(1, 2)):
            tensor = self.param(TensorType(shape, dtype), "x")
            self.values.remove(tensor)
            space = MemorySpace.Vec if self.hand_placed or self.chance(80) else None
            tiles.append(self.load(tensor, space, pool=tiles))
            self.loaded.append((tensor, tiles[-1]))
        return tiles

    def tile_kernel(self) -> None:
        """A kernel written with tile.* ops: parameters loaded into Vec (or Mat), registry tile
        steps over them, results stored into Out parameters."""
        self.tag("construct:tile-kernel")
        tiles = self.tile_parameters()
        if self.features.scalar_math and self.chance(25):
            self.tile_scalar_math(tiles)
        self.steps(self.int_draw(2, 8), None, tiles, prefix="tile")
        if self.features.slices and self.chance(50):
            self.window_computed(tiles)
        if self.features.slices and self.chance(25):
            self.window_view(tiles)
        if self.features.slices and self.chance(30):
            self.strided_column(tiles)
        if self.features.partial_valid and self.chance(15):
            self.ragged_rows()
        if self.features.partial_valid and self.chance(30):
            self.mask_selects(tiles)
        if self.features.scalar_math and self.chance(20):
            self.written_tile_reread(tiles)
        if self.features.partial_valid and self.chance(20):
            self.tile_padding_read(tiles)
        self.store_tiles(tiles)

    def tile_padding_read(self, tiles: list[T.Var]) -> None:
        """A loaded Vec tile narrowed by tile.set_validshape (its padding holds the loaded data)
        read by an element-wise op whose lhs is a whole tile: the result is valid over the whole
        tile, so the narrowed operand is read past its valid region. BF16 above all: A2/A3
        compute it in FP32, and LegalizeVecDtypes must widen that operand's padding too.
        Sometimes the narrowing is a view instead (construct:view-padding-read): a same-shape
        tile.reshape stating the valid region by its own valid_shape argument, of a 2-D tile or of
        an [N, 1] column (which runs on its [1, N] row): the view is a handle set_validshape cannot
        widen, so the pass re-validating the read takes the view again, that argument widened
        too (findings 66a183e452, RevalidateReadOperands, and 6ff8b34c84, LegalizeVecLayouts).
        Or the narrowing is a window of a taller loaded tile, narrowed by its own valid_shape and
        re-viewed by a tile.reinterpret_view (construct:re-viewed-window-padding-read): the re-view
        reads the window copied into a tile of its own, which LegalizeVecLayouts must copy over the
        region the op reads, not over the window's valid region (finding
        tile_reinterpret_of_a_narrowed_window_read_whole)."""
        narrow_op = _by_semantics("tile", ("set_validshape",))
        view_op = _by_semantics("tile", ("reshape",))
        slice_op, reinterpret = _by_semantics("tile", ("slice",)), _by_semantics("tile", ("reinterpret",))
        ops = [op.name for op in generatable_ops("tile", self.arch)
               if op.family == "elementwise_binary" and op.semantics[:1] == ("binary",)]
        if narrow_op is None or not ops:
            return
        # One draw: a handle (2 in 5; one of them a re-viewed window unless BF16), a re-viewed window
        # (1), a 2-D view (1), a column view (1).
        # (No draw more than before: the other recipes' programs stay as they were drawn.)
        form = self.int_draw(0, 4)
        as_view = view_op is not None and form >= 3
        column = as_view and form >= 4
        shape = (self.pick_common((16, 8)), 1) if column else \
            (self.pick_common((16, 8, 2)), self.pick_common((16, 32, 64)))
        dtype = BF16 if self.features.low_precision and not column and self.chance(60) else self.vector_dtype()
        re_viewed = slice_op is not None and reinterpret is not None and (form == 2 or (form == 0 and dtype != BF16))
        above = (1 + shape[1] % 3) if re_viewed else 0  # the window's row offset in its taller source
        loaded = []
        for rows in (shape[0], shape[0] + above):
            tensor = self.param(TensorType((rows, shape[1]), dtype))
            self.values.remove(tensor)
            loaded.append(self.load(tensor, MemorySpace.Vec, pool=[]))
        whole, narrowed = loaded
        valid = (self.int_draw(1, shape[0]), self.int_draw(1, shape[1]))
        if valid == shape:
            valid = (max(1, shape[0] // 2), shape[1])
        try:
            if re_viewed:
                assert slice_op is not None and reinterpret is not None
                window = self.call(slice_op, (narrowed, _dims(shape), _dims((above, 0)), _dims(valid)), prefix="w",
                                   pool=[])
                narrow = self.call(reinterpret, (window,), (("dtype", dtype),), prefix="n", pool=[])
            elif as_view:
                assert view_op is not None
                narrow = self.call(view_op, (narrowed, _dims(shape), _dims(valid)), prefix="n", pool=[])
            else:
                narrow = self.call(narrow_op, (narrowed, _index(valid[0]), _index(valid[1])), prefix="n", pool=[])
            for _ in range(3):  # an op this element type or target does not take gives way
                try:
                    self.call(self.pick(ops), (whole, narrow), prefix="tile", pool=tiles)
                except (CompileError, TargetRuleMiss):
                    continue
                self.tag("construct:tile-padding-read")
                if as_view:
                    self.tag("construct:view-padding-read")
                if re_viewed:
                    self.tag("construct:re-viewed-window-padding-read")
                return
        except (CompileError, TargetRuleMiss):
            return

    def written_tile_reread(self, tiles: list[T.Var]) -> None:
        """A Vec tile written in place (tile.write of one element) and read again under its old
        name next to the written one (`sub(written, old)`: zero but at the written element): a tile
        is a value, so the old name keeps the contents from before the write, and the write's
        buffer must not be the one the old name is still read from (MaterializeSemanticAliases
        copies it). Renaming the old tile to the written one reads the update twice."""
        write = _by_semantics("tile", ("write",))
        combine = [op for op in (_by_semantics("tile", ("binary", "sub")), _by_semantics("tile", ("binary", "add")))
                   if op is not None]
        sources = [t for t in tiles if isinstance(t.type, TileType) and len(t.type.shape) == 2 and self.usable(t)
                   and t.type.memory_space in (None, MemorySpace.Vec) and self.tile_value_kept("tile.write", 0, t)
                   and all(isinstance(d, int) for d in t.type.valid)]
        if write is None or not combine or not sources:
            return
        old = self.pick(sources)
        assert isinstance(old.type, TileType)
        indices = _dims(tuple(self.int_draw(0, int(d) - 1) for d in old.type.valid))
        try:
            written = self.call(write, (old, indices, self.scalar_for(old.type.dtype)), prefix="wr", pool=[])
        except (CompileError, TargetRuleMiss):
            return
        for op in combine:  # an element type or target the op does not take gives way to the next
            try:
                self.call(op, (written, old), prefix="tile", pool=tiles)
            except (CompileError, TargetRuleMiss):
                continue
            self.tag("construct:written-tile-reread")
            return

    def tile_scalar_math(self, tiles: list[T.Var]) -> None:
        """An element of a loaded Vec tile read as a scalar (tile.read), combined with a constant
        in scalar arithmetic, and fed back into a tile-scalar op (tile.adds / muls / ...)."""
        read = _by_semantics("tile", ("read",))
        sources = [t for t in tiles if isinstance(t.type, TileType) and t.type.memory_space is MemorySpace.Vec
                   and all(isinstance(d, int) for d in t.type.valid)]
        scalar_ops = [op.name for op in generatable_ops("tile", self.arch) if op.family == "elementwise_scalar"
                      and op.semantics[1:2] in (("add",), ("mul",), ("sub",), ("max",), ("min",))]
        if read is None or not sources or not scalar_ops:
            return
        source = self.pick(sources)
        assert isinstance(source.type, TileType)
        indices = _dims(tuple(self.int_draw(0, int(d) - 1) for d in source.type.valid))
        try:
            value = self.call(read, (source, indices), prefix="s", pool=[])
        except (CompileError, TargetRuleMiss):
            return
        assert isinstance(value.type, ScalarType)
        dtype = value.type.dtype
        self.tag("construct:scalar-read-tile")
        const: T.Expr = T.ConstFloat(self.pick(SCALARS[:4]), dtype) if dtype.is_float else T.ConstInt(3, dtype)
        op = self.pick(("+", "-", "*"))
        expr: T.Expr = T.BinOp(op, value, const, ScalarType(dtype))
        if dtype is F32 and self.chance(30):
            expr = self.round_trip(expr)
        combined = T.Var(self.fresh("s"), ScalarType(dtype))
        self.body.append(T.AssignStmt(combined, expr))
        self.tag(f"scalar:{op}:{dtype.pl_name}")
        targets = [t for t in tiles if isinstance(t.type, TileType) and t.type.dtype is dtype
                   and t.type.memory_space is MemorySpace.Vec and self.usable(t)]
        for _ in range(2):  # an op this element type or target does not take gives way to another
            try:
                self.call(self.pick(scalar_ops), (self.pick(targets), combined), prefix="tile", pool=tiles)
                return
            except (CompileError, TargetRuleMiss):
                continue  # the scalar stays dead: store_tiles folds it in

    def mask_selects(self, tiles: list[T.Var]) -> None:
        """A compare's packed mask consumed by a select over at most the compared columns: the
        compare is of a loaded Vec tile narrowed to a drawn width (rarely a multiple of 8 or of
        a repeat), the select's operand to that width or fewer. TCMP / TCMPS define only the
        bits of the compared columns (the rest of their store granules is undefined on chip):
        the simulator poisons the rest, DefinedReads counts the mask's data in bits
        (`languages.ops.data_extents`), and a select past the compared bits is not drawn."""
        narrow_op = _by_semantics("tile", ("set_validshape",))
        compares = [op for op in generatable_ops("tile", self.arch) if op.semantics[:1] == ("compare",)]
        selects = [op for op in generatable_ops("tile", self.arch) if op.semantics[:1] == ("select",)]
        # Not a view (a window, a re-view): ViewLegality refuses set_validshape of one.
        sources = [t for t in tiles if isinstance(t.type, TileType) and t.type.memory_space is MemorySpace.Vec
                   and len(t.type.shape) == 2 and all(isinstance(d, int) for d in t.type.valid)
                   and t.name not in self.views | self.windows
                   and not reads_past(extents(t.type.valid_extents), self._data_of(t))]
        if narrow_op is None or not compares or not selects or not sources:
            return
        source = self.pick(sources)
        assert isinstance(source.type, TileType)
        rows, cols = (int(d) for d in source.type.valid)
        compared = cols if self.chance(30) else self.int_draw(1, cols)  # the whole width, or a drawn one
        # Any width: a select past the compared bits is not drawn (the shared data-extent facts,
        # DefinedReads', decline it in `registry_step`), and no other guard of it is made here.
        selected = compared if self.chance(40) else self.int_draw(1, compared if self.chance(50) else cols)
        compare = self.pick(compares)
        try:
            narrow = source if compared == cols else \
                self.call(narrow_op, (source, _index(rows), _index(compared)), prefix="n", pool=[])
            rhs = narrow if compare.operands[1].kind != "scalar" else self.scalar_for(source.type.dtype)
            mask = self.call(compare.name, (narrow, rhs), (("cmp_type", self.int_draw(0, 5)),), prefix="m", pool=[])
            picked = source if selected == cols else \
                self.call(narrow_op, (source, _index(rows), _index(selected)), prefix="n", pool=[])
        except (CompileError, TargetRuleMiss):
            return  # an element type or target the compare does not take
        for _ in range(3):
            selected_value = self.registry_step("tile", None, [mask, picked], only=[self.pick(selects)])
            if selected_value is None:
                continue
            tiles.append(selected_value)
            made = self.body[-1]
            if isinstance(made, T.AssignStmt) and isinstance(made.value, T.Call) and made.value.args[:1] == (mask,):
                self.tag("construct:mask-select" + (":partial-byte" if compared % 8 else ""))
            return

    def window_view(self, tiles: list[T.Var]) -> None:
        """A window of a loaded Vec tile (tile.slice) re-viewed -- a same-width reinterpret_view
        (another element type of its width, or its own) or a transpose_view of a one-row window --
        and the view computed on by a vector op, stored last: a re-view starts at its buffer's
        first byte, so the window must be copied out of its source first (LegalizeVecLayouts);
        a view of the window in place would read the source's first elements."""
        slice_op = _by_semantics("tile", ("slice",))
        reinterpret = _by_semantics("tile", ("reinterpret",))
        transpose = _by_semantics("tile", ("transpose_view",))
        sources = [t for t in tiles if isinstance(t.type, TileType) and t.type.memory_space is MemorySpace.Vec
                   and len(t.type.shape) == 2 and t.name.startswith("l") and tuple(t.type.shape) != (1, 1)]
        ops = [op for op in generatable_ops("tile", self.arch) if op.family in _WINDOW_COMPUTE_FAMILIES
               and 1 <= len([d for d in op.operands if not d.optional]) <= 2
               and all(d.kind == "tile" and d.effect is Effect.READ for d in op.operands if not d.optional)]
        if slice_op is None or reinterpret is None or transpose is None or not sources or not ops:
            return
        source = self.pick(sources)
        assert isinstance(source.type, TileType)
        rows, cols = (int(d) for d in source.type.shape)
        how = self.pick(("reinterpret", "transpose"))
        if how == "transpose":
            shape = (1, self.int_draw(1, cols))  # a row, re-viewed as an [n, 1] column
        else:
            shape = (self.int_draw(1, rows), self.int_draw(1, cols))
        offsets = (self.int_draw(0, rows - shape[0]), self.int_draw(0, cols - shape[1]))
        if offsets == (0, 0) and (shape[0] == 1 or shape[1] == cols):
            # A window at the buffer's start with its source's pitch is its source's prefix: a view
            # of it in place reads the same bytes. Move it off the start where the source allows.
            if rows > shape[0]:
                offsets = (self.int_draw(1, rows - shape[0]), 0)
            elif cols > shape[1]:
                offsets = (0, self.int_draw(1, cols - shape[1]))
        try:
            window = self.call(slice_op, (source, _dims(shape), _dims(offsets)), prefix="w", pool=[])
            if how == "reinterpret":
                dtype = self.pick(SAME_WIDTH[source.type.dtype.bits])
                view = self.call(reinterpret, (window,), (("dtype", dtype),), prefix="v", pool=[])
                how = f"reinterpret:{source.type.dtype.pl_name}->{dtype.pl_name}"
            else:
                view = self.call(transpose, (window,), prefix="v", pool=[])
        except (CompileError, TargetRuleMiss):
            return
        for _ in range(3):  # an op the view's element type or the target does not take gives way
            op = self.pick(ops)
            try:
                self.call(op.name, tuple([view] * len([d for d in op.operands if not d.optional])), prefix="tile",
                          pool=tiles)
            except (CompileError, TargetRuleMiss):
                continue
            self.tag("construct:window-re-viewed", f"window-re-viewed:{how}")
            return

    def strided_column(self, tiles: list[T.Var]) -> None:
        """An [N, 1] window of a loaded 2-D Vec tile -- row-major, its elements a source row apart,
        so it has no zero-copy [1, N] row view -- and an [N, 1] column-major partner in one
        element-wise op of the registry: a column loaded from GM, a window of a column, a row
        re-viewed as a column (tile.reshape), or a column the window itself computed (a unary op's
        result). LegalizeVecLayouts runs the op on [1, N] rows, the window's gathered from its
        elements (finding 3d96c19acc: the window was left [N, 1] beside the partner's row)."""
        slice_op, reshape = _by_semantics("tile", ("slice",)), _by_semantics("tile", ("reshape",))
        sources = [t for t in tiles if isinstance(t.type, TileType) and t.type.memory_space is MemorySpace.Vec
                   and len(t.type.shape) == 2 and t.name.startswith("l")
                   and all(isinstance(d, int) and d >= 2 for d in t.type.shape)]
        binary = [op.name for op in generatable_ops("tile", self.arch) if op.family == "elementwise_binary"
                  and [d.kind for d in op.operands if not d.optional] == ["tile", "tile"]]
        unary = [op.name for op in generatable_ops("tile", self.arch) if op.family == "unary"
                 and [d.kind for d in op.operands if not d.optional] == ["tile"]]
        if slice_op is None or reshape is None or not sources or not binary:
            return
        source = self.pick(sources)
        assert isinstance(source.type, TileType)
        rows, cols = (int(d) for d in source.type.shape)
        dtype = source.type.dtype
        n = self.int_draw(2, rows)
        offsets = (self.int_draw(0, rows - n), self.int_draw(0, cols - 1))
        how = self.pick(("gm-column", "column-window", "row-view", "own-result"))
        try:
            window = self.call(slice_op, (source, _dims((n, 1)), _dims(offsets)), prefix="w", pool=[])
            if how == "own-result":
                partner = self.call(self.pick(unary), (window,), prefix="tile", pool=[]) if unary else window
            else:
                extra = self.int_draw(1, 4) if how == "column-window" else 0
                shape = (1, n) if how == "row-view" else (n + extra, 1)
                tensor = self.param(TensorType(shape, dtype), "x")
                self.values.remove(tensor)
                partner = self.load(tensor, MemorySpace.Vec, pool=[])
                if how == "column-window":
                    partner = self.call(slice_op, (partner, _dims((n, 1)), _dims((self.int_draw(0, extra), 0))),
                                        prefix="w", pool=[])
                elif how == "row-view":
                    partner = self.call(reshape, (partner, _dims((n, 1))), prefix="v", pool=[])
        except (CompileError, TargetRuleMiss):
            return
        for _ in range(3):  # an op this element type or the target does not take gives way to another
            pair = (window, partner) if self.chance(50) else (partner, window)
            try:
                self.call(self.pick(binary), pair, prefix="tile", pool=tiles)
            except (CompileError, TargetRuleMiss):
                continue
            self.tag("construct:strided-column", f"strided-column:{how}")
            return

    def ragged_rows(self) -> None:
        """A ragged block: a parameter loaded with a runtime valid_shape ([r, C] or [R, r], `r` an
        INDEX scalar parameter the fuzz target draws in 1..R / 1..C), computed on by tile-scalar
        ops and stored into an InOut parameter: the elements past `r` keep their input values.
        The runtime extent reaches PTO as a `v_row=?` / `v_col=?` handle narrowed by
        pto.set_validshape."""
        dtype = self.vector_dtype()
        shape = (self.pick_common(VECTOR_ROWS), self.pick_common(VECTOR_COLS))
        if shape == (1, 1):
            shape = (16, 16)
        axis = self.int_draw(0, 1)
        if shape[axis] == 1:
            axis = 1 - axis
        rows, cols = shape
        x = self.param(TensorType(shape, dtype), "x")
        self.values.remove(x)
        extent = T.Var(self.fresh(f"{VALID_EXTENT_PREFIX}{shape[axis]}n"), INDEX)
        self.params.append(T.Param(extent, "In"))
        valid = (extent, _index(cols)) if axis == 0 else (_index(rows), extent)
        head = self.call("tile.load", (x, _zeros(2), _dims(shape), T.TupleExpr(valid)),
                         (("target_memory", MemorySpace.Vec),), prefix="l", pool=[])
        scalar_ops = [op.name for op in generatable_ops("tile", self.arch) if op.family == "elementwise_scalar"
                      and op.semantics[1:2] in (("add",), ("mul",), ("max",))]
        value = head
        for _ in range(self.int_draw(1, 3)):
            if not scalar_ops:
                break
            try:
                value = self.call(self.pick(scalar_ops), (value, self.scalar_for(dtype)), prefix="rg", pool=[])
            except (CompileError, TargetRuleMiss):
                continue  # an element type or target the op does not take
        out = self.param(TensorType(shape, dtype), "io", "InOut")
        self.values.remove(out)
        self.returns.append(self.call("tile.store", (value, _zeros(2), out), prefix="st", pool=[]))
        self.tag("construct:runtime-valid", f"runtime-valid:{'rows' if axis == 0 else 'cols'}")

    def window_computed(self, tiles: list[T.Var]) -> None:
        """A window of a loaded Vec tile (tile.slice at an offset) computed on by a vector op of
        the registry, stored last: the op must read the window's elements at its offset and its
        source's row pitch. A copy, a bit view (LegalizeVecDtypes' BF16 routes re-view their
        operand as INT16) or a row view that started at the source buffer's first byte would read
        the source's first elements instead (NoRebasedWindows)."""
        slice_op = _by_semantics("tile", ("slice",))
        sources = [t for t in tiles if isinstance(t.type, TileType) and t.type.memory_space is MemorySpace.Vec
                   and len(t.type.shape) == 2 and t.name.startswith("l")]
        ops = [op for op in generatable_ops("tile", self.arch) if op.family in _WINDOW_COMPUTE_FAMILIES
               and 1 <= len([d for d in op.operands if not d.optional]) <= 2
               and all(d.kind == "tile" and d.effect is Effect.READ for d in op.operands if not d.optional)]
        if slice_op is None or not sources or not ops:
            return
        if self.features.low_precision and self.chance(50):
            # A BF16 window above all: A2/A3 compute most vector ops on it in FP32, through a
            # bit view (LegalizeVecDtypes' BITS routes) that must start at the window, not at its
            # source buffer's first byte.
            shape = (self.pick_common((16, 8, 2)), self.pick_common((16, 32, 64)))
            tensor = self.param(TensorType(shape, BF16))
            self.values.remove(tensor)
            sources = [self.load(tensor, MemorySpace.Vec, pool=tiles)]
        source = self.pick(sources)
        assert isinstance(source.type, TileType)
        rows, cols = (int(d) for d in source.type.shape)
        shape = (self.int_draw(1, rows), self.int_draw(1, cols))
        offsets = (self.int_draw(0, rows - shape[0]), self.int_draw(0, cols - shape[1]))
        op = self.pick(ops)
        try:
            window = self.call(slice_op, (source, _dims(shape), _dims(offsets)), prefix="w", pool=tiles)
            operands = [window] * len([d for d in op.operands if not d.optional])
            self.call(op.name, tuple(operands), prefix="tile", pool=tiles)
        except (CompileError, TargetRuleMiss):
            return  # a window or an op the registry or the target declines here (nothing was added)
        self.tag("construct:window-computed")

    def tile_cube_kernel(self, target: OpDef | None = None) -> None:
        """A cube op of the registry's matmul family (tile.matmul / _acc / _bias, the gemv forms,
        the batched forms) on operands loaded into Mat (L0 tiling hops them) or moved / extracted
        into Left and Right by hand; the accumulator stored from Acc. The op is drawn from the
        registry first, its operands are filled by name (lhs / rhs / bias / acc), and the operand
        layout (plain, one valid left row, rank-3 batches) is the first one, in a drawn order, the
        registry's deduction accepts for it (a gemv wants one valid left row)."""
        self.tag("construct:tile-cube")
        dtype = self.pick((F16, BF16, F32)) if self.features.low_precision else F32
        m, k, n = self.pick_common((16, 32, 48)), self.pick_common((32, 16, 64)), self.pick_common((16, 32, 64))
        family = [op for op in generatable_ops("tile", self.arch) if op.family == "matmul"]
        if not family:
            return
        if target is None:
            target = self.pick(family)
        layouts: list[_CubeLayout] = [_CubeLayout((), False), _CubeLayout((), True), _CubeLayout((self.pick((2, 3)),), False)]
        order = [layouts.pop(self.int_draw(0, len(layouts) - 1)) for _ in range(len(layouts))]
        chosen = None
        for layout in order:
            chain = self.cube_chain(target, layout, dtype, m, k, n)
            if chain is not None:
                chosen = (layout, chain)
                break
        if chosen is None:
            return
        layout, (starter, accumulator) = chosen
        tiles: list[T.Var] = []
        operands = self.cube_operands(dtype, layout, m, k, n, tiles)
        if "bias" in _operand_names(starter):
            bias_t = self.param(TensorType((1, n), F32), "bias")
            self.values.remove(bias_t)
            operands["bias"] = self.load(bias_t, MemorySpace.Mat, pool=tiles)
        c = self.cube_call(starter, operands, tiles)
        if accumulator is not None:
            again = self.cube_operands(dtype, layout, m, k, n, tiles)
            c = self.cube_call(accumulator, {"acc": c, **again}, tiles)
        if layout.batch:
            self.tag("cube:batched")
        if layout.one_row:
            self.tag("cube:one-row-left")
        self.store_tiles([c])

    def cube_chain(self, target: OpDef, layout: _CubeLayout, dtype: DataType, m: int, k: int,
                   n: int) -> tuple[OpDef, OpDef | None] | None:
        """(the op minting the accumulator, the accumulating op or None) reaching `target` on
        operands of `layout`, checked by the registry's deduction on placeholder operands; None
        when `target` does not take them."""
        lhs, rhs = _placeholder_operands(dtype, layout, m, k, n)
        bias = T.Var("bias", REGISTRY.deduce("tile.load", (T.Var("b", TensorType((1, n), F32)), _zeros(2),
                                                            _dims((1, n))), (("target_memory", MemorySpace.Mat),)))
        named: dict[str, T.Var] = {"lhs": lhs, "rhs": rhs, "bias": bias}
        if "acc" not in _operand_names(target):
            return (target, None) if _deduces(target, named) is not None else None
        starters = [op for op in generatable_ops("tile", self.arch) if op.family == "matmul" and "acc" not in _operand_names(op)]
        fitting = []
        for starter in starters:
            ty = _deduces(starter, named)
            if ty is not None and _deduces(target, {**named, "acc": T.Var("acc", ty)}) is not None:
                fitting.append(starter)
        return (self.pick(fitting), target) if fitting else None

    def cube_operands(self, dtype: DataType, layout: _CubeLayout, m: int, k: int, n: int,
                      tiles: list[T.Var]) -> dict[str, T.Var]:
        """A left and a right operand loaded into Mat, sometimes moved / extracted into Left and
        Right by hand (2-D only: the batched forms are unrolled by FlattenTileNdTo2D)."""
        a = self.param(TensorType((*layout.batch, 1 if layout.one_row else m, k), dtype), "a")
        b = self.param(TensorType((*layout.batch, k, n), dtype), "b")
        self.values.remove(a)
        self.values.remove(b)
        if layout.one_row:
            # pto.tgemv reads the valid row of a whole Left box (the registry's gemv rule).
            lhs = self.call("tile.load", (a, _zeros(2), _dims((16, k)), _dims((1, k))),
                            (("target_memory", MemorySpace.Mat),), prefix="l", pool=tiles)
            m = 16
        else:
            lhs = self.load(a, MemorySpace.Mat, pool=tiles)
        rhs = self.load(b, MemorySpace.Mat, pool=tiles)
        how = 0 if layout.batch else self.int_draw(0, 2)
        if how == 1:
            lhs = self.call("tile.move", (lhs,), (("target_memory", MemorySpace.Left),), pool=tiles)
            rhs = self.call("tile.move", (rhs,), (("target_memory", MemorySpace.Right),), pool=tiles)
            self.tag("tile.move:x@Mat")
        elif how == 2:
            lhs = self.call("tile.extract", (lhs, _index(0), _index(0), _dims((m, k))),
                            (("target_memory", MemorySpace.Left),), pool=tiles)
            rhs = self.call("tile.extract", (rhs, _index(0), _index(0), _dims((k, n))),
                            (("target_memory", MemorySpace.Right),), pool=tiles)
            self.tag("tile.extract:src@Mat")
        return {"lhs": lhs, "rhs": rhs}

    def cube_call(self, opdef: OpDef, named: dict[str, T.Var], tiles: list[T.Var]) -> T.Var:
        """A call of `opdef` with its operands taken by name from `named` (optional ones left
        out), its choice attributes (a gemv's acc_phase) drawn from the registry."""
        args = tuple(named[d.name] for d in opdef.operands if d.name in named)
        attrs = tuple((a.name, self.pick(a.choices)) for a in opdef.attrs if a.choices and self.chance(50))
        for name, value in attrs:
            self.tag(f"{opdef.name}:{name}={value}")
        return self.call(opdef.name, args, attrs, pool=tiles)

    def store_tiles(self, tiles: Sequence[T.Var]) -> None:
        """Store one or two computed tiles (in a space tile.store reads from) into Out params; the
        kernel's dead scalars are folded into a Vec tile first (`consume_scalars`)."""
        store = REGISTRY.get("tile.store")
        accepted = store.operands[0].legal_spaces
        # A tile whose valid region holds data throughout (a compare's mask holds its compared
        # bits only: DefinedReads refuses a store of the rest).
        storable = [t for t in tiles if isinstance(t.type, TileType) and self.usable(t)
                    and not reads_past(extents(t.type.valid_extents), self._data_of(t))]
        candidates = [t for t in storable if isinstance(t.type, TileType) and not t.name.startswith("l")
                      and (t.type.memory_space in accepted or t.type.memory_space is None)]
        if not candidates:
            candidates = [t for t in storable if isinstance(t.type, TileType)
                          and t.type.memory_space in (None, *accepted)]
        if not candidates:
            return
        for tile in [candidates[-1]] + ([self.pick(candidates)] if len(candidates) > 1 and self.chance(30) else []):
            assert isinstance(tile.type, TileType)
            if tile.type.memory_space is MemorySpace.Vec and self.dead_scalars():
                tile = self.consume_scalars([tile], "tile") or tile
            assert isinstance(tile.type, TileType)
            out = self.undeclared_store_target(tile.type)
            if out is None:
                out = self.param(TensorType(tile.type.shape, tile.type.dtype), "out", "Out")
                self.values.remove(out)
            stored = self.call("tile.store", (tile, _zeros(len(tile.type.shape)), out), prefix="st", pool=[])
            if stored not in self.returns:
                self.returns.append(stored)

    def undeclared_store_target(self, tile: TileType) -> T.Var | None:
        """In a hand-placed kernel, sometimes the parameter a store writes is declared `In`, as a
        user writing at TilePlaced may leave it: a fresh one (UpgradeParamDirections makes it
        `Out`) or a loaded parameter of the stored tile's type (read and written: `InOut`). The
        host must then copy the written bytes back; a store into a parameter it treats as
        read-only is lost. None: an `Out` parameter is declared as usual."""
        if not self.hand_placed or not self.chance(70):
            return None
        written = {name for name, paths in self.gm_stores.items() if paths}
        loaded = [tensor for tensor, _ in self.loaded if tensor.name not in written
                  and tensor.type == TensorType(tile.shape, tile.dtype)]
        if loaded and self.chance(70):
            self.tag("construct:undeclared-inout")
            chosen: T.Var = self.pick(loaded)
            return chosen
        self.tag("construct:undeclared-out")
        fresh = self.param(TensorType(tile.shape, tile.dtype), "x")
        self.values.remove(fresh)
        return fresh

    def revalidation_fits(self, ty: TensorType, operand: DataType | None = None) -> bool:
        """Whether a set_validshape of a product of `ty` of `operand`-typed matrices compiles. A
        32-bit product's view stays in Acc, and AutoTileMatmulL0's output grid stores it per
        output tile when the accumulator is past L0C. A narrower product (FP16 out of an FP16
        matmul) is converted in Vec, which must hold the moved accumulator and its cast, and its
        accumulator must then fit L0C whole (a grid gathering it into Vec is not drawn). The
        accumulator is boxed as its operands are in Mat (M by the lhs's box rows, N by the rhs's
        box columns: 32 for INT8)."""
        if ty.dtype.bits == 32:
            return True
        box_rows, box_cols = box_shape(implicit_view(MemorySpace.Mat, tuple(ty.shape)), operand or ty.dtype) \
            or (16, 16)
        rows = -(-int(ty.shape[0]) // max(box_rows, 16)) * max(box_rows, 16)
        cols = -(-int(ty.shape[1]) // max(box_cols, 16)) * max(box_cols, 16)
        target = get_backend(self.arch or "a2a3")
        if rows * cols * 4 > target.l0c_capacity_bytes:
            return False
        # The moved accumulator and its cast live in Vec at once (A5's L0C holds a [256, 256] FP32
        # accumulator its Vec does not).
        return rows * cols * (4 + ty.dtype.bits // 8) <= target.vec_capacity_bytes

    def defined_rows(self, product: T.Var, lhs: T.Var, accumulated: bool = False) -> T.Var:
        """`product` narrowed to the rows and columns the matmul computes. tensor.matmul drops
        its operands' valid_shape (the spec, convert_tensor_to_tile_ops.md), so the product of
        a row-narrowed left operand (or a column-narrowed right one) is typed whole while only
        the left operand's valid rows by the right's valid columns are computed (the registry's
        `cube_extents`: the product's data extent, `languages.ops.data_extents`): a program
        reading the rest reads what was never written, which DefinedReads refuses. Narrowing
        the product's valid region to its data (set_validshape) makes every later read, and the
        comparison, defined. A product a matmul_acc chain `accumulated` onto is re-validated
        more often: the chain's results keep the accumulator's narrow valid region."""
        lhs_ty, ty = lhs.type, product.type
        computed = self._data_of(product)
        whole = computed is None or isinstance(ty, TensorType) and tuple(computed) == tuple(ty.shape)
        # An M past a box and not a multiple of it: its accumulator is compact (valid rows short
        # of the boxed rows), so valid rows narrowed below the last box would re-lay it.
        boxed_m = isinstance(ty, TensorType) and len(ty.shape) == 2 and ty.shape[0] > 16 and ty.shape[0] % 16 != 0
        if isinstance(lhs_ty, TensorType) and lhs_ty.valid_shape is None and whole and isinstance(ty, TensorType) \
                and len(ty.shape) == 2 and ty.shape[0] > 1 and self.features.partial_valid \
                and self.revalidation_fits(ty, lhs_ty.dtype) and self.chance(50 if boxed_m or accumulated else 15):
            # A whole product re-validated to fewer rows and columns (its valid region is still
            # defined): on chip its accumulator is laid out by its rows, which the narrower valid
            # shape must not re-lay (a compact accumulator's pitch follows its valid rows).
            self.tag("cube:revalidated-product")
            top = ty.shape[0] // 16 * 16 if boxed_m else ty.shape[0] - 1
            rows, cols = self.int_draw(1, top), self.int_draw(1, ty.shape[1])
            return self.call("tensor.set_validshape", (product, _index(rows), _index(cols)), prefix="c")
        if whole or computed is None or not isinstance(ty, TensorType) or len(ty.shape) != 2 or len(computed) != 2:
            return product
        data_rows, data_cols = computed
        if not isinstance(data_rows, int) or not isinstance(data_cols, int):
            return product
        self.tag("cube:narrowed-product")
        self.undefined.add(product.name)  # past its computed region: never read, never returned
        return self.call("tensor.set_validshape", (product, _index(data_rows), _index(data_cols)), prefix="c")

    def narrowed_right(self, b: T.Var, lhs: T.Var) -> T.Var:
        """A right operand narrowed on its columns (set_validshape) beside a row-narrowed left one:
        the product is computed over the left's valid rows by the right's valid columns only
        (`cube_extents`), which `defined_rows` narrows it to. Decided by the left operand's drawn
        valid rows (an odd count), and the columns follow from them: no draw of its own, so the
        draws of every other construct stay where they were."""
        assert isinstance(b.type, TensorType) and isinstance(lhs.type, TensorType)
        k, n = b.type.shape
        rows = lhs.type.valid[0]
        if not (isinstance(rows, int) and rows % 2 == 1 and n >= 2):
            return b
        self.tag("cube:narrowed-right")
        return self.call("tensor.set_validshape", (b, _index(k), _index(1 + rows * 7 % (n - 1))), prefix="s")

    def narrowed_left(self, a: T.Var) -> T.Var:
        """The spec's compact-seed path: a left operand whose valid rows fall at least one
        16-row box short of its physical rows, so the accumulator's MAD pitch
        (ceil(valid/16)*16) differs from its row count and only a compact seed reads it right."""
        assert isinstance(a.type, TensorType)
        m, k = a.type.shape
        # Split-K shapes are where the seed is the pass's own (a K reduction of a plain matmul):
        # narrowed there more often.
        if not (self.features.narrowed_left and self.features.partial_valid and m >= 17
                and self.chance(60 if k > 256 else 30)):
            return a
        valid = self.int_draw(1, m - 16)
        self.tag("cube:narrowed-left")
        if self.chance(50):
            return self.call("tensor.slice", (a, _dims((m, k)), _dims((0, 0)), _dims((valid, k))), prefix="s")
        return self.call("tensor.set_validshape", (a, _index(valid), _index(k)), prefix="s")

    def tag_cube_shape(self, m: int, k: int, n: int, big: bool, dtype: DataType) -> None:
        """Coverage tags: the campaign's coverage table shows which corners were really drawn."""
        tags = {"shape:m-unaligned": m % 16 != 0, "shape:1-row-lhs": m == 1, "shape:1-col-rhs": n == 1,
                "shape:k-split": k > 256, "shape:big": big, f"dtype:{dtype.pl_name}": True,
                "shape:n-unaligned-int8": dtype is I8 and n % 32 != 0}
        self.ops.update(tag for tag, on in tags.items() if on)

    # -- the kernel -----------------------------------------------------------------------------

    def kernel(self) -> T.Function:
        # The vector and tile recipes carry the registry steps: they are drawn twice as often.
        recipes: list[Callable[[], None]] = [self.vector_kernel, self.vector_kernel]
        if self.features.matmul:
            # The cube recipe carries the L0 tiling's shapes (K peels, pipelined K loops, output
            # grids, narrowed seeds): drawn three times as often, as the old generator's third.
            recipes += [self.cube_kernel] * 3
        if self.features.loops:
            recipes.append(self.loop_kernel)
            recipes.append(self.online_softmax_kernel)
        if self.features.matmul and self.features.mixed_kernels and self.features.loops:
            recipes.append(self.flash_kernel)
        if self.features.matmul and self.features.slices:
            recipes.append(self.view_chain_kernel)
        if self.features.scalar_math:
            recipes += [self.scalar_operand_kernel] * 2
        if self.features.tile_kernels:
            recipes += [self.tile_kernel, self.tile_kernel]
            if self.features.matmul:
                recipes.append(self.tile_cube_kernel)
        if self.focus is not None:
            self.focused_kernel(self.focus)
        elif self.hand_placed:
            # A program spelled at TilePlaced (`nanopass_pto.hand_placed`) holds tile kernels only.
            self.pick([self.tile_kernel, self.tile_kernel, *([self.tile_cube_kernel] if self.features.matmul else [])])()
        else:
            self.pick(recipes)()
        results = self.returns or self.results(self.values)[-1:]
        if not results:
            # Nothing computed a tensor (every drawn step fell through): a plain copy keeps the
            # kernel meaningful.
            sources = [v for v in self.values if isinstance(v.type, TensorType)]
            source = sources[0] if sources else self.param(TensorType((16, 16), F32))
            assert isinstance(source.type, TensorType)
            scaled = _by_semantics("tensor", ("scalar_binary", "mul"))
            assert scaled is not None
            results = [self.call(scaled, (source, self.scalar_for(source.type.dtype)))]
        results += [v for v in self.kept if v not in results and v in self.results(self.values)]
        extras = [v for v in self.results(self.values)[:-1] if v.name not in self.created | self.updated]
        if not self.returns and extras and self.chance(25):
            extra = self.pick(extras)
            if extra not in results:
                results.append(extra)
                self.tag("construct:multi-output")
        for index, result in enumerate(results):
            # Dead scalars folded into the first computed result that takes them (a tile kernel's
            # were folded into the tiles it stores: its results are the stores).
            if result.name in self.gm | self.updated or not self.dead_scalars():
                continue
            folded = self.consume_scalars([result], "tensor")
            if folded is not None:
                results[index] = folded
                break
        self.body.append(T.ReturnStmt(tuple(results)))
        # Nested calls are the DSL's and Tensor's (NormalizeStmtStructure takes them apart), not a
        # hand-placed kernel's: TilePlaced text calls over atoms only.
        body = self.nest_calls(self.body) if not self.hand_placed and self.chance(30) else self.body
        return T.Function(self.name, "InCore", tuple(self.params), tuple(r.type for r in results), tuple(body), ())

    def nest_calls(self, body: list[T.Stmt]) -> list[T.Stmt]:
        """Write a call whose result is used once, by the next statement's call, inside that call
        (`pl.exp(pl.add(a, b))`): the DSL allows it, and NormalizeStmtStructure takes it apart."""
        out: list[T.Stmt] = []
        index = 0
        while index < len(body):
            stmt = body[index]
            nxt = body[index + 1] if index + 1 < len(body) else None
            if isinstance(stmt, T.AssignStmt) and isinstance(stmt.value, T.Call) and isinstance(nxt, T.AssignStmt) \
                    and isinstance(nxt.value, T.Call) and _uses(body, stmt.target.name) == 1 \
                    and any(isinstance(a, T.Var) and a.name == stmt.target.name for a in nxt.value.args):
                args = tuple(stmt.value if isinstance(a, T.Var) and a.name == stmt.target.name else a
                             for a in nxt.value.args)
                out.append(T.AssignStmt(nxt.target, replace(nxt.value, args=args)))
                self.tag("construct:nested-call")
                index += 2
                continue
            out.append(stmt)
            index += 1
        return out


def _indexes_by_own_columns(opdef: OpDef) -> bool:
    """Whether a tensor op reads its first operand through a tile op that counts flat positions
    by that operand's own columns (a `WholeRows` rule on it: TGATHER's index form)."""
    conversion = opdef.to_tile
    if conversion is None or conversion.tile_op not in REGISTRY or not opdef.operands \
            or opdef.operands[0].effect is not Effect.READ:
        return False
    return any(isinstance(rule, WholeRows) and rule.operand == 0 for rule in REGISTRY.get(conversion.tile_op).target_rules)


def _cube_operands(opdef: OpDef) -> bool:
    """Whether `opdef` is a tile op whose first operand is never in Vec (Mat / Left / Right / Acc):
    the hand-written cube recipe places such operands."""
    return opdef.prefix == "tile" and bool(opdef.operands) and bool(opdef.operands[0].legal_spaces) \
        and MemorySpace.Vec not in opdef.operands[0].legal_spaces


@dataclass(frozen=True)
class _CubeLayout:
    """How a hand-written cube kernel's operands are shaped: batch axes in front, or a left
    operand of one valid row (a gemv's vector)."""

    batch: tuple[int, ...]
    one_row: bool


def _operand_names(opdef: OpDef) -> list[str]:
    return [d.name for d in opdef.operands]


def _deduces(opdef: OpDef, named: dict[str, T.Var]) -> Type | None:
    """`opdef`'s result type on the operands of `named` it takes by name (an optional operand it
    does not find is left out), or None when an operand is missing or the deduction rejects them."""
    args = []
    for decl in opdef.operands:
        if decl.name in named:
            args.append(named[decl.name])
        elif not decl.optional:
            return None
    try:
        return REGISTRY.deduce(opdef.name, tuple(args), ())
    except CompileError:
        return None


def _placeholder_operands(dtype: DataType, layout: _CubeLayout, m: int, k: int, n: int) -> tuple[T.Var, T.Var]:
    """Stand-ins typed as `cube_operands` would load them (for a deduction check only)."""
    mat = (("target_memory", MemorySpace.Mat),)
    rank = len(layout.batch) + 2
    a = T.Var("a", TensorType((*layout.batch, 1 if layout.one_row else m, k), dtype))
    b = T.Var("b", TensorType((*layout.batch, k, n), dtype))
    a_shape = (*layout.batch, 16 if layout.one_row else m, k)
    a_args: tuple[T.Expr, ...] = (a, _zeros(rank), _dims(a_shape)) + ((_dims((1, k)),) if layout.one_row else ())
    lhs = T.Var("lhs", REGISTRY.deduce("tile.load", a_args, mat))
    rhs = T.Var("rhs", REGISTRY.deduce("tile.load", (b, _zeros(rank), _dims(b.type.shape if isinstance(b.type, TensorType) else ())), mat))
    return lhs, rhs


# Every construct tag a recipe can emit (the coverage table's "constructs" row counts these).
CONSTRUCTS: tuple[str, ...] = tuple(f"construct:{name}" for name in (
    "vector", "scalar-math", "index-math", "if-scalar", "assemble", "loop", "loop-carries:1", "loop-carries:2",
    "loop-carries:3", "nested-loop", "if", "if-stores", "online-softmax", "foldable-index", "cube", "mixed",
    "matmul-in-loop", "flash", "view-chain", "reshape-feeds-matmul", "multi-consumer", "multi-output",
    "gm-reread", "tile-kernel", "tile-cube", "nested-call", "valid-observed", "if-only-stores", "window-observed",
    "padding-read", "window-computed", "assemble-through-view", "scalar-consumed", "scalar-read-gm",
    "scalar-read-tile", "scalar-round-trip", "unsigned-condition", "window-re-viewed", "padding-broadcast",
    "runtime-valid", "padded-index-rows", "cube-operand-computed", "narrowed-copied-whole",
    "all-core-barrier", "mask-select", "mask-select:partial-byte", "mask-returned", "orchestration-windows",
    "strided-column", "hand-placed", "undeclared-out", "undeclared-inout", "window-gathered", "window-gathered-column",
    "written-tile-reread", "rounding-cast", "tile-padding-read", "narrowed-view-read-whole",
    "view-padding-read", "re-viewed-window-padding-read"))


@dataclass(frozen=True)
class GeneratedProgram:
    """A generated program, its text (the program printed, or re-spelled in the DSL: see
    backend.fuzzing.dsl_spellings), and the coverage tags of what it uses."""

    program: T.Program
    text: str
    ops: frozenset[str]


# Of the kernels a windowed call fits, the share `main` calls on windows of wider tensors.
_WINDOWED_CALL_PERCENT = 15


def _windowable(kernel: T.Function) -> bool:
    """Whether `kernel` can be called on blocks of wider tensors: one whole 2-D tensor result (of
    its own or in an Out parameter), its tensor parameters whole 2-D In (or Out) tensors, no
    index parameter."""
    def whole_2d(ty: Type) -> bool:
        return isinstance(ty, TensorType) and len(ty.shape) == 2 and ty.valid_shape is None and ty.strides is None
    # A result that is an input's buffer (an assemble into an In parameter) is no Out window.
    return (len(kernel.return_types) == 1 and whole_2d(kernel.return_types[0])
            and all(index is None or kernel.params[index].direction == "Out" for _, index in returned_aliases(kernel))
            and any(isinstance(p.var.type, TensorType) for p in kernel.params)
            and all(not p.var.name.startswith(INDEX_PARAM) and p.direction in ("In", "Out")
                    and (whole_2d(p.var.type) or isinstance(p.var.type, ScalarType)) for p in kernel.params))


def _windowed_call(kernel: T.Function, draw: Draw, params: list[T.Param], body: list[T.Stmt]) -> T.Var:
    """`main` calls `kernel` in a loop over row (or column) blocks: each tensor input is a window
    (pl.slice) of a `main` parameter `blocks` times as wide, an Out argument is created per call,
    and the result is pl.assemble-d into its block of a wider tensor (the kernel writes that
    window: UpdateOrchestrationCallSites). Returns the wider tensor the loop leaves."""
    axis, blocks = draw(st.integers(0, 1)), draw(st.integers(2, 3))
    loop_var = T.Var(f"{kernel.name}_blk", INDEX)

    def wider(ty: TensorType) -> TensorType:
        return TensorType(tuple(d * blocks if a == axis else d for a, d in enumerate(ty.shape)), ty.dtype)

    def offsets(ty: TensorType) -> T.TupleExpr:
        start = T.BinOp("*", loop_var, _index(ty.shape[axis]), INDEX)
        return T.TupleExpr(tuple(start if a == axis else _index(0) for a in range(len(ty.shape))))

    loop_body: list[T.Stmt] = []
    args: list[T.Expr] = []
    for p in kernel.params:
        ty = p.var.type
        if not isinstance(ty, TensorType):
            var = T.Var(f"{kernel.name}_{p.var.name}", ty)
            params.append(T.Param(var, "In"))
            args.append(var)
        elif p.direction == "Out":
            out = T.Var(f"{kernel.name}_{p.var.name}", ty)
            loop_body.append(T.AssignStmt(out, T.Call("tensor.create", (_dims(ty.shape),), (("dtype", ty.dtype),), ty)))
            args.append(out)
        else:
            whole = T.Var(f"{kernel.name}_{p.var.name}", wider(ty))
            params.append(T.Param(whole, "In"))
            block = T.Var(f"{kernel.name}_{p.var.name}_blk", ty)
            loop_body.append(T.AssignStmt(block, T.Call("tensor.slice", (whole, _dims(ty.shape), offsets(ty)), (), ty)))
            args.append(block)
    result = kernel.return_types[0]
    assert isinstance(result, TensorType)
    acc_type = wider(result)
    acc = T.Var(f"{kernel.name}_acc", acc_type)
    body.append(T.AssignStmt(acc, T.Call("tensor.create", (_dims(acc_type.shape),), (("dtype", acc_type.dtype),),
                                         acc_type)))
    carried, piece, placed = (T.Var(f"{kernel.name}_{n}", t) for n, t in
                              (("acc_iter", acc_type), ("piece", result), ("placed", acc_type)))
    loop_body.append(T.AssignStmt(piece, T.FuncCall(kernel.name, tuple(args), result)))
    loop_body.append(T.AssignStmt(placed, T.Call("tensor.assemble", (carried, piece, offsets(result)), (), acc_type)))
    loop_body.append(T.YieldStmt((placed,)))
    out = T.Var(f"{kernel.name}_out", acc_type)
    body.append(T.ForStmt(loop_var, _index(0), _index(blocks), _index(1), (T.IterArg(carried, acc),),
                          tuple(loop_body), (out,), "range", ()))
    return out


def _orchestration(kernels: Sequence[T.Function], draw: Draw, tags: set[str],
                   written: Sequence[frozenset[str]] = ()) -> T.Function:
    """`main` calls the kernels in order; a kernel parameter is fed, when the draw says so, by an
    earlier kernel's result of the same type (possibly one another kernel reads too: a GM
    re-read), otherwise by a fresh `main` parameter, and an Out parameter by a created tensor.
    A parameter declared In that the kernel writes (`written[i]`: a hand-placed kernel's store
    into it) is always a fresh `main` parameter: one tensor bound to two parameters a kernel
    writes would make the order of its stores the result. A kernel may instead be called in a
    loop on row or column blocks of wider tensors, its result assembled into the blocks of a
    wider one (construct:orchestration-windows)."""
    params: list[T.Param] = []
    body: list[T.Stmt] = []
    results: list[T.Var] = []
    consumed: dict[str, int] = {}
    for position, kernel in enumerate(kernels):
        stored = written[position] if position < len(written) else frozenset()
        # A kernel storing into a parameter it declares In writes its argument: not a window of it.
        if not stored and _windowable(kernel) and draw(st.integers(0, 99)) < _WINDOWED_CALL_PERCENT:
            results.append(_windowed_call(kernel, draw, params, body))
            tags.add("construct:orchestration-windows")
            continue
        args: list[T.Expr] = []
        for p in kernel.params:
            if p.direction == "Out":
                out = T.Var(f"{kernel.name}_{p.var.name}", p.var.type)
                assert isinstance(p.var.type, TensorType)
                body.append(T.AssignStmt(out, T.Call("tensor.create", (_dims(p.var.type.shape),),
                                                     (("dtype", p.var.type.dtype),), p.var.type)))
                args.append(out)
                continue
            earlier = [r for r in results if r.type == p.var.type]
            # An index parameter's values are conditioned inputs (see Pool.fresh_index).
            if earlier and not p.var.name.startswith(INDEX_PARAM) and p.var.name not in stored \
                    and draw(st.booleans()):
                chosen = earlier[0]
                if consumed.get(chosen.name):
                    tags.add("construct:gm-reread")
                consumed[chosen.name] = consumed.get(chosen.name, 0) + 1
                args.append(chosen)
                continue
            var = T.Var(f"{kernel.name}_{p.var.name}", p.var.type)
            params.append(T.Param(var, "In"))
            args.append(var)
        rets = kernel.return_types
        if len(rets) == 1:
            out = T.Var(f"{kernel.name}_out", rets[0])
            body.append(T.AssignStmt(out, T.FuncCall(kernel.name, tuple(args), rets[0])))
            results.append(out)
        else:
            tuple_ty = TupleType(tuple(rets))
            whole = T.Var(f"{kernel.name}_outs", tuple_ty)
            body.append(T.AssignStmt(whole, T.FuncCall(kernel.name, tuple(args), tuple_ty)))
            for index, ty in enumerate(rets):
                part = T.Var(f"{kernel.name}_out{index}", ty)
                body.append(T.AssignStmt(part, T.TupleGetItem(whole, index, ty)))
                results.append(part)
    returned = [r for r in results if r.name not in consumed] or results[-1:]
    body.append(T.ReturnStmt(tuple(returned)))
    return T.Function("main", "Orchestration", tuple(params), tuple(r.type for r in returned), tuple(body), ())


class TargetRuleMiss(Exception):
    """A recipe called an op with operands the target's rules exclude (an INT8 tile-scalar
    multiply on A2/A3, say): the registry steps redraw such a call, a recipe's fixed steps
    cannot, so its kernel is drawn again."""


# The name prefix of parameters feeding a scatter's index operand (Pool.fresh_index).
INDEX_PARAM = "idx"
_KERNEL_TRIES = 6
_DSL_PERCENT = 20  # programs re-spelled in the DSL's forms (backend.fuzzing.dsl_spellings)
_HAND_PLACED_PERCENT = 10  # programs of hand-placed tile kernels, spelled at TilePlaced (nanopass_pto.hand_placed)
_FOCUS_TRIES = 3  # draws of a steered kernel that missed its op before it is kept as it is


def programs(features: Features = Features(), arch: str = "", focus: Sequence[str] = (),
             placed_text: Callable[[T.Program, str], str | None] | None = None
             ) -> st.SearchStrategy[GeneratedProgram]:
    """Random well-typed Tensor programs (an Orchestration `main` over 1-3 InCore kernels), every
    call keeping the op registry's target rules of `arch` (`BackendHandler.arch`; "": none).

    `placed_text` spells a program of hand-placed tile kernels at TilePlaced, or says it cannot be
    (None): the fuzz target's (nanopass_pto.hand_placed: it asks the verifiers and
    ConvertTensorToTileOps' facts, which sit above the back end). Without it none are drawn.

    `focus` steers a campaign toward ops it has not reached yet (`steering_focus`): the first
    kernel is drawn for one of them (its recipe, element type and first steps; redrawn a few
    times when its draws did not call it), the others by the usual recipes; half of every
    kernel's later registry steps draw from the focus too."""
    focused = tuple(REGISTRY.get(name) for name in focus)

    @st.composite
    def build(draw: Draw) -> GeneratedProgram:
        count = draw(st.integers(1, 3)) if features.multi_kernel else 1
        kernels: list[T.Function] = []
        ops: set[str] = set()
        written: list[frozenset[str]] = []  # per kernel, the parameters it stores into
        # Some programs are tile kernels written as a user hand-places them, spelled at
        # TilePlaced (drawn high: a shrunk failure is a plain program unless placement matters).
        placed = placed_text is not None and features.tile_kernels and not focused \
            and draw(st.integers(0, 99)) >= 100 - _HAND_PLACED_PERCENT
        for index in range(count):
            want = focused[draw(st.integers(0, len(focused) - 1))] if focused and index == 0 else None
            kernel: tuple[T.Function, set[str]] | None = None
            for attempt in range(_KERNEL_TRIES):
                builder = _KernelBuilder(draw, features, f"kernel{index}", arch=arch, focus=want, steered=focused,
                                         hand_placed=placed)
                try:
                    kernel = (builder.kernel(), builder.ops)
                except TargetRuleMiss:
                    continue
                stores = frozenset(name for name, paths in builder.gm_stores.items() if paths)
                if want is None or want.name in builder.ops or attempt >= _FOCUS_TRIES - 1:
                    break
            if kernel is None:
                reject()  # every draw met an instruction the target does not take
            kernels.append(kernel[0])
            ops |= kernel[1]
            written.append(stores)
        main = _orchestration(kernels, draw, ops, written)
        ops.add(f"kernels:{count}")
        program = T.Program("Fuzz", (*kernels, main))
        text = placed_text(program, arch) if placed and placed_text is not None else None
        if text is not None:
            ops.add("construct:hand-placed")
        # Drawn high, so that a shrunk failure is the plain program unless the spelling matters.
        elif features.dsl_spellings and draw(st.integers(0, 99)) >= 100 - _DSL_PERCENT:
            spelling = SPELLINGS[draw(st.integers(0, len(SPELLINGS) - 1))]
            text = dsl_text(program, spelling, lambda n: int(draw(st.integers(0, n - 1))), ops)
        return GeneratedProgram(program, text if text is not None else print_program(program), frozenset(ops))

    return build()


LANGUAGE_HEADER = "# nanopass.language:"


def returned_types(program: T.Program) -> tuple[Type, ...]:
    main = next(f for f in program.functions if f.func_type == "Orchestration")
    return main.return_types


@dataclass
class _SeededBuilder(_KernelBuilder):
    """A kernel builder drawing from a seeded `random.Random` instead of Hypothesis (the
    reachability check below: fast and deterministic, no shrinking needed)."""

    rng: Any = None

    @override
    def int_draw(self, low: int, high: int) -> int:
        return int(self.rng.randint(low, high))


def reaches_op(opdef: OpDef, seed: int = 0, kernels: int = 30, arch: str = "") -> bool:
    """Whether a kernel step of the generator calls `opdef`: up to `kernels` seeded kernels of
    the recipe that carries `opdef`'s prefix (vector kernels for tensor ops, hand-written tile
    kernels for tile ops; system ops come between their steps), every step restricted to it."""
    return reaching_kernel(opdef, seed, kernels, arch) is not None


def reaching_kernel(opdef: OpDef, seed: int = 0, kernels: int = 30, arch: str = "") -> T.Function | None:
    """The first seeded kernel body of `reaches_op` that calls `opdef` (drawn for `arch`), as an
    InCore function of its parameters and statements (no results), or None."""
    import random

    rng = random.Random(seed)
    prefix = "tile" if opdef.prefix == "tile" else "tensor"
    cube = _cube_operands(opdef)
    for index in range(kernels):
        builder = _SeededBuilder(lambda strategy: None, Features(), f"kernel{index}", arch=arch, rng=rng)
        try:
            kernel = _reaching_body(builder, opdef, prefix, cube)
        except TargetRuleMiss:
            continue
        if kernel is not None:
            return kernel
    return None


def _reaching_body(builder: _SeededBuilder, opdef: OpDef, prefix: str, cube: bool) -> T.Function | None:
    """One seeded kernel of `reaching_kernel`, or None when it does not call `opdef`."""
    if cube:
        # Operands in Mat / Left / Right / Acc: the hand-written cube recipe places them.
        builder.tile_cube_kernel()
        if opdef.name in builder.ops:
            return T.Function(builder.name, "InCore", tuple(builder.params), (), tuple(builder.body), ())
        return None
    if prefix == "tile":
        dtype = builder.vector_dtype()
        shape = (builder.pick_common(VECTOR_ROWS[:4]), builder.pick_common(VECTOR_COLS[:5]))
        tiles: list[T.Var] = []
        for _ in range(2):
            tensor = builder.param(TensorType(shape, dtype), "x")
            builder.values.remove(tensor)
            tiles.append(builder.load(tensor, MemorySpace.Vec if builder.chance(80) else None, pool=tiles))
        scope = tiles
    else:
        ty = TensorType(builder.vector_shape(), builder.vector_dtype())
        for _ in range(2):
            builder.param(ty)
        # And one value computed on chip: some operands take no GM tensor (ON_CHIP_OPERANDS).
        scaled = _by_semantics("tensor", ("scalar_binary", "mul"))
        if scaled is not None:
            builder.call(scaled, (builder.values[0], builder.scalar_for(ty.dtype)))
        scope = builder.values
    for _ in range(4):
        builder.registry_step(opdef.prefix, None, scope, only=[opdef])
    if opdef.name in builder.ops:
        return T.Function(builder.name, "InCore", tuple(builder.params), (), tuple(builder.body), ())
    return None
