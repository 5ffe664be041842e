import pypto.language as pl


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def shifted(self, x: pl.Tensor[[8, 32], pl.FP32], b: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        y = pl.sub(pl.mul(x, b), b)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        out = pl.create_tensor([32, 32], dtype=pl.FP32)
        for i in pl.range(4):
            xb = pl.slice(x, [8, 32], [i * 8, 0])
            yb = self.shifted(xb, b)
            out = pl.assemble(out, yb, [i * 8, 0])
        return out
