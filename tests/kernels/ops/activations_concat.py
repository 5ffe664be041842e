# An activation chain on the vector unit: PReLU (tile.prelu with its byte scratch), SiLU
# x / (1 + exp(-x)), a sigmoid-GELU x / (1 + exp(-1.702 x)), SwiGLU silu(x) * gate, and a
# column concat of two results.
import pypto.language as pl


@pl.program
class Activations:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], slope: pl.Tensor[[16, 32], pl.FP32],
               gate: pl.Tensor[[16, 32], pl.FP32],
               prelu_out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], glu_out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        xt = pl.load(x, [0, 0], [16, 32])
        st = pl.load(slope, [0, 0], [16, 32])
        gt = pl.load(gate, [0, 0], [16, 32])
        # A2/A3's TPRELU writes the packed compare mask of the 16 valid rows into tmp and uses one row
        # after them (pto-isa), and PTOAS 0.44 wants src0 / src1 / tmp / dst of one shape: operands
        # one row taller than their valid region satisfy both.
        xp = pl.load(x, [0, 0], [17, 32], valid_shape=[16, 32])
        sp = pl.load(slope, [0, 0], [17, 32], valid_shape=[16, 32])
        tmp = pl.tile.create([17, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        pr = pl.tile.prelu(xp, sp, tmp)
        silu = pl.tile.div(xt, pl.tile.adds(pl.tile.exp(pl.tile.neg(xt)), 1.0))
        gelu = pl.tile.div(xt, pl.tile.adds(pl.tile.exp(pl.tile.muls(xt, -1.702)), 1.0))
        swiglu = pl.tile.mul(silu, gt)
        both = pl.tile.concat(gelu, swiglu)
        pl.store(pr, [0, 0], prelu_out)
        pl.store(both, [0, 0], glu_out)
