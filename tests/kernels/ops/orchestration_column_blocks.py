import pypto.language as pl


@pl.program
class ColumnBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def square_plus(self, x: pl.Tensor[[32, 16], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        y = pl.add(pl.mul(x, x), b)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:
        out = pl.create_tensor([32, 64], dtype=pl.FP32)
        for j in pl.range(4):
            xb = pl.slice(x, [32, 16], [0, j * 16])
            yb = self.square_plus(xb, b)
            out = pl.assemble(out, yb, [0, j * 16])
        return out
