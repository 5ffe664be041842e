"""Programs of hand-placed tile kernels, spelled at TilePlaced for the fuzzer (the generator's
`programs(placed_text=...)`): whether such a spelling is a valid TilePlaced input is asked of the
verifiers a TilePlaced input is checked by and of ConvertTensorToTileOps' facts, which sit above
the back end's generator (tests/test_layering.py), so the composition root hands them over."""

from __future__ import annotations

from backend.fuzzing.generator import LANGUAGE_HEADER
from backend.targets.handlers import get_backend
from languages.gen import tensor as T
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError


def hand_placed_text(program: T.Program, arch: str = "") -> str | None:
    """`program` (hand-placed tile kernels only) as a user writes it at TilePlaced: every tile's
    memory space spelled in its type, as the registry places it, so the pipeline takes it up at
    TilePlaced (after ConvertTensorToTileOps and UpgradeParamDirections: the kernel's stores
    into `In` parameters are upgraded by `upgrade-param-directions-placed`). None when some tile
    stays unplaced (an op whose result space no operand or attribute fixes) or is not 2-D (a
    batched matmul's rank-3 tiles: FlattenTileNdTo2D runs before placement), or an operand is not
    where its op reads it (a bias loaded into Mat: InferTileMemorySpace would move it into Bias),
    which TileMemoryPlaced refuses in a program entering at TilePlaced; or a move takes no data
    path of `arch`'s target, or a cube tile is in a format its space does not keep (what
    InferTileMemorySpace would have inserted hops for, or chosen: MovesOnDataPaths,
    CubeTileLayouts)."""
    from languages.decls import TilePlaced
    from languages.pl_parser import detect_language, parse_program
    from nanopass.node import walk
    from verifiers.cube_tile_layouts import verify as cube_tile_layouts
    from verifiers.grammar import verify_language
    from verifiers.moves_on_data_paths import verify as moves_on_data_paths
    from verifiers.tile_memory_placed import verify as tile_memory_placed

    text = print_program(program)
    body = "\n".join(line for line in text.splitlines() if not line.startswith(LANGUAGE_HEADER))
    try:
        placed = parse_program(body, "<fuzz>", language=TilePlaced)
    except CompileError:
        return None
    if verify_language(placed, TilePlaced.name):
        # E.g. a call only ConvertTensorToTileOps expands (tile.scatter_mask) or completes (a soft
        # syncall's on-chip workspaces), which TilePlaced refuses at the call (the registry's
        # `completed_by`, the grammar's completed-calls operand form).
        return None
    types = [getattr(node, "type") for node in walk(placed) if node.KIND == "Var"]
    if detect_language(types) is not TilePlaced or tile_memory_placed(placed) or cube_tile_layouts(placed) \
            or (arch and moves_on_data_paths(placed, get_backend(arch))):
        return None  # an unplaced or rank-3 tile (FlattenTileNdTo2D's), an operand off its space, ...
    return print_program(placed)


