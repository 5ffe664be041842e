"""ExpandMixedKernel (L0Tiled → L0Tiled): split a mixed cube/vector InCore function into an AIC
function, an AIV function and a Group function that launches both.

On a backend without a direct cube ↔ vector data path (Ascend910B has no Acc → Vec and no
Vec → Mat), InferTileMemorySpace marks each boundary hop `tile.move(..., cross_core=True)`.  The
cube core (AIC) and the vector core (AIV) are separate cores with separate buffers, so such a
function cannot run on either alone.  This pass:

- projects the body onto each core: a tile statement goes to the core owning its buffer (the
  registry's CORE_OF_SPACE), scalar / index code and loops go to both;
- lowers each boundary move to the registry's transfer pair (CROSS_CORE_TRANSFERS): a push of
  the source on the producer core, a pop into a fresh buffer of the destination space on the
  consumer core (pushes and pops keep program order, which is the FIFO order);
- keeps on each side only what that side needs (a def-use slice: stores and FIFO endpoints are
  effects, everything else lives only if a kept statement uses it), with the GM parameters it
  uses;
- replaces the function by `<f>` of type Group with the original signature, which calls
  `<f>_aic` then `<f>_aiv` and returns the original values, so orchestration call sites stay
  unchanged;
- sets up the pipe as PTOAS requires (spec pto_codegen.md "Cross-Core Operations"): each side
  starts by reserving the slot region of every direction it consumes (`reserve_buffer`, Vec on
  the AIV, Mat on the AIC) and importing the peer's region of every direction it produces
  (`import_peer_buffer`), then initialises its end (`aic_/aiv_initialize_pipe`, one pipe whose
  dir_mask covers the directions used, slot_size the largest tile carried, 2 slots); on a
  backend whose pipe moves slots through GM (Ascend910B) the Group allocates the GM ring and
  passes it to both sides as their last parameter;
- releases every popped slot (`tfree`) as soon as the popped tile is dead, before the next pop
  of its direction; a popped tile that must outlive that point is copied out of its slot first.

- orders the two cores' accesses of one GM tensor (a cube result stored into a tensor the vector
  core then reads, a tensor the vector core reads before the cube overwrites it): an all-core
  barrier (a hard mix syncall, taken by both kernels) between every two such accesses nothing
  else orders (_GmOrder).

A value computed on one core and used on the other without a boundary move has no cross-core
transport here and is reported, as is a GM tensor the two cores share through a scalar access.  Functions without a
boundary move (everything on Ascend950) are returned untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Iterable, Iterator, Sequence

from typing_extensions import override

import languages.gen.l0_tiled as L
from backend.targets.handlers import BackendHandler
from languages.decls import L0Tiled
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, Effect
from languages.ops.gm_store_paths import SCALAR, aliased_operand, gm_accesses
from languages.ops.system_ops import syncall_participants
from languages.ops.pipe_ops import AUTO_BASE, C2V, CONSUMER_SPACE, DEFAULT_SLOT_NUM, FIFO_NAMES, I32, V2C
from languages.ops.tile_ops import AIC, AIV, CORE_OF_SPACE, CROSS_CORE_TRANSFERS
from languages.types import AttrValue, DataType, NoneType, ScalarType, TensorType, TileType, TupleType, Type, attr
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import backend_handler

RULE = "ExpandMixedKernel"
INCORE, GROUP = "InCore", "Group"
SIDES = (AIC, AIV)
_SUFFIX = {AIC: "_aic", AIV: "_aiv"}
_CORE_WORDS = {AIC: "cube core (AIC)", AIV: "vector core (AIV)"}
_NO_SPLIT = 0


def _core_of(ty: object) -> str | None:
    if isinstance(ty, TileType) and ty.memory_space is not None:
        return CORE_OF_SPACE.get(ty.memory_space)
    return None


def _uses(node: Node | None) -> set[str]:
    if node is None:
        return set()
    return {str(getattr(n, "name")) for n in walk(node) if n.KIND == "Var"}


def _uses_all(nodes: Iterable[Node]) -> set[str]:
    out: set[str] = set()
    for node in nodes:
        out |= _uses(node)
    return out


class _Boundaries:
    """Which tile.move calls cross between the cores (and so become a push / pop pair)."""

    def __init__(self, backend: BackendHandler) -> None:
        self.backend = backend

    def transfer(self, call: L.Call) -> tuple[MemorySpace, MemorySpace] | None:
        if call.op != "tile.move" or not call.args:
            return None
        source = getattr(call.args[0], "type", None)
        target = call.type
        if not isinstance(source, TileType) or not isinstance(target, TileType):
            return None
        if source.memory_space is None or target.memory_space is None:
            return None
        hop = (source.memory_space, target.memory_space)
        marked = bool(attr(call.attrs, "cross_core", False))
        # A hop across cores the backend cannot move directly is a boundary even unmarked
        # (e.g. a Vec left operand staged to Mat by L0 tiling).
        unmoveable = _core_of(source) != _core_of(target) and not self.backend.can_move(*hop)
        if (marked or unmoveable) and hop in CROSS_CORE_TRANSFERS:
            return hop
        if marked:
            raise CompileError(Diagnostic.at(call, RULE, f"a cross-core tile.move from {hop[0].name} to {hop[1].name} "
                                             "has no FIFO transfer", "cross-core FIFOs carry Acc → Vec and Vec → Mat"))
        return None

    def has_any(self, function: L.Function) -> bool:
        return any(isinstance(n, L.Call) and self.transfer(n) is not None for n in walk(function))


# -- projection: each statement onto the core(s) that execute it ------------------------------------


class _Projector:
    def __init__(self, boundaries: _Boundaries) -> None:
        self.boundaries = boundaries
        self.definitions: dict[str, L.Call] = {}
        self.written: set[str] = set()

    def start(self, function: L.Function) -> None:
        """Know `function`'s definitions (and the tiles written in place) before projecting it."""
        self.definitions = {n.target.name: n.value for n in walk(function)
                            if isinstance(n, L.AssignStmt) and isinstance(n.value, L.Call)}
        self.written = _written_tiles(function)

    def block(self, body: Sequence[L.Stmt], side: str) -> list[L.Stmt]:
        out: list[L.Stmt] = []
        for stmt in body:
            out.extend(self.stmt(stmt, side))
        return out

    def stmt(self, stmt: L.Stmt, side: str) -> list[L.Stmt]:
        if isinstance(stmt, L.AssignStmt) and isinstance(stmt.value, L.Call):
            hop = self.boundaries.transfer(stmt.value)
            if hop is not None:
                return self._endpoint(stmt, stmt.value, hop, side)
        if isinstance(stmt, L.ForStmt):
            return [L.ForStmt(loop_var=stmt.loop_var, start=stmt.start, stop=stmt.stop, step=stmt.step,
                              iter_args=stmt.iter_args, body=tuple(self.block(stmt.body, side)),
                              results=stmt.results, kind=stmt.kind, attrs=stmt.attrs, span=stmt.span)]
        if isinstance(stmt, L.IfStmt):
            return [L.IfStmt(cond=stmt.cond, then_body=tuple(self.block(stmt.then_body, side)),
                             else_body=tuple(self.block(stmt.else_body, side)), results=stmt.results,
                             span=stmt.span)]
        cores = _barrier_cores(stmt)
        if isinstance(stmt, L.EvalStmt) and len(cores) > 1:
            return _barrier_part(stmt, side) if side in cores else []
        owner = _statement_core(stmt)
        if owner is None or owner == side:
            return [stmt]
        named = _named_gm_tensor(stmt)
        return [named] if named is not None else []

    def _endpoint(self, stmt: L.AssignStmt, move: L.Call, hop: tuple[MemorySpace, MemorySpace],
                  side: str) -> list[L.Stmt]:
        push_op, pop_op = CROSS_CORE_TRANSFERS[hop]
        producer, consumer = CORE_OF_SPACE[hop[0]], CORE_OF_SPACE[hop[1]]
        fifo_attrs = (("split", _NO_SPLIT),)
        if side == producer:
            carried = _carried(move.args[0], self.definitions, self.written)
            push = L.Call(op=push_op, args=(carried,), attrs=fifo_attrs, type=NoneType(), span=move.span)
            return [L.EvalStmt(value=push, span=stmt.span)]
        if side == consumer:
            target = stmt.target.type
            assert isinstance(target, TileType)
            args: tuple[L.Expr, ...] = (_int_list(target.shape, move),)
            if target.valid_shape is not None:
                args += (_int_list(target.valid, move),)
            attrs = (("dtype", target.dtype), *fifo_attrs)
            ty = REGISTRY.deduce(pop_op, args, attrs, placed=True, at=move)
            pop = L.Call(op=pop_op, args=args, attrs=attrs, type=ty, span=move.span)
            target_var = L.Var(name=stmt.target.name, type=ty, span=stmt.target.span)
            return [L.AssignStmt(target=target_var, value=pop, span=stmt.span)]
        return []


