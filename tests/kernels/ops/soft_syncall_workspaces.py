# Soft (GM-polling) barriers of every core type between two vector steps: the GM workspace is an
# INT32 parameter of 16 counters; the on-chip staging tiles PTOAS wants beside it are the
# compiler's to allocate. A soft barrier has no effect on one block's values.
import pypto.language as pl


@pl.program
class SoftSyncall:
    @pl.function(type=pl.FunctionType.InCore)
    def vector_steps(self, x: pl.Tensor[[16, 32], pl.FP32], counters: pl.Tensor[[16], pl.INT32]
                     ) -> pl.Tensor[[16, 32], pl.FP32]:
        shifted: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(x, 1.0)
        pl.system.syncall(counters, mode="soft")
        scaled: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.muls(shifted, 3.0)
        pl.system.syncall(counters, 4, mode="soft", core_type="mix")
        pl.system.syncall(counters, mode="soft", core_type="aic_only")
        result: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.sub(scaled, x)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], counters: pl.Tensor[[16], pl.INT32]
             ) -> pl.Tensor[[16, 32], pl.FP32]:
        result: pl.Tensor[[16, 32], pl.FP32] = self.vector_steps(x, counters)
        return result
