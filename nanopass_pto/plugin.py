"""The PTO compiler's plugin: how `nanopass` finds this compiler's languages, passes,
properties, text format, default pipelines and examples (entry point `nanopass.compilers`).

This module is the composition root of the compiler: it sits above every other package and is
the only one that wires them together. It imports passes and the back end lazily, inside
functions, so that importing it (every CLI start) loads no pass and no simulator.

Adding a property is one `Property(...)` line in `PROPERTIES`; adding a pass is one line in
`passes/registry.py` (and, if it belongs to the default pipeline, in `DEFAULT_PIPELINES`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from languages.decls import FAMILY, LANGUAGES, VALUE_LEVEL
from languages.type_forms import TYPE_FORMS
from languages.types import equal_but_memrefs
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import PassContext
from nanopass.plugin import CompilerPlugin
from nanopass.properties import LANGUAGE_ASPECT, SHARING_ASPECT, Property, grammar_property

_ALL = frozenset(lang.name for lang in LANGUAGES)
_TILE_LEVEL = frozenset({"TileUnplaced", "TilePlaced", "L0Tiled", "Addressed"})
_PLACED = frozenset({"TilePlaced", "L0Tiled", "Addressed"})
_L0_TILED = frozenset({"L0Tiled", "Addressed"})
_ADDRESSED = frozenset({"Addressed"})


def _grammar(lang: Language) -> Property:
    # verifiers.grammar names its per-language entry points after the generated modules.
    function = "verify_" + lang.module.rsplit(".", 1)[-1]
    return Property(grammar_property(lang.name), frozenset({lang.name}), f"verifiers.grammar:{function}",
                    f"membership in {lang.name}: node kinds, type forms, admitted and registered ops")


# The verifiers that never read the buffers bound to tiles, nor which node objects are shared,
# nor (but SymbolicExtentsBound, which reads PTO's `?` rule) which language's classes they are
# (tests/test_verify_incremental.py checks each: their verdicts do not change when every MemRef
# does, or when a program is rebuilt in a neighbouring language). After MemoryReuse and
# AllocateMemoryAddr, which rebuild every function but change only MemRefs, and after a pass
# into the next language that rebuilt a function as it was (AutoTileMatmulL0 on a kernel
# without matmuls, InitMemRef but for the MemRefs it binds), --verify-all re-checks there only
# the other properties.
_MEMREFS = frozenset({"memrefs", SHARING_ASPECT})
_MEMREFS_ANY_LANGUAGE = frozenset({"memrefs", LANGUAGE_ASPECT, SHARING_ASPECT})

PROPERTIES: tuple[Property, ...] = (
    *(_grammar(lang) for lang in LANGUAGES),
    Property("SSAForm", _ALL, "verifiers.ssa_form:verify", "each variable is defined once per function",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("UseAfterDef", _ALL, "verifiers.use_after_def:verify", "every use is dominated by its definition",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("SymbolicExtentsBound", _ALL, "verifiers.symbolic_extents_bound:verify",
             "every runtime valid extent in a type names an integer scalar defined before it (`?` in PTO)",
             blind_to=_MEMREFS),
    Property("NormalizedStmtStructure", VALUE_LEVEL, "verifiers.normalized_stmt_structure:verify",
             "calls only as whole statements, over atom arguments", blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("TypeChecked", VALUE_LEVEL, "verifiers.type_checked:verify",
             "every call's type equals its op's deduction; self.f(...) has f's return type", scope="program"),
    Property("CallSitesComplete", VALUE_LEVEL, "verifiers.call_sites_complete:verify",
             "every self.f(...) passes one argument per parameter of f", scope="program"),
    Property("ScalarOperators", _ALL, "verifiers.scalar_operators:verify",
             "Python operators (BinOp, UnaryOp) compute on scalars only; tensors and tiles use pl.* calls",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("NoInlineFunctions", _ALL, "verifiers.no_inline_functions:verify",
             "no Inline function, and no call to one, is left (InlineFunctions spliced them)",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("NoUnrollLoops", _ALL, "verifiers.no_unroll_loops:verify",
             "no pl.unroll loop is left (UnrollLoops expanded them)", blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("SplitIncoreOrch", frozenset({"DSL"}), "verifiers.split_incore_orch:verify",
             "no pl.at(level=pl.Level.CORE_GROUP) scope is left to outline"),
    Property("IncoreTileOps", _TILE_LEVEL, "verifiers.incore_tile_ops:verify",
             "no tensor.* compute op left in an InCore function", blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("TileOps2D", _TILE_LEVEL, "verifiers.tile_ops_2d:verify", "every tile in an InCore function is 2-D",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("TileMemoryPlaced", _PLACED, "verifiers.tile_memory_placed:verify",
             "every tile has a memory space and view; operands sit where their op accepts them",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("L0TiledFit", _L0_TILED, "verifiers.l0_operands_placed:verify",
             "every Left / Right / Acc tile fits L0A / L0B / L0C on the target", uses_target=True,
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("AccCompactValid", _L0_TILED, "verifiers.acc_compact_valid:verify",
             "a row-narrowed accumulator is compact; nothing outside Left/Right/Acc is",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("GroupLaunchesTogether", _L0_TILED, "verifiers.group_launches_together:verify",
             "a Group function launches all its kernels before it reads any of their results",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("BarriersOnEveryCore", _L0_TILED, "verifiers.barriers_on_every_core:verify",
             "the kernels of a Group take the same all-core (mix) syncalls in the same order",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("CrossCoreGmOrdered", _L0_TILED, "verifiers.cross_core_gm_ordered:verify",
             "the AIC and AIV kernels of a Group touch no GM tensor unordered (an all-core barrier "
             "between a write on one and an access on the other)",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("SlotReadsBeforeFree", _L0_TILED, "verifiers.slot_reads_before_free:verify",
             "no popped pipe tile, nor a view of it, is read after the tfree that releases its slot",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("HasMemRefs", _ADDRESSED, "verifiers.has_mem_refs:verify", "every tile is bound to a MemRef"),
    Property("MemoryCapacity", _ADDRESSED, "verifiers.memory_capacity:verify",
             "per space, buffers fit the capacity at aligned offsets", uses_target=True),
    Property("PipeSlotPlacement", _ADDRESSED, "verifiers.pipe_slot_placement:verify",
             "a popped tile sits in a slot of its pipe's reserved region; no other buffer overlaps the region"),
    Property("NoCoLiveOverlap", _ADDRESSED, "verifiers.no_co_live_overlap:verify",
             "no two values live at the same time occupy overlapping bytes (whatever their MemRef names)"),
    Property("ViewLegality", VALUE_LEVEL, "verifiers.view_legality:verify",
             "set_validshape never narrows a view; a reshape never re-views a boxed (non row-major) layout",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("NoRebasedWindows", _PLACED, "verifiers.no_rebased_windows:verify",
             "no reinterpret_view re-views a placed window (tile.slice) from its source buffer's first byte",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("RowMajorVecTiles", _PLACED, "verifiers.row_major_vec_tiles:verify",
             "every Vec tile a vector instruction reads or writes row-major is row-major, and an element-wise "
             "op's tiles have its result's shape", blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("VecInsertTypes", _PLACED, "verifiers.vec_insert_types:verify",
             "every Vec window copy or window write PTO makes with pto.tinsert is in an element type the target's "
             "tinsert takes (the other types copied as the bits of one it takes)", uses_target=True,
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("ValidMatchedReads", _PLACED, "verifiers.valid_matched_reads:verify",
             "every Vec tile operand of an element-wise instruction PTOAS wants valid over one region "
             "(languages.layout.VALID_SHAPE_MATCHED_INSTRUCTIONS) is valid over the region the op reads of it",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("StaticBounds", VALUE_LEVEL, "verifiers.static_bounds:verify",
             "every slice / load / store / extract window stays inside its source on every loop iteration, and an L0 "
             "cube block inside its source's valid K",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("DefinedReads", VALUE_LEVEL, "verifiers.defined_reads:verify",
             "no op reads an element that holds no data (padding an element-wise op reads past a narrower "
             "operand's valid region, a region set_validshape widened)", blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("TargetOpRules", VALUE_LEVEL | {"PTO"}, "verifiers.target_op_rules:verify",
             "every call meets its op's constraints on the target (dtypes, scratch size, scratch disjoint from "
             "operands within one buffer; on PTO, the instruction-level element types: pto.tinsert's)",
             uses_target=True, blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("TargetOpBuffers", _ADDRESSED, "verifiers.target_op_rules:verify_buffers",
             "operands an op's rules keep disjoint (scratch vs operands) are not bound to overlapping MemRefs",
             uses_target=True),
    Property("GmStoreCoherence", VALUE_LEVEL, "verifiers.gm_store_coherence:verify",
             "no kernel writes one GM tensor both by bulk (MTE3) and scalar (D-cache) stores",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("InPlaceUpdatesBound", VALUE_LEVEL, "verifiers.in_place_updates_bound:verify",
             "a call that updates a tile in place (tile.write, tile.matmul_acc, ...) binds its result",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("InPlaceSafety", _ADDRESSED, "verifiers.in_place_safety:verify",
             "an op writes its result over an operand's bytes only where the op registry says it is safe"),
    Property("SemanticAliases", _ADDRESSED, "verifiers.semantic_aliases:verify",
             "a loop's init / iter-arg / yield / result, an if's phis and an in-place result share one buffer"),
    Property("AccL0CFootprint", _ADDRESSED, "verifiers.acc_l0c_footprint:verify",
             "every Acc buffer covers its accumulator's L0C row footprint", uses_target=True),
    Property("MovesOnDataPaths", _PLACED, "verifiers.moves_on_data_paths:verify",
             "every tile.move follows a data path of the target, or crosses between the cores through a FIFO",
             uses_target=True, blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("CubeTileLayouts", _PLACED, "verifiers.cube_tile_layouts:verify",
             "every Mat / Left / Right / Acc tile is in a format the cube hardware keeps there",
             blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("BoxedExtents", frozenset({"Addressed", "PTO"}), "verifiers.boxed_extents:verify",
             "every cube tile's physical extent is a whole number of fractal boxes"),
    Property("WrittenParamsDeclared", _TILE_LEVEL, "verifiers.written_params_declared:verify",
             "no kernel writes a GM parameter it declares In", blind_to=_MEMREFS_ANY_LANGUAGE),
    Property("UnboxedRowsAligned", frozenset({"PTO"}), "verifiers.unboxed_rows_aligned:verify",
             "every unboxed tile PTO allocates has 32-byte rows (columns, column-major) and a buffer that holds them"),
    Property("SubviewWindows", frozenset({"PTO"}), "verifiers.subview_windows:verify",
             "every pto.subview window lies inside the declared extent of the tile buffer it views"),
    Property("PTOOperandKinds", frozenset({"PTO"}), "verifiers.pto_operand_kinds:verify",
             "every PTO instruction's operands and result are of the kinds and spaces its registry signature names"),
)

# What the loader verifies on every input program of a value-level language.
# CallSitesComplete too: a user's call with a wrong argument is the input's fault, and would
# otherwise be found (and blamed on a pass) only after update-orchestration-call-sites.
_LOADED = frozenset({"SSAForm", "UseAfterDef", "SymbolicExtentsBound", "TypeChecked", "CallSitesComplete",
                     "ViewLegality", "StaticBounds", "DefinedReads", "ScalarOperators", "TargetOpRules", "TargetOpBuffers", "GmStoreCoherence",
                     "InPlaceUpdatesBound"})

# The DSL admits reassignment (ConvertToSSA establishes SSA form and def-before-use).
_DSL_LOADED = _LOADED - {"SSAForm", "UseAfterDef", "SymbolicExtentsBound"}

# What the frontend establishes: a program of a later language is checked for it when loaded.
_FRONTEND_DONE = frozenset({"NoInlineFunctions", "NoUnrollLoops"})

# What NormalizeStmtStructure establishes in Tensor, before the tile languages begin: a program
# written at one of them is checked for it (the passes after it, PTOCodegen's 1:1 translation
# included, read calls only as whole statements).
_NORMALIZED = frozenset({"NormalizedStmtStructure"})
_TENSOR_AND_BEFORE = frozenset({"DSL", "Tensor"})

# What UpgradeParamDirections establishes (on TileUnplaced, again on TilePlaced): a program
# written at a later language is checked for it when loaded.
_DIRECTIONS_UPGRADED = frozenset({"WrittenParamsDeclared"})
# What LegalizeVecLayouts establishes on TilePlaced: a program written at a later language is
# checked for it when loaded.
_LAYOUTS_LEGALIZED = frozenset({"NoRebasedWindows", "VecInsertTypes"})
_AFTER_DIRECTIONS = frozenset({"L0Tiled", "Addressed"})
# What FlattenTileNdTo2D establishes on TileUnplaced: a program written at a later language (a
# hand-placed kernel with a rank-3 batched tile) is checked for it when loaded, not handed to
# AutoTileMatmulL0, which takes 2-D tiles only.
_FLATTENED = frozenset({"TileOps2D"})
_AFTER_FLATTENING = frozenset({"TilePlaced", "L0Tiled", "Addressed"})
# What InferTileMemorySpace establishes besides the placement every later pass requires: a
# program written at a later language (a hand-placed kernel moving a Vec tile straight into Bias,
# which Ascend910B has no path for) is checked for it when loaded, not left to fault in the
# simulator.
_PLACEMENT_DONE = frozenset({"MovesOnDataPaths", "CubeTileLayouts"})

# What the loader verifies on a PTO program read from a `.pto` file (a hand-written window
# outside its source would otherwise run, addressing its neighbour's bytes; an instruction in an
# element type the assembler refuses, pto.tinsert's, would otherwise run too).
_PTO_LOADED = frozenset({"SubviewWindows", "TargetOpRules"})

PTO_SUFFIX = ".pto"

DEFAULT_PIPELINE = ",".join((
    # DSL: the frontend, in PyPTO's order (ConvertToSSA first: InlineFunctions and UnrollLoops
    # rename by SSA names; PyPTO runs it third, after them)
    "convert-to-ssa", "inline-functions", "unroll-loops", "outline-incore-scopes", "outline-cluster-scopes",
    # Tensor
    "normalize-stmt-structure", "simplify-index-arith", "dead-code-elimination", "seed-zero-accumulators",
    # ConvertTensorToTileOps, as tiny passes: Tensor -> TileUnplaced
    "convert-tensor-to-tile-ops", "update-orchestration-call-sites", "upgrade-param-directions",
    "flatten-tile-nd-to-2d",
    # TileUnplaced -> TilePlaced -> L0Tiled
    "infer-tile-memory-space", "upgrade-param-directions-placed", "legalize-vec-layouts", "legalize-vec-dtypes",
    "revalidate-read-operands", "auto-tile-matmul-l0",
    # mixed cube/vector kernels: AIC + AIV + Group where cube <-> vector crosses a FIFO (910B)
    "expand-mixed-kernel",
    # memory planning: L0Tiled -> Addressed
    "init-mem-ref", "materialize-semantic-aliases", "memory-reuse", "allocate-memory-addr",
    # Addressed -> PTO
    "pto-codegen",
))


# The memory planner is a pipeline-wide setting: each planner's pipeline configures the passes
# that depend on it (TARGET_FACTS "How PyPTO's ChooseL0Tile searches", point 7). The PYPTO
# planner is the default pipeline; PTOAS and DSA_RP open AutoTileMatmulL0's dbC = 2 design
# points. Addresses are still assigned by this compiler's allocator in every variant (the
# simulator and the assembler's `addr` both need them).
MEMORY_PLANNERS = ("pypto", "ptoas", "dsa_rp")


def planner_pipeline(planner: str) -> str:
    """The default pipeline built for `planner`."""
    if planner not in MEMORY_PLANNERS:
        raise ValueError(f"unknown memory planner {planner!r}; known: {', '.join(MEMORY_PLANNERS)}")
    if planner == "pypto":
        return DEFAULT_PIPELINE
    return DEFAULT_PIPELINE.replace("auto-tile-matmul-l0", f"auto-tile-matmul-l0{{planner={planner}}}")


def _pipeline_variant(args: argparse.Namespace) -> str:
    planner: str | None = getattr(args, "memory_planner", None)
    return "" if planner in (None, "pypto") else str(planner)


def _looks_like_mlir(text: str) -> bool:
    """Text without a file name (stdin): PTO-ISA MLIR starts with `module` after its comments."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("//", "#")):
            return stripped.startswith("module")
    return False


