import pypto.language as pl


@pl.program
class MatmulCastMatmul:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        # The FP16 operand of the second matmul is made on the vector core and sent back to the cube.
        ch = pl.cast(c, pl.FP16, mode="rint")
        d = pl.matmul(ch, w, out_dtype=pl.FP32)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 32], pl.FP16]) -> pl.Tensor[[64, 32], pl.FP32]:
        d = self.mm(a, b, w)
        return d
