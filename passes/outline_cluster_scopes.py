"""OutlineClusterScopes (DSL → Tensor): the last frontend pass; no scope is left after it.

Runs after OutlineIncoreScopes (PyPTO's order), so a `pl.cluster()` scope holds only the calls of
the InCore kernels outlined from the CORE_GROUP scopes inside it. Each kind of scope left:

- `pl.cluster()`: its kernels are co-scheduled on one core group. PyPTO wraps them in a Group
  function; here the calls stay in place, in program order. They exchange data only through
  GM tensors (cube <-> vector FIFOs are introduced later, by ExpandMixedKernel, inside kernels),
  so running them in order computes the same values.
- `pl.manual_scope()` / `pl.scope(mode=...)`: runtime dependency-tracking scopes of
  orchestration code; they change how the runtime orders tasks, not what they compute, and
  this compiler's orchestration runs in program order: the body is spliced in place.
- `pl.spmd(n)`: its one dispatch (a kernel call; a CORE_GROUP scope inside it is one by now)
  moves into a Spmd wrapper `<fn>_spmd_<k>` whose `core_num` attribute launches it once per
  block, and the scope becomes a call of the wrapper. The wrapper forwards its parameters 1:1
  (the call's variables, each with the kernel's direction for it); tensors the outlining
  allocated for the kernel's outputs are allocated before the wrapper call, once (each block
  writes its part of them). PyPTO puts core_num on the dispatch, not the callee
  (JIT_FRONTEND.md section 2.3); here the wrapper carries it, so that every later stage and the
  run API see the launch where they see functions.
- `pl.at(level=<above CORE_GROUP>)` (hierarchy scopes, PyPTO's OutlineHierarchyScopes):
  not supported yet, a located error.
- a CORE_GROUP scope still here means OutlineIncoreScopes did not run (the pipeline requires
  SplitIncoreOrch, so this is an internal error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.dsl as D
import languages.gen.tensor as T
from languages.decls import DSL, Tensor
from languages.functions import SPMD
from languages.types import TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext

RULE = "OutlineClusterScopes"
SPLICED = frozenset({"cluster", "runtime"})


class _ToTensor(T.FromDSL):
    def __init__(self) -> None:
        super().__init__()
        self.callees: dict[str, D.Function] = {}
        self.current = ""
        self.wrappers: list[T.Function] = []
        self.taken: set[str] = set()

    @override
    def visit_Program(self, node: D.Program) -> T.Program:
        self.callees = {f.name: f for f in node.functions}
        self.taken = set(self.callees)
        functions: list[T.Function] = []
        for function in node.functions:
            self.wrappers = []
            converted = self.visit_Function(function)
            functions.extend(self.wrappers)  # callees before their callers
            functions.append(converted)
        return T.Program(name=node.name, functions=tuple(functions), span=node.span)

    @override
    def visit_Function(self, node: D.Function) -> T.Function:
        self.current = node.name
        return super().visit_Function(node)

    @override
    def visit_ScopeStmt(self, node: D.ScopeStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        if node.scope_kind in SPLICED:
            self.bump(f"{node.scope_kind}-scopes-spliced")
            return self.visit_Stmt_block(node.body)
        if node.scope_kind == "spmd":
            return self.spmd(node)
        if node.scope_kind == "hierarchy":
            level = dict(node.attrs).get("level", "?")
            raise CompileError(Diagnostic.at(
                node, RULE, f"not supported yet: pl.at(level=pl.Level.{level}) (hierarchy scopes above the core "
                            "group, PyPTO's OutlineHierarchyScopes)",
                "write kernels in pl.at(level=pl.Level.CORE_GROUP) scopes"))
        raise CompileError(Diagnostic.at(node, RULE, f"a {node.scope_kind} scope is left after OutlineIncoreScopes",
                                         "run outline-incore-scopes before outline-cluster-scopes"))


    def spmd(self, scope: D.ScopeStmt) -> tuple[T.Stmt, ...]:
        body = self.visit_Stmt_block(scope.body)
        allocations = [s for s in body if _is_allocation(s)]
        dispatches = [s for s in body if not _is_allocation(s) and not _is_unpacking(s)]
        call = dispatches[0].value if len(dispatches) == 1 and isinstance(dispatches[0], (T.AssignStmt, T.EvalStmt)) \
            else None
        if not isinstance(call, T.FuncCall) or call.callee not in self.callees:
            raise CompileError(Diagnostic.at(
                scope, RULE, "not supported yet: a pl.spmd(...) body other than one dispatch (a call of a kernel, or "
                             "one pl.at(level=pl.Level.CORE_GROUP) scope)",
                "move the computation into a kernel (or a pl.at(level=pl.Level.CORE_GROUP) scope) and dispatch it "
                "once inside pl.spmd(...)"))
        dispatch = dispatches[0]
        callee = self.callees[call.callee]
        params: dict[str, T.Param] = {}
        for arg, param in zip(call.args, callee.params):
            if isinstance(arg, T.Var) and arg.name not in params:
                params[arg.name] = T.Param(var=arg, direction=param.direction, span=arg.span)
        name = _fresh(f"{self.current}_spmd", self.taken)
        inner: list[T.Stmt] = []
        returns: tuple[Type, ...] = ()
        if isinstance(dispatch, T.AssignStmt):
            result = T.Var(name=f"{dispatch.target.name}_dispatched", type=dispatch.target.type, span=dispatch.span)
            inner.append(T.AssignStmt(target=result, value=call, span=dispatch.span))
            types = call.type.types if isinstance(call.type, TupleType) else (call.type,)
            returned: list[T.Expr] = []
            for index, ty in enumerate(types):
                if not isinstance(call.type, TupleType):
                    returned.append(result)
                    break
                item = T.Var(name=f"{result.name}_{index}", type=ty, span=dispatch.span)
                inner.append(T.AssignStmt(target=item, value=T.TupleGetItem(result, index, ty, span=dispatch.span),
                                          span=dispatch.span))
                returned.append(item)
            inner.append(T.ReturnStmt(values=tuple(returned), span=dispatch.span))
            returns = tuple(types)
        else:
            inner.extend((dispatch, T.ReturnStmt(values=(), span=dispatch.span)))
        self.wrappers.append(T.Function(name=name, func_type=SPMD, params=tuple(params.values()), return_types=returns,
                                        body=tuple(inner), attrs=tuple(scope.attrs), span=scope.span))
        launch = T.FuncCall(callee=name, args=tuple(p.var for p in params.values()), type=call.type, span=call.span)
        launched: T.Stmt = (T.AssignStmt(target=dispatch.target, value=launch, span=dispatch.span)
                            if isinstance(dispatch, T.AssignStmt) else T.EvalStmt(value=launch, span=dispatch.span))
        self.bump("spmd-scopes-outlined")
        return (*allocations, launched, *(s for s in body if _is_unpacking(s)))


def _is_allocation(stmt: T.Stmt) -> bool:
    """`t = tensor.create(...)`: an output buffer OutlineIncoreScopes allocated for the dispatch."""
    return isinstance(stmt, T.AssignStmt) and isinstance(stmt.value, T.Call) and stmt.value.op == "tensor.create"


def _is_unpacking(stmt: T.Stmt) -> bool:
    """`y = ret[0]`: a result of the dispatch taken out of its tuple."""
    return isinstance(stmt, T.AssignStmt) and isinstance(stmt.value, T.TupleGetItem)


def _fresh(base: str, taken: set[str]) -> str:
    index = 0
    while f"{base}_{index}" in taken:
        index += 1
    taken.add(f"{base}_{index}")
    return f"{base}_{index}"


@dataclass(frozen=True)
class OutlineClusterScopes(Pass[D.Program, T.Program]):
    """Lower what is left of the DSL's scopes (cluster and runtime scopes) and enter Tensor."""

    name: ClassVar[str] = "outline-cluster-scopes"
    spec_name: ClassVar[str] = "OutlineClusterScopes"
    source: ClassVar[Language] = DSL
    target: ClassVar[Language] = Tensor
    requires: ClassVar[frozenset[str]] = frozenset({"SplitIncoreOrch", "NoInlineFunctions", "NoUnrollLoops"})

    @override
    def run(self, program: D.Program, ctx: PassContext) -> T.Program:
        return ctx.rewrite(_ToTensor(), program)
