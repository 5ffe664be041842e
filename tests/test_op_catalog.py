"""Type deduction of the operator catalog's ops (spec tensor_and_tile_operators.md): shapes,
dtypes, valid shapes, placement, and the located error of each rule a call can break."""

from __future__ import annotations

from languages.memory_space import MemorySpace
from languages.types import TileType
from tests.test_op_registry import FP16, FP32, INT8, INT32, deduce, deduction_error, tile

Acc, Bias, Left, Right, Vec = MemorySpace.Acc, MemorySpace.Bias, MemorySpace.Left, MemorySpace.Right, MemorySpace.Vec


def test_matmul_bias_result_is_the_product_in_acc() -> None:
    result = deduce("tile.matmul_bias", tile((16, 64), FP16, space=Left), tile((64, 32), FP16, space=Right),
                    tile((1, 32), FP32, space=Bias), placed=True)
    assert isinstance(result, TileType)
    assert (result.shape, result.dtype, result.memory_space) == ((16, 32), FP32, Acc)
    result = deduce("tile.matmul_bias", tile((16, 64), INT8), tile((64, 32), INT8), tile((1, 32), INT32))
    assert isinstance(result, TileType) and result.dtype is INT32


def test_matmul_bias_rejects_a_bias_that_is_not_one_accumulator_row() -> None:
    assert "expected dtype FP32 (the accumulator's), got FP16" in deduction_error(
        "tile.matmul_bias", tile((16, 64), FP16), tile((64, 32), FP16), tile((1, 32), FP16))
    assert "expected shape [1, 32]" in deduction_error(
        "tile.matmul_bias", tile((16, 64), FP16), tile((64, 32), FP16), tile((2, 32), FP32))


# -- the vector catalog ----------------------------------------------------------------------------

from languages.types import DataType, TensorType  # noqa: E402
from languages.gen import tensor as T  # noqa: E402
from tests.test_op_registry import idx, ints, tensor  # noqa: E402

INT16, UINT16, UINT8 = DataType.INT16, DataType.UINT16, DataType.UINT8


def test_bitwise_ops_take_matching_8_16_32_bit_integers_of_one_shape() -> None:
    assert deduce("tensor.and", tensor((4, 32), INT16), tensor((4, 32), INT16)) == TensorType((4, 32), INT16)
    assert "expected a 8-bit/16-bit/32-bit integer dtype, got FP32" in deduction_error(
        "tensor.or", tensor((4, 32)), tensor((4, 32)))
    assert "bitwise ops do not broadcast" in deduction_error(
        "tensor.xor", tensor((4, 32), INT16), tensor((4, 1), INT16))
    assert "INT16 or UINT16" in deduction_error("tensor.not", tensor((4, 32), INT32))
    assert deduce("tile.not", tile((4, 32), UINT16)).dtype is UINT16  # type: ignore[union-attr]


def test_bitwise_scalar_forms_need_a_same_width_integer_scalar() -> None:
    from languages.gen import tensor as T

    wide = T.Var("s", __import__("languages.types", fromlist=["ScalarType"]).ScalarType(INT32))
    assert "integer scalar of 16 bits" in deduction_error("tensor.ands", tensor((4, 32), INT16), wide)
    assert deduce("tensor.ands", tensor((4, 32), INT16, valid=(3, 32)), T.ConstInt(3, INT16)) == \
        TensorType((4, 32), INT16, (3, 32))


def test_compare_result_is_a_packed_uint8_mask_of_32_byte_rows() -> None:
    mask = deduce("tile.cmp", tile((16, 16)), tile((16, 16)), cmp_type=2)
    assert isinstance(mask, TileType) and (mask.shape, mask.dtype) == ((16, 32), UINT8)
    wide = deduce("tensor.cmp", tensor((4, 512)), tensor((4, 512)))
    assert wide == TensorType((4, 64), UINT8)
    assert "cmp_type" in deduction_error("tile.cmp", tile((16, 16)), tile((16, 16)), cmp_type=9)


def test_sel_checks_the_mask_covers_every_column() -> None:
    result = deduce("tile.sel", tile((16, 32), UINT8), tile((16, 64)), tile((16, 64)), tile((16, 64)))
    assert isinstance(result, TileType) and result.shape == (16, 64)
    assert "mask of at least [16, 8]" in deduction_error(
        "tile.sel", tile((16, 4), UINT8), tile((16, 64)), tile((16, 64)), tile((16, 64)))


