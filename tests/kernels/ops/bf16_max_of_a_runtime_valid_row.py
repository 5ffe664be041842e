# A BF16 tile.maximums of a row loaded with a runtime valid extent, on Ascend910B: A2/A3's tmaxs
# takes no BF16, so LegalizeVecDtypes runs it on the INT16 bits (the BITS route) and brings the
# result back as a same-width tile.reinterpret_view, which keeps the runtime extent (it moves no
# element). tests/test_ptoas.py assembles it on both targets.
import pypto.language as pl


@pl.program
class Bf16MaxOfARuntimeValidRow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 32], pl.BF16], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[1, 32], pl.BF16]]) -> pl.Tensor[[1, 32], pl.BF16]:
        row = pl.tile.load(x, [0, 0], [1, 32], [1, n], target_memory=pl.Mem.Vec)
        clipped = pl.tile.maximums(row, pl.const(-0.5, pl.BF16))
        return pl.tile.store(clipped, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 32], pl.BF16], n: pl.Scalar[pl.INDEX],
             out: pl.Tensor[[1, 32], pl.BF16]) -> pl.Tensor[[1, 32], pl.BF16]:
        r = self.kernel(x, n, out)
        return r
