# Mask-form gathers (gather_mask) whose compacted rows are not whole 32-byte rows, or whose source is
# narrowed by set_validshape: PTOAS's tgather wants its dst valid over whole rows (pto-isa writes the
# compacted rows as one continuous stream), so the lowering copies the source into whole rows (zero
# padding), gathers and narrows the result back (tests/test_gather_over_whole_rows.py).
import pypto.language as pl


@pl.program
class GatherMaskUnalignedRows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x1: pl.Tensor[[1, 16], pl.INT32], x2: pl.Tensor[[4, 8], pl.FP32], x3: pl.Tensor[[6, 16], pl.FP16],
          x4: pl.Tensor[[4, 16], pl.FP32]
          ) -> tuple[pl.Tensor[[1, 4], pl.FP32], pl.Tensor[[4, 4], pl.FP32], pl.Tensor[[6, 8], pl.FP16],
                     pl.Tensor[[4, 8], pl.FP32]]:
        a: pl.Tensor[[1, 4], pl.FP32] = pl.tensor.gather_mask(x1, mask_pattern=3, output_dtype=pl.FP32)
        y: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.adds(x2, 1.0)
        b: pl.Tensor[[4, 4], pl.FP32] = pl.tensor.gather_mask(y, mask_pattern=2)
        c: pl.Tensor[[6, 8], pl.FP16] = pl.tensor.gather_mask(x3, mask_pattern=1)
        n: pl.Tensor[[4, 16], pl.FP32] = pl.tensor.set_validshape(x4, 4, 12)
        d: pl.Tensor[[4, 8], pl.FP32] = pl.tensor.gather_mask(n, mask_pattern=1)
        return a, b, c, d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x1: pl.Tensor[[1, 16], pl.INT32], x2: pl.Tensor[[4, 8], pl.FP32], x3: pl.Tensor[[6, 16], pl.FP16],
             x4: pl.Tensor[[4, 16], pl.FP32]
             ) -> tuple[pl.Tensor[[1, 4], pl.FP32], pl.Tensor[[4, 4], pl.FP32], pl.Tensor[[6, 8], pl.FP16],
                        pl.Tensor[[4, 8], pl.FP32]]:
        out: tuple[pl.Tensor[[1, 4], pl.FP32], pl.Tensor[[4, 4], pl.FP32], pl.Tensor[[6, 8], pl.FP16],
                   pl.Tensor[[4, 8], pl.FP32]] = self.k(x1, x2, x3, x4)
        return out
