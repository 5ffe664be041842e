"""Column broadcasts of on-chip windows: a [4, 32] window of rows and an [8, 16] window of
columns of a computed [8, 32] value, each combined with a [1, 32] / [1, 16] row (tensor.sub,
tensor.mul), and an INT16 window's column broadcast add. PTOAS measures a pto.tcolexpand*'s src0
against its dst by declared shape also after lowering a subview to its source's buffer, so the
window reaches the instruction as a copy of its own (languages.layout.SHAPE_MATCHED_INSTRUCTIONS;
tests/test_col_expand_of_windows.py)."""
import pypto.language as pl


@pl.program
class ColExpandOfWindows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[8, 32], pl.FP32], c: pl.Tensor[[1, 32], pl.FP32], d: pl.Tensor[[1, 16], pl.FP32],
               n: pl.Tensor[[8, 32], pl.INT16], m: pl.Tensor[[1, 16], pl.INT16]
               ) -> tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[4, 16], pl.INT16]]:
        e: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.mul(x, x)
        band: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.slice(e, [4, 32], [2, 0])
        shifted: pl.Tensor[[4, 32], pl.FP32] = pl.tensor.sub(band, c)
        right: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.slice(e, [8, 16], [0, 16])
        scaled: pl.Tensor[[8, 16], pl.FP32] = pl.tensor.mul(right, d)
        twice: pl.Tensor[[8, 32], pl.INT16] = pl.tensor.add(n, n)
        corner: pl.Tensor[[4, 16], pl.INT16] = pl.tensor.slice(twice, [4, 16], [4, 16])
        lifted: pl.Tensor[[4, 16], pl.INT16] = pl.tensor.add(corner, m)
        return shifted, scaled, lifted

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 32], pl.FP32], c: pl.Tensor[[1, 32], pl.FP32], d: pl.Tensor[[1, 16], pl.FP32],
             n: pl.Tensor[[8, 32], pl.INT16], m: pl.Tensor[[1, 16], pl.INT16]
             ) -> tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[4, 16], pl.INT16]]:
        outs: tuple[pl.Tensor[[4, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[4, 16], pl.INT16]] = \
            self.kernel(x, c, d, n, m)
        a: pl.Tensor[[4, 32], pl.FP32] = outs[0]
        b: pl.Tensor[[8, 16], pl.FP32] = outs[1]
        k: pl.Tensor[[4, 16], pl.INT16] = outs[2]
        return a, b, k
