"""ConvertToSSA (DSL → DSL): PyPTO-style reassignment becomes SSA form (PyPTO's fourth frontend
pass, docs/en/dev/passes/04-convert_to_ssa.md; JIT_FRONTEND.md §6 "SSA summary").

The parser keeps the user's names: `x = pl.add(x, y)` assigns `x` again, a loop body or an if
branch assigns the enclosing function's variables. This pass renames every redefinition (`x_1`,
`x_2`, ...), carries each reassigned name a later iteration or the code after the loop may read
(iter arg `x_iter`, yielded, the loop's result rebinding `x`), and merges each name an if's
branch assigns that is read after it (both branches yield it into a result). The rules, the
liveness and the one error (a carried or merged value changing type) are in
languages/ssa_conversion.py, which the parser also applies to user text of a later language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.dsl as D
from languages.decls import DSL
from languages.ssa_conversion import convert_program
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext


@dataclass(frozen=True)
class ConvertToSSA(Pass[D.Program, D.Program]):
    """Reassigned names become fresh variables, loop carries and if merges (SSA form)."""

    name: ClassVar[str] = "convert-to-ssa"
    spec_name: ClassVar[str] = "ConvertToSSA"
    source: ClassVar[Language] = DSL
    target: ClassVar[Language] = DSL
    produces: ClassVar[frozenset[str]] = frozenset({"SSAForm", "UseAfterDef", "SymbolicExtentsBound"})

    @override
    def run(self, program: D.Program, ctx: PassContext) -> D.Program:
        converted = convert_program(program, ctx.bump)
        assert isinstance(converted, D.Program)
        return converted
