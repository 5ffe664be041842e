# Integer quantize / dequantize with bitwise ops and shifts (tensor level): quantize x to its
# top byte (arithmetic shift right by 8), keep the low nibble of a second input as a code,
# pack code and quantized byte into one INT16 word (shift left + or), scramble it with xor
# (ConvertTensorToTileOps supplies the pto.txor scratch), unscramble, unpack and dequantize.
import pypto.language as pl


@pl.program
class Int16QuantBits:
    @pl.function(type=pl.FunctionType.InCore)
    def quant(self, x: pl.Tensor[[16, 32], pl.INT16], code: pl.Tensor[[16, 32], pl.INT16],
              key: pl.Tensor[[16, 32], pl.INT16], scale: pl.Scalar[pl.FP32]
              ) -> tuple[pl.Tensor[[16, 32], pl.INT16], pl.Tensor[[16, 32], pl.FP32]]:
        q = pl.tensor.shrs(x, pl.const(8, pl.INT16))
        low = pl.tensor.ands(code, pl.const(15, pl.INT16))
        packed = pl.tensor.or_(pl.tensor.shls(low, pl.const(8, pl.INT16)), pl.tensor.ands(q, pl.const(255, pl.INT16)))
        word = pl.tensor.xor(packed, key)
        back = pl.tensor.xor(word, key)
        byte = pl.tensor.shr(pl.tensor.shl(back, pl.tensor.full([16, 32], dtype=pl.INT16, value=8)),
                             pl.tensor.full([16, 32], dtype=pl.INT16, value=8))
        dequant = pl.tensor.muls(pl.cast(byte, pl.FP32), scale)
        return word, dequant

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.INT16], code: pl.Tensor[[16, 32], pl.INT16],
             key: pl.Tensor[[16, 32], pl.INT16], scale: pl.Scalar[pl.FP32]
             ) -> tuple[pl.Tensor[[16, 32], pl.INT16], pl.Tensor[[16, 32], pl.FP32]]:
        word, dequant = self.quant(x, code, key, scale)
        return word, dequant
