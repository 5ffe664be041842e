"""Pass name → "module:Class", imported lazily on first use.

One pass per file under passes/, the module named after the spec's pass in snake_case; a test
asserts every name here equals its class's `name`.
"""

from __future__ import annotations

PASSES: dict[str, str] = {
    # the frontend: DSL -> Tensor, in PyPTO's order
    "convert-to-ssa": "passes.convert_to_ssa:ConvertToSSA",
    "inline-functions": "passes.inline_functions:InlineFunctions",
    "unroll-loops": "passes.unroll_loops:UnrollLoops",
    "outline-incore-scopes": "passes.outline_incore_scopes:OutlineIncoreScopes",
    "outline-cluster-scopes": "passes.outline_cluster_scopes:OutlineClusterScopes",
    "normalize-stmt-structure": "passes.normalize_stmt_structure:NormalizeStmtStructure",
    "simplify-index-arith": "passes.simplify_index_arith:SimplifyIndexArith",
    "dead-code-elimination": "passes.dead_code_elimination:DeadCodeElimination",
    "seed-zero-accumulators": "passes.seed_zero_accumulators:SeedZeroAccumulators",
    "convert-tensor-to-tile-ops": "passes.convert_tensor_to_tile_ops:ConvertTensorToTileOps",
    "update-orchestration-call-sites": "passes.update_orchestration_call_sites:UpdateOrchestrationCallSites",
    "upgrade-param-directions": "passes.upgrade_param_directions:UpgradeParamDirections",
    "upgrade-param-directions-placed": "passes.upgrade_param_directions_placed:UpgradeParamDirectionsPlaced",
    "flatten-tile-nd-to-2d": "passes.flatten_tile_nd_to_2d:FlattenTileNdTo2D",
    "infer-tile-memory-space": "passes.infer_tile_memory_space:InferTileMemorySpace",
    "legalize-vec-layouts": "passes.legalize_vec_layouts:LegalizeVecLayouts",
    "legalize-vec-dtypes": "passes.legalize_vec_dtypes:LegalizeVecDtypes",
    "revalidate-read-operands": "passes.revalidate_read_operands:RevalidateReadOperands",
    "auto-tile-matmul-l0": "passes.auto_tile_matmul_l0:AutoTileMatmulL0",
    "expand-mixed-kernel": "passes.expand_mixed_kernel:ExpandMixedKernel",
    "init-mem-ref": "passes.init_mem_ref:InitMemRef",
    "materialize-semantic-aliases": "passes.materialize_semantic_aliases:MaterializeSemanticAliases",
    "memory-reuse": "passes.memory_reuse:MemoryReuse",
    "allocate-memory-addr": "passes.allocate_memory_addr:AllocateMemoryAddr",
    "pto-codegen": "passes.pto_codegen:PTOCodegen",
}
