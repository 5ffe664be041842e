# Axis gathers (dim) whose index rows are not whole 32-byte rows of the source's element type: a
# [16, 4] FP32 result, an INT16 index of an FP16 source, one row; and [16, 1] columns, which are
# column-major (their rows pad, not their one column) and gather as they are. PTOAS's tgather
# wants its dst's and indices' valid columns equal to their buffers' columns, so the lowering
# builds the flat index, copies it into whole rows (zero padding), gathers over them and narrows
# the result back to the index's shape (tests/test_gather_over_whole_rows.py). (An INT16 column
# of rows that are not whole 32-byte blocks, [6, 1], is CAST_PITCH's open tcvt.)
import pypto.language as pl


@pl.program
class AxisGatherUnalignedRows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], i4: pl.Tensor[[16, 4], pl.INT32], i1: pl.Tensor[[16, 1], pl.INT32],
          t: pl.Tensor[[8, 4], pl.FP32], r: pl.Tensor[[16, 4], pl.INT32], r1: pl.Tensor[[1, 4], pl.INT32],
          c: pl.Tensor[[8, 1], pl.FP32], rc: pl.Tensor[[16, 1], pl.INT16], h: pl.Tensor[[6, 12], pl.FP16],
          hi: pl.Tensor[[6, 4], pl.INT16], h16: pl.Tensor[[16, 12], pl.FP16], hc: pl.Tensor[[16, 1], pl.INT16]
          ) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 4], pl.FP32],
                     pl.Tensor[[1, 4], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[6, 4], pl.FP16],
                     pl.Tensor[[16, 1], pl.FP16]]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x, 1.0)
        a: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.gather(y, dim=1, index=i4)
        b: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.gather(y, dim=-1, index=i1)
        d: pl.Tensor[[16, 4], pl.FP32] = pl.tensor.gather(t, dim=0, index=r)
        e: pl.Tensor[[1, 4], pl.FP32] = pl.tensor.gather(t, dim=0, index=r1)
        f: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.gather(c, dim=0, index=rc)
        g: pl.Tensor[[6, 4], pl.FP16] = pl.tensor.gather(h, dim=1, index=hi)
        u: pl.Tensor[[16, 1], pl.FP16] = pl.tensor.gather(h16, dim=-1, index=hc)
        return a, b, d, e, f, g, u

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], i4: pl.Tensor[[16, 4], pl.INT32], i1: pl.Tensor[[16, 1], pl.INT32],
             t: pl.Tensor[[8, 4], pl.FP32], r: pl.Tensor[[16, 4], pl.INT32], r1: pl.Tensor[[1, 4], pl.INT32],
             c: pl.Tensor[[8, 1], pl.FP32], rc: pl.Tensor[[16, 1], pl.INT16], h: pl.Tensor[[6, 12], pl.FP16],
             hi: pl.Tensor[[6, 4], pl.INT16], h16: pl.Tensor[[16, 12], pl.FP16], hc: pl.Tensor[[16, 1], pl.INT16]
             ) -> tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 4], pl.FP32],
                        pl.Tensor[[1, 4], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[6, 4], pl.FP16],
                        pl.Tensor[[16, 1], pl.FP16]]:
        out: tuple[pl.Tensor[[16, 4], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 4], pl.FP32],
                   pl.Tensor[[1, 4], pl.FP32], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[6, 4], pl.FP16],
                   pl.Tensor[[16, 1], pl.FP16]] = self.k(x, i4, i1, t, r, r1, c, rc, h, hi, h16, hc)
        return out