def _carried(source: L.Expr, definitions: dict[str, L.Call], written: set[str]) -> L.Expr:
    """The tile a push of `source` hands the FIFO. The FIFO carries a tile's valid rectangle
    (pto-isa's pushVec2GMFiFo stores validRow x validCol at a validCol pitch, and the pop loads it
    back so), so a boxed copy of a value (the value assembled at the origin of a larger box,
    re-validated to the value's extent: ConvertTensorToTileOps' cube operand computed on chip)
    carries exactly the value's bytes, and the value is pushed instead: the box, a second Vec
    buffer larger than the value, is then dead on the producer (a [100, 272] FP32 operand and its
    [112, 272] box did not fit Ascend910B's Vec together, finding e4d1c8d667). The consumer pops
    into the boxed type as before."""
    revalidated = definitions.get(source.name) if isinstance(source, L.Var) else None
    if revalidated is None or revalidated.op != "tile.set_validshape" or not isinstance(revalidated.args[0], L.Var):
        return source
    filled = definitions.get(revalidated.args[0].name)
    if filled is None or filled.op != "tile.assemble" or len(filled.args) != 3:
        return source
    value, offsets = filled.args[1], filled.args[2]
    origin = isinstance(offsets, L.TupleExpr) and all(isinstance(e, L.ConstInt) and e.value == 0
                                                      for e in offsets.elements)
    ty, boxed = getattr(value, "type", None), getattr(source, "type", None)
    if not (origin and isinstance(value, L.Var) and value.name not in written
            and isinstance(ty, TileType) and isinstance(boxed, TileType) and ty.valid_shape is None
            and ty.dtype == boxed.dtype and ty.memory_space == boxed.memory_space and ty.view == boxed.view
            and tuple(boxed.valid_extents) == tuple(ty.shape) and len(ty.shape) == 2):
        return source
    return value


def _written_tiles(function: L.Function) -> set[str]:
    """Tiles some call writes in place (the registry's WRITE effect on a tile operand)."""
    out: set[str] = set()
    for node in walk(function):
        if isinstance(node, L.Call) and node.op in REGISTRY:
            opdef = REGISTRY.get(node.op)
            for index, arg in enumerate(node.args):
                if isinstance(arg, L.Var) and isinstance(arg.type, TileType) \
                        and Effect.WRITE in opdef.effect_of(index, node.attrs):
                    out.add(arg.name)
    return out


def _barrier_cores(stmt: L.Stmt) -> set[str]:
    """The cores whose on-chip workspaces a barrier takes (a soft mix syncall: the vector
    core's Vec tile and the cube's Mat tile); empty for any other statement."""
    if not isinstance(stmt, L.EvalStmt) or not isinstance(stmt.value, L.Call) or stmt.value.op not in REGISTRY:
        return set()
    if REGISTRY.get(stmt.value.op).semantics[:1] != ("barrier",):
        return set()
    return {core for core in (_core_of(getattr(a, "type", None)) for a in stmt.value.args) if core is not None}


def _barrier_part(stmt: L.EvalStmt, side: str) -> list[L.Stmt]:
    """`side`'s part of a barrier every core of a mixed kernel takes part in: each core arrives
    at it (pto-isa's soft mix SYNCALL counts the cube and the vector cores), and PTOAS wants both
    workspaces on each (SyncAllOp::verify), so the workspace of the other core is a stand-in
    this core allocates (same name and type: the two sides are separate functions)."""
    call = stmt.value
    assert isinstance(call, L.Call)
    stand_ins: list[L.Stmt] = []
    for arg in call.args:
        ty = getattr(arg, "type", None)
        owner = _core_of(ty)
        if owner is None or owner == side:
            continue
        assert isinstance(arg, L.Var) and isinstance(ty, TileType), "a barrier's workspace is a named tile"
        create = L.Call(op="tile.create", args=(_int_list(ty.shape, call),),
                        attrs=(("dtype", ty.dtype), ("target_memory", ty.memory_space)), type=ty, span=call.span)
        stand_ins.append(L.AssignStmt(target=arg, value=create, span=stmt.span))
    return [*stand_ins, stmt]


def _int_list(values: Sequence[int], at: Node) -> L.TupleExpr:
    return L.TupleExpr(elements=tuple(L.ConstInt(value=v, dtype=DataType.INDEX, span=at.node_span) for v in values),
                       span=at.node_span)


