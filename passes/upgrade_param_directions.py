"""UpgradeParamDirections (TileUnplaced → TileUnplaced): `In` parameters that are written
become `Out` (write-only) or `InOut` (read and written).

Reads and writes are attributed to parameters through GM aliases by AnalyzeCallAccess
(`passes.analysis.param_access`), which takes each operator's argument effects from the op
registry. Parameters the user declared `Out` / `InOut` are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_unplaced as U
from languages.decls import TileUnplaced
from languages.functions import is_kernel_function
from nanopass.langdef import Language
from nanopass.passes import Pass, PassContext
from passes.analysis.param_access import analyze_param_access



class ParamDirectionMutator(U.Rewriter):
    @override
    def visit_Function(self, node: U.Function) -> U.Function:
        if not is_kernel_function(node):
            return node
        report = analyze_param_access(node)
        params = []
        for param in node.params:
            access = report.params.get(param.var.name)
            if param.direction == "In" and access is not None and access.written:
                direction = "InOut" if access.read else "Out"
                self.bump(f"in_to_{direction.lower()}")
                param = U.Param(var=param.var, direction=direction, span=param.span)
            params.append(param)
        if all(a is b for a, b in zip(params, node.params)):
            return node
        return U.Function(name=node.name, func_type=node.func_type, params=tuple(params),
                          return_types=node.return_types, body=node.body, attrs=node.attrs, span=node.span)


@dataclass(frozen=True)
class UpgradeParamDirections(Pass[U.Program, U.Program]):
    """Upgrade written In params of kernels to Out / InOut from argument effects."""

    name: ClassVar[str] = "upgrade-param-directions"
    spec_name: ClassVar[str] = "UpgradeParamDirections"
    source: ClassVar[Language] = TileUnplaced
    target: ClassVar[Language] = TileUnplaced

    @override
    def run(self, program: U.Program, ctx: PassContext) -> U.Program:
        return ctx.rewrite(ParamDirectionMutator(), program)
