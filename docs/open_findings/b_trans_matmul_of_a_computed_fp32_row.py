# (agent-i's 120 s campaign on Ascend950, seed 21: 0710d65a64, shrunk by hand) a valid program refused:
# tensor.matmul(x1, t2, b_trans=True) of [1, 8] FP32 operands, t2 computed on chip (tensor.muls). On 2f1c225 the
# on-chip boxing transposes t2's [16, 8] box into an FP32 Mat tile of physical [8, 16] that BoxedExtents refuses
# (8 rows, not a whole 16-row box); on lead-17 ad5b071 (after 45acd17, which fixed the INT8 instance 7d5ca98b4e)
# ConvertTensorToTileOps' deduction refuses it: "tile.matmul: operand 'rhs' expected K = 8 rows (lhs is [16, 8]),
# got K = 16 (rhs is [16, 16])". Not analysed.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --backend Ascend950
import pypto.language as pl


@pl.program
class MM:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel1(self, x1: pl.Tensor[[1, 8], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        t2: pl.Tensor[[1, 8], pl.FP32] = pl.tensor.muls(x1, pl.const(0.5, pl.FP32))
        t9: pl.Tensor[[1, 1], pl.FP32] = pl.tensor.matmul(x1, t2, a_trans=False, b_trans=True, out_dtype=pl.FP32)
        return t9

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 8], pl.FP32]) -> pl.Tensor[[1, 1], pl.FP32]:
        o: pl.Tensor[[1, 1], pl.FP32] = self.kernel1(x)
        return o
