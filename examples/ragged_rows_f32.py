# pypto.program: RaggedRows
# A ragged block: how many of its rows to transform is known only at run time (`rows`). The
# narrowed load copies those rows, the arithmetic computes on them, and the store writes only
# them over a copy of the input: output rows at or past `rows` keep the copied values. One
# compiled kernel serves every `rows` in [0, 16].
import pypto.language as pl


@pl.program
class RaggedRows:
    @pl.function(type=pl.FunctionType.InCore)
    def scale_rows(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        rows: pl.Scalar[pl.INDEX],
        y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        whole: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        copied: pl.Tensor[[16, 64], pl.FP32] = pl.store(whole, [0, 0], y)
        head: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64], valid_shape=[rows, 64])
        doubled = pl.tile.muls(head, 2.0)
        shifted = pl.tile.adds(doubled, 1.0)
        result: pl.Tensor[[16, 64], pl.FP32] = pl.store(shifted, [0, 0], copied)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], rows: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        y: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
        r: pl.Tensor[[16, 64], pl.FP32] = self.scale_rows(x, rows, y)
        return r
