"""Target-dependent operator constraints, stated as data on the op that has them.

An instruction is not the same instruction on every Ascend target: PTOAS's per-arch verifiers
and pto-isa's per-arch implementations accept different element types, and some
implementations use a scratch operand on one target and ignore it on another. `OpDef.target_rules`
lists such constraints; each one names the target architectures (`BackendHandler.arch`:
"a2a3", "a5") it applies on. The TargetOpRules verifier checks them on the program the user
wrote (so the error names the user's line) and after every pass.

Operand positions are call-argument indices; `RESULT` stands for the op's result (the
instruction's dst).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from languages.layout import padded_2d
from languages.memory_space import MemorySpace
from languages.types import AttrValue, DataType, TileType, TileView

RESULT = -1

A2A3 = frozenset({"a2a3"})
A5 = frozenset({"a5"})


@dataclass(frozen=True)
class TargetRule:
    """A constraint holding on the targets whose arch is in `archs`; `because` says why (the
    instruction's behaviour there), `fix` how the user can comply.  `when` restricts the rule
    to calls whose attribute has a value (tile.store's atomic='add')."""

    archs: frozenset[str]
    because: str
    fix: str
    when: tuple[tuple[str, AttrValue], ...] = ()


@dataclass(frozen=True)
class DtypeIn(TargetRule):
    """Operand `operand`'s element type is one of `dtypes`."""

    operand: int = 0
    dtypes: frozenset[DataType] = frozenset()


@dataclass(frozen=True)
class DtypeNotIn(DtypeIn):
    """Operand `operand`'s element type is none of `refused` (`dtypes`, every other type, is what
    the generator and the DtypeIn readers admit): the target's instruction takes the type but
    computes something else with it (A2/A3's INT32 TCMP compares for equality whatever the mode)."""

    refused: frozenset[DataType] = frozenset()


def dtype_not_in(archs: frozenset[str], because: str, fix: str, operand: int, refused: frozenset[DataType],
                 when: tuple[tuple[str, AttrValue], ...] = ()) -> DtypeNotIn:
    """A DtypeNotIn rule admitting every element type but `refused`."""
    return DtypeNotIn(archs, because, fix, when, operand=operand, dtypes=frozenset(DataType) - refused,
                      refused=refused)


@dataclass(frozen=True)
class Unavailable(TargetRule):
    """The op has no instruction on these targets at all (TRANDOM on A2/A3), or none this
    compiler can emit yet (`what` says which)."""

    what: str = "not available on this target"


@dataclass(frozen=True)
class PipeIn(TargetRule):
    """The op's `pipe` attribute is one of `pipes` (PTOAS's per-arch sync verifiers)."""

    pipes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Disjoint(TargetRule):
    """Operand `operand` shares no byte with any of `others` (RESULT: the instruction's dst):
    the instruction writes it while the others are still read (or reads it after writing them)."""

    operand: int = 0
    others: tuple[int, ...] = ()


@dataclass(frozen=True)
class WholeRows(TargetRule):
    """Operand `operand` is not a window narrower than the buffer it views: the instruction
    counts positions by the operand's own columns while its rows lie the buffer's pitch apart
    (the index form of TGATHER / TSCATTER)."""

    operand: int = 0


@dataclass(frozen=True)
class FlatRowMajor(TargetRule):
    """Operand `operand`'s buffer is walked flat by the instruction (the index forms of TGATHER /
    TSCATTER: position k is the k-th element of the buffer, rows padded to 32 bytes), which is
    the tile's logical row-major order only when the tile is laid out row-major: a column-major
    tile of more than one row and one column (a `tile.transpose_view` of a row-major tile) holds
    its elements column after column. An [N, 1] column or a [1, N] row is in row-major order
    either way; an unplaced tile (no view yet) is judged once it is placed."""

    operand: int = 0

    def gap(self, ty: TileType, name: str = "") -> str | None:
        """Why `ty` breaks the rule (None: it keeps it, or its layout is not known yet)."""
        view = ty.view
        if view is None or view.blayout != "col_major" or len(ty.shape) != 2 \
                or not all(isinstance(e, int) for e in ty.shape):
            return None
        rows, cols = (int(e) for e in ty.shape)
        if rows == 1 or cols == 1:
            return None
        return (f"{name} is " if name else "is ") + \
            f"a column-major [{rows}, {cols}] tile, whose buffer holds its elements column after column"


@dataclass(frozen=True)
class MaskScratch(TargetRule):
    """Operand `operand` is the scratch a compare writes its packed predicate mask of the result
    into, plus `extra_rows` rows the instruction uses after it: its valid region has more rows
    than the result's (`extra_rows` more) and at least one mask row's bytes per row
    (`mask_row_bytes(result valid columns)`)."""

    operand: int = 0
    extra_rows: int = 1


@dataclass(frozen=True)
class UnpaddedRows(TargetRule):
    """Operand `operand`'s (RESULT: the instruction's dst's) buffer holds no padding past its
    columns: a Vec tile's row-major rows are padded to whole `row_bytes`-byte blocks, so its
    columns are a positive multiple of `row_multiple(dtype)` (a column-major [N, 1] column pads
    its rows, never its one column). The instruction wants its valid columns equal to its
    buffer's columns."""

    operand: int = RESULT
    row_bytes: int = 32

    def row_multiple(self, dtype: DataType) -> int:
        """Elements of `dtype` in one whole row block."""
        return max(1, self.row_bytes * 8 // dtype.bits)

    def gap(self, shape: tuple[object, ...], dtype: DataType, name: str = "the result",
            view: TileView | None = None) -> str | None:
        """Why a tile of `shape` and `dtype` (laid out by `view`, else as a flat Vec buffer lays
        out its shape) breaks the rule (None: its buffer's columns are its own, or it is no 2-D
        tile of static columns)."""
        if len(shape) != 2 or not all(isinstance(e, int) for e in shape):
            return None
        rows, cols = int(cast(int, shape[0])), int(cast(int, shape[1]))
        if cols > 0 and padded_2d(TileType((rows, cols), dtype, None, MemorySpace.Vec, view))[1] == cols:
            return None
        multiple = self.row_multiple(dtype)
        padded = max(multiple, -(-cols // multiple) * multiple)
        return (f"{name} is [{rows}, {cols}] {dtype.name}, {cols * dtype.bits // 8} bytes a row: expected a positive "
                f"multiple of {multiple} columns (whole {self.row_bytes}-byte rows; pad it to [{rows}, {padded}])")


@dataclass(frozen=True)
class SameDeclaredShape(TargetRule):
    """The PTO instruction's tile operands at `operands` (call-argument positions, the dst last)
    measure as one shape both ways PTOAS measures them: declared (a pto.subview by its sizes, an
    allocated tile at its padded extent) and as the buffer each cuts (a subview as its source's
    whole buffer: languages.layout.SHAPE_MATCHED_INSTRUCTIONS)."""

    operands: tuple[int, ...] = ()


@dataclass(frozen=True)
class SameValidShape(TargetRule):
    """The PTO instruction's tile operands at `operands` (call-argument positions, the dst last)
    are valid over one region (languages.layout.VALID_SHAPE_MATCHED_INSTRUCTIONS)."""

    operands: tuple[int, ...] = ()


__all__ = ["A2A3", "A5", "RESULT", "Disjoint", "DtypeIn", "MaskScratch", "PipeIn", "SameDeclaredShape", "SameValidShape",
           "TargetRule", "Unavailable", "UnpaddedRows", "WholeRows"]
