"""InferTileMemorySpace (TileUnplaced → TilePlaced): every tile gets a memory space and the
implicit view of that space; `tile.move` hops are inserted where an operand sits elsewhere than
its operator reads it from.

Every space comes from the op registry: an op's output rule (Fixed / FromAttr("target_memory") /
InheritInput / ReusesInput) and its consumers' operand constraints (`input_memory`). Values that
must share one buffer — an op result and the input it inherits or reuses, a loop's init /
iter-arg / yielded value / result, an if's phis — are placed together. A group with a fixed
space takes it (an explicit `target_memory` is never overridden); otherwise the first consumer
demand wins (staged for loads: MTE2 fills only Vec and Mat); a tile nobody constrains lands in
Vec, the vector unit's buffer.

Placement runs before L0 tiling here (ARCHITECTURE.md §2): a matmul-family operand constrained
to Left / Right stays in Mat, and AutoTileMatmulL0 performs the Mat → Left / Right hop.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar, Sequence

from typing_extensions import override

import languages.gen.tile_placed as P
import languages.gen.tile_unplaced as U
from backend.targets.handlers import BackendHandler
from languages.decls import TilePlaced, TileUnplaced
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, FromAttr, InheritInput, OpDef, ReusesInput, Fixed, static_ints, staging_space_for_load
from languages.ops.tile_ops import CROSS_CORE_TRANSFERS
from languages.types import Attrs, DataType, TileType, Type, attr, with_attr
from languages.layout import assembler_checked_box, is_row_major_linear, l0_footprint_bytes
from languages.views import flat_reshape_gap, implicit_view, reshape_into_boxes_gap
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import backend_handler
from passes.analysis.sliced_products import sliced_for_stores, tile_over_capacity

# Operand constraints that a matmul-family op may still see satisfied by Mat in TilePlaced: the
# L0A / L0B hop is L0 tiling's job, because only it knows the L0-sized blocks to extract.
_L0_OPERAND_SPACES = frozenset({MemorySpace.Left, MemorySpace.Right})
_MATMUL_FAMILY = "matmul"


def deferred_to_l0_tiling(opdef: OpDef, space: MemorySpace | None) -> bool:
    """Whether a Mat operand satisfies `opdef`'s `space` constraint until AutoTileMatmulL0."""
    return opdef.family == _MATMUL_FAMILY and space in _L0_OPERAND_SPACES


def placement_demand(opdef: OpDef, index: int) -> MemorySpace | None:
    """The space operand `index` of `opdef` asks its producer for during placement."""
    decl = opdef.operand_decl(index)
    if deferred_to_l0_tiling(opdef, decl.input_memory):
        return MemorySpace.Mat
    return decl.input_memory


def _has_operand(opdef: OpDef, index: int) -> bool:
    return index < len(opdef.operands) or bool(opdef.operands) and opdef.operands[-1].variadic


def _op(call: U.Call | P.Call) -> OpDef:
    try:
        return REGISTRY.get(call.op)
    except KeyError as err:
        raise CompileError(Diagnostic.at(call, "InferTileMemorySpace", str(err.args[0]))) from None


def _is_tile_var(node: Node) -> bool:
    return node.KIND == "Var" and isinstance(getattr(node, "type"), TileType)


def _name(node: Node) -> str:
    return str(getattr(node, "name"))


def _last_yield(body: Sequence[Node]) -> Sequence[Node]:
    if body and body[-1].KIND == "YieldStmt":
        return tuple(getattr(body[-1], "values"))
    return ()


@dataclass
class _Group:
    fixed: list[MemorySpace] = field(default_factory=list)
    demands: list[MemorySpace] = field(default_factory=list)
    loaded: bool = False  # a tile.load-like producer: lands only where MTE2 can write
    # Shapes a zero-copy reshape in this group reads the same bytes as: the group may only live
    # where every one of them keeps its elements in row-major order (languages.layout).
    reshaped: list[tuple[tuple[int, ...], DataType]] = field(default_factory=list)
    # Variables whose space this group takes when nothing of its own decides it: a loop's init
    # and its iter-arg follow each other (a hop at the loop's entry joins them when each has a
    # space of its own, e.g. a Vec recurrence seeded by a matmul's Acc result).
    partners: list[str] = field(default_factory=list)

    def admits(self, space: MemorySpace) -> bool:
        return all(is_row_major_linear(implicit_view(space, shape), shape, dtype) for shape, dtype in self.reshaped)


