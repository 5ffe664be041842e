# A batched matmul with broadcast batch dims: [2, 3, 16, 64] x [3, 64, 32] -> [2, 3, 16, 32].
# ConvertTensorToTileOps dispatches the rank-4 pl.matmul to tile.batch_matmul; FlattenTileNdTo2D
# unrolls it into one 2-D matmul per batch (the rhs batch axis of 3 is shared by both lhs rows),
# each a MAD chain of its own (NUMERICS.md section 1).
import pypto.language as pl


@pl.program
class BatchMatmulBroadcast:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(
        self,
        a: pl.Tensor[[2, 3, 16, 64], pl.FP16],
        b: pl.Tensor[[3, 64, 32], pl.FP16],
    ) -> pl.Tensor[[2, 3, 16, 32], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[2, 3, 16, 64], pl.FP16],
        b: pl.Tensor[[3, 64, 32], pl.FP16],
    ) -> pl.Tensor[[2, 3, 16, 32], pl.FP32]:
        c = self.mm(a, b)
        return c
