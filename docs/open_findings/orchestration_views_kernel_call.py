# red-team (issue 8): a valid kernel refused
# An Orchestration function that calls a kernel on row blocks of a GM tensor (pl.slice) and
# writes each result into a window of another (pl.assemble): PyPTO's orchestration takes views
# (JIT_FRONTEND.md section 1.1: "It may allocate, take views (pl.slice, subscripts), ..."), this
# compiler reports "not supported yet" at the slice (ConvertTensorToTileOps only lowers InCore
# functions; the orchestration has no view-of-GM-tensor argument for a kernel call, neither in
# the call-site rewriting nor in the simulator's orchestration runner).
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate
# The workaround the diagnostic names (pass x whole, loop inside the kernel) compiles and runs.
import pypto.language as pl


@pl.program
class OrchLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        m = pl.row_max(x)
        y = pl.mul(pl.exp(pl.row_expand_sub(x, m)), w)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = pl.create_tensor([64, 64], dtype=pl.FP32)
        for i in pl.range(4):
            xb = pl.slice(x, [16, 64], [i * 16, 0])
            yb = self.block(xb, w)
            out = pl.assemble(out, yb, [i * 16, 0])
        return out