def parse(text: str, filename: str) -> Node:
    # A `.pto` file (the final language's text, e.g. a --dump-dir output) is PTO-ISA MLIR;
    # every other file is the `pl` text format. Unnamed input (stdin) is recognised by its text.
    if filename.endswith(PTO_SUFFIX) or (not filename.endswith(".py") and _looks_like_mlir(text)):
        from backend.pto_text.parser import parse_mlir

        return parse_mlir(text, filename)
    from languages.pl_parser import parse_program

    return parse_program(text, filename)


def parse_with_args(text: str, filename: str, args: argparse.Namespace) -> Node:
    # A file of @pl.jit kernels is specialized on the shapes the options (or the file) give.
    from nanopass_pto.jit_cli import parse_cli

    return parse_cli(text, filename, args)


def print_program(program: Node) -> str:
    from languages.pl_printer import print_program as print_pl

    return print_pl(program)


def print_pto(program: Node, debuginfo: bool = True) -> str:
    from backend.pto_text.printer import print_mlir
    import languages.gen.pto as P

    assert isinstance(program, P.Program)
    return print_mlir(program, emit_loc=debuginfo)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    from nanopass_pto.cli import add_arguments

    add_arguments(parser)


def _post_compile(args: argparse.Namespace, final: Node, ctx: PassContext) -> int | None:
    from nanopass_pto.cli import post_compile

    return post_compile(args, final, ctx)


