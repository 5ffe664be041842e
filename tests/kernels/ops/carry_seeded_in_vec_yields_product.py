import pypto.language as pl


@pl.program
class Carry:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.FP32], b2: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t3: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x1, pl.const(0.5, pl.FP32))
        t4: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(x1, pl.const(0.0, pl.FP32))
        for i5, (acc7, s6,) in pl.range(2, init_values=(t3, t4,)):
            a8: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.abs(acc7)
            s9: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(s6, a8)
            for j10, (acc11,) in pl.range(1, init_values=(acc7,)):
                m12: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(acc11, b2, out_dtype=pl.FP32)
                r13 = pl.yield_(m12)
            r14, r15 = pl.yield_(r13, s9)
        return r14, r15

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x1: pl.Tensor[[16, 16], pl.FP32], b2: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        outs: tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.kernel0(x1, b2)
        o0: pl.Tensor[[16, 16], pl.FP32] = outs[0]
        o1: pl.Tensor[[16, 16], pl.FP32] = outs[1]
        return o0, o1
