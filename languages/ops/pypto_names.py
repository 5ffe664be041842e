"""The operators PyPTO has (its IR op names), so that an op this compiler lacks is reported as
"not supported yet" by name instead of as a misspelling.

Gathered from PyPTO's operator catalogue (spec tensor_and_tile_operators.md), its op API
(design JIT_FRONTEND.md section 4: python/pypto/language/op/{unified,tile,tensor,system}_ops.py)
and the spec documents that define further ops (convert_tensor_to_tile_ops.md, pto_codegen.md).
Each name maps to where PyPTO describes it. Registered operators shadow this table: it only
words the error for names the registry does not know.
"""

from __future__ import annotations

from typing import Final

_CATALOG = "spec tensor_and_tile_operators.md"
_API = "PyPTO op API, JIT_FRONTEND.md section 4"
_CONVERT = "spec convert_tensor_to_tile_ops.md"
_CODEGEN = "spec pto_codegen.md"


def _names(prefixes: tuple[str, ...], leaves: str, source: str) -> dict[str, str]:
    return {f"{prefix}.{leaf}": source for prefix in prefixes for leaf in leaves.split()}


_BOTH = ("tensor", "tile")

PYPTO_OPERATORS: Final[dict[str, str]] = {
    **_names(_BOTH, """add sub mul div adds subs muls divs maximum minimum fmod fmods part_add part_mul
             part_max part_min exp sin cos neg abs sqrt log recip rsqrt relu row_expand row_expand_add
             row_expand_sub row_expand_mul row_expand_div row_expand_max row_expand_min row_expand_expdif
             col_expand col_expand_add col_expand_sub col_expand_mul col_expand_div col_expand_max
             col_expand_min col_expand_expdif expands reshape reinterpret_view transpose concat slice fillpad
             fillpad_expand matmul matmul_acc row_max row_sum row_min row_prod col_sum col_max col_min col_prod
             row_argmax row_argmin col_argmax col_argmin cast cmp and or ands ors xor xors not shl shr shls shrs
             set_validshape read write assemble gather_row scatter_update sort32 mrgsort_format1
             mrgsort_format2 gather gather_mask scatter scatter_mask ci random aiv_shard aic_gather
             get_block_idx get_block_num get_subblock_idx""", _API),
    **_names(("tile",), """load store move create full prelu lrelu rem rems maximums minimums cmps addc subc
             addsc subsc sel sels matmul_bias gemv gemv_acc gemv_bias matmul_mx matmul_mx_acc matmul_mx_bias
             batch_matmul batch_matmul_acc tri gatherb mgather mscatter fillpad_inplace extract transpose_view
             gather_compare tquant_mx tpush_to_aiv tpush_to_aic tpop_from_aic tpop_from_aiv""", _API),
    **_names(("tensor",), """create full dim expand_clone paged_gather create_l1 view arange""", _API),
    **_names(("system",), """tfree_to_aic tfree_to_aiv aic_initialize_pipe aiv_initialize_pipe reserve_buffer
             import_peer_buffer sync_src sync_dst sync_set sync_wait set_ffts bar_v bar_m bar_all fence
             cacheinvalid syncall task_invalid task_dummy available_cluster_count available_aiv_count""", _API),
    **_names(("tensor", "tile"), "mrgsort", _API),
    "tile.tquant_mx": _CATALOG,
    "tensor.sort32": _CATALOG,
    "tile.gather_row": _CONVERT,
    "tensor.aiv_shard": _CONVERT,
    "tensor.aic_gather": _CONVERT,
    "tile.fillpad_expand": _CODEGEN,
}

# Why an operator is still missing, where something specific stands in the way.
NOT_YET_BECAUSE: Final[dict[str, str]] = {
    "system.cacheinvalid": "PTOAS 0.44 has no cache-invalidate instruction to emit it as (its dialect has no "
                           "dcci / cache op; the assembler only flushes the data cache itself after scalar GM "
                           "stores), and the simulator's GM is coherent, so there is nothing to lower it to yet",
}

__all__ = ["NOT_YET_BECAUSE", "PYPTO_OPERATORS"]
