"""The generator draws only what the campaign's backend admits: every call of a generated program
keeps its op's `target_rules` (languages/ops/target_rules.py) on that backend, as the
TargetOpRules verifier reads them on the program the user wrote. A call that broke one would be
reported by a campaign as a generator bug (a PReLU scratch drawn FP32 on Ascend910B, whose TPRELU
writes an unsigned byte mask into it, was one)."""

from __future__ import annotations

import pytest
from hypothesis import given

from backend.fuzzing.generator import Features, GeneratedProgram, programs, reaching_kernel
from backend.fuzzing.registry_calls import KNOWN_OPEN_ON, unavailable_somewhere
from backend.targets.handlers import ASCEND_910B, ASCEND_950, BackendHandler
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.ops.assembler_element_types import AssemblerDtypeIn
from languages.pl_parser import parse_program
from languages.types import TileType
from nanopass.node import Node
from verifiers import target_op_rules

BACKENDS = (ASCEND_910B, ASCEND_950)
# The ops whose rules differ between the targets (a dtype, a scratch's extent, distinct buffers).
# An op unavailable on some target (TRANDOM on A2/A3) is never drawn (registry_calls.unavailable_somewhere).
# The assembler's per-instruction element types (AssemblerDtypeIn) rule almost every vector op
# the same way on both targets; test_generated_programs_keep_the_target_rules covers them.
RULED_OPS = sorted(op.name for op in REGISTRY if op.prefix == "tile" and not unavailable_somewhere(op)
                   and any(not rule.when and not isinstance(rule, AssemblerDtypeIn) for rule in op.target_rules))


def _violations(program: Node, handler: BackendHandler) -> list[str]:
    return [d.message for d in target_op_rules.verify(program, handler)]


@pytest.mark.parametrize("handler", BACKENDS, ids=lambda h: h.name)
def test_generated_programs_keep_the_target_rules(handler: BackendHandler) -> None:
    @given(programs(Features.parse("-big_shapes"), handler.arch))
    def check(generated: GeneratedProgram) -> None:
        assert _violations(parse_program(generated.text), handler) == []

    check()


def test_the_ruled_ops_are_the_ones_the_registry_names() -> None:
    # PReLU (a byte mask scratch on A2/A3) and the scalar select (dtypes per target) at least.
    assert {"tile.prelu", "tile.sels"} <= set(RULED_OPS)


@pytest.mark.parametrize("handler", BACKENDS, ids=lambda h: h.name)
@pytest.mark.parametrize("op", RULED_OPS)
def test_a_ruled_op_is_drawn_within_its_rules(handler: BackendHandler, op: str) -> None:
    """Kernels whose every step calls one ruled op: it is reached on both targets, and each call
    keeps the rules of the target it was drawn for (the other target's rules may not hold)."""
    if (op, handler.arch) in KNOWN_OPEN_ON:
        assert reaching_kernel(REGISTRY.get(op), arch=handler.arch) is None  # kept off, saying why
        return
    for seed in range(3):
        kernel = reaching_kernel(REGISTRY.get(op), seed=seed, arch=handler.arch)
        assert kernel is not None, f"{op} not reached on {handler.name}"
        assert _violations(T.Program("Fuzz", (kernel,)), handler) == []


def test_prelu_is_kept_off_a2a3_until_ptoas_and_pto_isa_agree_on_its_scratch() -> None:
    # pto-isa's A2/A3 TPRELU reads one row of tmp past the result (the MaskScratch rule), but
    # PTOAS 0.44 wants tmp the same shape as src and dst: no tmp satisfies both, so a campaign
    # for Ascend910B does not draw it (and says why); Ascend950 ignores tmp and draws it.
    assert "PTOAS" in KNOWN_OPEN_ON[("tile.prelu", ASCEND_910B.arch)]
    assert reaching_kernel(REGISTRY.get("tile.prelu"), arch=ASCEND_910B.arch) is None
    assert reaching_kernel(REGISTRY.get("tile.prelu"), arch=ASCEND_950.arch) is not None


def test_a_drawn_tile_in_a_boxed_space_is_whole_boxes() -> None:
    # A [16, 1] Acc tile (a Vec column moved into Acc on Ascend950) has no PTO address, which
    # PTOCodegen reports as the user's error: the generator redraws such a call.
    from backend.fuzzing.registry_calls import boxed_extent_gap
    from languages.memory_space import MemorySpace
    from languages.types import DataType
    from languages.views import implicit_view

    def tile(shape: tuple[int, int], space: MemorySpace) -> TileType:
        return TileType(shape, DataType.FP32, memory_space=space, view=implicit_view(space, shape))

    assert boxed_extent_gap(tile((16, 1), MemorySpace.Acc))
    assert not boxed_extent_gap(tile((16, 16), MemorySpace.Acc))
    assert not boxed_extent_gap(tile((1, 128), MemorySpace.Mat))  # the one-row exemption
    assert not boxed_extent_gap(tile((16, 1), MemorySpace.Vec))


