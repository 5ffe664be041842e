import pypto.language as pl


@pl.program
class MixedKernelBarriers:
    """A product that crosses to the vector core between barriers every core takes: a soft one
    on GM counters (both staging workspaces), a hard one, then the vector part of the work."""

    @pl.function(type=pl.FunctionType.InCore)
    def scaled_product(self, lhs: pl.Tensor[[32, 48], pl.FP16], rhs: pl.Tensor[[48, 16], pl.FP16],
                       counters: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[32, 16], pl.FP32]:
        product: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.matmul(lhs, rhs, out_dtype=pl.FP32)
        pl.system.syncall(counters, mode="soft", core_type="mix")
        doubled: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.muls(product, pl.const(2.0, pl.FP32))
        pl.system.syncall(core_type="mix")
        magnitude: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.abs(doubled)
        return magnitude

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, lhs: pl.Tensor[[32, 48], pl.FP16], rhs: pl.Tensor[[48, 16], pl.FP16],
             counters: pl.Tensor[[16], pl.INT32]) -> pl.Tensor[[32, 16], pl.FP32]:
        out: pl.Tensor[[32, 16], pl.FP32] = self.scaled_product(lhs, rhs, counters)
        return out
