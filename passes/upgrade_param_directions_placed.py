"""UpgradeParamDirections on TilePlaced (`upgrade-param-directions-placed`, right after
InferTileMemorySpace): the spec's UpgradeParamDirections for kernels written at the tile level
with memory spaces (a TilePlaced program, like PyPTO's hand-placed matmul tests), which enter the
pipeline after `upgrade-param-directions`.

Without it such a kernel's store into an `In` parameter was compiled, but the host treated the
parameter as read-only and the write was lost: the simulator disagreed with the interpreter
(PyPTO's `rhs_valid_k_containment` program). On a program that came through the TileUnplaced
instance it changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_placed as P
from languages.decls import TilePlaced
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext
from passes.upgrade_param_directions import upgraded_function


class PlacedParamDirectionMutator(P.Rewriter):
    @override
    def visit_Function(self, node: P.Function) -> P.Function:
        result = upgraded_function(node, self)
        assert isinstance(result, P.Function)
        return result



@dataclass(frozen=True)
class UpgradeParamDirectionsPlaced(Pass[P.Program, P.Program]):
    """The same upgrade for kernels written at TilePlaced (see the module docstring)."""

    name: ClassVar[str] = "upgrade-param-directions-placed"
    spec_name: ClassVar[str] = "UpgradeParamDirections"
    source: ClassVar[Language] = TilePlaced
    target: ClassVar[Language] = TilePlaced
    produces: ClassVar[frozenset[str]] = frozenset({"WrittenParamsDeclared"})

    @override
    def run(self, program: P.Program, ctx: PassContext) -> P.Program:
        return ctx.rewrite(PlacedParamDirectionMutator(), program)