def test_a_tensor_view_is_never_drawn_over_a_gm_tensor() -> None:
    # ConvertTensorToTileOps declines a second view of a GM tensor inside InCore (not supported yet).
    for seed in range(3):
        kernel = reaching_kernel(REGISTRY.get("tensor.view"), seed=seed)
        assert kernel is not None
        params = {p.var.name for p in kernel.params}
        views = [s.value for s in kernel.body if isinstance(s, T.AssignStmt) and isinstance(s.value, T.Call)
                 and s.value.op == "tensor.view"]
        assert views and all(getattr(v.args[0], "name", None) not in params for v in views)


def test_a_tile_placed_in_a_space_it_does_not_fit_is_redrawn() -> None:
    # Finding 218561ee07: a hand-placed [16, 32] FP32 Bias tile (2048 bytes) on Ascend910B, whose
    # Bias holds 1024, was drawn and refused by AllocateMemoryAddr.
    from backend.fuzzing.registry_calls import target_violation
    from languages.gen import tensor as T
    from languages.memory_space import MemorySpace
    from languages.ops import REGISTRY
    from languages.types import DataType

    def create(rows: int, cols: int) -> tuple[tuple[T.Expr, ...], tuple[tuple[str, object], ...], object]:
        shape = T.TupleExpr((T.ConstInt(rows, DataType.INDEX), T.ConstInt(cols, DataType.INDEX)))
        attrs = (("dtype", DataType.FP32), ("target_memory", MemorySpace.Bias))
        return (shape,), attrs, REGISTRY.deduce("tile.create", (shape,), attrs)

    args, attrs, too_big = create(16, 32)
    assert "capacity" in target_violation(REGISTRY.get("tile.create"), "a2a3", args, attrs, too_big, {})  # type: ignore[arg-type]
    args, attrs, fits = create(1, 32)
    assert "capacity" not in target_violation(REGISTRY.get("tile.create"), "a2a3", args, attrs, fits, {})  # type: ignore[arg-type]


def test_a_column_reduction_of_an_inline_boxed_product_is_boxed() -> None:
    # Finding ddcde5a297: sort32 (which declines a boxed column) was given
    # col_max(matmul(a, b)) with N = 1: the [1, 1] reduction keeps the product's [1, 16] box, but
    # the generator tracked boxing only through row-by-row values of boxed variables.
    import random

    from backend.fuzzing.generator import Features, _SeededBuilder
    from languages.gen import tensor as T
    from languages.ops import REGISTRY
    from languages.types import DataType, TensorType

    builder = _SeededBuilder(lambda strategy: None, Features(), "k", arch="a2a3", rng=random.Random(0))
    a = T.Var("a", TensorType((16, 32), DataType.FP16))
    b = T.Var("b", TensorType((32, 1), DataType.FP16))
    product = T.Call("tensor.matmul", (a, b), (("out_dtype", DataType.FP32),),
                     REGISTRY.deduce("tensor.matmul", (a, b), (("out_dtype", DataType.FP32),)))
    reduced = T.Var("r", REGISTRY.deduce("tensor.col_max", (product,), ()))
    builder.note_boxed(reduced, "tensor.col_max", (product,))
    assert "r" in builder.boxed
    plain = T.Var("p", REGISTRY.deduce("tensor.col_max", (a,), ()))
    builder.note_boxed(plain, "tensor.col_max", (a,))
    assert "p" not in builder.boxed


@pytest.mark.parametrize("shape", [(2, 1), (2, 1, 1), (4, 1, 1, 1)])
def test_a_column_of_any_rank_asks_its_column_twin(shape: tuple[int, ...]) -> None:
    # Finding d80de42e82: an INT32 row_expand_div of a [2, 1, 1] tensor (the [2, 1] column once
    # FlattenTileNdTo2D folds it) runs as tcolexpanddiv, which A2/A3 take in FP16 / FP32 only;
    # the generator asked the column twin's rule of 2-D columns only and drew it.
    from backend.fuzzing.registry_calls import target_violation
    from languages.types import DataType, TensorType

    x = T.Var("x", TensorType(shape, DataType.INT32))
    d = T.Var("d", TensorType(shape, DataType.INT32))
    opdef = REGISTRY.get("tensor.row_expand_div")
    result = TensorType(shape, DataType.INT32)
    assert "column twin" in target_violation(opdef, ASCEND_910B.arch, (x, d), (), result, {})
    floats = tuple(T.Var(n, TensorType(shape, DataType.FP32)) for n in "xd")
    assert target_violation(opdef, ASCEND_910B.arch, floats, (), TensorType(shape, DataType.FP32), {}) == ""