def _statement_core(stmt: L.Stmt) -> str | None:
    """The core executing a simple statement; None for scalar code every core needs. A scalar
    write into a GM tensor (tensor.write: no tile names a core) is an effect, not a value each
    core recomputes: run on both cores it would be one GM tensor written by two concurrent
    cores, so it runs on the vector core (AIV), which every other scalar-store path uses too."""
    if isinstance(stmt, L.AssignStmt):
        owner = _core_of(stmt.target.type)
        if owner is not None:
            return owner
        return _first_tile_core(stmt.value) or _gm_write_core(stmt.value)
    if isinstance(stmt, L.EvalStmt):
        return _first_tile_core(stmt.value) or _gm_write_core(stmt.value)
    return None


def _named_gm_tensor(stmt: L.Stmt) -> L.AssignStmt | None:
    """The other core's part of a statement whose result is the GM tensor it writes into (a
    tile.store's result names its destination: the registry's ReusesInput): that name, bound
    to the destination. GM is one memory both cores address, so a store on the cube leaves the
    vector core a tensor it may go on using (a loop carry of the tensor, a later window of it);
    the two cores' accesses to it are ordered by _GmOrder."""
    if not (isinstance(stmt, L.AssignStmt) and isinstance(stmt.target.type, TensorType)
            and isinstance(stmt.value, L.Call) and stmt.value.op in REGISTRY):
        return None
    index = aliased_operand(REGISTRY.get(stmt.value.op), len(stmt.value.args))
    if index is None:
        return None
    destination = stmt.value.args[index]
    if not isinstance(destination, L.Var) or not isinstance(destination.type, TensorType):
        return None
    return L.AssignStmt(target=stmt.target, value=destination, span=stmt.span)


def _gm_write_core(expr: L.Expr) -> str | None:
    """AIV for a call writing a GM tensor operand (the registry's WRITE effect), else None."""
    if isinstance(expr, L.Call) and expr.op in REGISTRY:
        opdef = REGISTRY.get(expr.op)
        for index, arg in enumerate(expr.args):
            if isinstance(getattr(arg, "type", None), TensorType) and Effect.WRITE in opdef.effect_of(index, expr.attrs):
                return AIV
    return None


def _first_tile_core(expr: L.Expr) -> str | None:
    if isinstance(expr, L.Call):
        for arg in expr.args:
            owner = _core_of(getattr(arg, "type", None))
            if owner is not None:
                return owner
    return None


# -- slicing: keep what each core needs -----------------------------------------------------------------


def _effectful(stmt: L.Stmt) -> bool:
    """A statement kept whether or not its result is used: FIFO endpoints (a pop must pair with
    its push) and writes into GM tensors."""
    if isinstance(stmt, L.EvalStmt):
        return True
    if isinstance(stmt, (L.ForStmt, L.IfStmt)):
        return any(_effectful(s) for s in (*_bodies(stmt),))
    if not isinstance(stmt, L.AssignStmt) or not isinstance(stmt.value, L.Call):
        return False
    call = stmt.value
    if call.op not in REGISTRY:
        return False
    opdef = REGISTRY.get(call.op)
    if opdef.family == "cross_core":
        return True
    return any(isinstance(getattr(arg, "type", None), TensorType) and Effect.WRITE in opdef.effect_of(i, call.attrs)
               for i, arg in enumerate(call.args))


def _bodies(stmt: L.ForStmt | L.IfStmt) -> tuple[L.Stmt, ...]:
    if isinstance(stmt, L.ForStmt):
        return stmt.body
    return (*stmt.then_body, *stmt.else_body)


def _split_yield(body: Sequence[L.Stmt]) -> tuple[list[L.Stmt], L.YieldStmt | None]:
    if body and isinstance(body[-1], L.YieldStmt):
        return list(body[:-1]), body[-1]
    return list(body), None


def slice_block(body: Sequence[L.Stmt], live: set[str]) -> list[L.Stmt]:
    """`body` without the statements nothing after it needs; `live` (the names needed after the
    block) becomes the names needed before it."""
    out: list[L.Stmt] = []
    for stmt in reversed(body):
        kept = _slice_stmt(stmt, live)
        if kept is not None:
            out.append(kept)
    out.reverse()
    return out


def _slice_stmt(stmt: L.Stmt, live: set[str]) -> L.Stmt | None:
    if isinstance(stmt, L.AssignStmt):
        if stmt.target.name not in live and not _effectful(stmt):
            return None
        live.discard(stmt.target.name)
        live |= _uses(stmt.value)
        return stmt
    if isinstance(stmt, L.ForStmt):
        return _slice_for(stmt, live)
    if isinstance(stmt, L.IfStmt):
        return _slice_if(stmt, live)
    live |= _uses(stmt)
    return stmt


def _slice_for(stmt: L.ForStmt, live: set[str]) -> L.ForStmt | None:
    statements, yield_stmt = _split_yield(stmt.body)
    yielded = yield_stmt.values if yield_stmt is not None else ()
    keep = {k for k, r in enumerate(stmt.results) if r.name in live}
    while True:
        body_live = _uses_all(yielded[k] for k in sorted(keep) if k < len(yielded))
        body = slice_block(statements, body_live)
        carried = {k for k, it in enumerate(stmt.iter_args) if it.var.name in body_live}
        if carried <= keep:
            break
        keep |= carried
    if not keep and not any(_effectful(s) for s in body):
        return None
    order = sorted(keep)
    if yield_stmt is not None and order:  # a loop without carries ends without a yield
        body.append(L.YieldStmt(values=tuple(yielded[k] for k in order), span=yield_stmt.span))
    iter_args = tuple(stmt.iter_args[k] for k in order)
    for result in stmt.results:
        live.discard(result.name)
    inner = body_live - {stmt.loop_var.name} - {it.var.name for it in iter_args}
    live |= inner | _uses_all((stmt.start, stmt.stop, stmt.step)) | _uses_all(it.init for it in iter_args)
    return L.ForStmt(loop_var=stmt.loop_var, start=stmt.start, stop=stmt.stop, step=stmt.step, iter_args=iter_args,
                     body=tuple(body), results=tuple(stmt.results[k] for k in order), kind=stmt.kind,
                     attrs=stmt.attrs, span=stmt.span)


