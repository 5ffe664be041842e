"""AutoTileMatmulL0 (TilePlaced → L0Tiled): cut every Mat-resident cube matmul into L0-sized
blocks and hop its operands into Left / Right (spec ../shared/spec/auto_tile_matmul_l0.md).

Here placement runs before L0 tiling (ARCHITECTURE.md), so this pass also owns the Mat → L0 hop:

- K tiling: a 2-stage `pl.pipeline` over K whose body `tile.extract`s an [m, k] Left and a
  [k, n] Right block and accumulates with `tile.matmul_acc` into one L0C buffer — seeded by
  `tile.create(..., target_memory=Acc)` (compact when its rows are narrowed) and predicated on
  `ko == 0` for a fresh matmul, or threading the caller's accumulator for `tile.matmul_acc`.
  A K tail that k does not divide is peeled as a straight-line 3-operand `tile.matmul_acc`.
- M/N tiling: when the Acc footprint exceeds L0C, a fresh matmul consumed by one direct store
  becomes a grid of sub-tile K reductions, each stored straight to GM, chained in SSA.
- Several consumers (beyond the spec, which tiles only that one direct store and refuses the
  rest with PH-AT-006): when the matmul left whole cannot be placed, one grid serves every use
  of its result in its block, per output tile -- a store of it, or of an origin-anchored
  set_validshape view of it, becomes a store of the matching part of each sub-tile; a window
  (tile.slice of its Vec move) that is only stored becomes a Vec move of each sub-tile and a
  store of the part of the window it holds (also for a product that fits L0C but whose windows'
  moves would fill Vec); other moves of it to Vec are gathered into one Vec tile. The grid
  stands where the consumers can all be brought without crossing a GM access or a dependence;
  any other use (a loop, a Mat move for a chained matmul, a runtime valid shape, stores into
  one tensor whose windows overlap from different elements) stays a located PH-AT-006
  'not supported yet' naming it. A biased product is served the same way when its consumers
  are stores (each output tile over its own [1, n] bias window, as below).
- Canonical split-K chains (an Acc seed `tile.create([M, N])`, one range / pipeline loop
  carrying it through per-iteration GM → Mat panel loads, one 2-D store of the loop result)
  whose [M, N] accumulator exceeds L0C: the grid encloses the user's K loop — per [m, n]
  output window a legal Acc seed, a clone of the loop with both loads narrowed to the window
  and a store — and the narrowed calls then take the ordinary K tiling.
- tile.matmul_bias K tiling: the first K block is a head-peeled straight-line matmul_bias (the
  bias, moved Mat → Bias, applied once), the remaining blocks a plain matmul_acc pipeline.
- A matmul that already fits L0 gets a single `tile.move` of each operand into Left / Right.
- Operands the user placed in Left / Right are left alone, or rejected when they cannot fit.
- Unsupported regimes keep the matmul whole and report a PerfHint (PH-AT-003/005/006/007/011).

- tile.matmul_bias M/N tiling: the single-use full [1, N] Mat bias load (reached past only sibling
  loads) is replaced by a [1, n] window load + Mat → Bias move per output tile, each tile a
  head-peeled biased K reduction stored straight to the output (PH-AT-011 says why when not).

Not implemented (the matmul is then left whole with its operands hopped): the Mat-scratch
placement of chained matmuls (a biased one included), the cast fold, nested-loop full-K grids,
and the existing-pipeline dbC recognizer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Sequence, cast

from typing_extensions import override

import languages.gen.l0_tiled as L
import languages.gen.tile_placed as S
from backend.targets.handlers import DEFAULT_BACKEND, BackendHandler, get_backend
from backend.targets.l0_chooser import BiasSource, L0Choice, MemoryPlanner, choose_l0_tile, explain_rejection
from languages.decls import L0Tiled, TilePlaced
from languages.functions import OPAQUE, is_kernel_function
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, static_int, static_ints, type_of
from languages.ops.assembler_element_types import vec_insert_type
from languages.pl_printer import format_expr
from languages.types import BOOL, INDEX, AttrValue, DataType, ScalarType, TensorType, TileType, attr
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span, walk
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext
from passes.analysis.matmul_tiling import (
    ChooserGates,
    KBlocks,
    MatmulDims,
    PanelBoxes,
    SubTile,
    choose,
    chooser_config,
    is_sub_byte,
    output_grid,
    split_k_chooser_config,
    split_k_windows,
)
from languages.layout import assembler_checked_box, box_shape, buffer_name, l0_footprint_bytes
from passes.analysis.boxed_extents import check_tile, has_partial_row_box
from passes.analysis.sliced_products import sliced_for_stores, tile_over_capacity

RULE = "AutoTileMatmulL0"

# Function kinds whose bodies run on the cube core; orchestration / host code is untouched.
CUBE_FUNCTION_TYPES = frozenset({"InCore", "AIC"})

_L0_OPERAND_SPACES = (MemorySpace.Left, MemorySpace.Right)


def _backend_of(ctx: PassContext) -> BackendHandler:
    """The context's handler; direct callers without one get the named or default backend."""
    if isinstance(ctx.backend, BackendHandler):
        return ctx.backend
    return get_backend(ctx.backend_name or DEFAULT_BACKEND)


@dataclass(frozen=True)
class AutoTileMatmulL0(Pass[S.Program, L.Program]):
    """L0 tiling of cube matmuls: K pipelines, M/N output grids, Mat → Left/Right hops."""

    name: ClassVar[str] = "auto-tile-matmul-l0"
    spec_name: ClassVar[str] = "AutoTileMatmulL0"
    source: ClassVar[Language] = TilePlaced
    target: ClassVar[Language] = L0Tiled
    requires: ClassVar[frozenset[str]] = frozenset({"TileMemoryPlaced"})
    produces: ClassVar[frozenset[str]] = frozenset({"L0TiledFit", "AccCompactValid"})

    # The memory planner the pipeline was built for (pypto, ptoas or dsa_rp): it opens the
    # chooser's dbC = 2 design points (TARGET_FACTS, "How PyPTO's ChooseL0Tile searches" 6-7).
    planner: str = MemoryPlanner.PYPTO.value
    # PyPTO's experimental opt-in to dbC = 2 under its own planner (issue #1908 upstream).
    enable_pypto_l0c_double_buffer: bool = False

    def __post_init__(self) -> None:
        known = [p.value for p in MemoryPlanner]
        if self.planner not in known:
            raise CompileError(Diagnostic(
                "pipeline", f"pass `{self.name}`: unknown memory planner `{self.planner}`",
                hint=f"write {self.name}{{planner=NAME}} with NAME one of {', '.join(known)}"))

    @property
    def gates(self) -> ChooserGates:
        return ChooserGates(MemoryPlanner(self.planner), self.enable_pypto_l0c_double_buffer)

    @override
    def run(self, program: S.Program, ctx: PassContext) -> L.Program:
        tiler = _AutoTiler(_backend_of(ctx), self.gates)
        out = tiler.visit_Program(program)
        for hint in tiler.hints:
            ctx.warn(hint)
        ctx.record_rewriter(tiler)
        return out


# --------------------------------------------------------------------------- operand roles


@dataclass(frozen=True)
class _Roles:
    """Argument positions of a cube matmul, read from the registry's operand memory spaces."""

    lhs: int
    rhs: int
    acc: int | None
    bias: int | None
    init_cond: int | None

    @staticmethod
    def of(op: str, arity: int) -> _Roles | None:
        decls = REGISTRY.get(op).operands
        by_space = {d.input_memory: i for i, d in enumerate(decls) if d.input_memory is not None}
        scalar = next((i for i, d in enumerate(decls) if d.kind == "scalar"), None)
        if MemorySpace.Left not in by_space or MemorySpace.Right not in by_space:
            return None
        return _Roles(
            lhs=by_space[MemorySpace.Left], rhs=by_space[MemorySpace.Right],
            acc=by_space.get(MemorySpace.Acc), bias=by_space.get(MemorySpace.Bias),
            init_cond=scalar if scalar is not None and scalar < arity else None,
        )


@dataclass(frozen=True)
class _Matmul:
    """One matmul statement being rewritten (source nodes, already-converted operands)."""

    stmt: S.AssignStmt
    call: S.Call
    roles: _Roles
    lhs: L.Var
    rhs: L.Var
    acc: L.Var | None
    init_cond: L.Expr | None
    dims: MatmulDims
    bias: L.Var | None = None

    @property
    def span(self) -> Span:
        return self.stmt.span

    @property
    def target(self) -> str:
        return self.stmt.target.name

    @property
    def is_fresh(self) -> bool:
        return self.roles.acc is None and self.roles.bias is None


@dataclass(frozen=True)
class _BiasWindows:
    """Where a biased grid's per-N bias windows come from: the full [1, N] Mat load (and the
    Mat → Bias move memory inference put after it) that the windows replace; all None when the
    grid tiles M only and every tile reads the whole bias."""

    load: S.AssignStmt | None
    move: S.AssignStmt | None
    call: S.Call | None


_TileReduction = Callable[[list[L.Stmt], SubTile, str], L.Var]


@dataclass(frozen=True)
class _Consumer:
    """One consumer of an oversized product that its output grid serves tile by tile."""

    stmt: S.AssignStmt
    position: int
    # "store": a tile.store of the product or of an origin-anchored set_validshape view of it;
    # "window": a tile.store of a tile.slice of the product moved to Vec;
    # "vec": a move of the whole product to Vec (gathered into one Vec tile).
    kind: str
    # A store's source in product coordinates (row, col, rows, cols): the product's valid
    # region, a view's valid extent or a window.
    source: tuple[int, int, int, int] = (0, 0, 0, 0)
    # The GM tensor a store writes (stores chained through one another share it).
    chain: str = ""

    @property
    def stores(self) -> bool:
        return self.kind != "vec"


@dataclass(frozen=True)
class _ConsumerPlan:
    """Every use of an oversized product, served per output tile by one grid emitted after
    block position `at` (consumers before it sink to it, those after it are hoisted to it)."""

    consumers: tuple[_Consumer, ...]
    absorbed: frozenset[int]  # block positions the grid replaces: views, moves, slices, stores
    at: int
    window_move: S.Call | None  # the move to Vec the windows were sliced from


@dataclass(frozen=True)
class _AccStart:
    """How a sub-tile's K reduction starts: from a fresh seed, or the caller's accumulator."""

    init: L.Var
    fresh: bool
    init_cond: L.Expr | None


# --------------------------------------------------------------------------- the rewriter