def _fuzz_target() -> object:
    from nanopass_pto.fuzz_target import fuzz_target

    return fuzz_target()


def _list_ops() -> str:
    from nanopass_pto.op_listing import list_ops

    return list_ops()


def _passes() -> dict[str, str]:
    from passes.registry import PASSES

    return dict(PASSES)


def _make_backend(name: str) -> object:
    from backend.targets.handlers import get_backend

    return get_backend(name)


PLUGIN = CompilerPlugin(
    name="pto",
    family=FAMILY,
    type_forms=TYPE_FORMS,
    passes=_passes(),
    properties=PROPERTIES,
    default_pipelines={"Ascend910B": DEFAULT_PIPELINE, "Ascend950": DEFAULT_PIPELINE},
    pipeline_variants={planner: {"Ascend910B": planner_pipeline(planner), "Ascend950": planner_pipeline(planner)}
                       for planner in MEMORY_PLANNERS if planner != "pypto"},
    pipeline_variant=_pipeline_variant,
    default_backend="Ascend910B",
    parse=parse,
    parse_with_args=parse_with_args,
    print_program=print_program,
    load_properties={lang: _DSL_LOADED if lang == "DSL" else _LOADED | _FRONTEND_DONE
                     | (frozenset() if lang in _TENSOR_AND_BEFORE else _NORMALIZED)
                     | (_DIRECTIONS_UPGRADED | _LAYOUTS_LEGALIZED if lang in _AFTER_DIRECTIONS else frozenset())
                     | (_FLATTENED | _PLACEMENT_DONE if lang in _AFTER_FLATTENING else frozenset())
                     for lang in VALUE_LEVEL}
    | {"PTO": _PTO_LOADED},
    print_final=print_pto,
    final_suffix=PTO_SUFFIX,
    examples_dir=Path(__file__).resolve().parent.parent / "examples",
    make_backend=_make_backend,
    add_arguments=_add_arguments,
    post_compile=_post_compile,
    fuzz_target=_fuzz_target,
    aspects={"memrefs": equal_but_memrefs},
    listings={"ops": ("list every operator: signature, the languages admitting it, whether it simulates",
                      _list_ops)},
)
