"""Must FAIL `mypy --strict` (tests/test_typing.py asserts both errors below).

1. A TileUnplaced program handed to a function typed for TilePlaced programs: languages are
   distinct static types.
2. A PTO pass that forgets `visit_FuncCall`, a kind PTO removed: the default rewriter
   `FromAddressed` leaves it abstract, so the pass cannot be instantiated.
"""

from __future__ import annotations

from typing_extensions import override

import languages.gen.addressed as A
import languages.gen.pto as P
import languages.gen.tile_placed as TP
import languages.gen.tile_unplaced as TU


def infer_placed(program: TP.Program) -> TP.Program:
    return program


unplaced = TU.Program("p", ())
infer_placed(unplaced)  # error: Argument 1 ... incompatible type "languages.gen.tile_unplaced.Program"


class ForgetsFuncCall(P.FromAddressed):
    """Lowers Addressed to PTO but says nothing about FuncCall."""

    @override
    def visit_Program(self, node: A.Program) -> P.Program:
        # PTO's Program is its own kind (it names the target), so every lowering builds it.
        return P.Program(name=node.name, functions=(), target_arch="")


ForgetsFuncCall()  # error: Cannot instantiate abstract class "ForgetsFuncCall" with abstract attribute "visit_FuncCall"