def _slice_if(stmt: L.IfStmt, live: set[str]) -> L.IfStmt | None:
    keep = sorted(k for k, r in enumerate(stmt.results) if r.name in live)
    branches: list[tuple[L.Stmt, ...]] = []
    needed: set[str] = set()
    for branch in (stmt.then_body, stmt.else_body):
        statements, yield_stmt = _split_yield(branch)
        values = yield_stmt.values if yield_stmt is not None else ()
        branch_live = _uses_all(values[k] for k in keep if k < len(values))
        body = slice_block(statements, branch_live)
        if yield_stmt is not None:
            body.append(L.YieldStmt(values=tuple(values[k] for k in keep if k < len(values)), span=yield_stmt.span))
        branches.append(tuple(body))
        needed |= branch_live
    if not keep and not any(_effectful(s) for branch in branches for s in branch):
        return None
    for result in stmt.results:
        live.discard(result.name)
    live |= needed | _uses(stmt.cond)
    return L.IfStmt(cond=stmt.cond, then_body=branches[0], else_body=branches[1],
                    results=tuple(stmt.results[k] for k in keep), span=stmt.span)


# -- checking a side: every use defined on that core ---------------------------------------------------


def _check_defined(body: Sequence[L.Stmt], defined: set[str], side: str, origin: dict[str, str]) -> None:
    for stmt in body:
        for name, node in _stmt_uses(stmt):
            if name not in defined:
                other = origin.get(name, "the other core")
                hint = "compute the value on the core that uses it, or pass it through a GM tensor in a separate kernel"
                value = stmt.value if isinstance(stmt, (L.AssignStmt, L.EvalStmt)) else None
                if isinstance(value, L.Call) and value.op == "tile.move" and side == AIC:
                    hint = (f"move `{name}` to Mat first (pl.move({name}, target_memory=pl.MemorySpace.Mat): the "
                            f"vector-to-cube FIFO), then from Mat to {attr(value.attrs, 'target_memory', 'Left')}")
                # A variable's span is its definition's (on the other core): the error is the use.
                where = stmt if stmt.node_span.known else node
                raise CompileError(Diagnostic.at(
                    where, RULE,
                    f"`{name}` is computed on the {other} but used on the {_CORE_WORDS[side]}; only tiles that "
                    f"cross through a cross-core FIFO (Acc → Vec, Vec → Mat) can move between the cores", hint))
        if isinstance(stmt, L.AssignStmt):
            defined.add(stmt.target.name)
        elif isinstance(stmt, L.ForStmt):
            inner = set(defined) | {stmt.loop_var.name} | {it.var.name for it in stmt.iter_args}
            _check_defined(stmt.body, inner, side, origin)
            defined |= {r.name for r in stmt.results}
        elif isinstance(stmt, L.IfStmt):
            _check_defined(stmt.then_body, set(defined), side, origin)
            _check_defined(stmt.else_body, set(defined), side, origin)
            defined |= {r.name for r in stmt.results}


def _stmt_uses(stmt: L.Stmt) -> list[tuple[str, Node]]:
    """The variables a statement reads itself (a region's body is checked on its own)."""
    if isinstance(stmt, L.ForStmt):
        exprs: tuple[Node, ...] = (stmt.start, stmt.stop, stmt.step, *(it.init for it in stmt.iter_args))
    elif isinstance(stmt, L.IfStmt):
        exprs = (stmt.cond,)
    else:
        exprs = (stmt,)
    out: list[tuple[str, Node]] = []
    for expr in exprs:
        for node in walk(expr):
            if node.KIND == "Var" and node is not getattr(stmt, "target", None):
                out.append((str(getattr(node, "name")), node))
    return out


def _definitions(body: Sequence[L.Stmt]) -> set[str]:
    """Names a block really computes (a loop result counts only if its body yields a new value)."""
    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, L.AssignStmt):
            out.add(stmt.target.name)
        elif isinstance(stmt, L.ForStmt):
            inner = _definitions(stmt.body)
            _, yield_stmt = _split_yield(stmt.body)
            values = yield_stmt.values if yield_stmt is not None else ()
            out |= inner
            out |= {r.name for r, v in zip(stmt.results, values) if _uses(v) & inner}
        elif isinstance(stmt, L.IfStmt):
            inner = _definitions(stmt.then_body) | _definitions(stmt.else_body)
            out |= inner
            out |= {r.name for r in stmt.results}
    return out


# -- the expansion of one function --------------------------------------------------------------------


@dataclass
class _Side:
    function: L.Function
    returned: list[int]  # indices into the original return values


class _Expander:
    def __init__(self, backend: BackendHandler) -> None:
        self.boundaries = _Boundaries(backend)
        self.projector = _Projector(self.boundaries)

    def expand(self, function: L.Function) -> list[L.Function]:
        statements = list(function.body)
        last = statements[-1] if statements else None
        returns = last if isinstance(last, L.ReturnStmt) else None
        if returns is not None:
            statements.pop()
        sides, owner = self._project(function, statements, returns)
        ordered = _GmOrder(function, sides).block(statements)
        if ordered != statements:
            sides, owner = self._project(function, ordered, returns)
        pipe = _Pipe.of(sides, function.name)
        group_prelude: list[L.Stmt] = []
        if pipe is not None:
            gm = pipe.gm_slot_buffer(function.span) if self.boundaries.backend.gm_pipe_slots else None
            for side in SIDES:
                sides[side].function = pipe.install(sides[side].function, side, gm)
            if gm is not None:
                group_prelude.append(pipe.allocate(gm))
        return [sides[AIC].function, sides[AIV].function, self._group(function, sides, returns, owner, group_prelude)]

    def _project(self, function: L.Function, statements: list[L.Stmt],
                 returns: L.ReturnStmt | None) -> tuple[dict[str, _Side], list[str | None]]:
        self.projector.start(function)
        projected = {side: self.projector.block(statements, side) for side in SIDES}
        computed = {side: _definitions(projected[side]) for side in SIDES}
        values = returns.values if returns is not None else ()
        owner = [self._return_owner(v, computed) for v in values]
        sides = {side: self._side(function, side, projected[side], returns, owner, computed) for side in SIDES}
        return sides, owner

    @staticmethod
    def _return_owner(value: L.Expr, computed: dict[str, set[str]]) -> str | None:
        names = _uses(value)
        for side in (AIV, AIC):
            if names and names <= computed[side]:
                return side
        return None  # a parameter (or constant) the Group returns itself

    def _side(self, function: L.Function, side: str, body: list[L.Stmt], returns: L.ReturnStmt | None,
              owner: list[str | None], computed: dict[str, set[str]]) -> _Side:
        returned = [k for k, o in enumerate(owner) if o == side]
        live: set[str] = set()
        tail: list[L.Stmt] = []
        if returns is not None and returned:
            tail = [L.ReturnStmt(values=tuple(returns.values[k] for k in returned), span=returns.span)]
            live = _uses_all(tail)
        kept = slice_block(body, live) + tail
        params = tuple(p for p in function.params if p.var.name in live)
        other = AIC if side == AIV else AIV
        origin = {name: _CORE_WORDS[other] for name in computed[other]}
        _check_defined(kept, {p.var.name for p in params}, side, origin)
        return_types = tuple(_type_of(returns.values[k]) for k in returned) if returns is not None else ()
        name = function.name + _SUFFIX[side]
        return _Side(L.Function(name=name, func_type=side, params=params, return_types=return_types,
                                body=tuple(kept), attrs=function.attrs, span=function.span), returned)

    @staticmethod
    def _group(function: L.Function, sides: dict[str, _Side], returns: L.ReturnStmt | None,
               owner: list[str | None], prelude: list[L.Stmt]) -> L.Function:
        span = function.span
        body: list[L.Stmt] = list(prelude)
        # Unpacking a kernel's tuple of results reads what it returned, so it follows every
        # launch: the two kernels start together (an unpack between them would make the first
        # run alone and wait forever on the FIFO the second fills).
        unpacks: list[L.Stmt] = []
        results: dict[int, L.Expr] = {}
        for side in SIDES:
            callee = sides[side].function
            args = tuple(p.var for p in callee.params)
            returned = sides[side].returned
            ty: Type = NoneType() if not callee.return_types else (
                callee.return_types[0] if len(callee.return_types) == 1 else TupleType(callee.return_types))
            call = L.FuncCall(callee=callee.name, args=args, type=ty, span=span)
            if not returned:
                body.append(L.EvalStmt(value=call, span=span))
                continue
            assert returns is not None
            if len(returned) == 1:
                var = _result_var(returns.values[returned[0]], f"{callee.name}_ret", span)
                body.append(L.AssignStmt(target=var, value=call, span=span))
                results[returned[0]] = var
                continue
            tuple_var = L.Var(name=f"{callee.name}_ret", type=ty, span=span)
            body.append(L.AssignStmt(target=tuple_var, value=call, span=span))
            for position, k in enumerate(returned):
                var = _result_var(returns.values[k], f"{callee.name}_ret{position}", span)
                item = L.TupleGetItem(value=tuple_var, index=position, type=var.type, span=span)
                unpacks.append(L.AssignStmt(target=var, value=item, span=span))
                results[k] = var
        body.extend(unpacks)
        if returns is not None:
            values = tuple(results.get(k, v) for k, v in enumerate(returns.values))
            body.append(L.ReturnStmt(values=values, span=returns.span))
        return L.Function(name=function.name, func_type=GROUP, params=function.params,
                          return_types=function.return_types, body=tuple(body), attrs=function.attrs, span=span)