class _Plan:
    """Union-find over tile variable names with the space constraints of each group."""

    def __init__(self, detached: dict[str, MemorySpace] | None = None) -> None:
        self.parent: dict[str, str] = {}
        self.groups: dict[str, _Group] = {}
        # Loop carries (iter-arg names) that live where their seed does instead of sharing the
        # yielded value's buffer: see _plan_function.
        self.detached: dict[str, MemorySpace] = dict(detached or {})

    def find(self, name: str) -> str:
        self.parent.setdefault(name, name)
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def group(self, name: str) -> _Group:
        return self.groups.setdefault(self.find(name), _Group())

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        ga, gb = self.group(ra), self.group(rb)
        self.parent[rb] = ra
        ga.fixed.extend(gb.fixed)
        ga.demands.extend(gb.demands)
        ga.loaded = ga.loaded or gb.loaded
        ga.reshaped.extend(gb.reshaped)
        ga.partners.extend(gb.partners)
        self.groups.pop(rb, None)

    def space(self, name: str) -> MemorySpace:
        return self._decided(name, set()) or MemorySpace.Vec

    def _decided(self, name: str, visiting: set[str]) -> MemorySpace | None:
        root = self.find(name)
        visiting.add(root)
        group = self.group(root)
        if group.fixed:
            return group.fixed[0]
        own = self._demanded(group)
        if own is not None:
            return own
        for partner in group.partners:
            if self.find(partner) in visiting:
                continue
            space = self._decided(partner, visiting)
            if space is None:
                continue
            if group.loaded:
                try:
                    space = staging_space_for_load(space)
                except ValueError:
                    continue
            if group.admits(space):
                return space
        return None

    def _demanded(self, group: _Group) -> MemorySpace | None:
        for demand in group.demands:
            if not group.loaded:
                space = demand
            else:
                try:
                    space = staging_space_for_load(demand)
                except ValueError:
                    continue
            # A reshaped group demanded in a boxed space stays flat: its consumer gets a hop.
            if group.admits(space):
                return space
        return None


def _collect(plan: _Plan, body: Sequence[Node]) -> None:
    for stmt in body:
        kind = stmt.KIND
        if kind == "AssignStmt":
            _collect_assign(plan, getattr(stmt, "target"), getattr(stmt, "value"))
        elif kind == "EvalStmt" and getattr(stmt, "value").KIND == "Call":
            _collect_demands(plan, getattr(stmt, "value"))
        elif kind == "ForStmt":
            yielded = _last_yield(getattr(stmt, "body"))
            for k, iter_arg in enumerate(getattr(stmt, "iter_args")):
                if not _is_tile_var(iter_arg.var):
                    continue
                plan.group(_name(iter_arg.var))
                seed_space = plan.detached.get(_name(iter_arg.var))
                if seed_space is not None:
                    # The carry lives where its seed does; the yielded value hops into it.
                    plan.group(_name(iter_arg.var)).fixed.append(seed_space)
                    for result in getattr(stmt, "results")[k:k + 1]:
                        if _is_tile_var(result):
                            plan.union(_name(iter_arg.var), _name(result))
                    continue
                for partner in (*yielded[k:k + 1], *getattr(stmt, "results")[k:k + 1]):
                    if _is_tile_var(partner):
                        plan.union(_name(iter_arg.var), _name(partner))
                if _is_tile_var(iter_arg.init):
                    plan.group(_name(iter_arg.var)).partners.append(_name(iter_arg.init))
                    plan.group(_name(iter_arg.init)).partners.append(_name(iter_arg.var))
            _collect(plan, getattr(stmt, "body"))
        elif kind == "IfStmt":
            then_vals = _last_yield(getattr(stmt, "then_body"))
            else_vals = _last_yield(getattr(stmt, "else_body"))
            for k, result in enumerate(getattr(stmt, "results")):
                if not _is_tile_var(result):
                    continue
                plan.group(_name(result))
                # A phi and its branch values follow each other; a branch whose value lives
                # elsewhere (a matmul's Acc result against a Vec recurrence) gets a hop before
                # its yield.
                for partner in (*then_vals[k:k + 1], *else_vals[k:k + 1]):
                    if _is_tile_var(partner):
                        plan.group(_name(result)).partners.append(_name(partner))
                        plan.group(_name(partner)).partners.append(_name(result))
            _collect(plan, getattr(stmt, "then_body"))
            _collect(plan, getattr(stmt, "else_body"))


def _plan_function(body: Sequence[Node], backend: BackendHandler) -> _Plan:
    """The placement plan of a function body. A loop carry shares one buffer with its
    iter-arg, its yielded value and its result; but when that buffer's space cannot be reached
    from the space its seed (init_values) lives in -- a carry whose body yields a matmul
    product (Acc) seeded by a vector value (Vec), or by a carry of an outer loop that lives in
    Vec, while no data path writes Acc but the cube's mad -- the carry is detached: it lives
    where its seed does, and the yielded value hops into it at the loop's yield (Acc -> Vec: a
    move, or the cube-to-vector FIFO on Ascend910B), as an if's phi does. Detaching one carry
    may leave a nested loop's seed elsewhere than its carry, so the plan is rebuilt until every
    seed reaches its carry. The detached carry lives in the seed's space when its uses can be
    served from there, else in the first of Vec / Mat that the seed (a loaded one is re-loaded),
    the yielded value and every use reach: a seed loaded into Mat whose carry is stored lives in
    Vec (a Mat tile is never stored)."""
    producers = {_name(getattr(n, "target")): getattr(n, "value") for n in _walk_all(body)
                 if n.KIND == "AssignStmt" and getattr(n, "value").KIND == "Call"}
    detached: dict[str, MemorySpace] = {}
    while True:
        plan = _Plan(detached)
        _collect(plan, body)
        found: dict[str, MemorySpace] = {}
        for loop in _walk_all(body):
            if loop.KIND != "ForStmt":
                continue
            results = getattr(loop, "results")
            for k, iter_arg in enumerate(getattr(loop, "iter_args")):
                var, init = iter_arg.var, iter_arg.init
                if not (_is_tile_var(var) and _is_tile_var(init)) or _name(var) in detached:
                    continue
                want, have = plan.space(_name(var)), plan.space(_name(init))
                seed = producers.get(_name(init))
                if _reaches(backend, have, want, seed):
                    continue
                names = {_name(var), *(_name(r) for r in results[k:k + 1] if _is_tile_var(r))}
                uses = _uses_of(body, names)
                found[_name(var)] = next(
                    (space for space in (have, MemorySpace.Vec, MemorySpace.Mat)
                     if _reaches(backend, have, space, seed) and _reaches(backend, want, space, None)
                     and all(_serves(backend, space, opdef, index) for opdef, index in uses)), have)
        if not found:
            return plan
        detached.update(found)


