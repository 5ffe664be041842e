# pypto.program: IfPhi
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class IfPhi:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, x: pl.Tensor[[32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[32], pl.FP32], pl.Scalar[pl.INDEX]]:
        half: pl.Scalar[pl.INDEX] = n // 2
        if half * 2 == n and not n < 0:
            doubled: pl.Tensor[[32], pl.FP32] = pl.tensor.add(x, x)
            y, k = pl.yield_(doubled, half)
        else:
            scaled: pl.Tensor[[32], pl.FP32] = pl.tensor.muls(x, pl.const(0.5, pl.FP32))
            y, k = pl.yield_(scaled, -(n + 1) % 7)
        for i in pl.range(4):
            pl.system.bar_all()
        for j, (acc,) in pl.range(1, k, 2, init_values=(y,)):
            nxt: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(acc, pl.const(float("inf"), pl.FP32))
            total = pl.yield_(nxt)
        flag: pl.Scalar[pl.BOOL] = True
        neg: pl.Scalar[pl.INDEX] = -pl.const(3, pl.INDEX) - -3
        w: pl.Scalar[pl.INT32] = pl.const(-7, pl.INT32)
        return total, k