class _AutoTiler(L.FromTilePlaced):
    def __init__(self, backend: BackendHandler, gates: ChooserGates) -> None:
        super().__init__()
        self.backend = backend
        self.gates = gates
        self.hints: list[Diagnostic] = []
        self._cube = False
        self._names: set[str] = set()
        self._rename: dict[str, L.Var] = {}
        self._uses: dict[str, int] = {}
        self._defs: dict[str, S.AssignStmt] = {}
        # Why an oversized split-K chain was not retiled, keyed by its matmul targets.
        self._chain_refusals: dict[str, _Refusal] = {}
        # Narrowed calls of a split-K grid → the grid's k: their window already fits L0C.
        self._grid_k: dict[str, int] = {}
        # Statements a rewrite has already replaced (the Vec move a Vec-scratch grid stands for).
        self._dropped: set[int] = set()
        # Definitions already emitted that a later rewrite replaced (a biased grid's full bias load).
        self._retract: set[str] = set()
        # Moves of matmul results to Vec that are only sliced, the slices only stored.
        self._sliced: frozenset[str] = frozenset()
        self._function = ""

    # -- per-function state --------------------------------------------------------------------

    @override
    def visit_Function(self, node: S.Function) -> L.Function:
        # A leaf Opaque function on tiles is a kernel too (PTOCodegen emits it), so its matmuls
        # need their L0 operands like an InCore one's.
        self._cube = node.func_type in CUBE_FUNCTION_TYPES or (node.func_type == OPAQUE and is_kernel_function(node))
        self._names = {n.name for n in walk(node) if isinstance(n, S.Var)}
        self._rename = {}
        self._uses = {}
        self._defs = {}
        self._chain_refusals = {}
        self._grid_k = {}
        self._sliced = sliced_for_stores(node)
        self._function = node.name
        for n in walk(node):
            if isinstance(n, S.Var):
                self._uses[n.name] = self._uses.get(n.name, 0) + 1
            elif isinstance(n, S.AssignStmt):
                self._defs[n.target.name] = n
        return super().visit_Function(node)

    @override
    def visit_Var(self, node: S.Var) -> L.Var:
        renamed = self._rename.get(node.name)
        if renamed is not None:
            return renamed
        return L.Var(name=node.name, type=node.type, span=node.span)

    def _fresh(self, base: str) -> str:
        name, suffix = base, 0
        while name in self._names:
            suffix += 1
            name = f"{base}_{suffix}"
        self._names.add(name)
        return name

    def _use_count(self, name: str) -> int:
        """Uses of an SSA value (occurrences minus its one definition)."""
        return self._uses.get(name, 0) - 1

    # -- blocks ----------------------------------------------------------------------------------

    @override
    def visit_Stmt_block(self, block: tuple[S.Stmt, ...]) -> tuple[L.Stmt, ...]:
        out: list[L.Stmt] = []
        grids = self._split_k_grids(block)
        absorbed = {i for grid in grids.values() for i in grid.chain.absorbed}
        index = 0
        while index < len(block):
            stmt = block[index]
            if index in absorbed or id(stmt) in self._dropped:
                index += 1
                continue
            if index in grids:
                out.extend(self._emit_split_k_grid(grids[index]))
                index += 1
                continue
            matmul = self._matmul_stmt(stmt)
            if matmul is None:
                if isinstance(stmt, S.AssignStmt) and stmt.target.name in self._sliced:
                    # A product moved to Vec whole for its windows that no grid took apart.
                    overflow = tile_over_capacity(stmt, self._function, self.backend, RULE)
                    if overflow is not None:
                        raise CompileError(overflow)
                new = self.visit_Stmt(stmt)
                out.extend(new if isinstance(new, tuple) else (new,))
                index += 1
                continue
            consumed, emitted = self._rewrite(matmul[0], matmul[1], block, index)
            out.extend(emitted)
            index += consumed
        if self._retract:
            out = [stmt for stmt in out if not (isinstance(stmt, L.AssignStmt) and stmt.target.name in self._retract)]
        return tuple(out)

    def _matmul_stmt(self, stmt: S.Stmt) -> tuple[S.AssignStmt, S.Call] | None:
        if not (self._cube and isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call)):
            return None
        return (stmt, stmt.value) if REGISTRY.is_cube_matmul(stmt.value.op) else None

    # -- the decision ------------------------------------------------------------------------------

    def _rewrite(self, stmt: S.AssignStmt, call: S.Call, block: tuple[S.Stmt, ...],
                 index: int) -> tuple[int, list[L.Stmt]]:
        """(source statements consumed, statements emitted) for the matmul at block[index]."""
        matmul = self._analyse(stmt, call)
        if matmul is None:
            return 1, self._copy(stmt)
        self._reject_unboxed_operands(matmul)
        self._reject_oversized_manual_operands(matmul)
        lhs_space, rhs_space = matmul.lhs.type, matmul.rhs.type
        assert isinstance(lhs_space, TileType) and isinstance(rhs_space, TileType)
        if lhs_space.memory_space in _L0_OPERAND_SPACES or rhs_space.memory_space in _L0_OPERAND_SPACES:
            # A manual L0 scheduling decision: keep it, only hop what is still in Mat.
            return 1, self._hop(matmul)
        staged: list[L.Stmt] = []
        if rhs_space.memory_space is MemorySpace.Vec and lhs_space.memory_space in (MemorySpace.Mat, MemorySpace.Vec):
            # PyPTO skips a Vec B operand (L0B is fed from L1 only) and leaves a matmul no target
            # can run; staging it to Mat first, like a Vec A operand, lets it be tiled instead.
            matmul = replace(matmul, rhs=self._move(staged, matmul.rhs, MemorySpace.Mat, matmul.span))
            rhs_space = cast(TileType, matmul.rhs.type)
            self.bump("vec-rhs-staged")
        consumed, emitted = self._tile(matmul, block, index)
        return consumed, staged + emitted

    def _tile(self, matmul: _Matmul, block: tuple[S.Stmt, ...], index: int) -> tuple[int, list[L.Stmt]]:
        """The decision for a matmul whose operands sit where AutoTileMatmulL0 reads them."""
        lhs_space, rhs_space = matmul.lhs.type, matmul.rhs.type
        assert isinstance(lhs_space, TileType) and isinstance(rhs_space, TileType)
        if rhs_space.memory_space is not MemorySpace.Mat or lhs_space.memory_space not in (
                MemorySpace.Mat, MemorySpace.Vec):
            # The B operand must feed L0B from L1; anything else is not ours to tile.
            return 1, self._hop(matmul)
        if self._has_sub_byte(matmul):
            self._hint(matmul, "PH-AT-003", "sub-byte dtype on a matmul operand or accumulator: "
                       "the cube path has no sub-byte formats; left untiled")
            return 1, self._hop(matmul)
        bias_source = BiasSource.NONE
        if matmul.bias is not None:
            bias_space = cast(TileType, matmul.bias.type).memory_space
            bias_source = BiasSource.MAT if bias_space is MemorySpace.Mat else BiasSource.BIAS_TABLE
        choice = choose(matmul.dims, self.backend, matmul.roles.acc is not None, self.gates, bias_source)
        if choice is None:
            reason = explain_rejection(chooser_config(matmul.dims, self.backend,
                                                      matmul.roles.acc is not None, self.gates, bias_source))
            code, _, text = reason.partition(": ")
            self._reject_unfitting_whole(matmul, code, text)
            self._hint(matmul, code, text + "; left untiled")
            return 1, self._hop(matmul)
        if choice.perf_hint is not None:
            code, _, text = choice.perf_hint.partition(": ")
            self._hint(matmul, code, text)
        dims = matmul.dims
        grid_k = self._grid_k.get(matmul.target)
        if grid_k is not None and (choice.m, choice.n) != (dims.M, dims.N):
            # A split-K grid window was sized so its Acc fits L0C: only K is left to tile.
            choice = replace(choice, m=dims.M, n=dims.N, k=min(grid_k, dims.K))
        choice = self._window_choice(matmul, choice, block, index)
        if (choice.m, choice.n, choice.k) == (dims.M, dims.N, dims.K):
            self.bump("single-hop")
            return 1, self._hop(matmul)
        self._reject_narrowed_k(matmul, choice.k)
        self.bump(f"design-{choice.stationarity}-stationary-dbc{choice.dbc}")
        refusal = self._bias_refusal(matmul) if matmul.bias is not None else None
        if refusal is not None:
            self._hint(matmul, "PH-AT-011", f"tile.matmul_bias left whole: {refusal}")
            return 1, self._hop(matmul)
        if matmul.bias is not None and (choice.m, choice.n) != (dims.M, dims.N):
            windows = self._bias_windows(matmul, choice, block, index)
            store_at = self._direct_store_at(matmul, block, index)
            if isinstance(windows, _BiasWindows) and store_at is None:
                plan: _ConsumerPlan | str = "its result is not consumed by one direct 2-D tile.store right after it"
                if not self._fits_whole(matmul):
                    plan = self._consumer_plan(matmul, block, index)
                if isinstance(plan, _ConsumerPlan) and any(c.kind != "store" for c in plan.consumers):
                    plan = "its result is moved to Vec, which no biased output grid serves"
                if isinstance(plan, _ConsumerPlan):
                    self.bump("mn-tiled-biased-consumers")
                    self._retract_bias(windows)
                    return self._consumer_grid(matmul, choice, block, index, plan,
                                               self._bias_window_reduce(matmul, choice, windows))
                if not self._fits_whole(matmul):
                    raise CompileError(Diagnostic.at(
                        matmul.stmt, RULE,
                        f"PH-AT-011: tile.matmul_bias `{matmul.target}` [{dims.M}, {dims.N}] x K={dims.K} "
                        f"needs output tiling (the chooser picks [{choice.m}, {choice.n}] tiles on "
                        f"{self.backend.name}); not supported yet: tiling it when {plan}",
                        hint="store the result (or set_validshape views of it) with pl.store outside loops and "
                             "branches, or loop over N blocks in the kernel loading the matching [1, n] bias window"))
                windows = plan
            if isinstance(windows, _BiasWindows):
                assert store_at is not None
                self.bump("mn-tiled-biased")
                return self._biased_mn_tile(matmul, choice, windows, block, index, store_at)
            if not self._fits_whole(matmul):
                raise CompileError(Diagnostic.at(
                    matmul.stmt, RULE,
                    f"PH-AT-011: tile.matmul_bias `{matmul.target}` [{dims.M}, {dims.N}] x K={dims.K} "
                    f"needs output tiling (the chooser picks [{choice.m}, {choice.n}] tiles on "
                    f"{self.backend.name}), and its bias cannot be cut into per-N windows: {windows}",
                    hint="load the bias as one [1, N] Mat tile (pl.tile.load(bias, [r, c], [1, N], "
                         "target_memory=pl.Mem.Mat)) right before the matmul and store the result with one "
                         "pl.store, or loop over N blocks in the kernel loading the matching [1, n] window"))
            self._hint(matmul, "PH-AT-011", f"tile.matmul_bias left whole: {windows}")
            return 1, self._hop(matmul)
        if (choice.m, choice.n) == (dims.M, dims.N):
            self.bump("k-tiled")
            return 1, self._k_tile(matmul, choice)
        return self._mn_tile(matmul, choice, block, index)

    def _reject_narrowed_k(self, matmul: _Matmul, k: int) -> None:
        """The cube sums over its left operand's valid K (`cube_extents`), but the blocks this
        pass extracts are valid over their whole K: a left operand valid over fewer K columns
        than it has would have the columns past its valid K summed. A located 'not supported
        yet' (tiling over the valid K only is not implemented); a matmul left whole (one hop)
        keeps the operand's valid K."""
        lhs = cast(TileType, matmul.lhs.type)
        if lhs.valid[1] == lhs.shape[1]:
            return
        dims = matmul.dims
        raise CompileError(Diagnostic.at(
            matmul.stmt, RULE,
            f"not supported yet: {matmul.call.op} `{matmul.target}` [{dims.M}, {dims.N}] sums over its left operand's "
            f"valid K = {lhs.valid[1]} of its {dims.K} columns, and tiling it for L0 on {self.backend.name} (K blocks "
            f"of {k}, [{dims.M}, {dims.N}] outputs at most) would sum the columns past that valid K",
            hint="give the left operand its valid K as its extent (pl.slice(a, [M, K_valid], [0, 0]) instead of "
                 "pl.set_validshape), with the right operand sliced to the same K rows"))

    def _analyse(self, stmt: S.AssignStmt, call: S.Call) -> _Matmul | None:
        roles = _Roles.of(call.op, len(call.args))
        if roles is None:
            return None
        matrices = [call.args[i] for i in (roles.lhs, roles.rhs) if i < len(call.args)]
        if roles.acc is not None and roles.acc < len(call.args):
            matrices.append(call.args[roles.acc])
        if len(matrices) != 2 + (roles.acc is not None):
            return None
        for arg in matrices:
            if not (isinstance(arg, S.Var) and isinstance(arg.type, TileType) and len(arg.type.shape) == 2):
                return None
        lhs, rhs = (self.visit_Var(cast(S.Var, call.args[i])) for i in (roles.lhs, roles.rhs))
        acc = self.visit_Var(cast(S.Var, call.args[roles.acc])) if roles.acc is not None else None
        init_cond = self.visit_Expr(call.args[roles.init_cond]) if roles.init_cond is not None else None
        bias = self.visit_Expr(call.args[roles.bias]) if roles.bias is not None else None
        result = call.type
        if not isinstance(result, TileType):
            return None
        lhs_type, rhs_type = cast(TileType, lhs.type), cast(TileType, rhs.type)
        dims = MatmulDims.of(lhs_type, rhs_type, result.dtype)
        if bias is not None and not isinstance(bias, L.Var):
            return None
        return _Matmul(stmt, call, roles, lhs, rhs, acc, init_cond, dims, bias)

    def _bias_refusal(self, matmul: _Matmul) -> str | None:
        """Why a biased matmul cannot be K-tiled (spec Filter): both matrix operands in Mat, a
        [1, N] bias in Mat or Bias of the accumulator dtype, a Mat → Bias move the target has."""
        assert matmul.bias is not None
        bias = cast(TileType, matmul.bias.type)
        acc_dtype = matmul.dims.acc_dtype
        if cast(TileType, matmul.lhs.type).memory_space is not MemorySpace.Mat:
            return "its left operand is not Mat-resident"
        if len(bias.shape) != 2 or bias.shape[0] != 1 or bias.shape[1] != matmul.dims.N:
            return f"its bias is {list(bias.shape)}, not [1, {matmul.dims.N}]"
        if bias.dtype is not acc_dtype:
            return f"its bias is {bias.dtype.name}, not the accumulator's {acc_dtype.name}"
        if bias.memory_space is MemorySpace.Mat:
            if not self.backend.supports_mat_to_bias_move(bias.dtype.name, acc_dtype.name):
                return f"{self.backend.name} cannot move a {bias.dtype.name} Mat tile into the Bias table"
        elif bias.memory_space is not MemorySpace.Bias:
            return "its bias is neither Mat- nor Bias-resident"
        return None

    def _has_sub_byte(self, matmul: _Matmul) -> bool:
        tiles = [matmul.lhs.type, matmul.rhs.type, matmul.call.type]
        return any(isinstance(t, TileType) and is_sub_byte(t.dtype) for t in tiles)

    def _reject_unboxed_operands(self, matmul: _Matmul) -> None:
        """A left operand or accumulator whose M extent is not a whole number of fractal boxes
        has no PTO address (PTOCodegen's boxed-extent rule, reported here with the same message
        at the operand's definition): MAD writes L0C at the boxed pitch of M, so every block and
        accumulator cut from it would inherit the partial box. K and N stay PTOCodegen's to
        report (a non-fractal K is first a PH-AT-007 skip)."""
        for operand in (matmul.lhs, matmul.acc):
            if operand is None:
                continue
            tile = cast(TileType, operand.type)
            if not has_partial_row_box(tile):
                continue
            problem = check_tile(tile, self._defs.get(operand.name) or matmul.stmt)
            if problem is not None:
                raise CompileError(problem)
        self._reject_single_row_accumulator(matmul)

    def _reject_single_row_accumulator(self, matmul: _Matmul) -> None:
        """A left operand of fewer physical rows than a fractal box (a [1, K] row, which boxed
        spaces admit) still makes mad write whole boxes of rows into L0C, so an accumulator that
        is that row alone ([1, N]) has no room for the product. A located user error: the operand
        is loaded boxed with the one row as its valid extent, as the tensor-level matmul does."""
        lhs, result = cast(TileType, matmul.lhs.type), matmul.stmt.target.type
        if not isinstance(result, TileType) or len(result.shape) != 2 or result.view is None:
            return
        box = box_shape(result.view, result.dtype)
        if box is None or lhs.shape[0] >= box[0] or result.shape[0] >= box[0]:
            return
        rows, k = lhs.shape[0], lhs.shape[-1]
        raise CompileError(Diagnostic.at(
            matmul.stmt, RULE,
            f"not supported yet: {matmul.call.op} of a left operand `{matmul.lhs.name}` with {rows} physical "
            f"row{'s' if rows != 1 else ''}: mad writes whole {box[0]}-row boxes into L0C, which the "
            f"{list(result.shape)} accumulator has no room for",
            hint=f"load the left operand boxed with its rows as the valid extent, e.g. "
                 f"pl.load(a, [0, 0], [{box[0]}, {k}], [{rows}, {k}], target_memory=pl.MemorySpace.Mat), or use "
                 f"pl.matmul on tensors, which boxes M itself"))

    def _reject_oversized_manual_operands(self, matmul: _Matmul) -> None:
        """An operand the user placed in Left / Right that alone overflows its L0 buffer is an
        impossible manual allocation: no reuse or planner choice can repair it."""
        for operand in (matmul.lhs, matmul.rhs):
            tile = cast(TileType, operand.type)
            if tile.memory_space not in _L0_OPERAND_SPACES:
                continue
            assert tile.memory_space is not None
            need = l0_footprint_bytes(tile, self.backend)
            have = self.backend.capacity(tile.memory_space)
            if need <= have:
                continue
            where = operand if operand.span.known else matmul.stmt
            buffer = buffer_name(tile.memory_space)
            raise CompileError(Diagnostic.at(
                where, RULE,
                f"{tile.memory_space.name} operand `{operand.name}` of {matmul.call.op} has physical shape "
                f"{list(tile.shape)} {tile.dtype.name}, which needs {need} bytes, but {buffer} "
                f"({tile.memory_space.name}) holds only {have} bytes on {self.backend.name}",
                hint=f"keep `{operand.name}` in Mat and pass it directly to the matmul so "
                     "AutoTileMatmulL0 can choose legal L0 tiles, or manually tile.extract a smaller "
                     f"{tile.memory_space.name} tile (at most {have} bytes) per step"))

    def _hint(self, matmul: _Matmul, code: str, text: str) -> None:
        self.bump(f"hint-{code}")
        self.hints.append(Diagnostic(RULE, f"{code}: {matmul.call.op} {matmul.target}: {text}",
                                     matmul.span, severity="perf-hint", node=matmul.stmt))

    def _copy(self, stmt: S.AssignStmt) -> list[L.Stmt]:
        new = self.visit_AssignStmt(stmt)
        return list(new) if isinstance(new, tuple) else [new]

    # -- IR builders ---------------------------------------------------------------------------

    def _call(self, op: str, args: Sequence[L.Expr], attrs: tuple[tuple[str, AttrValue], ...],
              span: Span) -> L.Call:
        ty = REGISTRY.deduce(op, args, attrs, placed=True)
        return L.Call(op=op, args=tuple(args), attrs=attrs, type=ty, span=span)

    def _assign(self, out: list[L.Stmt], base: str, value: L.Call, span: Span,
                name: str | None = None) -> L.Var:
        var = L.Var(name=name or self._fresh(base), type=value.type, span=span)
        out.append(L.AssignStmt(target=var, value=value, span=span))
        return var

    @staticmethod
    def _index(value: int, span: Span) -> L.ConstInt:
        return L.ConstInt(value=value, dtype=DataType.INDEX, span=span)

    def _shape(self, dims: tuple[int, int], span: Span) -> L.TupleExpr:
        return L.TupleExpr(elements=tuple(self._index(d, span) for d in dims), span=span)

    def _move(self, out: list[L.Stmt], source: L.Var, space: MemorySpace, span: Span) -> L.Var:
        call = self._call("tile.move", (source,), (("target_memory", space),), span)
        return self._assign(out, f"{source.name}_{space.name.lower()}", call, span)

    def _to_space(self, out: list[L.Stmt], source: L.Var, space: MemorySpace, span: Span) -> L.Var:
        """`source` moved into `space`; a Vec tile bound for L0 is staged through Mat first (the
        Vec → Mat crossing stays a tile.move so mixed-kernel expansion can find it)."""
        current = cast(TileType, source.type).memory_space
        if current is space or current is None:
            return source
        if self.backend.can_move(current, space):
            return self._move(out, source, space, span)
        if current is MemorySpace.Vec and self.backend.can_move(MemorySpace.Mat, space):
            return self._move(out, self._move(out, source, MemorySpace.Mat, span), space, span)
        return source  # no data path: left for the L0TiledFit verifier to report

    # -- single hop ------------------------------------------------------------------------------

    def _hop(self, matmul: _Matmul) -> list[L.Stmt]:
        """The matmul kept whole, each operand moved into the space the cube reads it from."""
        out: list[L.Stmt] = []
        call = matmul.call
        args: list[L.Expr] = []
        staged = {matmul.roles.lhs: matmul.lhs, matmul.roles.rhs: matmul.rhs}
        for index, arg in enumerate(call.args):
            new = staged.get(index) or self.visit_Expr(arg)
            demanded = REGISTRY.operand_space(call.op, index)
            if isinstance(new, L.Var) and isinstance(new.type, TileType) and demanded in (
                    MemorySpace.Left, MemorySpace.Right, MemorySpace.Bias):
                assert demanded is not None
                new = self._to_space(out, new, demanded, matmul.span)
            args.append(new)
        value = self._call(call.op, args, call.attrs, matmul.span)
        self._define_result(out, matmul.stmt.target, value, matmul.span)
        return out

    def _define_result(self, out: list[L.Stmt], target: S.Var, value: L.Call, span: Span) -> None:
        var = L.Var(name=target.name, type=value.type, span=target.span)
        self._rename[target.name] = var
        out.append(L.AssignStmt(target=var, value=value, span=span))

    # -- K tiling -----------------------------------------------------------------------------------

    def _k_tile(self, matmul: _Matmul, choice: L0Choice) -> list[L.Stmt]:
        out: list[L.Stmt] = []
        lhs = self._stage_lhs(out, matmul)
        dims = matmul.dims
        whole = SubTile(0, 0, 0, dims.M, dims.N, dims.valid_m, dims.valid_n)
        if matmul.bias is not None:
            final = self._biased_k_reduction(out, matmul, lhs, whole, KBlocks(dims.K, choice.k))
            self._rename[matmul.target] = final
            return out
        start = self._acc_start(out, matmul, whole, matmul.target)
        final_name = matmul.target
        final = self._k_reduction(out, matmul, lhs, whole, KBlocks(dims.K, choice.k), start, final_name)
        self._rename[matmul.target] = final
        return out

    def _stage_lhs(self, out: list[L.Stmt], matmul: _Matmul) -> L.Var:
        """A Vec-resident A operand (PV / score·V) is moved to Mat once, before the K loop, so the
        per-block Left extract reads Mat like the QK path."""
        if cast(TileType, matmul.lhs.type).memory_space is MemorySpace.Vec:
            return self._move(out, matmul.lhs, MemorySpace.Mat, matmul.span)
        return matmul.lhs

    def _acc_start(self, out: list[L.Stmt], matmul: _Matmul, tile: SubTile, base: str) -> _AccStart:
        if matmul.acc is not None:
            return _AccStart(matmul.acc, fresh=False, init_cond=matmul.init_cond)
        return _AccStart(self._seed(out, matmul, tile, base), fresh=True, init_cond=None)

    def _seed(self, out: list[L.Stmt], matmul: _Matmul, tile: SubTile, base: str) -> L.Var:
        """The Acc buffer a fresh reduction accumulates into. MAD writes L0C at the pitch of the
        Left operand's valid rows while readers use the physical rows unless the tile is compact,
        and matmul_acc inherits the seed's mode, so a row-narrowed seed is declared compact."""
        span = matmul.span
        attrs: tuple[tuple[str, AttrValue], ...] = (
            ("dtype", matmul.dims.acc_dtype), ("target_memory", MemorySpace.Acc))
        rows_narrowed = tile.valid_rows != tile.rows
        if rows_narrowed:
            attrs += (("compact", True),)
        create = self._call("tile.create", (self._shape((tile.rows, tile.cols), span),), attrs, span)
        if not tile.narrowed:
            return self._assign(out, f"{base}_l0_init", create, span)
        storage = self._assign(out, f"{base}_l0_init_storage", create, span)
        narrowed = self._call("tile.set_validshape", (
            storage, self._index(tile.valid_rows, span), self._index(tile.valid_cols, span)), (), span)
        return self._assign(out, f"{base}_l0_init", narrowed, span)

    def _k_reduction(self, out: list[L.Stmt], matmul: _Matmul, lhs: L.Var, tile: SubTile,
                     blocks: KBlocks, start: _AccStart, final_name: str) -> L.Var:
        """Full K blocks (a 2-stage pipeline when there are at least two), then the peeled tail."""
        span = matmul.span
        main_name = self._fresh(f"{final_name}_kmain") if blocks.tail else final_name
        if blocks.needs_loop:
            current = self._k_loop(out, matmul, lhs, tile, blocks, start, main_name)
        else:
            current = self._block(out, matmul, lhs, tile, self._index(0, span), blocks.k, start.init,
                                  self._first_block_pred(start), main_name)
        if blocks.tail:
            # The tail runs at a K offset past every full block, so it is never the first block:
            # no predicate, the 3-operand form.
            current = self._block(out, matmul, lhs, tile, self._index(blocks.main_extent, span),
                                  blocks.tail, current, None, final_name, base="t")
        return current

    def _biased_k_reduction(self, out: list[L.Stmt], matmul: _Matmul, lhs: L.Var, tile: SubTile,
                            blocks: KBlocks, final_name: str | None = None) -> L.Var:
        """tile.matmul_bias with K in blocks (spec): the first block is head-peeled as a
        straight-line tile.matmul_bias that applies the bias once and mints the accumulator;
        the remaining full blocks accumulate with plain tile.matmul_acc (a pipeline when two or
        more remain), then the tail. No branch and no phi: one L0C buffer throughout."""
        assert matmul.bias is not None
        span = matmul.span
        bias = self._to_space(out, matmul.bias, MemorySpace.Bias, span)
        rest = KBlocks(blocks.main_extent - blocks.k, blocks.k) if blocks.full_blocks > 1 else None
        final_name = final_name or matmul.target
        head_name = self._fresh(f"{final_name}_khead") if rest is not None or blocks.tail else final_name
        sa, sb = self._extract_block(out, matmul, lhs, tile, self._index(0, span), blocks.k, "")
        current = self._assign(out, head_name, self._call("tile.matmul_bias", (sa, sb, bias), (), span),
                               span, name=head_name)
        if rest is not None:
            main_name = self._fresh(f"{final_name}_kmain") if blocks.tail else final_name
            start = _AccStart(current, fresh=False, init_cond=None)
            if rest.full_blocks >= 2:
                current = self._k_loop(out, matmul, lhs, tile, rest, start, main_name, offset=blocks.k)
            else:
                current = self._block(out, matmul, lhs, tile, self._index(blocks.k, span), blocks.k,
                                      current, None, main_name, base="1")
        if blocks.tail:
            current = self._block(out, matmul, lhs, tile, self._index(blocks.main_extent, span),
                                  blocks.tail, current, None, final_name, base="t")
        return current

    def _first_block_pred(self, start: _AccStart) -> L.Expr | None:
        """Predicate of a lone straight-line first block: a literal True seeds a fresh buffer
        (folding it to tile.matmul would mint a second L0C buffer); a caller's init_cond is
        forwarded verbatim; a 3-operand matmul_acc stays unpredicated."""
        if start.fresh:
            return L.ConstBool(value=True)
        return start.init_cond

    def _k_loop(self, out: list[L.Stmt], matmul: _Matmul, lhs: L.Var, tile: SubTile,
                blocks: KBlocks, start: _AccStart, result_name: str, offset: int = 0) -> L.Var:
        """The pipelined loop over `blocks.full_blocks` full K blocks starting at K `offset`."""
        span = matmul.span
        ko = L.Var(name=self._fresh("ko"), type=INDEX, span=span)
        carried = L.Var(name=self._fresh(f"{matmul.target}_iter"), type=start.init.type, span=span)
        first = L.BinOp(op="==", lhs=ko, rhs=self._index(0, span), type=BOOL, span=span)
        pred: L.Expr | None = first
        if not start.fresh:
            pred = None if start.init_cond is None else L.BinOp(
                op="and", lhs=start.init_cond, rhs=first, type=BOOL, span=span)
        body: list[L.Stmt] = []
        step = self._block(body, matmul, lhs, tile, ko, blocks.k, carried, pred,
                           self._fresh(f"{matmul.target}_acc"))
        body.append(L.YieldStmt(values=(step,), span=span))
        result = L.Var(name=result_name, type=step.type, span=span)
        out.append(L.ForStmt(
            loop_var=ko, start=self._index(offset, span), stop=self._index(offset + blocks.main_extent, span),
            step=self._index(blocks.k, span), iter_args=(L.IterArg(var=carried, init=start.init, span=span),),
            body=tuple(body), results=(result,), kind="pipeline", attrs=(("stage", 2),), span=span))
        return result

    def _block(self, out: list[L.Stmt], matmul: _Matmul, lhs: L.Var, tile: SubTile, k_offset: L.Expr,
               width: int, acc: L.Var, pred: L.Expr | None, result_name: str, base: str = "") -> L.Var:
        """One L0 block: extract [rows, width] Left and [width, cols] Right, then matmul_acc."""
        span = matmul.span
        sa, sb = self._extract_block(out, matmul, lhs, tile, k_offset, width, base)
        args: tuple[L.Expr, ...] = (acc, sa, sb) if pred is None else (acc, sa, sb, pred)
        step = self._call("tile.matmul_acc", args, (), span)
        return self._assign(out, result_name, step, span, name=result_name)

    def _extract_block(self, out: list[L.Stmt], matmul: _Matmul, lhs: L.Var, tile: SubTile,
                       k_offset: L.Expr, width: int, base: str) -> tuple[L.Var, L.Var]:
        """The [rows, width] Left and [width, cols] Right blocks of one K step."""
        span = matmul.span
        left = self._call("tile.extract", (lhs, self._index(tile.row, span), k_offset,
                                           self._shape((tile.rows, width), span)),
                          (("target_memory", MemorySpace.Left),), span)
        right = self._call("tile.extract", (matmul.rhs, k_offset, self._index(tile.col, span),
                                            self._shape((width, tile.cols), span)),
                           (("target_memory", MemorySpace.Right),), span)
        sa = self._assign(out, f"sa{base}", left, span)
        sb = self._assign(out, f"sb{base}", right, span)
        return sa, sb

    # -- M/N tiling --------------------------------------------------------------------------------

    def _mn_tile(self, matmul: _Matmul, choice: L0Choice, block: tuple[S.Stmt, ...],
                 index: int) -> tuple[int, list[L.Stmt]]:
        """The [M, N] Acc would overflow L0C: compute [m, n] sub-tiles and store each straight to
        the output. Only a fresh matmul whose single use is a direct 2-D store, reached past
        nothing but sibling loads, qualifies (no effect is crossed by the deferred grid)."""
        store_at = index + 1
        while store_at < len(block) and _is_load(block[store_at]):
            store_at += 1
        store = block[store_at] if store_at < len(block) else None
        chain_refusal = self._chain_refusals.get(matmul.target)
        reason = chain_refusal.reason if chain_refusal is not None else self._mn_refusal(matmul, store)
        if reason is not None and chain_refusal is None:
            moves = self._vec_consumer_moves(matmul, block, index)
            windowed = any(isinstance(stmt, S.AssignStmt) and stmt.target.name in self._sliced
                           and _moves_to_vec(stmt, matmul.target) for stmt in block[index + 1:])
            if moves and not windowed:
                self.bump("mn-tiled-vec-scratch")
                self._dropped.update(id(move) for move in moves)
                return 1, self._vec_scratch_grid(matmul, choice, moves)
            if windowed or not self._fits_whole(matmul):
                # Left whole it cannot be placed (or its windows would need the whole product in
                # Vec): serve all its consumers from one grid.
                plan = self._consumer_plan(matmul, block, index)
                if isinstance(plan, _ConsumerPlan):
                    self.bump("mn-tiled-consumers")
                    return self._consumer_grid(matmul, choice, block, index, plan)
                reason = plan
        if reason is not None:
            # Left whole, the accumulator cannot be allocated at all (nothing but the cube writes
            # L0C, so there is no smaller legal placement): say so here, at the user's line,
            # instead of letting the L0C budget fail later without the reason.
            self._hint(matmul, "PH-AT-006", f"output tiling refused: {reason}; left untiled")
            if not self._acc_fits(matmul):
                hint = chain_refusal.hint if chain_refusal is not None else None
                raise CompileError(self._l0c_overflow(matmul, reason, hint))
            if not self._fits_whole(matmul):
                # Left whole, an operand overflows L0A / L0B: no later pass can place it.
                raise CompileError(self._operand_overflow(matmul, choice, reason))
            return 1, self._hop(matmul)
        assert isinstance(store, S.AssignStmt) and isinstance(store.value, S.Call)
        out: list[L.Stmt] = []
        for between in block[index + 1:store_at]:
            new = self.visit_Stmt(between)
            out.extend(new if isinstance(new, tuple) else (new,))
        self.bump("mn-tiled")
        out.extend(self._grid(matmul, choice, store, store.value))
        return store_at + 1 - index, out

    def _reject_unfitting_whole(self, matmul: _Matmul, code: str, why: str) -> None:
        """A matmul the chooser cannot tile is left whole; when whole it overflows an L0 buffer,
        no later pass can repair it: say so at the matmul, with the chooser's reason."""
        if self._fits_whole(matmul):
            return
        dims = matmul.dims
        raise CompileError(Diagnostic.at(
            matmul.stmt, RULE,
            f"not supported yet: {matmul.call.op} `{matmul.target}` [{dims.M}, {dims.N}] x K={dims.K} cannot be "
            f"L0-tiled ({code}: {why}), and left whole its operands and accumulator do not fit L0A / L0B / L0C "
            f"on {self.backend.name}",
            hint="pad K (and M / N) to the fractal alignment in the kernel (load the operands into aligned, "
                 "zero-padded tiles), or split the matmul into smaller matmuls by hand"))

    def _fits_whole(self, matmul: _Matmul) -> bool:
        """Whether the matmul left whole fits L0A, L0B, L0C (and the Bias table)."""
        dims, backend = matmul.dims, self.backend
        fits = (dims.M * dims.K * dims.bytes_a <= backend.capacity(MemorySpace.Left)
                and dims.K * dims.N * dims.bytes_b <= backend.capacity(MemorySpace.Right)
                and self._acc_fits(matmul))
        if matmul.bias is not None:
            fits = fits and dims.N * dims.acc_dtype.byte_width <= backend.bias_capacity_bytes
        return fits

    def _acc_fits(self, matmul: _Matmul) -> bool:
        result = cast(TileType, matmul.call.type)
        return l0_footprint_bytes(result, self.backend) <= self.backend.capacity(MemorySpace.Acc)

    def _l0c_overflow(self, matmul: _Matmul, reason: str, hint: str | None = None) -> Diagnostic:
        result = cast(TileType, matmul.call.type)
        need = l0_footprint_bytes(result, self.backend)
        have = self.backend.capacity(MemorySpace.Acc)
        return Diagnostic.at(
            matmul.stmt, RULE,
            f"PH-AT-006: the accumulator `{matmul.target}` of {matmul.call.op} is {list(result.shape)} "
            f"{result.dtype.name} and needs {need} bytes, but L0C holds {have} bytes on {self.backend.name}; "
            f"not supported yet: tiling it into output blocks when {reason}",
            hint=hint or "compute the output in blocks in the kernel (a loop over N or M blocks that slices "
                 "the operands and stores each block), or consume the matmul result outside loops and "
                 "branches, by pl.store / return of it or of pl.set_validshape views of it, so "
                 "AutoTileMatmulL0 can tile the output grid itself")

    def _operand_overflow(self, matmul: _Matmul, choice: L0Choice, reason: str) -> Diagnostic:
        dims, backend = matmul.dims, self.backend
        panels = ((MemorySpace.Left, "L0A", "left", dims.M * dims.K * dims.bytes_a),
                  (MemorySpace.Right, "L0B", "right", dims.K * dims.N * dims.bytes_b))
        space, name, role, need = next(p for p in panels if p[3] > backend.capacity(p[0]))
        return Diagnostic.at(
            matmul.stmt, RULE,
            f"PH-AT-006: {matmul.call.op} `{matmul.target}` [{dims.M}, {dims.N}] x K={dims.K} needs its "
            f"{role} operand split ({need} bytes, but {name} holds {backend.capacity(space)} bytes on "
            f"{backend.name}; the chooser picks [{choice.m}, {choice.n}] output tiles), and tiling the "
            f"output is not supported yet when {reason}",
            hint="consume the matmul result with one pl.store, with vector ops (on-chip, through one "
                 "move to Vec), or as the operand of another matmul; or compute the output in blocks "
                 "in the kernel (a loop over N or M blocks that slices the operands)")

    def _vec_consumer_moves(self, matmul: _Matmul, block: tuple[S.Stmt, ...],
                            index: int) -> list[S.AssignStmt]:
        """The `tile.move(c, target_memory=Vec)` statements that hand a fresh matmul's whole
        result to vector consumers (one per consumer where memory inference placed one each),
        when they are its only uses and sit in the same block (so the grid can take their place);
        empty when the result has any other use."""
        if not matmul.is_fresh or matmul.bias is not None:
            return []
        moves = [stmt for stmt in block[index + 1:]
                 if isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call)
                 and stmt.value.op == "tile.move" and len(stmt.value.args) == 1
                 and isinstance(stmt.value.args[0], S.Var) and stmt.value.args[0].name == matmul.target
                 and isinstance(stmt.value.type, TileType) and stmt.value.type.memory_space is MemorySpace.Vec]
        if not moves or len(moves) != self._use_count(matmul.target):
            return []
        first = moves[0].value
        assert isinstance(first, S.Call)
        if any(cast(S.Call, m.value).attrs != first.attrs or cast(S.Call, m.value).type != first.type for m in moves):
            return []
        return moves

    def _vec_scratch_choice(self, matmul: _Matmul, choice: L0Choice, move: S.Call) -> L0Choice:
        """On a split target each sub-tile crosses to the vector core through a two-slot FIFO
        that lives in Vec beside the [M, N] scratch: the sub-tiles are chosen with L0C capped at a
        quarter of the whole result, so the FIFO never costs more than half of it (the whole
        result moved at once would have needed two whole slots)."""
        if attr(move.attrs, "cross_core", False) is not True:
            return choice
        whole = l0_footprint_bytes(cast(TileType, matmul.call.type), self.backend)
        cap = max(whole // 4, self.backend.l0_fractal_alignment ** 2 * matmul.dims.acc_dtype.byte_width)
        if choice.m * choice.n * matmul.dims.acc_dtype.byte_width <= cap:
            return choice
        capped = replace(self.backend, l0c_capacity_bytes=min(self.backend.l0c_capacity_bytes, cap))
        smaller = choose(matmul.dims, capped, False, self.gates)
        return smaller if smaller is not None else choice

    def _vec_scratch_grid(self, matmul: _Matmul, choice: L0Choice,
                          moves: list[S.AssignStmt]) -> list[L.Stmt]:
        """Placement into the consumer's space: every [m, n] Acc sub-tile is moved to Vec (the
        same move the whole result took, cross-core on a split target) and assembled at its
        origin into one Vec tile of the whole result's type, which then stands for every move.
        The whole [M, N] Acc is never materialized, so only the sub-tiles must fit L0."""
        span = matmul.span
        move_call = moves[0].value
        assert isinstance(move_call, S.Call)
        choice = self._vec_scratch_choice(matmul, choice, move_call)
        whole = cast(TileType, move_call.type)
        base = moves[0].target.name
        out: list[L.Stmt] = []
        lhs = self._stage_lhs(out, matmul)
        scratch = self._gathered_scratch(out, whole, base, span)
        blocks = KBlocks(matmul.dims.K, choice.k)
        for tile in output_grid(matmul.dims, choice.m, choice.n):
            name = f"{matmul.target}_t{tile.index}"
            start = self._acc_start(out, matmul, tile, name)
            sub = self._k_reduction(out, matmul, lhs, tile, blocks, start, self._fresh(name))
            moved = self._assign(out, f"{name}_vec", self._call("tile.move", (sub,), move_call.attrs, span), span)
            scratch = self._gather(out, scratch, moved, tile, f"{base}_t{tile.index}", span)
        gathered = self._gathered(out, scratch, whole, span)
        for move in moves:
            self._rename[move.target.name] = gathered
        return out

    def _window_choice(self, matmul: _Matmul, choice: L0Choice, block: tuple[S.Stmt, ...], index: int) -> L0Choice:
        """A product that fits L0C whole but is moved to Vec only to be sliced and stored, by
        moves that take more than half of Vec, is given an output grid anyway (sub-tiles of at
        most half of Vec), so that each sub-tile, not the product, is moved there
        (`_consumer_plan`)."""
        dims = matmul.dims
        if (choice.m, choice.n) != (dims.M, dims.N) or not matmul.is_fresh or matmul.bias is not None:
            return choice
        vec = self.backend.capacity(MemorySpace.Vec)
        moved = sum(l0_footprint_bytes(cast(TileType, stmt.target.type), self.backend) for stmt in block[index + 1:]
                    if isinstance(stmt, S.AssignStmt) and stmt.target.name in self._sliced
                    and _moves_to_vec(stmt, matmul.target))
        if moved <= vec // 2:
            return choice
        capped = replace(self.backend, l0c_capacity_bytes=min(self.backend.l0c_capacity_bytes, vec // 2))
        smaller = choose(dims, capped, False, self.gates)
        return smaller if smaller is not None else choice

    def _gather_dtype(self, whole: TileType) -> DataType:
        """The element type the sub-tiles are assembled into the gathered Vec tile as: a Vec -> Vec
        assemble is a pto.tinsert, which takes only some types (INT32 as the bits of FP32 on
        A2/A3: `vec_insert_type`, the copy LegalizeVecLayouts makes of the window writes it sees)."""
        bits = vec_insert_type(whole.dtype, self.backend.arch)
        return whole.dtype if bits is None else bits

    def _gathered_scratch(self, out: list[L.Stmt], whole: TileType, base: str, span: Span) -> L.Var:
        """The Vec tile of the whole moved result's shape that the sub-tiles are assembled into
        (in `_gather_dtype`)."""
        scratch_attrs: tuple[tuple[str, AttrValue], ...] = (
            ("dtype", self._gather_dtype(whole)), ("target_memory", MemorySpace.Vec))
        create = self._call("tile.create", (self._shape((whole.shape[0], whole.shape[1]), span),),
                            scratch_attrs, span)
        scratch = self._assign(out, f"{base}_scratch", create, span)
        valid = whole.valid
        if tuple(valid) != tuple(whole.shape):
            narrowed = self._call("tile.set_validshape", (
                scratch, self._index(int(valid[0]), span), self._index(int(valid[1]), span)), (), span)
            scratch = self._assign(out, f"{base}_scratch", narrowed, span)
        return scratch

    def _gather(self, out: list[L.Stmt], scratch: L.Var, moved: L.Var, tile: SubTile, name: str,
                span: Span) -> L.Var:
        """`moved` (a sub-tile moved to Vec) assembled at its origin into the gathered tile."""
        source = cast(TileType, moved.type)
        bits = cast(TileType, scratch.type).dtype
        if bits is not source.dtype:
            moved = self._assign(out, f"{moved.name}_bits", self._call(
                "tile.reinterpret_view", (moved,), (("dtype", bits),), span), span)
        window = L.TupleExpr(elements=(self._index(tile.row, span), self._index(tile.col, span)), span=span)
        return self._assign(out, name, self._call("tile.assemble", (scratch, moved, window), (), span), span)

    def _gathered(self, out: list[L.Stmt], scratch: L.Var, whole: TileType, span: Span) -> L.Var:
        """The gathered tile as the whole moved result (its bits re-viewed in its own type)."""
        if cast(TileType, scratch.type).dtype is whole.dtype:
            return scratch
        back = self._assign(out, f"{scratch.name}_{whole.dtype.name.lower()}", self._call(
            "tile.reinterpret_view", (scratch,), (("dtype", whole.dtype),), span), span)
        if back.type != whole:
            raise CompileError(Diagnostic.at(
                scratch, RULE, f"the {cast(TileType, scratch.type).dtype.name} bits of `{scratch.name}` do not "
                               f"re-view as {whole}", hint="this is a compiler bug"))
        return back

    def _mn_refusal(self, matmul: _Matmul, store: S.Stmt | None) -> str | None:
        if not matmul.is_fresh:
            return "a caller-owned accumulator has no supported M/N placement"
        if cast(TileType, matmul.lhs.type).memory_space is not MemorySpace.Mat:
            return "the left operand is not Mat-resident (Vec left operand)"
        if not (isinstance(store, S.AssignStmt) and isinstance(store.value, S.Call)
                and store.value.op == "tile.store" and store.value.args
                and isinstance(store.value.args[0], S.Var) and store.value.args[0].name == matmul.target):
            return "its result is not consumed by a direct tile.store right after it"
        if self._use_count(matmul.target) != 1:
            return "its result has uses besides the store"
        offsets = _offsets_arg(store.value)
        if offsets is None or len(offsets[1].elements) != 2:
            return "the consumer store is not a 2-D store with an offset list"
        return None

    def _grid(self, matmul: _Matmul, choice: L0Choice, store: S.AssignStmt, call: S.Call,
              reduce: _TileReduction | None = None) -> list[L.Stmt]:
        """Each [m, n] sub-tile's K reduction (`reduce`; by default a fresh or caller-seeded one)
        stored straight to the output, the stores chained in SSA."""
        span = matmul.span
        offsets = _offsets_arg(call)
        assert offsets is not None
        offsets_index, offsets_expr = offsets
        base_row, base_col = (self.visit_Expr(e) for e in offsets_expr.elements)
        tensor_index = next(i for i, a in enumerate(call.args) if isinstance(type_of(a), TensorType))
        previous: L.Expr = self.visit_Expr(call.args[tensor_index])
        root = _root(previous)
        tiles = output_grid(matmul.dims, choice.m, choice.n)
        blocks = KBlocks(matmul.dims.K, choice.k)
        out: list[L.Stmt] = []
        for tile in tiles:
            name = f"{matmul.target}_t{tile.index}"
            if reduce is not None:
                sub = reduce(out, tile, name)
            else:
                start = self._acc_start(out, matmul, tile, name)
                sub = self._k_reduction(out, matmul, matmul.lhs, tile, blocks, start, self._fresh(name))
            args = list(self.visit_Expr(a) for a in call.args)
            args[0] = sub
            args[offsets_index] = L.TupleExpr(elements=(
                _offset(base_row, tile.row, span), _offset(base_col, tile.col, span)), span=span)
            args[tensor_index] = previous
            value = self._call(call.op, args, call.attrs, store.span)
            # Spec: the stores chain out -> out_t0 -> ... -> out_tN, and the last one's result
            # replaces the original store's downstream (through `_rename`).
            target = self._fresh(f"{root}_t{tile.index}")
            previous = self._assign(out, target, value, store.span, name=target)
        self._rename[store.target.name] = cast(L.Var, previous)
        return out

    # -- several consumers of one oversized product ----------------------------------------------

    def _consumer_plan(self, matmul: _Matmul, block: tuple[S.Stmt, ...], index: int) -> _ConsumerPlan | str:
        """How one output grid serves every use of a fresh product whose accumulator must be
        tiled (the spec tiles it into one direct store; several consumers are this compiler's
        extension): each tile.store of the product, or of an origin-anchored set_validshape view
        of it, becomes a store of the matching window per output tile; a move of the product to
        Vec that is only sliced, each slice only stored, becomes per output tile a move of the
        sub-tile and a store of the part of each window it holds; other moves of the whole
        product to Vec are gathered into one Vec tile as for the Vec-scratch grid. Else why
        not, naming the consumer the grid cannot serve."""
        if matmul.acc is not None:
            return "a caller-owned accumulator has no supported M/N placement"
        if cast(TileType, matmul.lhs.type).memory_space is not MemorySpace.Mat:
            return "the left operand is not Mat-resident (Vec left operand)"
        dims = matmul.dims
        valid = (0, 0, dims.valid_m, dims.valid_n)
        # What each name derived from the product holds, in product coordinates: an Acc view
        # (`acc`) or a Vec window (`vec`; the whole moved product first, then its slices).
        acc: dict[str, tuple[int, int, int, int]] = {matmul.target: valid}
        vec: dict[str, tuple[int, int, int, int] | None] = {}  # None: the whole moved product
        moves = [stmt for stmt in block[index + 1:] if isinstance(stmt, S.AssignStmt) and _moves_to_vec(stmt, matmul.target)]
        windowed = bool(moves) and all(m.target.name in self._sliced for m in moves)
        found: dict[str, int] = {}
        consumers: list[_Consumer] = []
        absorbed: set[int] = set()
        store_chains: dict[str, str] = {}  # a consumer store's result -> the GM tensor it wrote
        window_move: S.Call | None = None
        served = ("only stores of it, of origin-anchored set_validshape views of it or of windows of it, and moves "
                  "of it to Vec are")
        for position in range(index + 1, len(block)):
            stmt = block[position]
            scope: Node = stmt.value if isinstance(stmt, S.AssignStmt) else stmt
            reads = [n.name for n in walk(scope) if isinstance(n, S.Var) and (n.name in acc or n.name in vec)]
            if not reads:
                continue
            for name in reads:
                found[name] = found.get(name, 0) + 1
            if not (isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call)):
                return (f"its result is read by {_STMT_KINDS.get(stmt.KIND, 'a ' + stmt.KIND)} at line "
                        f"{stmt.span.line}, which the output grid cannot serve per tile ({served})")
            call = stmt.value
            space = call.type.memory_space if call.op == "tile.move" and isinstance(call.type, TileType) else None
            what = f"{call.op} `{stmt.target.name}`{f' to {space.name}' if space else ''} at line {stmt.span.line}"
            if space is MemorySpace.Mat:
                what += " (a chained matmul's operand: the Mat-scratch placement is not implemented)"
            source = call.args[0] if call.args else None
            if len(reads) != 1 or not isinstance(source, S.Var) or source.name not in reads:
                return f"its result is read by {what}, which the output grid cannot serve per tile ({served})"
            if source.name in vec:
                # The product moved to Vec to be windowed: slices of it, stores of the slices.
                window_held = vec[source.name]
                if call.op == "tile.slice" and window_held is None:
                    window = _static_window(call)
                    if window is None:
                        return f"its result is sliced by {what} with a runtime shape, offset or valid shape"
                    if window[0] + window[2] > dims.valid_m or window[1] + window[3] > dims.valid_n:
                        return (f"its result is sliced by {what} past the product's valid "
                                f"[{dims.valid_m}, {dims.valid_n}]")
                    vec[stmt.target.name] = window
                elif call.op == "tile.store" and window_held is not None:
                    consumer = self._store_consumer(stmt, position, "window", window_held, what, store_chains)
                    if isinstance(consumer, str):
                        return consumer
                    consumers.append(consumer)
                else:
                    return f"its result, moved to Vec to be sliced, is read by {what}"
                absorbed.add(position)
                continue
            held = acc[source.name]
            if call.op == "tile.set_validshape":
                rows, cols = static_int(call.args[1]), static_int(call.args[2])
                if rows is None or cols is None:
                    return f"its result is re-validated by {what} to a runtime valid shape"
                if rows > dims.valid_m or cols > dims.valid_n:
                    return (f"its result is re-validated by {what} to [{rows}, {cols}], past the product's "
                            f"valid [{dims.valid_m}, {dims.valid_n}]")
                acc[stmt.target.name] = (0, 0, rows, cols)
            elif call.op == "tile.store":
                consumer = self._store_consumer(stmt, position, "store", held, what, store_chains)
                if isinstance(consumer, str):
                    return consumer
                consumers.append(consumer)
            elif _moves_to_vec(stmt, matmul.target):
                if windowed:
                    vec[stmt.target.name] = None
                    window_move = call
                else:
                    consumers.append(_Consumer(stmt, position, "vec"))
            else:
                return f"its result is read by {what}, which the output grid cannot serve per tile ({served})"
            absorbed.add(position)
        for name in (*acc, *vec):
            if found.get(name, 0) != self._use_count(name):
                return f"`{name}` is read outside the matmul's block, which the output grid cannot serve per tile"
        if not any(c.stores for c in consumers):
            return "its result is not consumed by a store"
        vec_moves = [cast(S.Call, c.stmt.value) for c in consumers if c.kind == "vec"]
        if any(m.attrs != vec_moves[0].attrs or m.type != vec_moves[0].type for m in vec_moves):
            return "its moves to Vec differ from one another"
        overlap = _overlapping_stores(consumers)
        if overlap is not None:
            return overlap
        at = self._grid_position(block, index, consumers, frozenset(absorbed))
        if at is None:
            return ("its consumers cannot be served together: a statement between them reads or writes a tensor "
                    "one of them stores into, is a barrier, or reads or defines a value one of them reads")
        return _ConsumerPlan(tuple(consumers), frozenset(absorbed), at, window_move)

    @staticmethod
    def _store_refusal(call: S.Call, what: str) -> str | None:
        offsets = _offsets_arg(call)
        tensor = call.args[2] if len(call.args) > 2 else None
        if offsets is None or len(offsets[1].elements) != 2 or not isinstance(tensor, S.Var):
            return f"its result is stored by {what}, which is not a 2-D store with an offset list"
        if attr(call.attrs, "window", None) is not None:
            return f"its result is stored by {what} into an N-D window"
        return None

    def _store_consumer(self, stmt: S.AssignStmt, position: int, kind: str, held: tuple[int, int, int, int],
                        what: str, store_chains: dict[str, str]) -> _Consumer | str:
        """A consumer store of the product's output grid, or why the grid cannot serve it."""
        refusal = self._store_refusal(cast(S.Call, stmt.value), what)
        if refusal is not None:
            return refusal
        chain = self._store_chain(stmt, store_chains)
        if chain is None:
            return f"the store result that {what} writes again is also read elsewhere"
        return _Consumer(stmt, position, kind, held, chain)

    def _store_chain(self, stmt: S.AssignStmt, store_chains: dict[str, str]) -> str | None:
        """The GM tensor a consumer store writes, through the consumer stores before it (None
        when it writes a consumer store's result that something else reads too)."""
        tensor = cast(S.Var, cast(S.Call, stmt.value).args[2])
        chain = store_chains.get(tensor.name)
        if chain is not None and self._use_count(tensor.name) != 1:
            return None
        chain = chain or self._gm_root(tensor.name)
        store_chains[stmt.target.name] = chain
        return chain

    def _gm_root(self, name: str) -> str:
        """The GM tensor (a parameter, or a tensor created in the kernel) that `name` is a store
        result or a view of."""
        seen: set[str] = set()
        while name not in seen:
            seen.add(name)
            stmt = self._defs.get(name)
            if not (isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call)):
                break
            call = stmt.value
            tensors = [a for a in call.args if isinstance(a, S.Var) and isinstance(a.type, TensorType)]
            if not tensors:
                break
            name = tensors[-1].name if call.op == "tile.store" else tensors[0].name
        return name

    def _grid_position(self, block: tuple[S.Stmt, ...], index: int, consumers: list[_Consumer],
                       absorbed: frozenset[int]) -> int | None:
        """The first block position after which the grid can stand: every consumer statement
        before it sinks to it and every one after it is hoisted to it, across statements that
        neither read nor define what it reads or defines and, for a store, touch no GM."""
        chains = {c.position: c.chain for c in consumers if c.stores}
        product = cast(S.AssignStmt, block[index]).target.name
        gone = {p for p in range(index + 1, len(block)) if p in absorbed or id(block[p]) in self._dropped}
        for at in range(index, max(absorbed) + 1):
            if at not in gone and at != index and _matmul_calls(block[at]):
                break  # the grid emits what it sinks past, and a matmul is this pass's to rewrite
            if all(self._may_cross(block[q], [block[p] for p in (range(q + 1, at + 1) if q <= at else range(at + 1, q))
                                              if p not in gone], chains.get(q), product)
                   for q in absorbed):
                return at
        return None

    def _may_cross(self, stmt: S.Stmt, crossed: list[S.Stmt], chain: str | None, product: str) -> bool:
        """Whether consumer `stmt` can move past `crossed`: none of them reads or defines a name it
        reads or defines and, for a store into the GM tensor `chain`, none touches that tensor
        (through any view or store result of it) or is a system operation (a barrier). Distinct
        GM tensors are taken not to alias (each Out tensor is its own allocation)."""
        names = {n.name for n in walk(stmt) if isinstance(n, S.Var)} - {product}
        for other in crossed:
            used = {n.name for n in walk(other) if isinstance(n, S.Var)}
            if names & used:
                return False
            if chain is None:
                continue
            if any(isinstance(n, S.Call) and n.op.startswith("system.") for n in walk(other)):
                return False
            if chain in {self._gm_root(n.name) for n in walk(other)
                         if isinstance(n, S.Var) and isinstance(n.type, TensorType)}:
                return False
        return True

    def _consumer_grid(self, matmul: _Matmul, choice: L0Choice, block: tuple[S.Stmt, ...], index: int,
                       plan: _ConsumerPlan, reduce: _TileReduction | None = None) -> tuple[int, list[L.Stmt]]:
        """One [m, n] sub-tile K reduction per output tile, serving every consumer of the plan:
        each store writes the tile's part of what it stored (a set_validshape of the sub-tile
        where a view narrowed the product, a slice of the sub-tile moved to Vec for a window),
        chained in SSA per GM tensor; moves of the whole product to Vec are served by one Vec
        tile each sub-tile is moved into and assembled at its origin."""
        span = matmul.span
        out: list[L.Stmt] = []
        for position in range(index + 1, plan.at + 1):
            if position not in plan.absorbed and id(block[position]) not in self._dropped:
                new = self.visit_Stmt(block[position])
                out.extend(new if isinstance(new, tuple) else (new,))
        self._dropped.update(id(block[p]) for p in plan.absorbed if p > plan.at)
        moves = [c for c in plan.consumers if c.kind == "vec"]
        move_call = cast(S.Call, moves[0].stmt.value) if moves else plan.window_move
        scratch: L.Var | None = None
        if move_call is not None:
            choice = self._vec_scratch_choice(matmul, choice, move_call)
        if moves and move_call is not None:
            scratch = self._gathered_scratch(out, cast(TileType, move_call.type), moves[0].stmt.target.name, span)
        chains: dict[str, L.Expr] = {}
        roots: dict[str, str] = {}
        for consumer in plan.consumers:
            if consumer.stores and consumer.chain not in chains:
                chains[consumer.chain] = self.visit_Expr(cast(S.Call, consumer.stmt.value).args[2])
                roots[consumer.chain] = _root(chains[consumer.chain])
        blocks = KBlocks(matmul.dims.K, choice.k)
        for tile in output_grid(matmul.dims, choice.m, choice.n):
            name = f"{matmul.target}_t{tile.index}"
            if reduce is not None:
                sub = reduce(out, tile, name)
            else:
                start = self._acc_start(out, matmul, tile, name)
                sub = self._k_reduction(out, matmul, matmul.lhs, tile, blocks, start, self._fresh(name))
            moved: L.Var | None = None
            for consumer in plan.consumers:
                if not consumer.stores:
                    continue
                part = _part(consumer.source, tile)
                if part is None:
                    continue
                if consumer.kind == "window":
                    if moved is None:
                        assert move_call is not None
                        moved = self._assign(out, f"{name}_vec", self._call("tile.move", (sub,), move_call.attrs, span),
                                             span)
                    self._store_part(out, consumer, tile, moved, part, chains, roots[consumer.chain])
                else:
                    self._store_part(out, consumer, tile, sub, part, chains, roots[consumer.chain])
            if scratch is not None:
                assert move_call is not None
                if moved is None:
                    moved = self._assign(out, f"{name}_vec", self._call("tile.move", (sub,), move_call.attrs, span),
                                         span)
                scratch = self._gather(out, scratch, moved, tile, f"{moves[0].stmt.target.name}_t{tile.index}", span)
        if scratch is not None and move_call is not None:
            scratch = self._gathered(out, scratch, cast(TileType, move_call.type), span)
        for consumer in plan.consumers:
            final = chains[consumer.chain] if consumer.stores else scratch
            assert isinstance(final, L.Var)
            self._rename[consumer.stmt.target.name] = final
        return plan.at + 1 - index, out

    def _store_part(self, out: list[L.Stmt], consumer: _Consumer, tile: SubTile, value: L.Var,
                    part: tuple[int, int, int, int], chains: dict[str, L.Expr], root: str) -> None:
        """The part `part` (product coordinates) of what `consumer` stores, held by output tile
        `tile` in `value` (its Acc sub-tile, or that moved to Vec for a window), stored at the
        matching GM offset: a set_validshape of the sub-tile for an origin-anchored part, a
        slice of it otherwise."""
        store = consumer.stmt
        call = cast(S.Call, store.value)
        span = store.span
        row, col, rows, cols = part
        if consumer.kind == "window":
            piece = self._call("tile.slice", (value, self._shape((rows, cols), span),
                                              self._shape((row - tile.row, col - tile.col), span)), (), span)
            value = self._assign(out, f"{value.name}_window", piece, span)
        elif (rows, cols) != (tile.valid_rows, tile.valid_cols):
            assert (row, col) == (tile.row, tile.col)
            view = self._call("tile.set_validshape", (value, self._index(rows, span), self._index(cols, span)), (), span)
            value = self._assign(out, f"{value.name}_view", view, span)
        offsets = _offsets_arg(call)
        assert offsets is not None
        base_row, base_col = (self.visit_Expr(e) for e in offsets[1].elements)
        origin_row, origin_col = consumer.source[:2]
        args: list[L.Expr] = [value, L.TupleExpr(elements=(
            _offset(base_row, row - origin_row, span), _offset(base_col, col - origin_col, span)), span=span),
            chains[consumer.chain]]
        target = self._fresh(f"{root}_t{tile.index}")
        chains[consumer.chain] = self._assign(out, target, self._call(call.op, args, call.attrs, span), span,
                                              name=target)

    # -- tile.matmul_bias M/N tiling (PH-AT-011) ------------------------------------------------------

    def _direct_store_at(self, matmul: _Matmul, block: tuple[S.Stmt, ...], index: int) -> int | None:
        """The block index of the one direct 2-D store of the result, reached past only sibling
        loads (the deferred grid crosses no effect), or None."""
        store_at = index + 1
        while store_at < len(block) and _is_load(block[store_at]):
            store_at += 1
        store = block[store_at] if store_at < len(block) else None
        if not (isinstance(store, S.AssignStmt) and isinstance(store.value, S.Call)
                and store.value.op == "tile.store" and store.value.args
                and isinstance(store.value.args[0], S.Var) and store.value.args[0].name == matmul.target):
            return None
        if self._use_count(matmul.target) != 1:
            return None
        offsets = _offsets_arg(store.value)
        if offsets is None or len(offsets[1].elements) != 2:
            return None
        return store_at

    def _bias_windows(self, matmul: _Matmul, choice: L0Choice, block: tuple[S.Stmt, ...],
                      index: int) -> _BiasWindows | str:
        """How each output tile of a biased matmul gets its bias (spec: per-N window loads that
        replace one single-use full [1, N] Mat load reached past only sibling loads), or why not."""
        dims = matmul.dims
        if dims.M % self.backend.l0_fractal_alignment or dims.N % self.backend.l0_fractal_alignment:
            return (f"its output [{dims.M}, {dims.N}] is not a whole number of "
                    f"{self.backend.l0_fractal_alignment}-element fractal boxes")
        if choice.n == dims.N:
            return _BiasWindows(None, None, None)  # M tiling only: every tile reads the whole bias
        assert matmul.roles.bias is not None
        source_name = cast(S.Var, matmul.call.args[matmul.roles.bias]).name
        move: S.Stmt | None = self._defs.get(source_name)
        if isinstance(move, S.AssignStmt) and isinstance(move.value, S.Call) and move.value.op == "tile.move" \
                and isinstance(move.value.args[0], S.Var):
            if self._use_count(source_name) != 1:
                return "its bias has uses besides the matmul"
            load_name = move.value.args[0].name
        else:
            move = None
            load_name = source_name
        load = self._defs.get(load_name)
        if not (isinstance(load, S.AssignStmt) and isinstance(load.value, S.Call) and load.value.op == "tile.load"):
            if move is None and matmul.bias is not None \
                    and cast(TileType, matmul.bias.type).memory_space is MemorySpace.Bias:
                return "its bias is defined in the Bias table, and a Bias-to-Bias N window is not supported"
            return "its bias is not a tile.load of a GM tensor"
        tile = cast(TileType, load.target.type)
        if tile.memory_space is not MemorySpace.Mat:
            return "its bias is not loaded into Mat"
        if tuple(tile.shape) != (1, dims.N) or tuple(tile.valid) != (1, dims.N):
            return f"its bias load is not a full [1, {dims.N}] window (physical {list(tile.shape)}, valid {list(tile.valid)})"
        if self._use_count(load_name) != 1:
            return "its bias load has uses besides the matmul"
        at = next((k for k, stmt in enumerate(block[:index]) if stmt is load), None)
        if at is None:
            return "its bias is loaded outside the matmul's block"
        between = [stmt for stmt in block[at + 1:index] if stmt is not move]
        if not all(_is_load(stmt) for stmt in between):
            return "an effect sits between its bias load and the matmul (only sibling loads may)"
        return _BiasWindows(load, move if isinstance(move, S.AssignStmt) else None, load.value)

    def _biased_mn_tile(self, matmul: _Matmul, choice: L0Choice, windows: _BiasWindows,
                        block: tuple[S.Stmt, ...], index: int, store_at: int) -> tuple[int, list[L.Stmt]]:
        """The [M, N] biased Acc overflows L0C (or N the Bias table): [m, n] sub-tiles, each a
        head-peeled biased K reduction over its own [1, n] bias window (a tensor → Mat load and a
        Mat → Bias move), stored straight to the output. The full bias load is dropped."""
        store = block[store_at]
        assert isinstance(store, S.AssignStmt) and isinstance(store.value, S.Call)
        out: list[L.Stmt] = []
        for between in block[index + 1:store_at]:
            new = self.visit_Stmt(between)
            out.extend(new if isinstance(new, tuple) else (new,))
        self._retract_bias(windows)
        out.extend(self._grid(matmul, choice, store, store.value, self._bias_window_reduce(matmul, choice, windows)))
        return store_at + 1 - index, out

    def _retract_bias(self, windows: _BiasWindows) -> None:
        """The full bias load (and its Mat → Bias move) the per-N windows replace is dropped."""
        if windows.load is not None:
            self._retract.add(windows.load.target.name)
        if windows.move is not None:
            self._retract.add(windows.move.target.name)

    def _bias_window_reduce(self, matmul: _Matmul, choice: L0Choice, windows: _BiasWindows) -> _TileReduction:
        """Each output tile's head-peeled biased K reduction over its own [1, n] bias window."""
        span = matmul.span
        blocks = KBlocks(matmul.dims.K, choice.k)

        def reduce(out: list[L.Stmt], tile: SubTile, name: str) -> L.Var:
            bias = matmul.bias
            if windows.call is not None:
                window = self.visit_Expr(self._narrow_load(windows.call, 1, tile.col, tile.cols, tile.cols))
                assert isinstance(window, L.Call)
                bias = self._assign(out, f"{name}_bias_mat", window, span)
            assert bias is not None
            return self._biased_k_reduction(out, replace(matmul, bias=bias), matmul.lhs, tile, blocks,
                                            self._fresh(name))

        return reduce


    # -- canonical split-K chains --------------------------------------------------------------------

    def _split_k_grids(self, block: tuple[S.Stmt, ...]) -> dict[int, _SplitKGrid]:
        """The canonical split-K chains of `block` whose full-output Acc overflows L0C, keyed by
        the K loop's index. An oversized chain that cannot be retiled leaves its reason with its
        matmuls, which then report it (PH-AT-006) at the user's line."""
        grids: dict[int, _SplitKGrid] = {}
        if not self._cube:
            return grids
        for index, stmt in enumerate(block):
            if not isinstance(stmt, S.ForStmt):
                continue
            found = self._match_split_k(block, index, stmt)
            if isinstance(found, _SplitKGrid):
                grids[index] = found
            elif found is not None:
                for node in walk(stmt):
                    if isinstance(node, S.AssignStmt) and isinstance(node.value, S.Call) \
                            and REGISTRY.is_cube_matmul(node.value.op):
                        self._chain_refusals[node.target.name] = found
        return grids

    def _match_split_k(self, block: tuple[S.Stmt, ...], index: int,
                       loop: S.ForStmt) -> _SplitKGrid | _Refusal | None:
        """None when `loop` does not carry an oversized full-output seed (the ordinary path
        decides); otherwise the grid, or why the chain is not canonical."""
        seeds = self._full_output_seed(block, index, loop)
        if seeds is None:
            return None
        chain = self._split_k_chain(block, index, loop, seeds)
        if isinstance(chain, _Refusal):
            return chain
        return self._plan_split_k(chain)

    def _full_output_seed(self, block: tuple[S.Stmt, ...], index: int,
                          loop: S.ForStmt) -> tuple[int, ...] | None:
        """Block indices of the loop's only iter-arg init — a single-use Acc `tile.create`,
        possibly narrowed by `tile.set_validshape` — when that Acc does not fit L0C."""
        if len(loop.iter_args) != 1 or len(loop.results) != 1:
            return None
        init = loop.iter_args[0].init
        acc = init.type if isinstance(init, S.Var) else None
        if not (isinstance(init, S.Var) and isinstance(acc, TileType) and len(acc.shape) == 2
                and acc.memory_space is MemorySpace.Acc):
            return None
        if l0_footprint_bytes(acc, self.backend) <= self.backend.capacity(MemorySpace.Acc):
            return None
        defined = {s.target.name: i for i, s in enumerate(block[:index]) if isinstance(s, S.AssignStmt)}
        chain: list[int] = []
        name = init.name
        while name in defined and self._use_count(name) == 1:
            at = defined[name]
            value = cast(S.AssignStmt, block[at]).value
            if not isinstance(value, S.Call):
                return None
            chain.insert(0, at)
            if value.op == "tile.create":
                return tuple(chain)
            if value.op != "tile.set_validshape" or not isinstance(value.args[0], S.Var):
                return None
            name = value.args[0].name
        return None

    def _split_k_chain(self, block: tuple[S.Stmt, ...], index: int, loop: S.ForStmt,
                       seeds: tuple[int, ...]) -> _SplitKChain | _Refusal:
        if loop.kind not in ORDERED_LOOP_KINDS:
            return _Refusal(f"its K loop is a pl.{loop.kind} loop, not one ordered reduction", _CHAIN_HINT)
        store = block[index + 1] if index + 1 < len(block) else None
        if not (isinstance(store, S.AssignStmt) and self._is_output_store(store, loop.results[0].name)):
            return _Refusal("the K loop's result is not consumed by exactly one 2-D tile.store right "
                            "after the loop", _CHAIN_HINT)
        body = self._split_k_body(loop)
        if isinstance(body, _Refusal):
            return body
        create = cast(S.AssignStmt, block[seeds[0]])
        acc = cast(TileType, loop.iter_args[0].var.type)
        lhs, rhs = body.lhs.tile, body.rhs.tile
        if any(is_sub_byte(t.dtype) for t in (lhs, rhs, acc)):
            return _Refusal("the cube path has no sub-byte operand formats", _CHAIN_HINT)
        covers = (lhs.shape[0], lhs.valid[0], rhs.shape[1], rhs.valid[1]) == (
            acc.shape[0], acc.valid[0], acc.shape[1], acc.valid[1])
        if not covers or lhs.valid[1] != lhs.shape[1] or rhs.valid[0] != rhs.shape[0]:
            return _Refusal("the operand loads do not cover the full [M, K] / [K, N] panels of the "
                            "accumulator", _CHAIN_HINT)
        return _SplitKChain(seeds=seeds, create=create, loop=loop, loop_index=index,
                            store=store, body=body, dims=MatmulDims.of(lhs, rhs, acc.dtype))

    def _is_output_store(self, store: S.AssignStmt, result: str) -> bool:
        call = store.value
        if not (isinstance(call, S.Call) and call.op == "tile.store" and call.args
                and isinstance(call.args[0], S.Var) and call.args[0].name == result):
            return False
        offsets = _offsets_arg(call)
        return (self._use_count(result) == 1 and attr(call.attrs, "window", None) is None
                and offsets is not None and len(offsets[1].elements) == 2)

    def _split_k_body(self, loop: S.ForStmt) -> _SplitKBody | _Refusal:
        """The loop body's scalar address math, its two panel loads and its one accumulation."""
        if not loop.body or not isinstance(loop.body[-1], S.YieldStmt):
            return _Refusal("the K loop does not end by yielding its accumulator", _CHAIN_HINT)
        scalars: dict[str, S.Expr] = {}
        loads: dict[str, S.AssignStmt] = {}
        reductions: list[S.Stmt] = []
        for stmt in loop.body[:-1]:
            if isinstance(stmt, S.AssignStmt) and _is_scalar_math(stmt):
                scalars[stmt.target.name] = stmt.value
            elif isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call) and stmt.value.op == "tile.load":
                loads[stmt.target.name] = stmt
            elif _matmul_calls(stmt):
                reductions.append(stmt)
            else:
                return _Refusal(f"its K loop also computes {_describe(stmt)}; only scalar address math, "
                                "the two operand loads and the accumulation can be cloned per output "
                                "window", _CHAIN_HINT)
        if len(reductions) != 1:
            return _Refusal(f"its K loop holds {len(reductions)} matmuls instead of one accumulation",
                            _CHAIN_HINT)
        reduction = _reduction_of(reductions[0], loop.iter_args[0].var.name)
        if isinstance(reduction, _Refusal):
            return reduction
        if not _yields(loop.body[-1], reduction.result):
            return _Refusal("the K loop does not yield its accumulation", _CHAIN_HINT)
        if not _first_step_test(reduction.cond, loop, scalars):
            return _Refusal(
                f"the accumulation's init_cond `{format_expr(reduction.cond)}` is not a split-K seed test "
                f"on the K loop's own variable `{loop.loop_var.name}` (`{loop.loop_var.name} == "
                f"{format_expr(loop.start)}`), so nothing proves the full-output seed is overwritten",
                f"predicate the accumulation on the loop's first step, e.g. init_cond={loop.loop_var.name} == "
                f"{format_expr(loop.start)} (a flag or another loop's variable is not evidence), or compute "
                "the output in blocks in the kernel")
        return self._body_panels(loop, scalars, loads, reduction)

    def _body_panels(self, loop: S.ForStmt, scalars: dict[str, S.Expr], loads: dict[str, S.AssignStmt],
                     reduction: _Reduction) -> _SplitKBody | _Refusal:
        uses = len(reduction.matmuls)
        carried = loop.iter_args[0].var.name
        if reduction.lhs == reduction.rhs or set(loads) != {reduction.lhs, reduction.rhs}:
            return _Refusal("the matmul operands are not two distinct per-iteration loads in the K loop",
                            _CHAIN_HINT)
        if self._use_count(carried) != 1 or any(self._use_count(n) != uses for n in loads):
            return _Refusal("the accumulator or an operand load is read outside the accumulation",
                            _CHAIN_HINT)
        local = {s.target.name for s in loop.body if isinstance(s, S.AssignStmt)} | {loop.loop_var.name}
        for name in (reduction.lhs, reduction.rhs):
            problem = _panel_problem(loads[name], local)
            if problem is not None:
                return _Refusal(f"the operand load `{name}` {problem}", _CHAIN_HINT)
        return _SplitKBody(lhs=_Panel(loads[reduction.lhs]), rhs=_Panel(loads[reduction.rhs]),
                           reduction=reduction)

    def _plan_split_k(self, chain: _SplitKChain) -> _SplitKGrid | _Refusal | None:
        lhs, rhs = chain.body.lhs.tile, chain.body.rhs.tile
        lhs_box = assembler_checked_box(lhs.view, lhs.dtype) if lhs.view is not None else None
        rhs_box = assembler_checked_box(rhs.view, rhs.dtype) if rhs.view is not None else None
        boxes = PanelBoxes(m=lhs_box[0] if lhs_box else 1, n=rhs_box[1] if rhs_box else 1)
        config = split_k_chooser_config(chain.dims, self.backend, boxes, self.gates)
        choice = choose_l0_tile(config)
        if choice is None:
            return _Refusal(f"ChooseL0Tile found no legal output tile ({explain_rejection(config)})", _CHAIN_HINT)
        if (choice.m, choice.n) == (chain.dims.M, chain.dims.N):
            return None  # the chooser's physical model fits the whole output: nothing to grid
        return _SplitKGrid(chain, choice, tuple(split_k_windows(chain.dims, choice.m, choice.n, boxes)))

    # -- split-K grid emission (TilePlaced statements, then converted like the user's) ----------

    def _emit_split_k_grid(self, grid: _SplitKGrid) -> list[L.Stmt]:
        """Per output window: a legal Acc seed, the user's K loop cloned with both loads narrowed
        to the window, and its store, the stores chained in SSA. The clones are then converted
        like user code, so the narrowed calls get the ordinary K tiling."""
        self.bump("split-k-grid")
        source: list[S.Stmt] = []
        store = grid.chain.store
        call = cast(S.Call, store.value)
        offsets = _offsets_arg(call)
        assert offsets is not None
        offsets_index, offsets_expr = offsets
        base_row, base_col = offsets_expr.elements
        tensor_index = next(i for i, a in enumerate(call.args) if isinstance(type_of(a), TensorType))
        previous: S.Expr = call.args[tensor_index]
        root = previous.name if isinstance(previous, S.Var) else "out"
        for window in grid.windows:
            tag = f"t{window.index}"
            seed = self._window_seed(source, grid.chain, window, tag)
            result = self._window_loop(source, grid, window, seed, tag)
            args = list(call.args)
            args[0] = result
            args[offsets_index] = S.TupleExpr(elements=(
                _s_offset(base_row, window.row), _s_offset(base_col, window.col)), span=offsets_expr.span)
            args[tensor_index] = previous
            stored = self._s_call(call.op, args, call.attrs, store.span)
            previous = S.Var(name=self._fresh(f"{root}_{tag}"), type=stored.type, span=store.target.span)
            source.append(S.AssignStmt(target=previous, value=stored, span=store.span))
            self.bump("split-k-windows")
        emitted = self.visit_Stmt_block(tuple(source))
        self._rename[store.target.name] = self.visit_Var(cast(S.Var, previous))
        return list(emitted)

    def _window_seed(self, out: list[S.Stmt], chain: _SplitKChain, window: SubTile, tag: str) -> S.Var:
        """The window's Acc: MAD writes L0C at the pitch of the Left operand's valid rows, so a
        row-narrowed seed is compact (matmul_acc inherits the seed's mode); a narrowed one
        carries the window's valid extent like the user's seed carried the output's."""
        create = cast(S.Call, chain.create.value)
        span = chain.create.span
        base = chain.loop.iter_args[0].init
        assert isinstance(base, S.Var)
        attrs = tuple((k, v) for k, v in create.attrs if k != "compact")
        attrs += (("compact", window.valid_rows != window.rows),)
        shape = S.TupleExpr(elements=(_s_index(window.rows), _s_index(window.cols)), span=span)
        value = self._s_call("tile.create", (shape,), attrs, span)
        if not window.narrowed:
            return self._s_assign(out, f"{base.name}_{tag}", value, span)
        storage = self._s_assign(out, f"{base.name}_{tag}_storage", value, span)
        narrowed = self._s_call("tile.set_validshape", (
            storage, _s_index(window.valid_rows), _s_index(window.valid_cols)), (), span)
        return self._s_assign(out, f"{base.name}_{tag}", narrowed, span)

    def _window_loop(self, out: list[S.Stmt], grid: _SplitKGrid, window: SubTile, seed: S.Var,
                     tag: str) -> S.Var:
        loop = grid.chain.loop
        body = grid.chain.body
        iv, carried = loop.loop_var, loop.iter_args[0].var
        clone = _WindowClone(tag=tag, grid_k=grid.choice.k, subst={}, narrowed={
            body.lhs.name: (0, window.row, window.rows, window.valid_rows),
            body.rhs.name: (1, window.col, window.cols, window.valid_cols)})
        clone.subst[iv.name] = S.Var(name=self._fresh(f"{iv.name}_{tag}"), type=iv.type, span=iv.span)
        clone.subst[carried.name] = S.Var(name=self._fresh(f"{carried.name}_{tag}"), type=seed.type,
                                          span=carried.span)
        stmts = tuple(self._clone_stmt(stmt, clone) for stmt in loop.body)
        last = stmts[-1]
        assert isinstance(last, S.YieldStmt)
        result_type = type_of(last.values[0])
        assert result_type is not None
        old = loop.results[0]
        result = S.Var(name=self._fresh(f"{old.name}_{tag}"), type=result_type, span=old.span)
        out.append(S.ForStmt(
            loop_var=clone.subst[iv.name], start=loop.start, stop=loop.stop, step=loop.step,
            iter_args=(S.IterArg(var=clone.subst[carried.name], init=seed, span=loop.iter_args[0].span),),
            body=stmts, results=(result,), kind=loop.kind, attrs=loop.attrs, span=loop.span))
        return result

    def _clone_stmt(self, stmt: S.Stmt, clone: _WindowClone) -> S.Stmt:
        if isinstance(stmt, S.AssignStmt):
            value = self._clone_expr(stmt.value, clone)
            window = clone.narrowed.get(stmt.target.name)
            if window is not None:
                value = self._narrow_load(cast(S.Call, value), *window)
            ty = type_of(value) or stmt.target.type
            target = S.Var(name=self._fresh(f"{stmt.target.name}_{clone.tag}"), type=ty, span=stmt.target.span)
            clone.subst[stmt.target.name] = target
            new = S.AssignStmt(target=target, value=value, span=stmt.span)
            self._defs[target.name] = new
            if isinstance(value, S.Call) and REGISTRY.is_cube_matmul(value.op):
                self._grid_k[target.name] = clone.grid_k
            return new
        if isinstance(stmt, S.IfStmt):
            cond = self._clone_expr(stmt.cond, clone)
            then_body = tuple(self._clone_stmt(s, clone) for s in stmt.then_body)
            else_body = tuple(self._clone_stmt(s, clone) for s in stmt.else_body)
            then_yield = then_body[-1]
            assert isinstance(then_yield, S.YieldStmt)
            results: list[S.Var] = []
            for old, value in zip(stmt.results, then_yield.values):
                var = S.Var(name=self._fresh(f"{old.name}_{clone.tag}"), type=type_of(value) or old.type,
                            span=old.span)
                clone.subst[old.name] = var
                results.append(var)
            return S.IfStmt(cond=cond, then_body=then_body, else_body=else_body, results=tuple(results),
                            span=stmt.span)
        assert isinstance(stmt, S.YieldStmt), "the split-K matcher admits no other statement"
        return S.YieldStmt(values=tuple(self._clone_expr(v, clone) for v in stmt.values), span=stmt.span)

    def _clone_expr(self, expr: S.Expr, clone: _WindowClone) -> S.Expr:
        if isinstance(expr, S.Var):
            return clone.subst.get(expr.name, expr)
        if isinstance(expr, S.Call):
            args = tuple(self._clone_expr(a, clone) for a in expr.args)
            return self._s_call(expr.op, args, expr.attrs, expr.span)
        if isinstance(expr, S.BinOp):
            return S.BinOp(op=expr.op, lhs=self._clone_expr(expr.lhs, clone), rhs=self._clone_expr(expr.rhs, clone),
                           type=expr.type, span=expr.span)
        if isinstance(expr, S.UnaryOp):
            return S.UnaryOp(op=expr.op, operand=self._clone_expr(expr.operand, clone), type=expr.type,
                             span=expr.span)
        if isinstance(expr, S.TupleExpr):
            return S.TupleExpr(elements=tuple(self._clone_expr(e, clone) for e in expr.elements), span=expr.span)
        if isinstance(expr, S.TupleGetItem):
            return S.TupleGetItem(value=self._clone_expr(expr.value, clone), index=expr.index, type=expr.type,
                                  span=expr.span)
        return expr

    def _narrow_load(self, load: S.Call, axis: int, start: int, extent: int, valid: int) -> S.Call:
        """The panel load restricted to [start, start + valid) of `axis` (its physical extent
        `extent` is the valid one rounded up to the Mat box); the other axis is unchanged."""
        names = [d.name for d in REGISTRY.get(load.op).operands]
        offsets_at, shapes_at, valid_at = (names.index(n) for n in ("offsets", "shapes", "valid_shape"))
        offsets = cast(S.TupleExpr, load.args[offsets_at])
        physical = list(cast(TileType, load.type).shape)
        logical = list(cast(TileType, load.type).valid)
        new_offsets = list(offsets.elements)
        new_offsets[axis] = _s_offset(new_offsets[axis], start)
        physical[axis], logical[axis] = extent, valid
        args = list(load.args[:valid_at])
        args[offsets_at] = S.TupleExpr(elements=tuple(new_offsets), span=offsets.span)
        args[shapes_at] = S.TupleExpr(elements=tuple(_s_index(d) for d in physical), span=load.args[shapes_at].span)
        if logical != physical:
            args.append(S.TupleExpr(elements=tuple(_s_index(d) for d in logical), span=offsets.span))
        return self._s_call(load.op, args, load.attrs, load.span)

    def _s_call(self, op: str, args: Sequence[S.Expr], attrs: tuple[tuple[str, AttrValue], ...],
                span: Span) -> S.Call:
        ty = REGISTRY.deduce(op, args, attrs, placed=True)
        return S.Call(op=op, args=tuple(args), attrs=attrs, type=ty, span=span)

    def _s_assign(self, out: list[S.Stmt], base: str, value: S.Call, span: Span) -> S.Var:
        var = S.Var(name=self._fresh(base), type=value.type, span=span)
        out.append(S.AssignStmt(target=var, value=value, span=span))
        return var


