import pypto.language as pl


@pl.program
class InOutBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, x: pl.InOut[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 8])
        x = pl.store(pl.adds(t, 1.5), [0, 0], x)
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def doubled(self, x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 8])
        out = pl.store(pl.add(t, t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.InOut[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[64, 8], pl.FP32]:
        y = pl.create_tensor([64, 8], dtype=pl.FP32)
        for j in pl.range(4):
            xb = pl.slice(x, [16, 8], [0, j * 8])
            xb = self.bump(xb)
            r = pl.create_tensor([16, 8], dtype=pl.FP32)
            r = self.doubled(xb, r)
            y = pl.assemble(y, r, [j * 16, 0])
        return y
