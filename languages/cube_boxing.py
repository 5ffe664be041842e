"""Cube boxing: the fractal-box granularity a matmul operand's M or N axis must be a whole
number of, read from the implicit views of every space the operand runs through (its load
space, the cube operand's space, the product's space; `languages.views`).

A layout fact of the registry's matmul conversions, read by ConvertTensorToTileOps (which rounds
the axis up, keeping the true extent in valid_shape, or declines an operand it does not box:
`TileInput.aligned_n`, and any K: `unaligned_k`) and by the program generator (which draws only what the
conversion accepts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from languages.layout import box_shape
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, Fixed, OpDef, TileConversion, TileInput, staging_space_for_load
from languages.types import Attrs, DataType, Dims, TensorType, attr
from languages.views import implicit_view


@dataclass(frozen=True)
class BoxRequest:
    """Round axis `axis` of the natural (as loaded) 2-D tile up to a multiple of `align`."""

    axis: int
    align: int

    def physical_shape(self, shape: Dims) -> Dims:
        padded = list(shape)
        padded[self.axis] = -(-shape[self.axis] // self.align) * self.align
        return tuple(padded)


def _box_extent(space: MemorySpace, shape: Dims, dtype: DataType, axis: int) -> int:
    box = box_shape(implicit_view(space, shape), dtype)
    return 1 if box is None else box[axis]


def _transposed(shape: Dims) -> Dims:
    return (shape[1], shape[0])


def _is_transposed(attrs: Attrs, tile_input: TileInput) -> bool:
    if tile_input.transpose_attr is None:
        return False
    return bool(attr(attrs, tile_input.transpose_attr, False))


def _result_space(tile_op: OpDef) -> MemorySpace | None:
    return tile_op.output_memory.space if isinstance(tile_op.output_memory, Fixed) else None


def cube_box(args: Sequence[object], attrs: Attrs, tile_input: TileInput) -> BoxRequest | None:
    """The box a matmul operand needs on the axis carrying M (cube_m_axis) or N (cube_n_axis),
    or None when the operand is not 2-D or its extent is already a whole number of boxes."""
    if not (tile_input.cube_m_axis or tile_input.cube_n_axis) or not tile_input.space_of:
        return None
    # M is the row axis of the left operand and of the product; N the column axis of the right
    # operand and of the product.
    return _axis_box(args, attrs, tile_input, 0 if tile_input.cube_m_axis else 1, with_product=True)


def _axis_box(args: Sequence[object], attrs: Attrs, tile_input: TileInput, final_axis: int,
              with_product: bool, batched: bool = False) -> BoxRequest | None:
    """The box axis `final_axis` (of the operand as the cube reads it) needs in every space the
    operand runs through -- its load space, the cube operand's space and, for M / N, the
    product's -- or None when the operand is not 2-D (with `batched`, not of rank 3 or more:
    then each batch's matrix, its last two axes, is what is read) or the extent is whole boxes
    already."""
    operand_type = getattr(args[tile_input.arg], "type", None)
    if not isinstance(operand_type, TensorType) or (len(operand_type.shape) < 3 if batched
                                                    else len(operand_type.shape) != 2):
        return None  # rank >= 3 lowers to a batch matmul: `unboxed_batched_axis` decides
    constraint = REGISTRY.bridge_space_of(tile_input.space_of, tile_input.consumer_index)
    load_space = staging_space_for_load(constraint)
    natural = tuple(operand_type.shape[-2:])
    transposed = _is_transposed(attrs, tile_input)
    final = _transposed(natural) if transposed else natural
    # A transposed operand is loaded naturally, so the axis of the loaded tile is the other one.
    natural_axis = 1 - final_axis if transposed else final_axis
    dtype = operand_type.dtype
    align = math.lcm(
        _box_extent(load_space, natural, dtype, natural_axis),
        _box_extent(constraint, final, dtype, final_axis),
    )
    product_space = _result_space(REGISTRY.get(tile_input.space_of[0])) if with_product else None
    if product_space is not None:
        align = math.lcm(align, _box_extent(product_space, final, dtype, final_axis))
    if natural[natural_axis] % align == 0:
        return None
    return BoxRequest(natural_axis, align)


def _is_cube_operand(tile_input: TileInput) -> bool:
    return bool(tile_input.space_of) and (tile_input.cube_m_axis or tile_input.cube_n_axis or tile_input.aligned_n)


def unaligned_k(args: Sequence[object], attrs: Attrs, conversion: TileConversion) -> tuple[int, BoxRequest] | None:
    """The cube operand (and the box it lacks) whose K axis is not a whole number of its boxes:
    no conversion pads K (spec, "Either operand's K axis": padding the reduction would feed
    uninitialised L1 into the sum), so such a call is declined. K is the left operand's column
    axis and the right operand's row axis as the cube reads them; None when every K is aligned."""
    for tile_input in conversion.tile_inputs:
        if tile_input.arg < len(args) and _is_cube_operand(tile_input):
            box = _axis_box(args, attrs, tile_input, 1 if tile_input.cube_m_axis else 0, with_product=False)
            if box is not None:
                return tile_input.arg, box
    return None


