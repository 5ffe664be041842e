import pypto.language as pl


@pl.program
class MatmulBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def project(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        d = pl.add(c, c)
        return d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 48], pl.FP16]) -> pl.Tensor[[32, 48], pl.FP32]:
        out = pl.create_tensor([32, 48], dtype=pl.FP32)
        for i in pl.range(2):
            for j in pl.range(3):
                r = self.project(pl.slice(a, [16, 32], [i * 16, 0]), pl.slice(b, [32, 16], [0, j * 16]))
                out = pl.assemble(out, r, [i * 16, j * 16])
        return out
