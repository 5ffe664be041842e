# (agent-p, the generator's hand-placed programs; final campaign of b9346ee, Ascend910B seed 0) an internal
# compiler error: `IndexError: tuple index out of range` in pto-codegen's scatter emitter for a kernel
# written at TilePlaced that calls pl.tile.scatter_mask. The op has no instruction of its own: only
# ConvertTensorToTileOps expands it (into the flat index and tile.scatter: TILE_EXPANSIONS), and a program
# entering at TilePlaced skips that pass, while the registry names pto.tscatter for it and the TilePlaced
# grammar admits it. The same class: `pl.system.syncall(ws, n, mode="soft")` written at TilePlaced without
# the tile workspaces ConvertTensorToTileOps adds (`_syncall_workspaces`) is an internal error after
# PTOCodegen (PTOOperandKinds: pto.syncall operand 1 is a Scalar, expected a Vec or Mat tile). The generator
# keeps both out of its hand-placed programs until fixed.
# Root fix: state "expanded by ConvertTensorToTileOps" once in the op registry, and have the languages after
# it not admit the op (a located "not supported yet: tile.scatter_mask in a program written at TilePlaced;
# write it at TileUnplaced or Tensor"), or run the expansion wherever the op is met.
# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed 0 --backend Ascend910B
# nanopass.language: TilePlaced
import pypto.language as pl


@pl.program
class ScatterMaskPlaced:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[1, 16], pl.INT32], out: pl.Out[pl.Tensor[[1, 16], pl.INT32]]) -> pl.Tensor[[1, 16], pl.INT32]:
        t: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.scatter_mask(t, t, mask_pattern=7)
        st: pl.Tensor[[1, 16], pl.INT32] = pl.tile.store(s, [0, 0], out)
        return st

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 16], pl.INT32]) -> pl.Tensor[[1, 16], pl.INT32]:
        out: pl.Tensor[[1, 16], pl.INT32] = pl.tensor.create([1, 16], dtype=pl.INT32)
        y: pl.Tensor[[1, 16], pl.INT32] = self.kernel(x, out)
        return y