# -- ordering the two cores' GM accesses ----------------------------------------------------------------

# The barrier ExpandMixedKernel puts between two accesses of one GM tensor on different cores:
# pto-isa's hard mix SYNCALL drains every pipe of the core (pipe_barrier(PIPE_ALL)), then waits
# until the cube and the vector cores have all arrived (FFTS flags), so every GM store issued
# before it on one core is done before any access after it on the other.
BARRIER_ATTRS: tuple[tuple[str, AttrValue], ...] = (("mode", "hard"), ("core_type", "mix"))

_Access = tuple[str, str, bool, bool, str]  # side, GM root, reads, writes, path


def gm_barrier(span: Span) -> L.EvalStmt:
    call = L.Call(op="system.syncall", args=(), attrs=BARRIER_ATTRS, type=NoneType(), span=span)
    return L.EvalStmt(value=call, span=span)


class _GmOrder:
    """Puts an all-core barrier between every two accesses of one GM tensor by the two cores
    (at least one of them a write) that nothing else orders: the cube and the vector kernel run
    concurrently, and only the FIFOs and barriers order them. It walks the mixed body in program
    order with the accesses each core made since the last barrier (any path); a statement whose
    access conflicts with one of the other core's gets a barrier before it. A loop is ordered
    against what precedes it as a whole, and its body also against its own previous iteration
    (the accesses at the end of the body precede those at its start). Which core makes an access
    is where the projection put the statement (`sides`). An access by the scalar path (the
    D-cache: tensor.read / tensor.write) is not made visible to the other core by a barrier, so
    such a conflict is refused."""

    def __init__(self, function: L.Function, sides: dict[str, _Side]) -> None:
        self.function = function
        self.cores: dict[int, set[str]] = {}
        for side in SIDES:
            for node in walk(sides[side].function):
                if isinstance(node, (L.AssignStmt, L.EvalStmt)):
                    self.cores.setdefault(id(node), set()).add(side)
        self.roots = _gm_roots(function)
        self.identity_dependent = _identity_dependent(function)
        self.divergent: L.Stmt | None = None  # the branch / loop some blocks may not run, if in one

    def accesses(self, stmt: L.Stmt) -> frozenset[_Access]:
        out: set[_Access] = set()
        for node in walk(stmt):
            if not isinstance(node, (L.AssignStmt, L.EvalStmt)) or not isinstance(node.value, L.Call):
                continue
            call = node.value
            if call.op not in REGISTRY:
                continue
            for index, reads, writes, path in gm_accesses(REGISTRY.get(call.op), len(call.args), call.attrs):
                arg = call.args[index]
                if not isinstance(arg, L.Var) or not isinstance(arg.type, TensorType):
                    continue
                for side in self.cores.get(id(node), ()):
                    for root in self.roots.get(arg.name, ()):
                        out.add((side, root, reads, writes, path))
        return frozenset(out)

    def conflict(self, stmt: L.Stmt, accesses: frozenset[_Access], pending: frozenset[_Access]) -> bool:
        clash = False
        for side, root, reads, writes, path in accesses:
            for other, root2, reads2, writes2, path2 in pending:
                if other == side or root2 != root or not (writes or writes2):
                    continue
                if SCALAR in (path, path2):
                    raise CompileError(Diagnostic.at(
                        _located(stmt, self.function), RULE,
                        f"GM tensor `{root}` is {'written' if writes else 'read'} on the {_CORE_WORDS[side]} and "
                        f"{'written' if writes2 else 'read'} on the {_CORE_WORDS[other]}, one of them by a scalar "
                        "access (tensor.read / tensor.write: the D-cache), which no cross-core barrier makes "
                        "visible to the other core",
                        "read and write the tensor with tiles (pl.tensor.slice / pl.tensor.assemble) on both "
                        "cores, or split the work into two kernels"))
                clash = True
        return clash

    def block(self, body: Sequence[L.Stmt], pending: frozenset[_Access] = frozenset()) -> list[L.Stmt]:
        out, _ = self._block(body, pending)
        return out

    def _block(self, body: Sequence[L.Stmt], pending: frozenset[_Access]) -> tuple[list[L.Stmt], frozenset[_Access]]:
        out: list[L.Stmt] = []
        for stmt in body:
            accesses = self.accesses(stmt)
            if self.conflict(stmt, accesses, pending):
                self._check_uniform(stmt)
                out.append(gm_barrier(stmt.node_span))
                pending = frozenset()
            if isinstance(stmt, L.ForStmt):
                entry = pending
                outer = self.divergent
                if outer is None and _uses_all((stmt.start, stmt.stop, stmt.step)) & self.identity_dependent:
                    self.divergent = stmt
                while True:
                    inner, end = self._block(stmt.body, entry)
                    again = entry | end
                    if again == entry:
                        break
                    entry = again
                self.divergent = outer
                out.append(L.ForStmt(loop_var=stmt.loop_var, start=stmt.start, stop=stmt.stop, step=stmt.step,
                                     iter_args=stmt.iter_args, body=tuple(inner), results=stmt.results,
                                     kind=stmt.kind, attrs=stmt.attrs, span=stmt.span))
                pending = pending | end
            elif isinstance(stmt, L.IfStmt):
                outer = self.divergent
                if outer is None and _uses(stmt.cond) & self.identity_dependent:
                    self.divergent = stmt
                then_body, then_end = self._block(stmt.then_body, pending)
                else_body, else_end = self._block(stmt.else_body, pending)
                self.divergent = outer
                out.append(L.IfStmt(cond=stmt.cond, then_body=tuple(then_body), else_body=tuple(else_body),
                                    results=stmt.results, span=stmt.span))
                pending = then_end | else_end
            else:
                out.append(stmt)
                pending = frozenset() if _all_core_barrier(stmt) else pending | accesses
        return out, pending



    def _check_uniform(self, stmt: L.Stmt) -> None:
        """A hard mix syncall waits for every cube and vector core of the launch (pto-isa's SYNCALL
        counts them all), so every block must take it as often as the others: not inside a branch
        or loop that depends on the block / lane index."""
        if self.divergent is None:
            return
        raise CompileError(Diagnostic.at(
            _located(stmt, self.function), RULE,
            "not supported yet: this GM access and one of the other core's need an all-core barrier between "
            "them, inside a branch or loop that depends on the block or lane index (pl.tile.get_block_idx & co.), "
            "which some blocks would take and others not",
            "access the tensor from the two cores outside that branch or loop, or split the work into two kernels"))


