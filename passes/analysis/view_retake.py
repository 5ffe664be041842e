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

`regions_read` gives, per tile variable, the region its consumers read (the registry's
`read_extent`, through aliases and re-views mapped to their source by `ViewValid`): a rewrite
that copies a value before its consumers (LegalizeVecLayouts' copy of a re-viewed window) copies
what they read, not only the value's valid region.
"""

from __future__ import annotations

import languages.gen.tile_placed as TP
from languages.ops import REGISTRY
from languages.ops.data_extents import read_extent
from languages.types import DataType, TileType
from nanopass.node import Node, Span, walk


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


def _join(a: tuple[int, ...] | None, b: tuple[int, ...]) -> tuple[int, ...]:
    return b if a is None or len(a) != len(b) else tuple(max(x, y) for x, y in zip(a, b))


def regions_read(node: Node) -> dict[str, tuple[int, ...]]:
    """The region of each tile variable in `node` (a function) that its consumers read, joined
    over them, where it is static: an op's read of its operand (`read_extent`), an alias's reads,
    and a re-view's (a reinterpret_view, a reshape, a transpose view: `Registry.re_views_from_base`)
    mapped to the region of its source by the view's `ViewValid.source_region`. A window of a
    variable reads nothing itself (it lies inside its source's valid region)."""
    reads: dict[str, tuple[int, ...]] = {}
    defs: list[tuple[str, TP.Expr]] = []
    for n in walk(node):
        if isinstance(n, TP.AssignStmt):
            defs.append((n.target.name, n.value))
        if not isinstance(n, TP.Call) or n.op not in REGISTRY:
            continue
        opdef = REGISTRY.get(n.op)
        if REGISTRY.re_views_from_base(n.op):
            continue  # its consumers' reads are mapped to its source below
        for index, arg in enumerate(n.args):
            if not isinstance(arg, TP.Var) or not isinstance(arg.type, TileType):
                continue
            read = read_extent(opdef, index, arg.type, n.type, n.attrs, n.args)
            if read is not None and all(isinstance(e, int) for e in read):
                reads[arg.name] = _join(reads.get(arg.name), tuple(int(e) for e in read if e is not None))
    for name, value in reversed(defs):  # a use follows its definition: a chain is mapped back whole
        region = reads.get(name)
        if region is None:
            continue
        if isinstance(value, TP.Var):
            reads[value.name] = _join(reads.get(value.name), region)
            continue
        if not isinstance(value, TP.Call) or value.op not in REGISTRY or not REGISTRY.re_views_from_base(value.op) \
                or not value.args or not isinstance(value.args[0], TP.Var):
            continue
        fact = REGISTRY.get(value.op).view_valid
        source = value.args[0]
        needed = fact.source_region(source.type, value.type, value.args, value.attrs, region) if fact else None
        if needed is not None:
            reads[source.name] = _join(reads.get(source.name), tuple(needed))
    return reads
