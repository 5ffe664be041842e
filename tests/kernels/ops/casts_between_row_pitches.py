"""Casts between element widths whose 32-byte rows hold different numbers of elements: a [4, 4]
FP32 tile is allocated [4, 8], its FP16 cast [4, 16], and a [3, 20] FP16 tile [3, 32] against
FP32's [3, 24]. It simulates bit-exact, but PTOAS wants a tcvt's src and dst declared of one shape
(`'pto.tcvt' op expects src and dst to have compatible shapes`), and a subview of the wider-padded
tile does not help: PTOAS re-makes it as a handle of its parent's shape before verifying the tcvt.
The open CAST_PITCH class (tests/test_ptoas.py's PTOAS_REJECTS, strict): the fix is a row pitch a
cast's two tiles share."""
import pypto.language as pl


@pl.program
class CastsBetweenRowPitches:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[4, 4], pl.FP32], h: pl.Tensor[[3, 20], pl.FP16]
               ) -> tuple[pl.Tensor[[4, 4], pl.FP16], pl.Tensor[[3, 20], pl.FP32], pl.Tensor[[4, 4], pl.INT32]]:
        down: pl.Tensor[[4, 4], pl.FP16] = pl.cast(x, pl.FP16)
        up: pl.Tensor[[3, 20], pl.FP32] = pl.cast(h, pl.FP32)
        back: pl.Tensor[[4, 4], pl.FP32] = pl.cast(down, pl.FP32)
        whole: pl.Tensor[[4, 4], pl.INT32] = pl.cast(back, pl.INT32, mode="round")
        return down, up, whole

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 4], pl.FP32], h: pl.Tensor[[3, 20], pl.FP16]
             ) -> tuple[pl.Tensor[[4, 4], pl.FP16], pl.Tensor[[3, 20], pl.FP32], pl.Tensor[[4, 4], pl.INT32]]:
        outs: tuple[pl.Tensor[[4, 4], pl.FP16], pl.Tensor[[3, 20], pl.FP32], pl.Tensor[[4, 4], pl.INT32]] = \
            self.kernel(x, h)
        a: pl.Tensor[[4, 4], pl.FP16] = outs[0]
        b: pl.Tensor[[3, 20], pl.FP32] = outs[1]
        c: pl.Tensor[[4, 4], pl.INT32] = outs[2]
        return a, b, c
