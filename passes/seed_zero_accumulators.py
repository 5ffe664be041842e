"""SeedZeroAccumulators (Tensor → Tensor): a zero-filled matmul_acc seed becomes a predicated chain.

Users seed a split-K accumulation with `acc = pl.tensor.full([M, N], pl.FP32, 0.0)`. An
accumulator lives in Acc (L0C), which only the cube unit writes: no target has a Vec → Acc
data path to copy a filled tile there. But a fresh cube accumulation starts from +0.0
(NUMERICS.md section 1), exactly like accumulating onto a +0.0-filled accumulator, so the fill
is replaced, bit for bit, by an uninitialised `tensor.create` (allocated in Acc by
ConvertTensorToTileOps, HandleBoxedAccCreate) plus an `init_cond` on the first accumulation:

- straight-line `c = tensor.matmul_acc(zeros, a, b)` → `tensor.matmul_acc(acc, a, b, True)`
  (a literal True, not a plain matmul: AutoTileMatmulL0 keeps the chain on one L0C buffer);
- `zeros` as the init of a `pl.range` / `pl.pipeline` iter-arg whose only use is the
  accumulator of a matmul_acc in the body → `init_cond = (k == start)`, and-ed over every loop
  between the seed and the use, or-ed with the user's own init_cond (on the first step both
  spellings start from +0.0, so overwriting is exact whichever the user asked for).

The rewrite needs the seed and every iter-arg it reaches to have exactly one use, no loop in
between that is not the carrying one (a use inside a nested loop runs more than once), and a
loop that provably runs (or whose result is unused: a zero-trip loop returns the seed itself).
-0.0 is never rewritten: an accumulation whose products are all -0.0 sums to -0.0 from a -0.0
start but to +0.0 from a fresh one. A fill the rewrite cannot prove exact, yet that reaches a
matmul_acc accumulator, cannot be placed on a target without Vec → Acc; it is reported here, at
the user's line, with the two spellings that do compile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, cast

from typing_extensions import override

import languages.gen.tensor as T
from backend.targets.handlers import BackendHandler
from languages.decls import Tensor
from languages.memory_space import MemorySpace
from languages.types import BOOL
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import walk
from nanopass.passes import Pass, PassContext

RULE = "SeedZeroAccumulators"
INCORE = "InCore"
FILL_OP = "tensor.full"
SEED_OP = "tensor.create"
ACCUMULATE_OP = "tensor.matmul_acc"
ACC_OPERAND = 0
INIT_COND_OPERAND = 3
# Loops whose iterations run in order, so "the first iteration" is the one at `start`.
ORDERED_LOOP_KINDS = frozenset({"range", "pipeline"})


# -- where each value is used ------------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    """One read of a variable: as a matmul_acc accumulator (`call`), as the init of iter-arg
    `index` of `loop`, or anything else; `loops` are the loops enclosing the read."""

    kind: str  # "acc" | "init" | "alias" (`b = a`: the same value under another name) | "other"
    stmt: T.Stmt
    loops: tuple[T.ForStmt, ...]
    call: T.Call | None = None
    loop: T.ForStmt | None = None
    index: int = 0


@dataclass
class UseIndex:
    """Every use of every variable of one function, and each tensor.full definition."""

    uses: dict[str, list[Use]] = field(default_factory=dict)
    fills: list[tuple[T.AssignStmt, tuple[T.ForStmt, ...]]] = field(default_factory=list)
    creates: list[tuple[T.AssignStmt, tuple[T.ForStmt, ...]]] = field(default_factory=list)

    def of(self, name: str) -> list[Use]:
        return self.uses.get(name, [])

    def add(self, expr: T.Expr, use: Use) -> None:
        """Record every variable read by `expr` (kind "other" below the top)."""
        if isinstance(expr, T.Var):
            self.uses.setdefault(expr.name, []).append(use)
            return
        for child in expr.children():
            self.add(cast(T.Expr, child), Use("other", use.stmt, use.loops))

    def scan_block(self, block: tuple[T.Stmt, ...], loops: tuple[T.ForStmt, ...]) -> None:
        for stmt in block:
            self.scan(stmt, loops)

    def scan(self, stmt: T.Stmt, loops: tuple[T.ForStmt, ...]) -> None:
        other = Use("other", stmt, loops)
        if isinstance(stmt, T.AssignStmt):
            if isinstance(stmt.value, T.Call) and stmt.value.op == FILL_OP:
                self.fills.append((stmt, loops))
            if isinstance(stmt.value, T.Call) and stmt.value.op == SEED_OP:
                self.creates.append((stmt, loops))
            if isinstance(stmt.value, T.Var):
                # An alias (UnrollLoops' and ConvertToSSA's carries are spelled so): its reads
                # are the value's reads.
                self.uses.setdefault(stmt.value.name, []).append(Use("alias", stmt, loops))
                return
            self.scan_value(stmt, stmt.value, loops)
        elif isinstance(stmt, T.EvalStmt):
            self.scan_value(stmt, stmt.value, loops)
        elif isinstance(stmt, T.ForStmt):
            for expr in (stmt.start, stmt.stop, stmt.step):
                self.add(expr, other)
            for index, iter_arg in enumerate(stmt.iter_args):
                self.add(iter_arg.init, Use("init", stmt, loops, loop=stmt, index=index))
            self.scan_block(stmt.body, (*loops, stmt))
        elif isinstance(stmt, T.WhileStmt):
            # A seed read in a while loop is not rewritten: every read there counts as "other".
            for node in walk(stmt):
                if isinstance(node, T.Var):
                    self.uses.setdefault(node.name, []).append(other)
        elif isinstance(stmt, T.IfStmt):
            self.add(stmt.cond, other)
            self.scan_block(stmt.then_body, loops)
            self.scan_block(stmt.else_body, loops)
        elif isinstance(stmt, (T.YieldStmt, T.ReturnStmt)):
            for value in stmt.values:
                self.add(value, other)

    def scan_value(self, stmt: T.Stmt, value: T.Expr, loops: tuple[T.ForStmt, ...]) -> None:
        if not isinstance(value, T.Call) or value.op != ACCUMULATE_OP:
            self.add(value, Use("other", stmt, loops))
            return
        for index, arg in enumerate(value.args):
            kind = "acc" if index == ACC_OPERAND and isinstance(arg, T.Var) else "other"
            self.add(arg, Use(kind, stmt, loops, call=value))


def index_uses(function: T.Function) -> UseIndex:
    index = UseIndex()
    index.scan_block(function.body, ())
    return index


# -- the analysis ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rewrite:
    """One proven seed: its fill becomes a create, its accumulation gets `first` as predicate."""

    fill: T.AssignStmt
    accumulate: T.Call
    first_steps: tuple[T.ForStmt, ...]  # loops whose first iteration is the first accumulation


class NotRewritable(Exception):
    """Why a fill that reaches an accumulator cannot be rewritten (message, offending node)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_positive_zero(value: T.Expr) -> bool:
    if isinstance(value, T.ConstInt):
        return value.value == 0
    if isinstance(value, T.ConstFloat):
        return value.value == 0.0 and math.copysign(1.0, value.value) > 0
    return False