# --------------------------------------------------------------------------- helpers


def _moves_to_vec(stmt: S.AssignStmt, name: str) -> bool:
    """Whether `stmt` moves the tile `name` to Vec."""
    call = stmt.value
    return (isinstance(call, S.Call) and call.op == "tile.move" and len(call.args) == 1
            and isinstance(call.args[0], S.Var) and call.args[0].name == name
            and isinstance(call.type, TileType) and call.type.memory_space is MemorySpace.Vec)


def _static_window(call: S.Call) -> tuple[int, int, int, int] | None:
    """(row, col, rows, cols) a static 2-D tile.slice reads (its valid extent, when it has one)."""
    shape, offsets = static_ints(call.args[1]), static_ints(call.args[2])
    valid = static_ints(call.args[3]) if len(call.args) > 3 else shape
    if shape is None or offsets is None or valid is None or len(shape) != 2 or len(offsets) != 2 or len(valid) != 2:
        return None
    return offsets[0], offsets[1], valid[0], valid[1]


def _part(source: tuple[int, int, int, int], tile: SubTile) -> tuple[int, int, int, int] | None:
    """The part of `source` (product coordinates) that output tile `tile` computes, or None."""
    row, col = max(source[0], tile.row), max(source[1], tile.col)
    end_row = min(source[0] + source[2], tile.row + tile.valid_rows)
    end_col = min(source[1] + source[3], tile.col + tile.valid_cols)
    if end_row <= row or end_col <= col:
        return None
    return row, col, end_row - row, end_col - col


