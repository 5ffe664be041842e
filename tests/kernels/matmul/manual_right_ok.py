import pypto.language as pl


@pl.program
class ManualRightOk:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[32, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
        a_mat = pl.load(a, [0, 0], [32, 256], target_memory=pl.Mem.Mat)
        b_mat = pl.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        b_l0 = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(a_mat, b_l0)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16]) -> pl.Tensor[[32, 64], pl.FP32]:
        c = self.mm(a, b)
        return c
