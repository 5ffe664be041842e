import pypto.language as pl


@pl.program
class BlockGrid:
    @pl.function(type=pl.FunctionType.InCore)
    def negate(self, x: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        y = pl.neg(x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 48], pl.FP32]) -> pl.Tensor[[32, 48], pl.FP32]:
        out = pl.create_tensor([32, 48], dtype=pl.FP32)
        for i in pl.range(2):
            band = pl.slice(x, [16, 48], [i * 16, 0])
            for j in pl.range(3):
                for k in pl.range(2):
                    xb = pl.slice(band, [8, 16], [k * 8, j * 16])
                    yb = self.negate(xb)
                    out = pl.assemble(out, yb, [i * 16 + k * 8, j * 16])
        return out
