# fuzz-regression: verifier (verifier)
# blamed: init-mem-ref
# input-seed: 0
# backend: Ascend910B
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'InitMemRef' for properties {HasMemRefs}
#   error: [InitMemRef] `init-mem-ref` claims to produce HasMemRefs, but its output violates it (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:10:57: error: [HasMemRefs] tile `reinterpret_view_0_tile` needs 1024 bytes but its MemRef mem_vec_0 has 512
#       hint: a buffer shared by several tiles must be as large as the largest
#   <fuzz>:10:57: error: [HasMemRefs] tile the result of tile.reinterpret_view needs 1024 bytes but its MemRef mem_vec_0 has 512
#   ...
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# pypto.program: Fuzz
# nanopass.language: Tensor
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, x1: pl.Tensor[[16, 16], pl.INT16]) -> pl.Tensor[[32, 8], pl.FP16]:
        t3: pl.Tensor[[32, 8], pl.FP16] = pl.tensor.abs(pl.tensor.reinterpret_view(x1, dtype=pl.FP16, shape=[32, 8]))
        return t3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_x1: pl.Tensor[[16, 16], pl.INT16]) -> pl.Tensor[[32, 8], pl.FP16]:
        kernel0_out: pl.Tensor[[32, 8], pl.FP16] = self.kernel0(kernel0_x1)
        return kernel0_out
