import pypto.language as pl


@pl.program
class ChainThroughSlots:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[128, 64], pl.FP32]:
        # On Ascend910B the [128, 128] FP32 product crosses to the vector core and its FP16 cast
        # crosses back: the vector core holds the pipe's two 64 KiB slots, the popped product
        # (in one of them) and the cast, which fits Vec only because the pop lives in its slot.
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        ch = pl.cast(c, pl.FP16, mode="rint")
        d = pl.matmul(ch, w, out_dtype=pl.FP32)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16]) -> pl.Tensor[[128, 64], pl.FP32]:
        d = self.mm(a, b, w)
        return d
