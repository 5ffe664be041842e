"""The frontend as tests use it: user text parsed and lowered to the Tensor language by the DSL
passes (ConvertToSSA, InlineFunctions, UnrollLoops, OutlineIncoreScopes, OutlineClusterScopes),
for tests of the passes after it that start from PyPTO-style text (which reassigns names, so it
parses as DSL)."""

from __future__ import annotations

import languages.gen.dsl as D
import languages.gen.tensor as T
from languages.decls import DSL
from languages.pl_parser import parse_program
from nanopass.node import Node
from nanopass.passes import PassContext
from passes.convert_to_ssa import ConvertToSSA
from passes.inline_functions import InlineFunctions
from passes.outline_cluster_scopes import OutlineClusterScopes
from passes.outline_incore_scopes import OutlineIncoreScopes
from passes.unroll_loops import UnrollLoops


def to_ssa(program: Node) -> D.Program:
    """A DSL program in SSA form (ConvertToSSA alone)."""
    assert isinstance(program, D.Program)
    return ConvertToSSA().run(program, PassContext())


def lower_dsl(program: Node) -> T.Program:
    """A DSL program through the frontend passes; a Tensor program as it is."""
    if isinstance(program, T.Program):
        return program
    ctx = PassContext()
    dsl = ConvertToSSA().run(program if isinstance(program, D.Program) else _not_dsl(program), ctx)
    dsl = OutlineIncoreScopes().run(UnrollLoops().run(InlineFunctions().run(dsl, ctx), ctx), ctx)
    return OutlineClusterScopes().run(dsl, ctx)


def parse_tensor(text: str, filename: str = "<string>") -> T.Program:
    """`text` (auto-detected, as the CLI reads it) at the Tensor language."""
    return lower_dsl(parse_program(text, filename))


def parse_dsl_ssa(text: str, filename: str = "<string>") -> D.Program:
    """`text` parsed as the DSL language and converted to SSA form."""
    return to_ssa(parse_program(text, filename, DSL))


def _not_dsl(program: Node) -> D.Program:
    raise AssertionError(f"expected a DSL or Tensor program, got {type(program).__module__}")