def _overlapping_stores(consumers: list[_Consumer]) -> str | None:
    """Per output tile the grid stores every consumer's part in program order, so two stores
    into one tensor keep their order only where their GM windows are disjoint or each GM element
    they both write comes from one product element (so from one tile)."""
    stores = [c for c in consumers if c.stores]
    for i, first in enumerate(stores):
        for second in stores[i + 1:]:
            if first.chain != second.chain:
                continue
            a, b = (_offsets_arg(cast(S.Call, c.stmt.value)) for c in (first, second))
            assert a is not None and b is not None
            one, two = static_ints(a[1]), static_ints(b[1])
            if one is None or two is None:
                if format_expr(a[1]) == format_expr(b[1]) and first.source[:2] == second.source[:2]:
                    continue
            else:
                if (first.source[0] - one[0], first.source[1] - one[1]) == \
                        (second.source[0] - two[0], second.source[1] - two[1]):
                    continue
                if not all(one[d] + first.source[2 + d] > two[d] and two[d] + second.source[2 + d] > one[d]
                           for d in (0, 1)):
                    continue
            return (f"its result is stored twice into `{first.chain}` (`{first.stmt.target.name}` at line "
                    f"{first.stmt.span.line} and `{second.stmt.target.name}` at line {second.stmt.span.line}) at "
                    "GM windows that may overlap from different product elements")
    return None


