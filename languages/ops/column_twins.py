"""Column twins: the op that computes a row-wise op of an [N, 1] column on its [1, N] row view.

PTOAS takes the row-wise vector instructions on row-major tiles only, and an [N, 1] column is
column-major (TARGET_FACTS.md, implicit tile views). Seen as its [1, N] row, the column's rows
are the row's columns: a row reduction of the column is the column reduction of the row
(row_sum -> col_sum), a per-row broadcast is a per-column one (row_expand_add ->
col_expand_add), and a column broadcast by a [1, 1] value is the row broadcast of the row by
that value. LegalizeVecLayouts rewrites such calls into their twin; the twin's instruction has
its own element types on each target (`assembler_element_types`), so whether the rewrite is
possible is a fact about the op, stated here once for the pass and for the program generator
(which must not draw a call the pass will decline).
"""

from __future__ import annotations

from typing import Sequence

from languages.ops import REGISTRY, OpDef
from languages.ops.target_rules import RESULT, DtypeIn
from languages.types import DataType

# Row-wise families whose op on an [N, 1] column is the column-wise op on its [1, N] row view,
# and the column broadcast whose op on a column (by a [1, 1] value) is the row broadcast of its
# row view by the same value.
COLUMN_TWIN_FAMILIES = {"row_expand": "col_expand", "reduce_row": "reduce_col", "col_expand": "row_expand"}


def _swap_axis(word: str) -> str:
    return word.replace("row", "col", 1) if "row" in word else word.replace("col", "row", 1)


def column_twin(opdef: OpDef) -> str | None:
    """The column-wise op with the same meaning as row-wise `opdef` (row_expand_add ->
    col_expand_add, row_expdif -> col_expdif, row_sum -> col_sum), from the registry's
    semantics; None otherwise."""
    family = COLUMN_TWIN_FAMILIES.get(opdef.family)
    if family is None or not opdef.semantics:
        return None
    wanted = (_swap_axis(opdef.semantics[0]), *opdef.semantics[1:])
    for other in REGISTRY:
        if other.prefix == opdef.prefix and other.family == family and tuple(other.semantics) == wanted:
            return other.name
    return None


def twin_refusal(opdef: OpDef, arch: str, operand_dtypes: Sequence[DataType | None],
                 result_dtype: DataType | None) -> str:
    """Why the target `arch` does not take `opdef`'s column twin on operands of these element
    types (its DtypeIn rule's reason; "" when it does, or when `opdef` has no twin). The
    twin reads the same operands in the same positions, seen as rows."""
    twin = column_twin(opdef)
    if twin is None or not arch:
        return ""
    for rule in REGISTRY.get(twin).target_rules:
        if not isinstance(rule, DtypeIn) or arch not in rule.archs or rule.when:
            continue
        dtype = result_dtype if rule.operand == RESULT else (
            operand_dtypes[rule.operand] if rule.operand < len(operand_dtypes) else None)
        if dtype is not None and dtype not in rule.dtypes:
            return f"{twin}: {rule.because}"
    return ""


__all__ = ["COLUMN_TWIN_FAMILIES", "column_twin", "twin_refusal"]
