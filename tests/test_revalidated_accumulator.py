"""A matmul_acc onto an accumulator narrowed by set_validshape keeps the narrow valid region.

tensor.matmul_acc's result *is* its accumulator (type included), so accumulating onto a product
re-validated to [1, 1] gives a [1, 1]-valid value, and a column reduction over it reads one row.
tile.matmul_acc's valid region is the product's (every row the left operand defines), so the
converted value must be narrowed back to the tensor's region; when it was not (the narrowing
only happened for boxed shapes), the reduction read all sixteen rows (fuzz 955fe5edac).
"""

from __future__ import annotations

import numpy as np

import languages.gen.tensor as T
from languages.pl_parser import parse_program_as
from languages.types import TileType
from nanopass.node import Node, walk
from nanopass.passes import PassContext
from nanopass_pto import run as runner
from passes.convert_tensor_to_tile_ops import ConvertTensorToTileOps
from passes.update_orchestration_call_sites import UpdateOrchestrationCallSites

SOURCE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
          a2: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 2])]:
        p: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        seed: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[3, 2])] = pl.tensor.set_validshape(p, 3, 2)
        acc: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(valid_shape=[3, 2])] = pl.tensor.matmul_acc(seed, a2, b2)
        top: pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 2])] = pl.tensor.col_max(acc)
        return top

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             a2: pl.Tensor[[16, 16], pl.FP16], b2: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 2])]:
        out: pl.Tensor[[1, 16], pl.FP32, pl.TensorView(valid_shape=[1, 2])] = self.k(a, b, a2, b2)
        return out
"""


def converted() -> tuple[T.Program, Node]:
    source = parse_program_as(SOURCE, T.Program)
    ctx = PassContext()
    tiled = UpdateOrchestrationCallSites().run(ConvertTensorToTileOps().run(source, ctx), ctx)
    return source, tiled


def test_the_reduction_reads_the_accumulators_valid_rows_only() -> None:
    _, tiled = converted()
    reductions = [n for n in walk(tiled) if n.KIND == "Call" and str(getattr(n, "op")) == "tile.col_max"]
    assert len(reductions) == 1
    operand = getattr(reductions[0], "args")[0].type
    assert isinstance(operand, TileType) and tuple(operand.valid) == (3, 2)


def test_the_converted_program_means_what_the_source_means() -> None:
    source, tiled = converted()
    inputs = runner.random_inputs(source, 0)
    # Rows past the third carry the seed product plus a2 @ b2: make them dominate every column
    # maximum, so reading them changes the result whatever the draw.
    inputs["a2"] = np.asarray(inputs["a2"]).copy()
    inputs["a2"][3:, :] = np.float16(8.0)
    inputs["b2"] = np.asarray(inputs["b2"]).copy()
    inputs["b2"][:, :] = np.float16(8.0)
    expected = runner.reference(source, inputs)
    got = runner.reference(tiled, inputs)
    reports = runner.compare_valid(source, expected, got)
    assert all(r.ok for r in reports), [r for r in reports if not r.ok]