# How a diagnostic names a statement that is not an assignment.
_STMT_KINDS = {"ForStmt": "a loop", "WhileStmt": "a while loop", "IfStmt": "a branch", "ReturnStmt": "the return",
               "YieldStmt": "a yield", "EvalStmt": "a call"}


def _is_load(stmt: S.Stmt) -> bool:
    return isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call) and stmt.value.op == "tile.load"


def _offsets_arg(call: S.Call) -> tuple[int, S.TupleExpr] | None:
    for index, arg in enumerate(call.args):
        if isinstance(arg, S.TupleExpr):
            return index, arg
    return None


def _offset(base: L.Expr, delta: int, span: Span) -> L.Expr:
    if delta == 0:
        return base
    if isinstance(base, L.ConstInt):
        return L.ConstInt(value=base.value + delta, dtype=base.dtype, span=span)
    return L.BinOp(op="+", lhs=base, rhs=L.ConstInt(value=delta, dtype=DataType.INDEX, span=span),
                   type=INDEX, span=span)


def _root(expr: L.Expr) -> str:
    return expr.name if isinstance(expr, L.Var) else "out"


# --------------------------------------------------------------------------- split-K chain shapes

# Loops whose iterations run in order, so "the first iteration" is the one at `start`.
ORDERED_LOOP_KINDS = frozenset({"range", "pipeline"})

