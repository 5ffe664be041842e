import pypto.language as pl


@pl.program
class WideOperandThroughGm:
    """A [100, 272] FP32 cube operand computed on chip: too wide to cross to the cube core whole on
    Ascend910B (it and the pipe's slots of its size overflow Vec), so one kernel computes it and
    the next takes it as a GM tensor, loaded straight into Mat."""

    @pl.function(type=pl.FunctionType.InCore)
    def halve(self, x: pl.Tensor[[100, 272], pl.FP32]) -> pl.Tensor[[100, 272], pl.FP32]:
        half: pl.Tensor[[100, 272], pl.FP32] = pl.tensor.muls(x, pl.const(0.5, pl.FP32))
        return half

    @pl.function(type=pl.FunctionType.InCore)
    def project(self, half: pl.Tensor[[100, 272], pl.FP32],
                weights: pl.Tensor[[272, 32], pl.FP32]) -> pl.Tensor[[100, 32], pl.FP32]:
        product: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.matmul(half, weights, out_dtype=pl.FP32)
        magnitude: pl.Tensor[[100, 32], pl.FP32] = pl.tensor.abs(product)
        return magnitude

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[100, 272], pl.FP32], weights: pl.Tensor[[272, 32], pl.FP32]
             ) -> tuple[pl.Tensor[[100, 32], pl.FP32], pl.Tensor[[100, 272], pl.FP32]]:
        half: pl.Tensor[[100, 272], pl.FP32] = self.halve(x)
        out: pl.Tensor[[100, 32], pl.FP32] = self.project(half, weights)
        return out, half