def _uses_of(body: Sequence[Node], names: set[str]) -> list[tuple[OpDef, int]]:
    """The (operator, operand index) of every call reading one of the tile variables `names`."""
    out: list[tuple[OpDef, int]] = []
    for node in _walk_all(body):
        if node.KIND != "Call":
            continue
        opdef = _op(node)  # type: ignore[arg-type]
        for index, arg in enumerate(getattr(node, "args")):
            if _is_tile_var(arg) and _name(arg) in names and _has_operand(opdef, index):
                out.append((opdef, index))
    return out


def _serves(backend: BackendHandler, space: MemorySpace, opdef: OpDef, index: int) -> bool:
    """Whether a tile in `space` can be operand `index` of `opdef`, as it is or after the hop
    _Placer makes (to the operand's demanded space, else its first legal one)."""
    decl = opdef.operand_decl(index)
    legal = decl.legal_spaces
    if not legal or space in legal or (space is MemorySpace.Mat and deferred_to_l0_tiling(opdef, decl.input_memory)):
        return True
    demand = placement_demand(opdef, index)
    return _reaches(backend, space, demand if demand is not None else legal[0], None)


def _reaches(backend: BackendHandler, source: MemorySpace, space: MemorySpace, producer: Node | None) -> bool:
    """Whether a value in `source` can be brought into `space` by the hops _Placer._hop makes
    (a move on a data path, a re-load of a loaded value, a cross-core transfer)."""
    if source is space or backend.can_move(source, space) or (source, space) in CROSS_CORE_TRANSFERS:
        return True
    loaded = producer is not None and producer.KIND == "Call" \
        and REGISTRY.get(str(getattr(producer, "op"))).semantics[:1] == ("load",)
    return loaded and backend.can_move(MemorySpace.DDR, space)


def _walk_all(body: Sequence[Node]) -> list[Node]:
    return [n for stmt in body for n in walk(stmt)]


def _collect_assign(plan: _Plan, target: Node, value: Node) -> None:
    if not _is_tile_var(target):
        if value.KIND == "Call":
            _collect_demands(plan, value)
        return
    name = _name(target)
    group = plan.group(name)
    declared = getattr(target, "type").memory_space
    if declared is not None:
        group.fixed.append(declared)
    if value.KIND == "Var" and _is_tile_var(value):
        plan.union(name, _name(value))
        return
    if value.KIND != "Call":
        return
    opdef = _op(value)  # type: ignore[arg-type]
    rule = opdef.output_memory
    args = getattr(value, "args")
    if isinstance(rule, Fixed):
        group.fixed.append(rule.space)
    elif isinstance(rule, FromAttr):
        explicit = attr(getattr(value, "attrs"), rule.name)
        if isinstance(explicit, MemorySpace):
            group.fixed.append(explicit)
        elif opdef.semantics[:1] == ("load",):
            group.loaded = True
    elif isinstance(rule, (InheritInput, ReusesInput)) and rule.index < len(args) and _is_tile_var(args[rule.index]):
        if _off_box_window(value):
            pass  # placed on its own: its source is hopped to where the window is (see _place_call)
        elif _transposes_an_accumulator(plan, value):
            pass  # placed on its own: its source is hopped to where the view is (see _place_call)
        elif REGISTRY.is_reshape(opdef.name) and _shape_of(args[rule.index]) != _shape_of(target):
            # Source and result need not share a group: the source is hopped into a space where
            # the reshape is a re-view when its own one is boxed (see _Placer._reshape_source).
            group.reshaped.extend(((_shape_of(args[rule.index]), _dtype_of(args[rule.index])),
                                   (_shape_of(target), _dtype_of(target))))
        else:
            plan.union(name, _name(args[rule.index]))
    _collect_demands(plan, value)