_CHAIN_HINT = (
    "keep the canonical split-K shape so AutoTileMatmulL0 can tile the output — the accumulator "
    "created right before one pl.range / pl.pipeline K loop whose body only slices the two operands "
    "(with index arithmetic) and accumulates with pl.matmul_acc(acc, a_k, b_k, init_cond=k == 0), "
    "its result stored or returned once — or compute the output in blocks in the kernel")


@dataclass(frozen=True)
class _Refusal:
    """Why an oversized split-K chain is not retiled, and how the user can fix it."""

    reason: str
    hint: str


@dataclass(frozen=True)
class _Panel:
    """A per-iteration GM → Mat operand load of a split-K body."""

    stmt: S.AssignStmt

    @property
    def name(self) -> str:
        return self.stmt.target.name

    @property
    def tile(self) -> TileType:
        return cast(TileType, self.stmt.target.type)


@dataclass(frozen=True)
class _Reduction:
    """The accumulation: one predicated matmul_acc, or the peeled if (matmul / matmul_acc)."""

    stmt: S.Stmt
    matmuls: tuple[S.AssignStmt, ...]
    cond: S.Expr
    lhs: str
    rhs: str
    result: str


@dataclass(frozen=True)
class _SplitKBody:
    lhs: _Panel
    rhs: _Panel
    reduction: _Reduction


