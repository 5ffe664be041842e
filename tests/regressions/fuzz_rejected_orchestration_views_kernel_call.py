# fuzz-regression: rejected (compile error)
# blamed: convert-tensor-to-tile-ops
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   not supported yet: `tensor.slice` of a tensor in Orchestration function `main` (a kernel called
#   on a view or window of a GM tensor)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# red-team (issue 8): a valid kernel refused. An Orchestration function that calls a kernel on row
# blocks of a GM tensor (pl.slice) and writes each result into a window of another (pl.assemble),
# as PyPTO's orchestration allows (JIT_FRONTEND.md section 1.1).
# fixed (agent-r): an orchestration pl.slice of a GM tensor is a tensor.window the kernel reads in
# place (at the tensor's offset and strides, which the kernel's parameter type carries), and the
# assembled result is the kernel writing that window (UpdateOrchestrationCallSites passes it as
# the kernel's Out argument); tests/test_orchestration_windows.py.
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