def _all_core_barrier(stmt: L.Stmt) -> bool:
    """A syncall waiting for both kinds of core (the user's, or one this pass put)."""
    return isinstance(stmt, L.EvalStmt) and isinstance(stmt.value, L.Call) and stmt.value.op == "system.syncall" \
        and len(syncall_participants(stmt.value.attrs)) > 1


def _identity_dependent(function: L.Function) -> set[str]:
    """The names whose value depends on the block / lane a kernel instance runs as (an spmd
    identity op's result, and what is computed from one)."""
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in walk(function):
            if not isinstance(node, L.AssignStmt) or node.target.name in out:
                continue
            value = node.value
            identity = isinstance(value, L.Call) and value.op in REGISTRY and REGISTRY.get(value.op).family == "spmd"
            if identity or _uses(value) & out:
                out.add(node.target.name)
                changed = True
    return out


def _located(stmt: L.Stmt, function: L.Function) -> Node:
    return stmt if stmt.node_span.known else function


def _gm_roots(function: L.Function) -> dict[str, frozenset[str]]:
    """The GM parameters each tensor variable of `function` may name: a parameter itself, a
    call's result that names one of its tensor operands (a store into it, a view of it), a loop
    carry or result seeded by one, an if's result."""
    roots: dict[str, frozenset[str]] = {p.var.name: frozenset({p.var.name}) for p in function.params
                                        if isinstance(p.var.type, TensorType)}

    def of(expr: object) -> frozenset[str]:
        return roots.get(expr.name, frozenset()) if isinstance(expr, L.Var) else frozenset()

    def bind(name: str, found: frozenset[str]) -> bool:
        before = roots.get(name, frozenset())
        if found <= before:
            return False
        roots[name] = before | found
        return True

    changed = True
    while changed:
        changed = False
        for node in walk(function):
            if isinstance(node, L.AssignStmt) and isinstance(node.target.type, TensorType):
                value = node.value
                found = of(value)
                if isinstance(value, L.Call):
                    found = frozenset().union(*(of(a) for a in value.args if isinstance(getattr(a, "type", None),
                                                                                        TensorType)))
                changed |= bind(node.target.name, found)
            elif isinstance(node, L.ForStmt):
                _, yield_stmt = _split_yield(node.body)
                yielded = yield_stmt.values if yield_stmt is not None else ()
                for k, iter_arg in enumerate(node.iter_args):
                    found = of(iter_arg.init) | (of(yielded[k]) if k < len(yielded) else frozenset())
                    changed |= bind(iter_arg.var.name, found)
                    if k < len(node.results):
                        changed |= bind(node.results[k].name, found | of(iter_arg.var))
            elif isinstance(node, L.IfStmt):
                for branch in (node.then_body, node.else_body):
                    _, yield_stmt = _split_yield(branch)
                    for k, value in enumerate(yield_stmt.values if yield_stmt is not None else ()):
                        if k < len(node.results):
                            changed |= bind(node.results[k].name, of(value))
    return roots


# -- the pipe: set-up on each side, slot release after each pop ---------------------------------------

# Each FIFO op's direction (pipe_ops.C2V / V2C) and the core that runs it.
_PUSH_DIRECTION = {"tile.tpush_to_aiv": C2V, "tile.tpush_to_aic": V2C}
_POP_DIRECTION = {"tile.tpop_from_aic": C2V, "tile.tpop_from_aiv": V2C}
# The consumer core of each direction frees its slots back to the producer.
_FREE_OP = {C2V: "system.tfree_to_aic", V2C: "system.tfree_to_aiv"}
_INIT_OP = {AIC: "system.aic_initialize_pipe", AIV: "system.aiv_initialize_pipe"}
_CONSUMER = {C2V: AIV, V2C: AIC}


