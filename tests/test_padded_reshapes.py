"""An on-chip reshape is a zero-copy re-view of a flat Vec buffer, so it needs both shapes to hold
their elements in row-major order there: an unboxed row of fewer than 32 bytes is padded
(languages.layout), and a reshape from or to such a shape would pair elements with padding.

`languages.views.flat_reshape_gap` states that once: InferTileMemorySpace refuses the
other reshapes ("not supported yet", naming the padded shape; a padded *result* used to slip
through and break ViewLegality), and the generator draws only the ones it keeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, seed, settings

from backend.arrays import random_inputs
from backend.fuzzing.generator import Features, GeneratedProgram, programs
from languages.pl_parser import load_program
from languages.types import DataType, TensorType, TileType
from languages.views import flat_reshape_gap


def flat_reshape_keeps_order(source: tuple[int, ...], result: tuple[int, ...], dtype: DataType) -> bool:
    return not flat_reshape_gap(source, result, dtype)
from nanopass.diagnostics import CompileError
from nanopass.node import walk
from nanopass_pto.run import compare, compile_program, reference, run

BF16, F16, F32 = DataType.BF16, DataType.FP16, DataType.FP32

_KERNEL = '''import pypto.language as pl


@pl.program
class ReshapeThenMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[{src}], pl.{dt}], b: pl.Tensor[[{k}, 32], pl.{dt}]) -> pl.Tensor[[{m}, 32], pl.FP32]:
        r: pl.Tensor[[{m}, {k}], pl.{dt}] = pl.tensor.reshape(a, [{m}, {k}])
        c: pl.Tensor[[{m}, 32], pl.FP32] = pl.tensor.matmul(r, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[{src}], pl.{dt}], b: pl.Tensor[[{k}, 32], pl.{dt}]) -> pl.Tensor[[{m}, 32], pl.FP32]:
        out: pl.Tensor[[{m}, 32], pl.FP32] = self.k(a, b)
        return out
'''

_VECTOR = '''import pypto.language as pl


@pl.program
class ReshapeIntoNarrowRows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.BF16]) -> pl.Tensor[[32, 8], pl.BF16]:
        r: pl.Tensor[[32, 8], pl.BF16] = pl.tensor.reshape(a, [32, 8])
        s: pl.Tensor[[32, 8], pl.BF16] = pl.tensor.adds(r, 1.0)
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.BF16]) -> pl.Tensor[[32, 8], pl.BF16]:
        out: pl.Tensor[[32, 8], pl.BF16] = self.k(a)
        return out
'''


def _load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "kernel.py"
    path.write_text(text)
    return load_program(str(path))


def test_the_fact_names_the_shapes_whose_rows_are_padded() -> None:
    assert flat_reshape_keeps_order((32, 16), (16, 32), F16)      # 32- and 64-byte rows
    assert flat_reshape_keeps_order((32, 8), (16, 16), F32)       # 32-byte rows of FP32
    assert not flat_reshape_keeps_order((32, 8), (16, 16), BF16)  # the source's 16-byte rows pad
    assert not flat_reshape_keeps_order((16, 16), (32, 8), BF16)  # the result's rows pad
    assert flat_reshape_keeps_order((16, 1), (1, 16), BF16)       # a column and its row
    assert flat_reshape_keeps_order((32, 8), (32, 8), BF16)       # no reshape at all


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_reshape_between_unpadded_shapes_feeds_a_matmul_bit_exact(tmp_path: Path, backend: str) -> None:
    source = _load(tmp_path, _KERNEL.format(src="32, 16", dt="FP16", m=16, k=32))
    compiled = compile_program(source, backend=backend, verify_all=True)
    inputs = random_inputs(source, 0)
    reports = compare(reference(source, inputs), run(compiled, inputs))
    assert reports and all(r.ok for r in reports), [r.line for r in reports]


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_reshape_from_padded_rows_is_refused_at_the_users_line(tmp_path: Path, backend: str) -> None:
    source = _load(tmp_path, _KERNEL.format(src="32, 8", dt="BF16", m=16, k=16))
    with pytest.raises(CompileError) as caught:
        compile_program(source, backend=backend, verify_all=True)
    text = str(caught.value)
    assert "[InferTileMemorySpace] not supported yet" in text and "a BF16 Vec tile of [32, 8] keeps its rows at a 32-byte pitch" in text
    assert "kernel.py:8:" in text and "hint:" in text


def test_a_reshape_into_padded_rows_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    source = _load(tmp_path, _VECTOR)
    with pytest.raises(CompileError) as caught:
        compile_program(source, backend="Ascend910B", verify_all=True)
    text = str(caught.value)
    assert "internal compiler error" not in text and "ViewLegality" not in text
    assert "not supported yet" in text and "a BF16 Vec tile of [32, 8] keeps its rows at a 32-byte pitch" in text


def _reshapes(node: object) -> Iterator[tuple[object, object]]:
    """(source type, result type) of every tensor / tile reshape in `node`, at any depth."""
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from _reshapes(item)
        return
    if not hasattr(node, "__dataclass_fields__"):
        return
    value = getattr(node, "value", None)
    if getattr(value, "op", None) in ("tensor.reshape", "tile.reshape"):
        yield getattr(getattr(value, "args")[0], "type", None), getattr(getattr(node, "target"), "type", None)
    for name in getattr(node, "__dataclass_fields__"):
        if name not in ("type", "span"):
            yield from _reshapes(getattr(node, name))


# Seeds under which the generator before the fact drew refused reshapes (4 and 14 of them).
@pytest.mark.parametrize("arch, draw_seed", [("a2a3", 0), ("a5", 2)])
def test_the_generator_draws_only_reshapes_a_flat_buffer_re_views(arch: str, draw_seed: int) -> None:
    drawn: list[GeneratedProgram] = []

    @seed(draw_seed)
    @settings(max_examples=200, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(programs(Features(), arch))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    seen = 0
    for program in drawn:
        for source, result in _reshapes(program.program.functions):
            if not isinstance(source, (TensorType, TileType)) or not isinstance(result, (TensorType, TileType)):
                continue
            seen += 1
            assert flat_reshape_keeps_order(tuple(source.shape), tuple(result.shape), source.dtype), program.text
    assert seen, "no reshape drawn"


@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(generated=programs(focus=("tensor.set_validshape", "tensor.slice")))
def test_the_generator_narrows_no_view_by_set_validshape(generated: GeneratedProgram) -> None:
    # tile.set_validshape's operand is handle-only, so ConvertTensorToTileOps refuses a
    # tensor.set_validshape of a computed value's slice (it lowers to a view): the generator reads
    # the fact through the tensor op's lowering (registry_calls._handle_only).
    for function in generated.program.functions:
        slices: set[str] = set()
        params = {p.var.name for p in function.params}
        for node in walk(function):
            value, target = getattr(node, "value", None), getattr(node, "target", None)
            op = getattr(value, "op", None)
            source = str(getattr((getattr(value, "args", ()) or (None,))[0], "name", ""))
            if op == "tensor.slice" and source not in params and target is not None:
                slices.add(str(getattr(target, "name")))
            if op == "tensor.set_validshape":
                assert source not in slices, generated.text