def _off_box_window(call: Node) -> bool:
    """A 2-D tile.slice window whose offsets or extent are not whole fractal boxes (16 rows by
    16 columns, or 32 bytes of columns where that is more). A boxed space (Acc, Mat's NZ) holds no
    such window as a view of its own (BoxedExtents), so it does not share its source's space: the
    source is moved to the window's space (Vec unless a consumer wants otherwise) first."""
    if call.KIND != "Call" or REGISTRY.get(str(getattr(call, "op"))).semantics[:1] != ("slice",):
        return False
    args = getattr(call, "args")
    ty = getattr(call, "type", None)
    offsets = static_ints(args[2]) if len(args) > 2 else None
    if not isinstance(ty, TileType) or len(ty.shape) != 2 or offsets is None or len(offsets) != 2:
        return False
    box = (16, max(16, 32 // max(1, ty.dtype.byte_width)))
    return any(v % b for v, b in zip((*ty.shape, *offsets), (*box, *box)))


def _transposes_an_accumulator(plan: _Plan, call: Node) -> bool:
    """A tile.transpose_view of a tile that lives in Acc (a matmul result, e.g. the right
    operand of a chained `matmul(c, c, b_trans=True)`). Acc keeps one layout, NZ in 16 x 16
    accumulator boxes (CubeTileLayouts), so it holds no transposed view of its own: the view
    does not share its source's space, and the source is moved to the view's space (Mat for a
    matmul operand) first, where the transposed view is the one a b_trans load's is."""
    if call.KIND != "Call" or REGISTRY.get(str(getattr(call, "op"))).semantics[:1] != ("transpose_view",):
        return False
    args = getattr(call, "args")
    return bool(args) and _is_tile_var(args[0]) and MemorySpace.Acc in plan.group(_name(args[0])).fixed


def _shape_of(node: Node) -> tuple[int, ...]:
    return tuple(getattr(node, "type").shape)


def _dtype_of(node: Node) -> DataType:
    dtype: DataType = getattr(node, "type").dtype
    return dtype



def _collect_demands(plan: _Plan, call: Node) -> None:
    opdef = _op(call)  # type: ignore[arg-type]
    for index, arg in enumerate(getattr(call, "args")):
        if not _is_tile_var(arg) or not _has_operand(opdef, index):
            continue
        demand = placement_demand(opdef, index)
        if demand is not None:
            plan.group(_name(arg)).demands.append(demand)


def placed_type(ty: TileType, space: MemorySpace) -> TileType:
    """`ty` in `space`, keeping a view the user stated for that space, else the implicit one."""
    if ty.memory_space is space and ty.view is not None:
        return replace(ty, memref=None)
    return replace(ty, memory_space=space, view=implicit_view(space, ty.shape), memref=None)


class _Placer(P.FromTileUnplaced):
    """Rewrites one program; per-function state is reset in visit_Function."""

    def __init__(self, backend: BackendHandler) -> None:
        super().__init__()
        self.backend = backend
        self.plan = _Plan()
        self.vars: dict[str, P.Var] = {}
        self.producers: dict[str, P.Call] = {}
        self.used_names: set[str] = set()
        # Cross-core hops visible at this point: (value, space) -> the popped copy.
        self.crossed: dict[tuple[str, MemorySpace], P.Var] = {}

    @override
    def visit_Stmt_block(self, body: tuple[U.Stmt, ...]) -> tuple[P.Stmt, ...]:
        # A hop made inside a nested block does not dominate the code after that block.
        outer = dict(self.crossed)
        try:
            return super().visit_Stmt_block(body)
        finally:
            self.crossed = outer

    # -- functions and variables ------------------------------------------------------------

    @override
    def visit_Function(self, node: U.Function) -> P.Function:
        self.plan = _plan_function(node.body, self.backend)
        self.vars, self.producers, self.crossed = {}, {}, {}
        self.used_names = {_name(n) for n in _all_vars(node)}
        return super().visit_Function(node)

    @override
    def visit_Var(self, node: U.Var) -> P.Var:
        known = self.vars.get(node.name)
        if known is not None:
            return known
        return self._define(node.name, self._planned_type(node.name, node.type), node)

    def _define(self, name: str, ty: Type, origin: Node) -> P.Var:
        var = P.Var(name=name, type=ty, span=origin.node_span)
        self.vars[name] = var
        return var

    def _planned_type(self, name: str, ty: Type) -> Type:
        if not isinstance(ty, TileType):
            return ty
        return placed_type(ty, self.plan.space(name))

    def _space(self, expr: P.Expr) -> MemorySpace | None:
        ty = getattr(expr, "type", None)
        return ty.memory_space if isinstance(ty, TileType) else None

    # -- statements ---------------------------------------------------------------------------

    @override
    def visit_AssignStmt(self, node: U.AssignStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        if not isinstance(node.value, U.Call):
            value = self.visit_Expr(node.value)
            ty = value.type if isinstance(value, P.Var) else self._planned_type(node.target.name, node.target.type)
            return P.AssignStmt(target=self._define(node.target.name, ty, node.target), value=value, span=node.span)
        assert isinstance(node.value, U.Call)
        hops, call = self._place_call(node.value, node.target.name)
        target = self._define(node.target.name, call.type if isinstance(call.type, TileType) else node.target.type,
                              node.target)
        self.producers[target.name] = call
        return (*hops, P.AssignStmt(target=target, value=call, span=node.span))

    @override
    def visit_EvalStmt(self, node: U.EvalStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        if not isinstance(node.value, U.Call):
            return super().visit_EvalStmt(node)
        hops, call = self._place_call(node.value, None)
        return (*hops, P.EvalStmt(value=call, span=node.span))

    @override
    def visit_IterArg(self, node: U.IterArg) -> P.IterArg:
        init = self.visit_Expr(node.init)
        ty: Type = node.var.type
        if isinstance(ty, TileType):
            init_ty = getattr(init, "type", None)
            planned = self.plan.space(node.var.name)
            ty = init_ty if isinstance(init_ty, TileType) and init_ty.memory_space is planned else placed_type(ty, planned)
        return P.IterArg(var=self._define(node.var.name, ty, node.var), init=init, span=node.span)

    def _entry_hops(self, node: U.ForStmt, iter_args: tuple[P.IterArg, ...]) -> tuple[list[P.Stmt], tuple[P.IterArg, ...]]:
        """Hop each init into its iter-arg's space where the two were placed apart (the loop
        body computes the carried value elsewhere than the seed was produced)."""
        hops: list[P.Stmt] = []
        joined: list[P.IterArg] = []
        for iter_arg in iter_args:
            want, have = iter_arg.var.type, getattr(iter_arg.init, "type", None)
            if isinstance(want, TileType) and isinstance(have, TileType) and isinstance(iter_arg.init, P.Var) \
                    and want.memory_space is not None and have.memory_space is not want.memory_space:
                hop, moved = self._hop(iter_arg.init, want.memory_space, node, "the loop's init_values")
                hops.extend(hop)
                iter_arg = P.IterArg(var=iter_arg.var, init=moved, span=iter_arg.span)
                self.bump("init-hops")
            joined.append(iter_arg)
        return hops, tuple(joined)

    @override
    def visit_ForStmt(self, node: U.ForStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        entry, iter_args = self._entry_hops(node, tuple(self.visit_IterArg(x) for x in node.iter_args))
        loop_var = self.visit_Var(node.loop_var)
        start, stop, step = (self.visit_Expr(e) for e in (node.start, node.stop, node.step))
        body = self.visit_Stmt_block(node.body)
        body = self._conform_yield(body, [a.var.type for a in iter_args])
        results = tuple(self._define(r.name, a.var.type, r) for r, a in zip(node.results, iter_args))
        return (*entry, P.ForStmt(loop_var=loop_var, start=start, stop=stop, step=step, iter_args=iter_args,
                                  body=body, results=results, kind=node.kind, attrs=node.attrs, span=node.span))

    @override
    def visit_IfStmt(self, node: U.IfStmt) -> P.Stmt | tuple[P.Stmt, ...]:
        cond = self.visit_Expr(node.cond)
        then_body = self.visit_Stmt_block(node.then_body)
        else_body = self.visit_Stmt_block(node.else_body)
        then_vals = _last_yield(then_body)
        # A phi keeps the then branch's type (its view) when that branch's value already lives
        # where the phi is planned; otherwise it takes the planned space's implicit view.
        types: list[Type] = []
        for k, result in enumerate(node.results):
            planned = self._planned_type(result.name, result.type)
            have = getattr(then_vals[k], "type", None) if k < len(then_vals) else None
            if isinstance(planned, TileType) and isinstance(have, TileType) and have.memory_space is planned.memory_space:
                planned = have
            types.append(planned)
        then_body = self._conform_yield(then_body, types)
        else_body = self._conform_yield(else_body, types)
        results = tuple(self._define(r.name, types[k], r) for k, r in enumerate(node.results))
        return P.IfStmt(cond=cond, then_body=then_body, else_body=else_body, results=results, span=node.span)

    def _conform_yield(self, body: tuple[P.Stmt, ...], expected: Sequence[Type]) -> tuple[P.Stmt, ...]:
        """Hop yielded tiles into the space their loop-carried / phi buffer lives in."""
        if not body or not isinstance(body[-1], P.YieldStmt):
            return body
        yield_stmt = body[-1]
        hops: list[P.Stmt] = []
        values: list[P.Expr] = []
        for value, want in zip(yield_stmt.values, expected):
            space = want.memory_space if isinstance(want, TileType) else None
            if space is None or self._space(value) in (None, space):
                values.append(value)
                continue
            assert isinstance(value, P.Var)
            hop, moved = self._hop(value, space, yield_stmt, "pl.yield_")
            hops.extend(hop)
            values.append(moved)
        values.extend(yield_stmt.values[len(values):])
        if not hops:
            return body
        return (*body[:-1], *hops, P.YieldStmt(values=tuple(values), span=yield_stmt.span))

    # -- calls ---------------------------------------------------------------------------------

    def _place_call(self, call: U.Call, target: str | None) -> tuple[tuple[P.Stmt, ...], P.Call]:
        opdef = _op(call)
        args = [self.visit_Expr(a) for a in call.args]
        hops: list[P.Stmt] = []
        if target is not None and args and isinstance(args[0], P.Var) and isinstance(call.type, TileType) \
                and isinstance(args[0].type, TileType) and REGISTRY.is_reshape(opdef.name) \
                and tuple(args[0].type.shape) != tuple(call.type.shape):
            args[0] = self._reshape_source(args[0], call.type, call, hops)
        if target is not None and args and isinstance(args[0], P.Var) and isinstance(args[0].type, TileType) \
                and _off_box_window(call) and args[0].type.memory_space is not self.plan.space(target):
            hop, args[0] = self._hop(args[0], self.plan.space(target), call,
                                     f"{call.op} operand `x` (a window that is not whole fractal boxes)")
            hops.extend(hop)
            self.bump("window-hops")
        if target is not None and args and isinstance(args[0], P.Var) and isinstance(args[0].type, TileType) \
                and opdef.semantics[:1] == ("transpose_view",) and args[0].type.memory_space is MemorySpace.Acc \
                and self.plan.space(target) is not MemorySpace.Acc:
            hop, args[0] = self._hop(args[0], self.plan.space(target), call,
                                     f"{call.op} operand `x` (an Acc tile, which holds no transposed view)")
            hops.extend(hop)
            self.bump("transposed-accumulator-hops")
        for index, arg in enumerate(args):
            if not isinstance(arg, P.Var) or not isinstance(arg.type, TileType) or not _has_operand(opdef, index):
                continue
            wanted = self._required_space(opdef, index, arg.type.memory_space)
            if wanted is not None:
                hop, args[index] = self._hop(arg, wanted, call, f"{call.op} operand "
                                             f"`{opdef.operand_decl(index).name}`")
                hops.extend(hop)
        if opdef.name == "tile.move" and args and isinstance(args[0], P.Var):
            hops.extend(self._stage_move(call, args))
        self._check_assemble_path(opdef, args, call)
        attrs = self._materialized_attrs(opdef, call.attrs, target)
        touches_tiles = isinstance(call.type, TileType) or any(isinstance(getattr(a, "type", None), TileType)
                                                               for a in args)
        ty = REGISTRY.deduce(call.op, args, attrs, placed=True, at=call) if touches_tiles else call.type
        if isinstance(ty, TileType) and target is not None:
            ty = placed_type(ty, ty.memory_space or self.plan.space(target))
            if ty.memory_space is not self.plan.space(target):
                self.bump("placement-conflicts")
        return tuple(hops), P.Call(op=call.op, args=tuple(args), attrs=attrs, type=ty, span=call.span)

    def _stage_move(self, call: U.Call, args: list[P.Expr]) -> tuple[P.Stmt, ...]:
        """A tile.move the user wrote between two spaces no data path (nor cross-core FIFO)
        connects: a Vec tile bound for L0 (Left / Right / Bias) is staged through Mat, as the
        compiler stages its own operands (`args[0]` becomes the Mat tile); any other is refused
        at the move. (Ascend950's TMOV has no Vec -> Left branch: emitted as is, it copies
        nothing.)"""
        source, wanted = args[0], attr(call.attrs, "target_memory", None)
        assert isinstance(source, P.Var)
        here = source.type.memory_space if isinstance(source.type, TileType) else None
        if here is None or not isinstance(wanted, MemorySpace) or here is wanted \
                or self.backend.can_move(here, wanted) or (here, wanted) in CROSS_CORE_TRANSFERS:
            return ()
        if here is MemorySpace.Vec and self.backend.can_move(MemorySpace.Mat, wanted):
            hop, args[0] = self._hop(source, MemorySpace.Mat, call, "tile.move (staged through Mat)")
            self.bump("moves-staged-through-mat")
            return hop
        raise CompileError(self._no_path(source, here, wanted, call, "tile.move"))

    def _check_assemble_path(self, opdef: OpDef, args: Sequence[P.Expr], call: U.Call) -> None:
        """An assemble copies its source into a window of its target: the target's space must be
        reachable from the source's. Producing the source in place inside the target's window
        (a matmul accumulating straight into a window of a larger Acc tile) is not planned."""
        if opdef.semantics[:1] != ("assemble",) or len(args) < 2:
            return
        target, source = (getattr(a, "type", None) for a in args[:2])
        if not isinstance(target, TileType) or not isinstance(source, TileType):
            return
        src, dst = source.memory_space, target.memory_space
        if src is None or dst is None or self.backend.can_move(src, dst):
            return
        raise CompileError(Diagnostic.at(
            call, "InferTileMemorySpace",
            f"not supported yet: {call.op} of an {src.name} tile into an {dst.name} tile ({self.backend.name} has no "
            f"{src.name} → {dst.name} data path to copy it into the window, and producing the source in place "
            f"inside the target's window is not planned)",
            hint=f"compute the whole {dst.name} tile with one op instead of assembling it from parts, or "
                 f"store the parts to GM with pl.store at their offsets"))

    def _reshape_source(self, source: P.Var, result: TileType, call: U.Call, hops: list[P.Stmt]) -> P.Var:
        """The operand of a reshape, in a space where reading its bytes under the new shape is
        the reshape (both shapes row-major there): a boxed source (Mat's NZ, Acc, ...) is hopped
        into Vec first, since a same-address re-view would pair each element with another
        element's bytes. A source the user pinned to a space that cannot reshape is rejected."""
        assert isinstance(source.type, TileType) and source.type.memory_space is not None
        space = source.type.memory_space
        shape = tuple(result.shape)
        window = self._is_window(source)
        dtype = source.type.dtype
        if is_row_major_linear(implicit_view(space, shape), shape, result.dtype) and source.type.view is not None \
                and is_row_major_linear(source.type.view, source.type.shape, dtype) and not window:
            return source
        flat = MemorySpace.Vec
        padded = flat_reshape_gap(source.type.shape, shape, dtype)
        if padded:
            # No Vec buffer holds both shapes' elements in row-major order: a hop would not help.
            raise CompileError(Diagnostic.at(
                call, "InferTileMemorySpace",
                f"not supported yet: reshaping `{source.name}` from {list(source.type.shape)} to {list(shape)} on "
                f"chip: {padded}",
                hint="reshape between shapes whose rows are one row or whole 32-byte blocks, or give the kernel "
                     "its input in the reshaped shape"))
        why = ("a reshape of a window of a larger tile, whose rows sit at the larger tile's pitch" if window
               else f"a reshape of a {space.name} tile, whose {space.name} layout is not row-major")
        hop, moved = self._hop(source, flat, call, f"{call.op} operand `x` ({why})")
        moved_view = moved.type.view if isinstance(moved.type, TileType) else None
        if moved_view is None or not is_row_major_linear(moved_view, source.type.shape, dtype):
            raise CompileError(Diagnostic.at(
                call, "InferTileMemorySpace",
                f"not supported yet: reshaping `{source.name}` from {list(source.type.shape)} to {list(shape)}: it "
                f"lives in {space.name}, whose boxed layout keeps its elements out of row-major order, and "
                f"{self.backend.name} moves it into Vec keeping that layout, so no buffer holds it in the "
                f"order a zero-copy reshape reads",
                hint="reshape the tensor before it is computed on chip (e.g. reshape the GM input, or store "
                     "the result and reshape it in the next kernel)"))
        hops.extend(hop)
        self.bump("reshape-hops")
        return moved

    def _is_window(self, value: P.Var) -> bool:
        """Whether `value` is (a view of) a tile.slice window: its elements sit at an offset and at
        the source's row pitch, so a reshape cannot re-view its bytes."""
        name, seen = value.name, 0
        while seen < 64:
            seen += 1
            producer = self.producers.get(name)
            if producer is None or not REGISTRY.is_view(producer.op) or not producer.args:
                return False
            if REGISTRY.is_window_view(producer.op):
                return True
            first = producer.args[0]
            if not isinstance(first, P.Var):
                return False
            name = first.name
        return False

    def _required_space(self, opdef: OpDef, index: int, actual: MemorySpace | None) -> MemorySpace | None:
        """The space operand `index` must be moved to, or None when `actual` is acceptable."""
        decl = opdef.operand_decl(index)
        legal = decl.legal_spaces
        if not legal or actual in legal:
            return None
        if actual is MemorySpace.Mat and deferred_to_l0_tiling(opdef, decl.input_memory):
            return None
        demand = placement_demand(opdef, index)
        return demand if demand is not None else legal[0]

    def _materialized_attrs(self, opdef: OpDef, attrs: Attrs, target: str | None) -> Attrs:
        """Write the decided space into an unset `target_memory`, so re-deduction keeps it."""
        rule = opdef.output_memory
        if target is None or not isinstance(rule, FromAttr) or isinstance(attr(attrs, rule.name), MemorySpace):
            return attrs
        self.bump("spaces-inferred")
        return with_attr(attrs, rule.name, self.plan.space(target))

    def _hop(self, value: P.Var, space: MemorySpace, at: Node, role: str) -> tuple[tuple[P.Stmt, ...], P.Var]:
        """Statements bringing `value` into `space`: a tile.move where a data path exists, else a
        re-load of the same GM window when `value` came from a tile.load, else a cross-core
        tile.move (cube <-> vector through a FIFO) where the two spaces sit on different cores."""
        assert isinstance(value.type, TileType) and value.type.memory_space is not None
        source = value.type.memory_space
        name = self._fresh(f"{value.name}_{space.name.lower()}")
        producer = self.producers.get(value.name)
        if producer is not None and REGISTRY.is_reshape(producer.op):
            self._check_reshaped_into_boxes(value, space, at)
        reloadable = producer is not None and REGISTRY.get(producer.op).semantics[:1] == ("load",) \
            and self.backend.can_move(MemorySpace.DDR, space)
        if self.backend.can_move(source, space):
            call = self._call("tile.move", (value,), (("target_memory", space),), at)
            self.bump("moves-inserted")
        elif reloadable:
            assert producer is not None
            call = self._call(producer.op, producer.args, with_attr(producer.attrs, "target_memory", space), at)
            self.bump("reloads-inserted")
        elif (source, space) in CROSS_CORE_TRANSFERS:
            # No data path inside one core: the value crosses between the cube and the vector
            # core through a FIFO, which ExpandMixedKernel lowers to a tpush / tpop pair. A
            # crossing is a real transfer, so a value crosses once per block and is reused.
            crossed = self.crossed.get((value.name, space))
            if crossed is not None:
                return (), crossed
            call = self._call("tile.move", (value,), (("target_memory", space), ("cross_core", True)), at)
            self.bump("cross-core-moves")
        else:
            raise CompileError(self._no_path(value, source, space, at, role))
        var = self._define(name, call.type, at)
        if attr(call.attrs, "cross_core", False):
            self.crossed[(value.name, space)] = var
        return (P.AssignStmt(target=var, value=call, span=at.node_span),), var

    def _check_reshaped_into_boxes(self, value: P.Var, space: MemorySpace, at: Node) -> None:
        """A reshaped (flat) value moved into a boxed space must already be a whole number of
        boxes: the cube-boxing of M / N happens where an operand is loaded, and a reshape's
        demand stops at the flat data it reshapes."""
        assert isinstance(value.type, TileType)
        gap = reshape_into_boxes_gap(space, value.type.shape, value.type.dtype)
        if gap is None:
            return
        box = assembler_checked_box(implicit_view(space, value.type.shape), value.type.dtype)
        assert box is not None
        axis, extent, unit = gap
        raise CompileError(Diagnostic.at(
            at, "InferTileMemorySpace",
            f"not supported yet: `{value.name}` is a reshape ({list(value.type.shape)}) moved into {space.name}, "
            f"whose boxes are {box[0]} x {box[1]} elements; its {axis} ({extent}) are not a multiple of {unit}, "
            f"and a reshaped operand is not boxed for the cube",
            hint=f"reshape to a shape whose {axis} are a multiple of {unit}, or reshape the tensor in GM "
                 f"(a separate kernel) so the matmul loads it directly"))

    def _call(self, op: str, args: Sequence[P.Expr], attrs: Attrs, at: Node) -> P.Call:
        ty = REGISTRY.deduce(op, args, attrs, placed=True, at=at)
        if isinstance(ty, TileType) and ty.memory_space is not None:
            ty = placed_type(ty, ty.memory_space)
        return P.Call(op=op, args=tuple(args), attrs=attrs, type=ty, span=at.node_span)

    def _no_path(self, value: P.Var, source: MemorySpace, space: MemorySpace, at: Node, role: str) -> Diagnostic:
        reachable = sorted(dst.name for src, dst in self.backend.allowed_moves if src is source)
        return Diagnostic.at(
            at, "InferTileMemorySpace",
            f"{role} needs `{value.name}` in {space.name}, but it lives in {source.name} and "
            f"{self.backend.name} has no {source.name} → {space.name} data path "
            f"(from {source.name} it can move to: {', '.join(reachable) or 'nothing'})",
            hint=f"store `{value.name}` to a GM tensor with pl.tile.store and load it again into "
                 f"{space.name} (e.g. in a separate kernel), or compile for a backend with a direct "
                 f"{source.name} → {space.name} move (Ascend950 has Acc → Vec and Vec → Mat)")

    def _fresh(self, base: str) -> str:
        name, n = base, 1
        while name in self.used_names:
            name, n = f"{base}_{n}", n + 1
        self.used_names.add(name)
        return name


def _all_vars(function: Node) -> list[Node]:
    return [n for n in walk(function) if n.KIND == "Var"]


@dataclass(frozen=True)
class InferTileMemorySpace(Pass[U.Program, P.Program]):
    """Give every tile a memory space and its implicit view; insert tile.move hops."""

    name: ClassVar[str] = "infer-tile-memory-space"
    spec_name: ClassVar[str] = "InferTileMemorySpace"
    source: ClassVar[Language] = TileUnplaced
    target: ClassVar[Language] = TilePlaced
    requires: ClassVar[frozenset[str]] = frozenset({"SSAForm", "IncoreTileOps", "TileOps2D"})
    produces: ClassVar[frozenset[str]] = frozenset({"TileMemoryPlaced", "CubeTileLayouts", "MovesOnDataPaths"})

    @override
    def run(self, program: U.Program, ctx: PassContext) -> P.Program:
        backend = backend_handler(ctx)
        placed = ctx.rewrite(_Placer(backend), program)
        _reject_tiles_over_capacity(placed, backend)
        return placed


# The spaces whose tiles no later pass splits: AutoTileMatmulL0 cuts Left / Right / Acc blocks out
# of Mat operands, but a Mat, Vec or Bias tile stays whole until it is allocated (a moved bias
# excepted: AutoTileMatmulL0 may window it per N tile).
_UNSPLIT_SPACES = (MemorySpace.Mat, MemorySpace.Vec, MemorySpace.Bias)


def _reject_tiles_over_capacity(program: P.Program, backend: BackendHandler) -> None:
    """A tile larger than all of its space can never be allocated: say so where it is defined,
    as soon as its space is known, rather than after AutoTileMatmulL0 has unrolled an L0 grid over
    it (10^5 blocks for a [65536, 256] x [256, 65536] matmul) and AllocateMemoryAddr sums it."""
    for function in program.functions:
        windowed = sliced_for_stores(function)
        for node in walk(function):
            if not (isinstance(node, P.AssignStmt) and isinstance(node.value, P.Call)):
                continue
            if node.target.name in windowed:
                # A matmul result moved to Vec only to be sliced and stored: AutoTileMatmulL0
                # moves and stores it per output tile, or refuses it with these numbers.
                continue
            tile = node.target.type
            if not isinstance(tile, TileType) or tile.memory_space not in _UNSPLIT_SPACES:
                continue
            if node.value.op in REGISTRY and REGISTRY.is_view(node.value.op):
                continue  # a view reads its source's bytes
            if tile.memory_space is MemorySpace.Bias and node.value.op == "tile.move":
                # A biased matmul's Mat bias moved into the table: AutoTileMatmulL0 reloads it in
                # per-N windows when the table cannot hold it whole, or says why not (PH-AT-011).
                continue
            overflow = tile_over_capacity(node, function.name, backend, "InferTileMemorySpace")
            if overflow is not None:
                raise CompileError(overflow)
