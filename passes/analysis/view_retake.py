"""A re-view of a whole buffer taken again over a wider valid region.

A view lowered to a pto.treshape (`Registry.re_views_from_base`: tile.reshape,
tile.reinterpret_view, tile.transpose_view) is a handle of its own type on its source's bytes,
and set_validshape takes no view handle (`handle_only`). Such a view is valid over what its
source is valid over (mapped through the view), narrowed further by its own `valid_shape`
argument where it has one (a tile.reshape's). Taken again over a wider region, both must say
so: the source re-validated over the region the view maps to it (`source_region`), and the
view's own narrowing argument stated as the new region (`retaken_view_args`). Re-taking the
view of a re-validated source with its old arguments keeps the old narrowing (finding
66a183e452: `tile.reshape(l2, [16, 16], [1, 1])` of a whole `l2` stayed valid over [1, 1]).

RevalidateReadOperands (an element-wise op's operand read past its valid region) and
LegalizeVecLayouts (an [N, 1] column's row view read past its valid region) both re-take views
through these two functions.
"""

from __future__ import annotations

import languages.gen.tile_placed as TP
from languages.ops import REGISTRY
from languages.types import DataType
from nanopass.node import Span


def source_region(view: TP.Call, region: tuple[int, ...]) -> tuple[int, ...]:
    """The region of `view`'s source that `view` sees as `region` (a same-shape re-view: the same
    region; a transpose_view: its last two extents swapped)."""
    if REGISTRY.get(view.op).semantics[:1] == ("transpose_view",) and len(region) >= 2:
        return (*region[:-2], region[-1], region[-2])
    return region


def retaken_view_args(view: TP.Call, source: TP.Expr, region: tuple[int, ...], span: Span) -> tuple[TP.Expr, ...]:
    """`view`'s arguments with `source` for its source and, where the view narrows its valid
    region by an argument of its own (`valid_shape`), `region` for that argument."""
    args = [source, *view.args[1:]]
    names = REGISTRY.get(view.op).operand_names
    if "valid_shape" in names:
        index = names.index("valid_shape")
        if index < len(args):
            args[index] = TP.TupleExpr(
                elements=tuple(TP.ConstInt(value=v, dtype=DataType.INDEX, span=span) for v in region), span=span)
    return tuple(args)