@dataclass(frozen=True)
class _SplitKChain:
    """create [, set_validshape] → K loop → store, all in one block."""

    seeds: tuple[int, ...]
    create: S.AssignStmt
    loop: S.ForStmt
    loop_index: int
    store: S.AssignStmt
    body: _SplitKBody
    dims: MatmulDims

    @property
    def absorbed(self) -> tuple[int, ...]:
        """Block statements the grid replaces besides the loop: the seed and the store."""
        return (*self.seeds, self.loop_index + 1)


@dataclass(frozen=True)
class _SplitKGrid:
    chain: _SplitKChain
    choice: L0Choice
    windows: tuple[SubTile, ...]


@dataclass
class _WindowClone:
    """State of one clone of the K loop: renamed values and the loads to narrow
    (name → (axis, start, physical extent, valid extent))."""

    tag: str
    grid_k: int
    subst: dict[str, S.Var]
    narrowed: dict[str, tuple[int, int, int, int]]


def _is_scalar_math(stmt: S.AssignStmt) -> bool:
    return isinstance(stmt.target.type, ScalarType) and not any(
        isinstance(n, (S.Call, S.FuncCall)) for n in walk(stmt.value))


def _matmul_calls(stmt: S.Stmt) -> list[S.AssignStmt]:
    return [n for n in walk(stmt) if isinstance(n, S.AssignStmt) and isinstance(n.value, S.Call)
            and REGISTRY.is_cube_matmul(n.value.op)]