def unaligned_n(args: Sequence[object], attrs: Attrs, conversion: TileConversion) -> tuple[int, BoxRequest] | None:
    """The operand (and the box it lacks) whose N axis the conversion does not box
    (`TileInput.aligned_n`) but that is not a whole number of its boxes; None when every such
    operand is aligned."""
    for tile_input in conversion.tile_inputs:
        if tile_input.aligned_n and tile_input.arg < len(args):
            box = cube_box(args, attrs, replace(tile_input, cube_n_axis=True))
            if box is not None:
                return tile_input.arg, box
    return None


def reads_operands_unboxed(opdef: OpDef) -> bool:
    """Whether the op's lowering reads every operand as a dense tile of its logical extent (the
    scatter family: its flat index names positions at the logical row pitch, and its result
    reuses the destination's buffer). ConvertTensorToTileOps copies a cube result boxed on M, or
    on an N > 1, out of its box first."""
    return opdef.family == "scatter"


def declines_boxed_column(opdef: OpDef, index: int) -> bool:
    """Whether operand `index` of the op cannot be a boxed N = 1 column (a matmul result with
    N = 1 lives a fractal of columns wide, valid in its first column): the scatter family reads
    dense operands (`reads_operands_unboxed`), a concat's first operand must be valid in all its
    physical columns (the second's columns start right after them), and a sort32 sorts its
    source's physical rows against an index of the same shape. (row_expand_expdif's per-row
    operand is not among them: ConvertTensorToTileOps spreads the column and runs the difference,
    then exp.) No vector op copies a boxed column into a column vector (a one-column window of a
    row-major box is not a column vector's layout). ConvertTensorToTileOps declines such a call at
    the user's line; the program generator does not give those operands such a value."""
    return (reads_operands_unboxed(opdef) or (opdef.semantics == ("concat",) and index == 0)
            or (opdef.semantics == ("sort32",) and index == 0))


def unboxed_batched_axis(args: Sequence[object], attrs: Attrs,
                         conversion: TileConversion) -> tuple[int, str, BoxRequest] | None:
    """The cube operand of a batched (rank >= 3) matmul, the name of its axis (M, N or K) and
    the box that axis lacks, when a batch's matrix is not a whole number of fractal boxes on it;
    None when every batch's matrix is. FlattenTileNdTo2D packs the batches' matrices one after
    another ([B*M, K]) and reads batch b at rows b*M..: no conversion rounds a batch's M or N up
    to a box (its padding would sit between the batches), and no conversion pads K, so such a
    call is declined (ConvertTensorToTileOps) and not drawn (the program generator)."""
    for tile_input in conversion.tile_inputs:
        if tile_input.arg >= len(args) or not _is_cube_operand(tile_input):
            continue
        outer = 0 if tile_input.cube_m_axis else 1
        for final_axis, name in ((outer, "M" if tile_input.cube_m_axis else "N"), (1 - outer, "K")):
            box = _axis_box(args, attrs, tile_input, final_axis, with_product=name != "K", batched=True)
            if box is not None:
                return tile_input.arg, name, box
    return None