def test_ci_and_tri_shapes_and_dtypes() -> None:
    ci = deduce("tile.ci", idx(0), ints(1, 16), dtype=INT32)
    assert isinstance(ci, TileType) and (ci.shape, ci.dtype) == ((1, 16), INT32)
    assert "leading dims 1" in deduction_error("tile.ci", idx(0), ints(2, 16), dtype=INT32)
    assert "INT16 or INT32" in deduction_error("tile.ci", idx(0), ints(1, 16), dtype=FP32)
    tri = deduce("tile.tri", idx(0), ints(8, 8), ints(6, 8), dtype=FP16)
    assert isinstance(tri, TileType) and tri.valid == (6, 8)


def test_partial_ops_are_valid_over_the_union() -> None:
    result = deduce("tile.part_add", tile((8, 32), valid=(8, 16)), tile((8, 32), valid=(4, 32)))
    assert isinstance(result, TileType) and result.valid_shape is None  # (8, 32): the union's box
    result = deduce("tile.part_max", tile((8, 32), valid=(2, 16)), tile((8, 32), valid=(4, 8)))
    assert isinstance(result, TileType) and result.valid == (4, 16)


def test_concat_joins_columns_and_reinterpret_view_scales_the_contiguous_axis() -> None:
    joined = deduce("tensor.concat", tensor((4, 16)), tensor((4, 8), valid=(4, 5)))
    assert joined == TensorType((4, 24), FP32, (4, 21))
    assert deduce("tensor.reinterpret_view", tensor((4, 16)), dtype=INT16) == TensorType((4, 32), INT16)
    assert deduce("tensor.reinterpret_view", tensor((4, 16), valid=(4, 8)), dtype=INT16) == \
        TensorType((4, 32), INT16, (4, 16))
    assert "byte-equivalent" in deduction_error("tensor.reinterpret_view", tensor((4, 16)), dtype=INT16,
                                                shape=(4, 16))
    assert "cannot reinterpret FP32 as FP8E4M3FN" in deduction_error(
        "tensor.reinterpret_view", tensor((4, 16)), dtype=DataType.FP8E4M3FN)


def test_tensor_view_reshapes_the_same_elements() -> None:
    assert deduce("tensor.view", tensor((4, 16)), shape=(64,)) == TensorType((64,), FP32)
    assert "needs an explicit valid_shape" in deduction_error("tensor.view", tensor((8, 16), valid=(5, 16)),
                                                              shape=(16, 8))
    assert deduce("tensor.view", tensor((8, 16), valid=(5, 16)), shape=(16, 8), valid_shape=(10, 8)) == \
        TensorType((16, 8), FP32, (10, 8))


def test_literals_adopt_the_declared_dtype() -> None:
    from languages.gen import tensor as T
    from languages.ops import REGISTRY

    x = tile((4, 16), FP16)
    adopted = REGISTRY.adopt_literals("tile.adds", (x, T.ConstInt(3, DataType.INDEX)))
    assert adopted[1] == T.ConstFloat(3.0, FP16)
    i = tile((4, 16), INT32)
    kept = REGISTRY.adopt_literals("tile.adds", (i, T.ConstFloat(0.5, FP32)))
    assert kept[1] == T.ConstFloat(0.5, FP32)  # a float literal on an integer value keeps FP32
    full = REGISTRY.adopt_literals("tile.full", (ints(4, 16), T.ConstInt(8, DataType.INDEX)), (("dtype", INT16),))
    assert full[1] == T.ConstInt(8, INT16)
    tri = REGISTRY.adopt_literals("tile.tri", (T.ConstInt(0, DataType.INDEX), ints(8, 8)))
    assert tri[0] == T.ConstInt(0, INT32)


# -- the registry as a whole -----------------------------------------------------------------------


def test_every_registered_op_simulates() -> None:
    """Every op is interpreted and every PTO instruction it becomes is executed by the simulator."""
    from languages.ops import REGISTRY
    from nanopass_pto.op_listing import simulates

    assert [op.name for op in REGISTRY if not simulates(op)] == []