def _describe(stmt: S.Stmt) -> str:
    if isinstance(stmt, S.AssignStmt):
        value = stmt.value
        what = value.op if isinstance(value, S.Call) else format_expr(value)
        return f"`{stmt.target.name} = {what}`"
    return f"a {stmt.KIND}"


def _yields(stmt: S.Stmt, name: str) -> bool:
    return (isinstance(stmt, S.YieldStmt) and len(stmt.values) == 1 and isinstance(stmt.values[0], S.Var)
            and stmt.values[0].name == name)


def _matmul_operands(stmt: S.Stmt, accumulates: bool) -> tuple[S.AssignStmt, _Roles, str, str] | None:
    """(statement, roles, lhs, rhs) of a plain (or, with `accumulates`, accumulating) cube matmul
    assignment whose matrix operands are variables."""
    if not (isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, S.Call) and REGISTRY.is_cube_matmul(stmt.value.op)):
        return None
    call = stmt.value
    roles = _Roles.of(call.op, len(call.args))
    if roles is None or roles.bias is not None or (roles.acc is not None) != accumulates:
        return None
    lhs, rhs = call.args[roles.lhs], call.args[roles.rhs]
    if not (isinstance(lhs, S.Var) and isinstance(rhs, S.Var)):
        return None
    return stmt, roles, lhs.name, rhs.name


def _accumulates_into(stmt: S.AssignStmt, roles: _Roles, carried: str) -> bool:
    assert roles.acc is not None
    acc = cast(S.Call, stmt.value).args[roles.acc]
    return isinstance(acc, S.Var) and acc.name == carried


def _reduction_of(stmt: S.Stmt, carried: str) -> _Reduction | _Refusal:
    """The predicated spelling `acc' = matmul_acc(acc, a, b, init_cond)`, or the peeled one
    `if c: acc' = matmul(a, b) else: acc' = matmul_acc(acc, a, b)` merged at the if's phi."""
    predicated = _matmul_operands(stmt, accumulates=True)
    if predicated is not None:
        assign, roles, lhs, rhs = predicated
        if not _accumulates_into(assign, roles, carried):
            return _Refusal("its matmul_acc does not accumulate into the loop-carried seed", _CHAIN_HINT)
        if roles.init_cond is None:
            return _Refusal(f"the accumulation `{assign.target.name}` has no init_cond, so the first K step "
                            "would add to the uninitialised full-output seed", _CHAIN_HINT)
        cond = cast(S.Call, assign.value).args[roles.init_cond]
        return _Reduction(stmt, (assign,), cond, lhs, rhs, assign.target.name)
    if isinstance(stmt, S.IfStmt) and len(stmt.results) == 1 and len(stmt.then_body) == 2 \
            and len(stmt.else_body) == 2:
        first = _matmul_operands(stmt.then_body[0], accumulates=False)
        later = _matmul_operands(stmt.else_body[0], accumulates=True)
        if first is not None and later is not None and first[2:] == later[2:] \
                and later[1].init_cond is None and _accumulates_into(later[0], later[1], carried) \
                and _yields(stmt.then_body[1], first[0].target.name) \
                and _yields(stmt.else_body[1], later[0].target.name):
            return _Reduction(stmt, (first[0], later[0]), stmt.cond, first[2], first[3], stmt.results[0].name)
    return _Refusal("its K loop's accumulation is neither one predicated pl.matmul_acc nor an if with "
                    "pl.matmul on the first K block and pl.matmul_acc after it", _CHAIN_HINT)


def _first_step_test(cond: S.Expr, loop: S.ForStmt, scalars: dict[str, S.Expr]) -> bool:
    """Whether `cond` holds exactly on the loop's first iteration: `iv == start`, or `x == start·c`
    for a body-local `x = iv * c` (c ≠ 0). Only that proves the accumulation overwrites the
    seed on the first K step, so each window's fresh seed may start uninitialised too."""
    if not (isinstance(cond, S.BinOp) and cond.op == "==" and isinstance(loop.start, S.ConstInt)):
        return False
    for probe, value in ((cond.lhs, cond.rhs), (cond.rhs, cond.lhs)):
        scale = _induction_scale(probe, loop.loop_var.name, scalars)
        if scale is not None and isinstance(value, S.ConstInt) and value.value == loop.start.value * scale:
            return True
    return False


def _induction_scale(expr: S.Expr, induction: str, scalars: dict[str, S.Expr]) -> int | None:
    if not isinstance(expr, S.Var):
        return None
    if expr.name == induction:
        return 1
    value = scalars.get(expr.name)
    if not (isinstance(value, S.BinOp) and value.op == "*"):
        return None
    for var, scale in ((value.lhs, value.rhs), (value.rhs, value.lhs)):
        if isinstance(var, S.Var) and var.name == induction and isinstance(scale, S.ConstInt) and scale.value:
            return scale.value
    return None


def _panel_problem(stmt: S.AssignStmt, loop_local: set[str]) -> str | None:
    """Why a body load is not a direct GM → Mat panel load that a window can narrow."""
    call = cast(S.Call, stmt.value)
    source = call.args[0]
    tile = stmt.target.type
    if not (isinstance(source, S.Var) and isinstance(source.type, TensorType)) or source.name in loop_local:
        return "does not read a tensor defined outside the K loop"
    if not (isinstance(tile, TileType) and tile.memory_space is MemorySpace.Mat and len(tile.shape) == 2):
        return "is not a 2-D load into Mat"
    if attr(call.attrs, "packed", False):
        return "packs an N-D window"
    offsets = _offsets_arg(call)
    if offsets is None or len(offsets[1].elements) != 2:
        return "has no 2-D offset list"
    return None


def _s_index(value: int) -> S.ConstInt:
    return S.ConstInt(value=value, dtype=DataType.INDEX)


def _s_offset(base: S.Expr, delta: int) -> S.Expr:
    if delta == 0:
        return base
    if isinstance(base, S.ConstInt):
        return S.ConstInt(value=base.value + delta, dtype=base.dtype, span=base.span)
    return S.BinOp(op="+", lhs=base, rhs=_s_index(delta), type=INDEX, span=base.node_span)
