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
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext

RULE = "OutlineClusterScopes"
SPLICED = frozenset({"cluster", "runtime"})


class _ToTensor(T.FromDSL):
    @override
    def visit_ScopeStmt(self, node: D.ScopeStmt) -> T.Stmt | tuple[T.Stmt, ...]:
        if node.scope_kind in SPLICED:
            self.bump(f"{node.scope_kind}-scopes-spliced")
            return self.visit_Stmt_block(node.body)
        if node.scope_kind == "hierarchy":
            level = dict(node.attrs).get("level", "?")
            raise CompileError(Diagnostic.at(
                node, RULE, f"not supported yet: pl.at(level=pl.Level.{level}) (hierarchy scopes above the core "
                            "group, PyPTO's OutlineHierarchyScopes)",
                "write kernels in pl.at(level=pl.Level.CORE_GROUP) scopes"))
        raise CompileError(Diagnostic.at(node, RULE, f"a {node.scope_kind} scope is left after OutlineIncoreScopes",
                                         "run outline-incore-scopes before outline-cluster-scopes"))


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