def test_a_pypto_op_we_lack_is_not_supported_yet_by_name() -> None:
    from languages.ops import REGISTRY

    message = REGISTRY.unknown_message("tile.matmul_mx")
    assert "PyPTO operator this compiler does not support yet" in message and "tile.matmul_mx" in message
    assert "did you mean tile.matmul" in REGISTRY.unknown_message("tile.matmull")


def test_list_ops_prints_signature_languages_and_simulation(capsys: object) -> None:
    import contextlib
    import io

    from nanopass.pipeline import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--list-ops"]) == 0
    text = out.getvalue()
    assert "tile.cmp(lhs: Tile@Vec, rhs: Tile@Vec, *, cmp_type: int in {0, 1, 2, 3, 4, 5} = 0)" in text
    assert "    languages: DSL..Addressed  simulates: yes" in text
    assert "tensor.ci(start: Scalar, shape: [int], *, dtype: dtype = pl.INT32, descending: bool = False)" in text


# -- sorting, gathers and scatters ------------------------------------------------------------------


def test_sort32_pairs_double_fp32_and_quadruple_fp16_rows() -> None:
    pairs = deduce("tile.sort32", tile((2, 64)), tile((2, 64), DataType.UINT32))
    assert isinstance(pairs, TileType) and pairs.shape == (2, 128)
    pairs = deduce("tile.sort32", tile((1, 32), FP16), tile((1, 32), DataType.UINT32))
    assert isinstance(pairs, TileType) and pairs.shape == (1, 128)
    assert "FP16 or FP32 scores" in deduction_error("tile.sort32", tile((1, 32), INT32), tile((1, 32), DataType.UINT32))


def test_mrgsort_spellings_pick_the_format() -> None:
    from languages.ops import REGISTRY

    assert REGISTRY.resolve_spelling("tile.mrgsort", 1, ["block_len"]) == "tile.mrgsort_format1"
    assert REGISTRY.resolve_spelling("tile.mrgsort", 5, []) == "tile.mrgsort_format2"
    assert REGISTRY.resolve_spelling("tensor.mrgsort", 4, []) == "tensor.mrgsort_format2"
    merged = deduce("tile.mrgsort_format2", tile((1, 128)), tile((1, 128)), tile((1, 256)))
    assert isinstance(merged, TileType) and merged.shape == (1, 256)
    assert "scratch row of at least 256" in deduction_error("tile.mrgsort_format2", tile((1, 128)), tile((1, 128)),
                                                            tile((1, 128)))


def test_flat_gather_index_alignment_rule() -> None:
    assert deduce("tensor.gather", tensor((4, 16)), tensor((1, 8), INT32)) == TensorType((1, 8), FP32)
    message = deduction_error("tensor.gather", tensor((4, 16), FP16), tensor((1, 8), INT32))
    assert "multiple of 16 for a FP16 source" in message and "pl.set_validshape" in message
    assert deduce("tensor.gather", tensor((4, 16), FP16), tensor((1, 16), INT32, valid=(1, 8))) == \
        TensorType((1, 16), FP16, (1, 8))
    assert deduce("tensor.gather", tensor((4, 16)), tensor((4, 3), INT32), dim=-1) == TensorType((4, 3), FP32)


def test_gather_mask_compacts_by_the_pattern_stride() -> None:
    out = deduce("tile.gather_mask", tile((1, 256)), mask_pattern=1)
    assert isinstance(out, TileType) and out.shape == (1, 128)
    out = deduce("tile.gather_mask", tile((1, 256)), mask_pattern=2, output_dtype=INT32)
    assert isinstance(out, TileType) and out.dtype is INT32
    assert "bit width" in deduction_error("tile.gather_mask", tile((1, 256)), mask_pattern=2, output_dtype=FP16)


def test_scatter_index_width_follows_the_data() -> None:
    assert "expected INT16 indexes for FP16 data" in deduction_error(
        "tile.scatter", tile((4, 16), FP16), tile((4, 8), FP16), tile((4, 8), INT32))
    assert "beyond INT16's 32767" in deduction_error(
        "tensor.scatter_update", tensor((128, 256), FP16), tensor((2, 4), INT32), tensor((8, 256), FP16))


