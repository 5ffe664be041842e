# fuzz-regression: verifier (verifier)
# blamed: pto-codegen
# input-seed: 65536
# backend: Ascend950
# pipeline: default
# verdict when found:
#   internal compiler error: Verification failed after 'PTOCodegen' for properties {TargetOpRules}
#   error: [PTOCodegen] `pto-codegen` broke TargetOpRules, which it does not declare in `invalidates` (it held before the pass) (the input was verified when it was loaded: this is a compiler bug)
#       hint: for pass authors: fix the pass, or declare the property in its `invalidates` so later passes re-establish it
#   <fuzz>:24:25: error: [TargetOpRules] pto.tinsert on Ascend950: operand 0 has element type UINT16, expected one of BF16, FP16, FP32, FP8E4M3FN, FP8E5M2, FP8E8M0, INT32, INT8, UINT32, UINT8; PTOAS's tinsert takes BF16 / FP16 / FP32 / FP8E4M3FN / FP8E5M2 / FP8E8M0 / INT32 / INT8 / UINT32 / UINT8 elements on Ascend950
#       hint: copy the tiles as the bits of a type of their width it takes (the buffers re-viewed in that type: LegalizeVecLayouts does so for the copies and window writes it is given)
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 65536 --backend Ascend950
# (collected by tests/regressions/conftest.py; fails until the bug is fixed)
# fixed (agent-v): MaterializeSemanticAliases copied the yielded [1, 1] UINT16 window t15 (a
# pto.tinsert) in its own type; it now copies it as FP16 bits through the rewrite LegalizeVecLayouts
# uses (passes/analysis/vec_insert_bits.py), and the VecInsertTypes verifier checks every such copy.
# pypto.program: Fuzz
# nanopass.language: DSL
import pypto.language as pl


@pl.program
class Fuzz:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, kernel0_y1: pl.Tensor[[1, 1], pl.UINT16], kernel0_x2: pl.Tensor[[1, 1], pl.UINT16], kernel0_x4: pl.Tensor[[1, 1], pl.UINT16], kernel0_x6: pl.Tensor[[1, 1], pl.UINT16], kernel0_x16: pl.Tensor[[16, 12], pl.FP16], kernel0_idx17: pl.Tensor[[16, 12], pl.INT32], kernel0_x18: pl.Tensor[[16, 12], pl.FP16], kernel0_idx19: pl.Tensor[[16, 12], pl.INT32]) -> pl.Tensor[[1, 1], pl.UINT16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            kernel0_s_t3: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.adds(kernel0_x2, pl.const(1, pl.UINT16))
            kernel0_s_t5: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.adds(kernel0_x4, pl.const(1, pl.UINT16))
            kernel0_s_t7: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.adds(kernel0_x6, pl.const(1, pl.UINT16))
            for kernel0_s_i8, (kernel0_s_acc9, kernel0_s_acc10, kernel0_s_acc11,) in pl.range(1, init_values=(kernel0_s_t3, kernel0_s_t5, kernel0_s_t7,)):
                kernel0_s_t12: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.row_min(kernel0_s_acc9)
                for kernel0_s_i13, (kernel0_s_acc14,) in pl.range(1, init_values=(kernel0_s_acc9,)):
                    kernel0_s_t15: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.slice(kernel0_s_acc14, [1, 1], [0, 0])
                    if kernel0_s_i13 == 0:
                        kernel0_s_t20: pl.Tensor[[16, 12], pl.FP16] = pl.tensor.gather(kernel0_x18, kernel0_idx19, dim=0)
                        kernel0_s_phi23 = pl.yield_(kernel0_s_acc11)
                    else:
                        kernel0_s_t21: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.add(kernel0_s_acc14, kernel0_s_acc14)
                        kernel0_s_t22: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.ci(pl.const(3, pl.INT32), [1, 16], descending=False)
                        kernel0_s_phi23 = pl.yield_(kernel0_s_t15)
                    kernel0_s_t24: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.add(kernel0_s_acc14, kernel0_s_acc9)
                    kernel0_s_out25 = pl.yield_(kernel0_s_t24)
                kernel0_s_out26, kernel0_s_out27, kernel0_s_out28 = pl.yield_(kernel0_s_t12, kernel0_s_t12, kernel0_s_acc10)
            kernel0_s_t29: pl.Tensor[[1, 1], pl.UINT16] = pl.tensor.add(kernel0_s_out26, kernel0_s_out27)
        kernel0_out: pl.Tensor[[1, 1], pl.UINT16] = kernel0_s_t29
        return kernel0_out
