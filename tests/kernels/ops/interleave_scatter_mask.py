# Interleave two half-width streams with mask-pattern scatters: the even columns of the output
# come from `even`, the odd ones from `odd` (P0101 marks columns 0, 2, ...; P1010 columns 1, 3, ...),
# the first at tensor level, the second on tiles. PTO-ISA has no mask form of tscatter: both
# are expanded into an indexed scatter over the flat index r * cols + c * stride + phase.
import pypto.language as pl


@pl.program
class Interleave:
    @pl.function(type=pl.FunctionType.InCore)
    def mix(self, base: pl.Tensor[[8, 32], pl.FP16], even: pl.Tensor[[8, 16], pl.FP16],
            odd: pl.Tensor[[8, 16], pl.FP16]) -> pl.Tensor[[8, 32], pl.FP16]:
        half = pl.tensor.scatter_mask(base, even, mask_pattern=pl.tile.MaskPattern.P0101)
        half_tile = pl.load(half, [0, 0], [8, 32])
        odd_tile = pl.load(odd, [0, 0], [8, 16])
        both = pl.tile.scatter_mask(half_tile, odd_tile, mask_pattern=pl.tile.MaskPattern.P1010)
        out = pl.create_tensor([8, 32], dtype=pl.FP16)
        return pl.store(both, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, base: pl.Tensor[[8, 32], pl.FP16], even: pl.Tensor[[8, 16], pl.FP16],
             odd: pl.Tensor[[8, 16], pl.FP16]) -> pl.Tensor[[8, 32], pl.FP16]:
        r = self.mix(base, even, odd)
        return r
