# fixed finding (agent-m; PTOAS rejected the emitted kernel; --verify-all --simulate passed, bit-exact): the
# pass RevalidateReadOperands re-validates `narrow` over the region tile.sub reads, TargetOpRules checks one
# valid shape per element-wise source on the PTO program (SameValidShape). tests/test_instruction_operand_shapes.py
# assembles this file.
# replay: python -m nanopass.pipeline THIS_FILE -o k.pto && ptoas --pto-arch=a3 --pto-level=level3 k.pto -o k.cpp
#   error: 'pto.tsub' op expects src0 and src1 to have the same valid_shape
# An element-wise op over a tile narrowed by set_validshape (after a whole load) and a whole tile
# reads the narrowed one past its valid region, where the loaded data is (DefinedReads accepts
# it, the simulator and interpreter agree). PTOAS wants both sources of one valid shape.
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        narrow: pl.Tile[[16, 64], pl.FP32, pl.TileView(valid_shape=[4, 64])] = pl.tile.set_validshape(ta, 4, 64)
        s: pl.Tile[[16, 64], pl.FP32] = pl.tile.sub(narrow, tb)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.kernel(a, b, out)
        return r