def describe_value(value: T.Expr) -> str:
    if isinstance(value, T.ConstFloat):
        return repr(value.value)
    if isinstance(value, T.ConstInt):
        return str(value.value)
    return "a non-constant value"


def static_trip_count(loop: T.ForStmt) -> int | None:
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, T.ConstInt) for b in bounds):
        return None
    start, stop, step = (b.value for b in bounds if isinstance(b, T.ConstInt))
    if step > 0:
        return max(0, -(-(stop - start) // step))
    if step < 0:
        return max(0, -(-(start - stop) // -step))
    return None


def line_of(node: T.Stmt | T.Call) -> str:
    return f"line {node.span.line}" if node.span.line else "a later statement"


class SeedAnalysis:
    """Follows one fill's value to the accumulator it seeds (see the module docstring)."""

    def __init__(self, uses: UseIndex) -> None:
        self.uses = uses

    def reaches_accumulator(self, name: str) -> bool:
        """The value (or an iter-arg it seeds) is read as a matmul_acc accumulator somewhere."""
        for use in self.uses.of(name):
            if use.kind == "acc":
                return True
            if use.kind == "alias" and isinstance(use.stmt, T.AssignStmt) and \
                    self.reaches_accumulator(use.stmt.target.name):
                return True
            if use.kind == "init" and use.loop is not None and \
                    self.reaches_accumulator(use.loop.iter_args[use.index].var.name):
                return True
        return False

    def prove(self, fill: T.AssignStmt, loops: tuple[T.ForStmt, ...]) -> Rewrite:
        assert isinstance(fill.value, T.Call)
        value = fill.value.args[1]
        if not is_positive_zero(value):
            raise NotRewritable(f"it is filled with {describe_value(value)}, not +0; a fresh accumulation "
                                "starts from +0.0, and from a -0.0 start a sum of -0.0 products stays -0.0"
                                if isinstance(value, T.ConstFloat) and value.value == 0.0
                                else f"it is filled with {describe_value(value)}, and only a +0 fill equals "
                                     "the +0.0 a fresh accumulation starts from")
        accumulate, first_steps = self.follow(fill.target.name, loops, ())
        return Rewrite(fill, accumulate, first_steps)

    def follow(self, name: str, loops: tuple[T.ForStmt, ...],
               first_steps: tuple[T.ForStmt, ...]) -> tuple[T.Call, tuple[T.ForStmt, ...]]:
        uses = self.uses.of(name)
        if len(uses) != 1:
            where = ", ".join(line_of(u.stmt) for u in uses)
            raise NotRewritable(f"`{name}` is read {len(uses)} times ({where}), so it must hold the zeros "
                                "in memory; only a value read once, as the accumulator, can start empty")
        (use,) = uses
        if len(use.loops) != len(loops):
            raise NotRewritable(f"`{name}` is read inside a loop nested in the one that defines it "
                                f"({line_of(use.stmt)}), so that read runs more than once")
        if use.kind == "acc" and use.call is not None:
            return use.call, first_steps
        if use.kind == "alias" and isinstance(use.stmt, T.AssignStmt):
            return self.follow(use.stmt.target.name, loops, first_steps)
        if use.kind == "init" and use.loop is not None:
            loop = use.loop
            self.check_first_iteration_runs(loop, use.index)
            return self.follow(loop.iter_args[use.index].var.name, (*loops, loop), (*first_steps, loop))
        raise NotRewritable(f"`{name}` is also read as something other than the accumulator ({line_of(use.stmt)})")

    def check_first_iteration_runs(self, loop: T.ForStmt, index: int) -> None:
        if loop.kind not in ORDERED_LOOP_KINDS:
            raise NotRewritable(f"the loop at {line_of(loop)} is a pl.{loop.kind} loop, whose iterations have no "
                                "first one to start the sum in")
        trips = static_trip_count(loop)
        result_used = bool(self.uses.of(loop.results[index].name)) if index < len(loop.results) else False
        if result_used and (trips is None or trips < 1):
            count = "may run no iteration" if trips is None else "runs no iteration"
            raise NotRewritable(f"the loop at {line_of(loop)} {count}, and then its result is the zeros "
                                "themselves")


# -- the rewrite -----------------------------------------------------------------------------------


def first_step_predicate(rewrite: Rewrite) -> T.Expr:
    """True on the accumulation that reads the seed: each carrying loop at its first iteration,
    or-ed with the user's own init_cond."""
    span = rewrite.accumulate.span
    predicate: T.Expr | None = None
    for loop in rewrite.first_steps:
        is_first = T.BinOp("==", loop.loop_var, loop.start, BOOL, span=span)
        predicate = is_first if predicate is None else T.BinOp("and", predicate, is_first, BOOL, span=span)
    args = rewrite.accumulate.args
    user = args[INIT_COND_OPERAND] if len(args) > INIT_COND_OPERAND else None
    if predicate is None or (isinstance(user, T.ConstBool) and user.value):
        return T.ConstBool(True, span=span)
    if user is None or isinstance(user, T.ConstBool) or user == predicate:
        return predicate
    return T.BinOp("or", predicate, user, BOOL, span=span)


def predicated(rewrite: Rewrite) -> T.Call:
    call = rewrite.accumulate
    args = (*call.args[:INIT_COND_OPERAND], first_step_predicate(rewrite))
    return T.Call(call.op, args, call.attrs, call.type, span=call.span)


def empty_seed(fill: T.Call) -> T.Call:
    return T.Call(SEED_OP, (fill.args[0],), fill.attrs, fill.type, span=fill.span)


class _SeedRewriter(T.Rewriter):
    """Replaces the proven calls (by identity: each is one node of the analysed program)."""

    def __init__(self, replacements: dict[int, T.Call]) -> None:
        super().__init__()
        self.replacements = replacements

    @override
    def visit_Call(self, node: T.Call) -> T.Expr:
        replacement = self.replacements.get(id(node))
        return replacement if replacement is not None else super().visit_Call(node)


# -- the pass ----------------------------------------------------------------------------------------


def _placement_error(fill: T.AssignStmt, reason: str, backend: str) -> CompileError:
    name = fill.target.name
    return CompileError(Diagnostic.at(
        fill, RULE,
        f"`{name}` seeds a matmul_acc accumulator, which lives in Acc (L0C) where only the cube unit "
        f"writes, and {backend} has no Vec → Acc data path to copy a filled tile there; the fill cannot be "
        f"replaced by an accumulation that starts from +0.0 because {reason}",
        "seed the chain with pl.matmul for the first K block and pl.matmul_acc for the rest, or allocate "
        "the accumulator with pl.create_tensor and pass init_cond (e.g. `init_cond=k == 0`) to the first "
        "pl.matmul_acc; add a nonzero constant to the result afterwards (pl.adds)"))


def _uninitialised_read(analysis: SeedAnalysis, create: T.AssignStmt,
                        loops: tuple[T.ForStmt, ...]) -> Diagnostic | None:
    """A pl.create_tensor read only as the accumulator of a matmul_acc that never starts the sum
    afresh: the first accumulation adds the product to whatever L0C held."""
    try:
        accumulate, first_steps = analysis.follow(create.target.name, loops, ())
    except NotRewritable:
        return None
    if len(accumulate.args) > INIT_COND_OPERAND:
        return None
    first = " and ".join(f"{loop.loop_var.name} == {_text(loop.start)}" for loop in first_steps) or "True"
    return Diagnostic.at(
        accumulate, RULE,
        f"the accumulator `{_text(accumulate.args[ACC_OPERAND])}` starts as `{create.target.name}` (line "
        f"{create.span.line}), which is never written: the first accumulation adds to uninitialised L0C",
        f"pass init_cond={first} to this pl.matmul_acc, or seed it with pl.full(shape, dtype, 0.0) / pl.matmul",
        severity="warning")


def _calls_under_branches(function: T.Function) -> set[int]:
    return {id(node) for stmt in walk(function) if isinstance(stmt, T.IfStmt)
            for branch in (stmt.then_body, stmt.else_body) for inner in branch for node in walk(inner)
            if isinstance(node, T.Call)}


def _text(expr: T.Expr) -> str:
    if isinstance(expr, T.ConstInt):
        return str(expr.value)
    return expr.name if isinstance(expr, T.Var) else "start"


@dataclass(frozen=True)
class SeedZeroAccumulators(Pass[T.Program, T.Program]):
    """Replace a +0 tensor.full matmul_acc seed by tensor.create and an init_cond on its first step."""

    name: ClassVar[str] = "seed-zero-accumulators"
    spec_name: ClassVar[str] = "SeedZeroAccumulators"
    source: ClassVar[Language] = Tensor
    target: ClassVar[Language] = Tensor
    # The analysis follows single SSA definitions and reads calls as whole statements.
    requires: ClassVar[frozenset[str]] = frozenset({"SSAForm", "NormalizedStmtStructure"})
    produces: ClassVar[frozenset[str]] = frozenset()
    # Types are unchanged (tensor.create deduces tensor.full's type; init_cond keeps matmul_acc's).
    invalidates: ClassVar[frozenset[str]] = frozenset()

    @override
    def run(self, program: T.Program, ctx: PassContext) -> T.Program:
        backend = ctx.backend if isinstance(ctx.backend, BackendHandler) else None
        can_fill_acc = backend is not None and backend.can_move(MemorySpace.Vec, MemorySpace.Acc)
        backend_name = backend.name if backend is not None else (ctx.backend_name or "the target")
        replacements: dict[int, T.Call] = {}
        for function in program.functions:
            if function.func_type == INCORE:
                self._plan(function, replacements, backend_name, can_fill_acc, ctx)
        rewriter = _SeedRewriter(replacements)
        result = rewriter.visit_Program(program)
        rewriter.bump("zero_seeds_rewritten", len(replacements) // 2)
        ctx.record_rewriter(rewriter)
        return result

    @staticmethod
    def _plan(function: T.Function, replacements: dict[int, T.Call], backend: str, can_fill_acc: bool,
              ctx: PassContext) -> None:
        uses = index_uses(function)
        analysis = SeedAnalysis(uses)
        for fill, loops in uses.fills:
            try:
                rewrite = analysis.prove(fill, loops)
            except NotRewritable as why:
                if analysis.reaches_accumulator(fill.target.name) and not can_fill_acc:
                    raise _placement_error(fill, why.reason, backend) from None
                continue
            assert isinstance(fill.value, T.Call)
            replacements[id(fill.value)] = empty_seed(fill.value)
            replacements[id(rewrite.accumulate)] = predicated(rewrite)
        branch_calls = _calls_under_branches(function)
        for create, loops in uses.creates:
            warning = _uninitialised_read(analysis, create, loops)
            # Under an `if`, the other branch may start the sum (the peeled split-K spelling:
            # `if k == 0: pl.matmul ... else: pl.matmul_acc`), so the read may never happen.
            if warning is not None and id(warning.node) not in branch_calls:
                ctx.warn(warning)