def test_atomic_store_reads_its_destination() -> None:
    from languages.ops import READ_WRITE, WRITE, REGISTRY

    store = REGISTRY.get("tile.store")
    assert store.effect_of(2) is WRITE and store.effect_of(2, (("atomic", "add"),)) is READ_WRITE
    assert REGISTRY.get("tensor.assemble").effect_of(0, (("atomic", "add"),)) is READ_WRITE


# -- high_precision= and the workspace forms ---------------------------------------------------------


def test_high_precision_is_an_attribute_of_div_log_recip_rsqrt() -> None:
    from languages.ops import REGISTRY

    for name in ("div", "log", "recip", "rsqrt"):
        assert REGISTRY.get(f"tensor.{name}").attr_decl("high_precision") is not None, name
    for name in ("div", "log", "recip"):
        assert dict(REGISTRY.get(f"tile.{name}").pto_attrs)["high_precision"] == "precisionType"
    # tile.rsqrt's high precision is its tmp form (the algorithm needs the workspace).
    rsqrt = REGISTRY.get("tile.rsqrt")
    assert rsqrt.attr_decl("high_precision") is None and rsqrt.pto_operand_attrs == ((1, "precisionType", True),)
    conversion = REGISTRY.get("tensor.rsqrt").to_tile
    assert conversion is not None and (conversion.scratch_like, conversion.scratch_when) == (0, "high_precision")


def test_high_precision_div_needs_a_divisor_of_the_dividends_shape() -> None:
    x = tensor((16, 32))
    assert deduce("tensor.div", x, tensor((16, 32)), high_precision=True) == TensorType((16, 32), FP32)
    for divisor in (tensor((16, 1)), idx(2)):
        assert "high-precision mode" in deduction_error("tensor.div", x, divisor, high_precision=True)
    assert deduce("tensor.div", x, tensor((16, 1))) == TensorType((16, 32), FP32)


def test_tensor_fmod_takes_operands_of_one_shape() -> None:
    assert deduce("tensor.fmod", tensor((4, 32)), tensor((4, 32))) == TensorType((4, 32), FP32)
    assert "shape" in deduction_error("tensor.fmod", tensor((4, 32)), tensor((4, 1)))


def test_row_expand_add_takes_an_optional_workspace_that_is_no_pto_operand() -> None:
    from languages.ops import REGISTRY, WRITE

    op = REGISTRY.get("tile.row_expand_add")
    assert op.operand_names == ("x", "row", "tmp") and op.effect_of(2) == WRITE and op.pto_ins == (0, 1)
    x, row = tile((16, 32), space=Vec), tile((16, 1), space=Vec, name="r")
    assert deduce("tile.row_expand_add", x, row, tile((16, 32), space=Vec, name="t")) == deduce(
        "tile.row_expand_add", x, row)


def test_gemv_takes_one_valid_row_and_follows_the_matmul_rules() -> None:
    lhs = tile((16, 128), FP16, valid=(1, 128), space=Left)
    rhs = tile((128, 32), FP16, space=Right, name="r")
    result = deduce("tile.gemv", lhs, rhs, placed=True)
    assert isinstance(result, TileType) and result.valid == (1, 32) and result.dtype is FP32
    assert "one valid row" in deduction_error("tile.gemv", tile((16, 128), FP16, space=Left), rhs)
    assert "acc_phase" in deduction_error("tile.gemv", lhs, rhs, acc_phase="middle")
    bias = tile((1, 32), FP32, space=Bias, name="b")
    assert deduce("tile.gemv_bias", lhs, rhs, bias, placed=True) == result
    assert "one valid row" in deduction_error("tile.gemv_acc", T.Var("acc", result), tile((16, 128), FP16), rhs)


def test_expand_clone_broadcasts_src_to_target_and_writes_target() -> None:
    from languages.ops import REGISTRY, WRITE

    target = tensor((2, 4, 8), FP16)
    assert deduce("tensor.expand_clone", tensor((2, 1, 8), FP16), target) == target.type
    assert deduce("tensor.expand_clone", tensor((1, 4, 1), FP16), target) == target.type
    assert "does not broadcast" in deduction_error("tensor.expand_clone", tensor((4, 8), FP16), target)
    assert "does not broadcast" in deduction_error("tensor.expand_clone", tensor((2, 3, 8), FP16), target)
    assert REGISTRY.get("tensor.expand_clone").effect_of(1) == WRITE