@dataclass
class _Pipe:
    """The one pipe of a mixed kernel (PyPTO's automatic set-up keeps a single pipe whose
    dir_mask covers both directions): its slot size is the largest tile it carries, and it
    keeps DEFAULT_SLOT_NUM slots per direction, or one when no direction carries more than one
    tile per run (no pop in a loop, at most one per direction): a second slot would never be
    filled, and it takes a whole tile of the consumer's Vec / Mat (a decode step's [16, 1024]
    scores popped once reserved 128 KiB of Vec for a 64 KiB tile)."""

    kernel: str
    dir_mask: int
    slot_size: int
    slot_num: int = DEFAULT_SLOT_NUM
    # Per direction, the largest tile it carries (bytes).
    largest: dict[int, int] = field(default_factory=dict)

    @staticmethod
    def of(sides: dict[str, _Side], kernel: str) -> _Pipe | None:
        dir_mask = 0
        pops: dict[int, int] = {}
        largest: dict[int, int] = {}
        looped = False
        for side in SIDES:
            for node, in_loop in _calls(sides[side].function.body, False):
                if node.op in _POP_DIRECTION:
                    direction = _POP_DIRECTION[node.op]
                    dir_mask |= direction
                    pops[direction] = pops.get(direction, 0) + 1
                    looped = looped or in_loop
                    if isinstance(node.type, TileType):
                        largest[direction] = max(largest.get(direction, 0), physical_bytes_2d(node.type))
        if not dir_mask:
            return None
        slot_num = DEFAULT_SLOT_NUM if looped else min(DEFAULT_SLOT_NUM, max(pops.values()))
        return _Pipe(kernel, dir_mask, max(largest.values(), default=0), slot_num, largest)

    def region_size(self, direction: int) -> int:
        """The bytes of the consumer's slot region of `direction`: slot k of the ring starts
        k slot sizes in (pto-isa's TPOP: CONSUMER_BUF + (index % SLOT_NUM) * SLOT_SIZE) and a pop
        writes only its own tile, so the last slot needs only the largest tile this direction
        carries, not the pipe's slot size (which the other direction may set: a [112, 272] FP32
        operand crossing to the cube must not reserve as much Vec for a [112, 32] product
        coming back)."""
        return (self.slot_num - 1) * self.slot_size + self.largest.get(direction, self.slot_size)

    def gm_slot_buffer(self, span: Span) -> L.Var:
        """The GM ring the a2/a3 pipe moves its slots through (FP32 words)."""
        words = -(-self.slot_num * self.slot_size * _directions(self.dir_mask) // 4)
        return L.Var(name="gm_pipe_buffer", type=TensorType((words,), DataType.FP32), span=span)

    @staticmethod
    def allocate(gm: L.Var) -> L.Stmt:
        assert isinstance(gm.type, TensorType)
        span = gm.span
        args: tuple[L.Expr, ...] = (_int_list(gm.type.shape, gm),)
        attrs = (("dtype", gm.type.dtype),)
        create = L.Call(op="tensor.create", args=args, attrs=attrs,
                        type=REGISTRY.deduce("tensor.create", args, attrs), span=span)
        return L.AssignStmt(target=gm, value=create, span=span)

    def install(self, function: L.Function, side: str, gm: L.Var | None) -> L.Function:
        """`function` with the pipe's set-up at its head, a tfree after each of its pops, and
        the GM slot buffer as its last parameter (a2/a3)."""
        span = function.span
        used = _uses(function) | {p.var.name for p in function.params}
        buffers: dict[int, L.Expr] = {}
        prologue: list[L.Stmt] = []
        for direction in (C2V, V2C):
            if not self.dir_mask & direction:
                continue
            name = FIFO_NAMES[direction]
            var = L.Var(name=_fresh(name, used), type=I32, span=span)
            if _CONSUMER[direction] == side:
                attrs: tuple[tuple[str, AttrValue], ...] = (
                    ("name", name), ("size", self.region_size(direction)),
                    ("location", CONSUMER_SPACE[direction]), ("base", AUTO_BASE))
                op = "system.reserve_buffer"
            else:
                peer = self.kernel + _SUFFIX[_CONSUMER[direction]]
                attrs, op = (("name", name), ("peer_func", peer)), "system.import_peer_buffer"
            call = L.Call(op=op, args=(), attrs=attrs, type=REGISTRY.deduce(op, (), attrs), span=span)
            prologue.append(L.AssignStmt(target=var, value=call, span=span))
            buffers[direction] = var
        zero = L.ConstInt(value=0, dtype=DataType.INT32, span=span)
        init_args: tuple[L.Expr, ...] = (buffers.get(C2V, zero), buffers.get(V2C, zero)) + ((gm,) if gm else ())
        init_attrs = (("dir_mask", self.dir_mask), ("slot_size", self.slot_size), ("slot_num", self.slot_num))
        init = L.Call(op=_INIT_OP[side], args=init_args, attrs=init_attrs,
                      type=REGISTRY.deduce(_INIT_OP[side], init_args, init_attrs), span=span)
        prologue.append(L.EvalStmt(value=init, span=span))
        body = tuple(_free_after_pops(list(function.body), used))
        params = function.params + ((L.Param(var=gm, direction="InOut", span=span),) if gm else ())
        return L.Function(name=function.name, func_type=function.func_type, params=params,
                          return_types=function.return_types, body=(*prologue, *body), attrs=function.attrs,
                          span=span)


def _calls(body: Sequence[L.Stmt], in_loop: bool) -> Iterator[tuple[L.Call, bool]]:
    """Every call of `body`, with whether it sits inside a loop."""
    for stmt in body:
        if isinstance(stmt, L.ForStmt):  # (no while loop below the Tensor language)
            yield from _calls(stmt.body, True)
        elif isinstance(stmt, L.IfStmt):
            yield from _calls(stmt.then_body, in_loop)
            yield from _calls(stmt.else_body, in_loop)
        else:
            yield from ((node, in_loop) for node in walk(stmt) if isinstance(node, L.Call))


def _directions(dir_mask: int) -> int:
    return bin(dir_mask).count("1")


def physical_bytes_2d(tile: TileType) -> int:
    rows = 1
    for extent in tile.shape[:-1]:
        rows *= extent
    return rows * tile.shape[-1] * tile.dtype.byte_width


def _fresh(base: str, used: set[str]) -> str:
    name, suffix = base, 0
    while name in used:
        suffix += 1
        name = f"{base}_{suffix}"
    used.add(name)
    return name


def _free_after_pops(body: list[L.Stmt], used: set[str]) -> list[L.Stmt]:
    """After each pop, the slot is released as soon as the popped tile is dead in its block
    (tpop -> direct users -> tfree -> next tpop). A popped tile that outlives its block (it is
    yielded or returned), or that is still live at the next pop of its direction (which would
    then hold two slots, and with slot_num of them can deadlock the producer), is first copied
    out of the slot into a buffer of its own, so the slot is released before the next pop and
    the carried value does not live in the pipe."""
    out: list[L.Stmt] = []
    index = 0
    while index < len(body):
        stmt = body[index]
        if isinstance(stmt, (L.ForStmt, L.IfStmt)):
            stmt = _free_in_regions(stmt, used)
        out.append(stmt)
        index += 1
        pop = _popped(stmt)
        if pop is None:
            continue
        var, direction = pop
        rest = body[index:]
        readers = _slot_readers(var.name, rest)
        last = max((k for k, s in enumerate(rest) if readers & _uses(s)), default=-1)
        escapes = bool(readers & _uses_all(s for s in rest if isinstance(s, (L.YieldStmt, L.ReturnStmt))))
        if escapes or any(_pops_in(s, direction) for s in rest[:last + 1]):
            copy_var, copy = _slot_copy(var, used)
            out.append(copy)
            rest = [_renamed(s, var.name, copy_var) for s in rest]
            body = body[:index] + rest
            last = -1
        free = L.Call(op=_FREE_OP[direction], args=(var,), attrs=(), type=NoneType(), span=var.span)
        pending = L.EvalStmt(value=free, span=stmt.span)
        for s in rest[:last + 1]:
            if isinstance(s, (L.ForStmt, L.IfStmt)):
                s = _free_in_regions(s, used)
            out.append(s)
        out.append(pending)
        index += last + 1
    return out


def _slot_readers(name: str, rest: Sequence[L.Stmt]) -> set[str]:
    """`name` and every value that reads its bytes in `rest`: zero-copy views of it (a slice, a
    reshape, a reinterpret: `Registry.is_view`), views of those, plain copies of the name, and
    the results of a loop or branch that yields one. The slot holds their bytes too, so it is
    released only after their last use (a tfree before a read of a window of the popped tile
    hands the slot back to the producer while the window is still to be read)."""
    readers = {name}

    def scan(body: Sequence[L.Stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, L.AssignStmt):
                value = stmt.value
                if isinstance(value, L.Var) and value.name in readers:
                    readers.add(stmt.target.name)
                elif isinstance(value, L.Call) and REGISTRY.is_view(value.op) and value.args \
                        and isinstance(value.args[0], L.Var) and value.args[0].name in readers:
                    readers.add(stmt.target.name)
            elif isinstance(stmt, (L.ForStmt, L.IfStmt)):
                for region in ((stmt.body,) if isinstance(stmt, L.ForStmt) else (stmt.then_body, stmt.else_body)):
                    scan(region)
                    yields = [s for s in region if isinstance(s, L.YieldStmt)]
                    if readers & _uses_all(yields):
                        readers.update(r.name for r in stmt.results)

    scan(rest)
    return readers


def _free_in_regions(stmt: L.ForStmt | L.IfStmt, used: set[str]) -> L.Stmt:
    if isinstance(stmt, L.ForStmt):
        return L.ForStmt(loop_var=stmt.loop_var, start=stmt.start, stop=stmt.stop, step=stmt.step,
                         iter_args=stmt.iter_args, body=tuple(_free_after_pops(list(stmt.body), used)),
                         results=stmt.results, kind=stmt.kind, attrs=stmt.attrs, span=stmt.span)
    return L.IfStmt(cond=stmt.cond, then_body=tuple(_free_after_pops(list(stmt.then_body), used)),
                    else_body=tuple(_free_after_pops(list(stmt.else_body), used)), results=stmt.results,
                    span=stmt.span)


def _popped(stmt: L.Stmt) -> tuple[L.Var, int] | None:
    if isinstance(stmt, L.AssignStmt) and isinstance(stmt.value, L.Call) and stmt.value.op in _POP_DIRECTION:
        return stmt.target, _POP_DIRECTION[stmt.value.op]
    return None


def _pops_in(stmt: L.Stmt, direction: int) -> bool:
    return any(isinstance(n, L.Call) and _POP_DIRECTION.get(n.op) == direction for n in walk(stmt))


def _slot_copy(var: L.Var, used: set[str]) -> tuple[L.Var, L.Stmt]:
    """`copy = tile.move(var)` into a fresh buffer of the same space (TMOV within Vec / Mat)."""
    tile = var.type
    assert isinstance(tile, TileType) and tile.memory_space is not None
    attrs = (("target_memory", tile.memory_space),)
    move = L.Call(op="tile.move", args=(var,), attrs=attrs,
                  type=REGISTRY.deduce("tile.move", (var,), attrs, placed=True), span=var.span)
    copy = L.Var(name=_fresh(var.name + "_local", used), type=move.type, span=var.span)
    return copy, L.AssignStmt(target=copy, value=move, span=var.span)


def _renamed(node: L.Stmt, old: str, new: L.Var) -> L.Stmt:
    """`node` with every use of variable `old` replaced by `new`."""

    class _Renamer(L.Rewriter):
        @override
        def visit_Var(self, var: L.Var) -> L.Var:
            return new if var.name == old else var

    result = _Renamer().visit_Stmt(node)
    assert not isinstance(result, tuple)
    return result


def _result_var(value: L.Expr, fallback: str, span: object) -> L.Var:
    if isinstance(value, L.Var):
        return L.Var(name=value.name, type=value.type, span=value.span)
    return L.Var(name=fallback, type=_type_of(value), span=value.span)


def _type_of(expr: L.Expr) -> Type:
    ty = getattr(expr, "type", None)
    if isinstance(ty, (ScalarType, TensorType, TileType, TupleType, NoneType)):
        return ty
    raise CompileError(Diagnostic.at(expr, RULE, "a kernel returns a value without a type"))


class _Rewriter(L.Rewriter):
    def __init__(self, backend: BackendHandler) -> None:
        super().__init__()
        self.expander = _Expander(backend)

    @override
    def visit_Program(self, node: L.Program) -> L.Program:
        functions: list[L.Function] = []
        changed = False
        for function in node.functions:
            if function.func_type == INCORE and self.expander.boundaries.has_any(function):
                functions.extend(self.expander.expand(function))
                self.bump("kernels-split")
                changed = True
            else:
                functions.append(function)
        if not changed:
            return node
        return L.Program(name=node.name, functions=tuple(functions), span=node.span)


@dataclass(frozen=True)
class ExpandMixedKernel(Pass[L.Program, L.Program]):
    """Split InCore functions with cross-core moves into AIC + AIV functions and a Group."""

    name: ClassVar[str] = "expand-mixed-kernel"
    spec_name: ClassVar[str] = "ExpandMixedKernel"
    source: ClassVar[Language] = L0Tiled
    target: ClassVar[Language] = L0Tiled
    requires: ClassVar[frozenset[str]] = frozenset({"TileMemoryPlaced"})
    produces: ClassVar[frozenset[str]] = frozenset({"GroupLaunchesTogether", "SlotReadsBeforeFree", "BarriersOnEveryCore",
                                                    "CrossCoreGmOrdered"})

    @override
    def run(self, program: L.Program, ctx: PassContext) -> L.Program:
        return ctx.rewrite(_Rewriter(backend_handler(ctx)), program)


__all__ = ["ExpandMixedKernel", "slice_block"]
