"""TargetOpRules: every call meets the constraints its op has on the compilation target.

The rules are data on the op (`OpDef.target_rules`, languages/ops/target_rules.py), each naming
the target architectures it holds on; the target arrives as any object with an `arch` and a
`name` (a `backend.targets.handlers.BackendHandler` is one). Without a target nothing is checked.

- `DtypeIn`: the operand's element type is one the target's instruction accepts (`DtypeNotIn`:
  none of those it takes but computes wrong).
- `Disjoint`: two operands (or an operand and the result) share no byte. Storage is followed
  through plain `v = u` assignments and zero-copy views to the buffer it lives in: the same
  value, or windows of one buffer whose static rectangles intersect, share bytes (a window with
  a dynamic offset or behind a reshape covers, conservatively, its whole buffer). Two distinct
  buffers share bytes through their MemRefs (one MemRef, or, once addresses are assigned, byte
  ranges in one space that intersect): that half is its own property, TargetOpBuffers
  (`verify_buffers`), so that TargetOpRules reads no MemRef and its verdict is kept where a
  pass changed only MemRefs (MemoryReuse, AllocateMemoryAddr, InitMemRef's bindings), while
  the MemRef half is checked again there, on the functions that call an op with such a rule.
- `WholeRows`: an operand is not a window narrower than the buffer it views (a slice of some
  columns of a wider tile); a window of whole rows, a reshape or the buffer itself is.
- `FlatRowMajor`: an operand an instruction walks flat (TGATHER / TSCATTER / TGATHERB) is laid
  out row-major, or is one row or one column (a transpose_view's column-major [R, C] is not).
- `MaskScratch`: a scratch operand has room for the packed compare mask of the result plus the
  rows the instruction uses after it.
- `UnpaddedRows`: an operand's (or the result's) buffer holds no padding past its columns: its
  row-major rows are whole 32-byte blocks of its element type (a column-major [N, 1] column pads
  its rows, not its column); an index-form gather's result, whose columns are its index's.
- `SameValidShape`: a PTO element-wise instruction's sources and dst are valid over one region.
- `SameDeclaredShape`: a PTO instruction's tiles are declared of one shape (a pto.subview by its
  sizes) and measure as one shape as the buffers they cut (a subview as its source's whole buffer,
  as PTOAS re-makes it once it materializes tile handles).

It runs on the program the user wrote (the loader), so a violation names the user's line. On
the PTO program it checks the instruction-level rules (`INSTRUCTION_LEVEL` in
languages/ops/assembler_element_types.py: pto.tinsert's element types) and the declared-shape
comparisons (languages.layout.SHAPE_MATCHED_INSTRUCTIONS), which the tile ops that emit such an
instruction meet by the bit and window copies LegalizeVecLayouts makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence, cast

from languages.functions import straight_line_statements
from languages.ops import REGISTRY, OpDef, static_ints, type_of
from languages.ops.target_rules import (RESULT, Disjoint, DtypeIn, DtypeNotIn, FlatRowMajor, MaskScratch, PipeIn,
                                       SameDeclaredShape, SameValidShape, TargetRule, Unavailable, UnpaddedRows,
                                       WholeRows)
from languages.ops.vector_ops import mask_cols
from languages.types import MemRef, TensorType, TileType, Type, is_symbolic
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, preorder, summary

RULE = "TargetOpRules"
BUFFERS_RULE = "TargetOpBuffers"


class Target(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def arch(self) -> str: ...


@dataclass(frozen=True)
class _Storage:
    """Where a tile value's elements live: a window [rows) x [cols) of a root buffer (None:
    somewhere in it, e.g. behind a reshape or a dynamic offset), plus the root's MemRef once it
    has one."""

    root: str
    rows: tuple[int, int] | None
    cols: tuple[int, int] | None
    memref: MemRef | None
    root_cols: int | None = None  # the root buffer's columns (None: unknown or not 2-D)
    root_shape: tuple[object, ...] | None = None  # the root buffer's declared shape


def _root(name: str, ty: TileType) -> _Storage:
    """A buffer of its own: its window is all of it."""
    if len(ty.shape) != 2:
        return _Storage(name, None, None, ty.memref, root_shape=tuple(ty.shape))
    return _Storage(name, (0, int(ty.shape[0])), (0, int(ty.shape[1])), ty.memref, int(ty.shape[1]),
                    tuple(ty.shape))


def _cuts_window(op: str) -> bool:
    """A view of a window of its source: tile.slice, or the pto.subview it becomes."""
    if REGISTRY.is_window_view(op):
        return True
    opdef = REGISTRY.get(op)
    return opdef.family == "pto_view" and opdef.semantics[:1] == ("slice",)


def _intersect(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    if a is None or b is None:
        return True
    return a[0] < b[1] and b[0] < a[1]


def _bytes_overlap(a: MemRef, b: MemRef) -> bool:
    if a.space is not b.space or a.offset < 0 or b.offset < 0:
        return False
    return a.offset < b.offset + b.size and b.offset < a.offset + a.size


def _same_buffer_overlap(a: _Storage, b: _Storage) -> bool:
    """Windows of one buffer that intersect (read from names and static windows, no MemRef)."""
    return a.root == b.root and _intersect(a.rows, b.rows) and _intersect(a.cols, b.cols)


def _memref_overlap(a: _Storage, b: _Storage) -> bool:
    """Two distinct buffers bound to one MemRef, or to intersecting bytes of one space."""
    if a.root == b.root or a.memref is None or b.memref is None:
        return False
    return (a.memref.name == b.memref.name and a.memref.space is b.memref.space) or _bytes_overlap(a.memref, b.memref)


class _Checker:
    """`overlap` decides when two storages share bytes; `only` keeps the rules of one kind
    (None: every rule)."""

    def __init__(self, target: Target, overlap: Callable[[_Storage, _Storage], bool] = _same_buffer_overlap,
                 only: type[TargetRule] | None = None, rule: str = RULE) -> None:
        self.target = target
        self.rule = rule
        self.overlap = overlap
        self.only = only
        self.storage: dict[str, _Storage] = {}
        self.out: list[Diagnostic] = []

    def block(self, body: Sequence[Node]) -> None:
        for stmt in straight_line_statements(body):
            kind = stmt.KIND
            target = getattr(stmt, "target") if kind == "AssignStmt" else None
            value = getattr(stmt, "value", None)
            # Every call of the statement, nested ones too (`return pl.abs(x)`, a call given as
            # another call's argument): an unassigned call stands for its own result.
            for node in preorder(stmt):
                if node.KIND == "Call" and str(getattr(node, "op")) in REGISTRY:
                    self.call(stmt, node, target if node is value else None)
            if target is not None and value is not None:
                self.bind(target, value)

    # -- storage provenance ----------------------------------------------------------------------

    def storage_of(self, node: Node) -> _Storage | None:
        if node.KIND != "Var":
            return None
        name = str(getattr(node, "name"))
        known = self.storage.get(name)
        if known is not None:
            return known
        ty = getattr(node, "type", None)
        return _root(name, ty) if isinstance(ty, TileType) else None

    def bind(self, target: Node, value: Node) -> None:
        name = str(getattr(target, "name"))
        ty = getattr(target, "type", None)
        if not isinstance(ty, TileType):
            return
        if value.KIND == "Var":
            source = self.storage_of(value)
            if source is not None:
                self.storage[name] = source
            return
        op = str(getattr(value, "op", ""))
        if value.KIND != "Call" or op not in REGISTRY or not (REGISTRY.is_view(op) or _cuts_window(op)) \
                or not getattr(value, "args"):
            self.storage[name] = _root(name, ty)
            return
        source = self.storage_of(getattr(value, "args")[0])
        if source is None:
            self.storage[name] = _root(name, ty)
            return
        if not _cuts_window(op):  # reshape: whole buffer (its rows)
            self.storage[name] = _Storage(source.root, None, None, source.memref, root_shape=source.root_shape)
            return
        if not REGISTRY.is_window_view(op):  # a pto.subview: offsets as SSA values, sizes in its type
            self.storage[name] = _Storage(source.root, None, None, source.memref, root_shape=source.root_shape)
            return
        self.storage[name] = self.window(source, value, ty)

    @staticmethod
    def window(source: _Storage, call: Node, ty: TileType) -> _Storage:
        args = getattr(call, "args")
        offsets = static_ints(args[2]) if len(args) > 2 else None
        if offsets is None or len(offsets) != 2 or len(ty.shape) != 2 or source.rows is None or source.cols is None:
            return _Storage(source.root, None, None, source.memref, root_shape=source.root_shape)
        row0, col0 = source.rows[0] + offsets[0], source.cols[0] + offsets[1]
        return _Storage(source.root, (row0, row0 + int(ty.shape[0])), (col0, col0 + int(ty.shape[1])), source.memref,
                        source.root_cols, source.root_shape)

    # -- the rules ----------------------------------------------------------------------------------

    def call(self, stmt: Node, call: Node, target: Node | None) -> None:
        opdef = REGISTRY.get(str(getattr(call, "op")))
        if not opdef.target_rules:
            return
        attrs = dict(opdef.with_defaults(getattr(call, "attrs")))
        for rule in opdef.target_rules:
            if self.only is not None and not isinstance(rule, self.only):
                continue
            if self.target.arch not in rule.archs or any(attrs.get(k) != v for k, v in rule.when):
                continue
            problem = self.violation(rule, call, target)
            if problem is not None:
                self.out.append(Diagnostic.at(
                    call if call.node_span.known else stmt, self.rule,
                    f"{opdef.name} on {self.target.name}: {problem}; {rule.because}", hint=rule.fix))

    def operand(self, call: Node, target: Node | None, index: int) -> Node | None:
        if index == RESULT:
            # A call that is not assigned (`return pl.abs(x)`) stands for its own result.
            return target if target is not None else call
        args = getattr(call, "args")
        return args[index] if index < len(args) else None

    def violation(self, rule: TargetRule, call: Node, target: Node | None) -> str | None:
        opdef = REGISTRY.get(str(getattr(call, "op")))
        if isinstance(rule, Unavailable):
            return rule.what
        if isinstance(rule, PipeIn):
            pipe = dict(opdef.with_defaults(getattr(call, "attrs"))).get("pipe")
            return None if pipe in rule.pipes else f"pipe {pipe} is not one of {', '.join(sorted(rule.pipes))}"
        if isinstance(rule, DtypeIn):
            return self.dtype_violation(rule, opdef, call, target)
        if isinstance(rule, Disjoint):
            return self.overlap_violation(rule, opdef, call, target)
        if isinstance(rule, MaskScratch):
            return self.scratch_violation(rule, opdef, call, target)
        if isinstance(rule, WholeRows):
            return self.window_violation(rule, opdef, call, target)
        if isinstance(rule, FlatRowMajor):
            node = self.operand(call, target, rule.operand)
            ty = getattr(node, "type", None) if node is not None else None
            return rule.gap(ty, f"{_name(opdef, rule.operand)} `{getattr(node, 'name', '?')}`") \
                if isinstance(ty, TileType) else None
        if isinstance(rule, UnpaddedRows):
            return self.rows_violation(rule, opdef, call, target)
        if isinstance(rule, SameDeclaredShape):
            return self.shape_violation(rule, opdef, call, target)
        if isinstance(rule, SameValidShape):
            return self.valid_violation(rule, opdef, call, target)
        return None

    def valid_violation(self, rule: SameValidShape, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        valid: list[tuple[str, tuple[object, ...]]] = []
        for index in rule.operands:
            node = self.operand(call, target, index)
            ty = getattr(node, "type", None) if node is not None else None
            if not isinstance(ty, TileType) or is_symbolic(ty.valid_shape):
                return None  # a runtime extent: the values are the program's to keep equal
            valid.append((f"{_name(opdef, index)} `{getattr(node, 'name')}`", tuple(ty.valid)))
        for (name, extent), (other, other_extent) in zip(valid, valid[1:]):
            if extent != other_extent:
                return f"{name} is valid over {list(extent)} and {other} over {list(other_extent)}"
        return None

    def shape_violation(self, rule: SameDeclaredShape, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        measured: list[tuple[str, tuple[object, ...], tuple[object, ...], str]] = []
        for index in rule.operands:
            node, storage = self.storage_at(call, target, index)
            ty = getattr(node, "type", None) if node is not None else None
            if not isinstance(ty, TileType):
                return None
            root = storage.root_shape if storage is not None and storage.root_shape is not None else tuple(ty.shape)
            buffer = storage.root if storage is not None else ""
            measured.append((f"{_name(opdef, index)} `{getattr(node, 'name')}`", tuple(ty.shape), root, buffer))
        for (name, declared, root, buffer), (other, other_declared, other_root, other_buffer) in zip(
                measured, measured[1:]):
            if declared != other_declared:
                return f"{name} is declared {list(declared)} and {other} {list(other_declared)}"
            if root != other_root:
                return (f"as the buffers they cut, {name} measures as {list(root)} (`{buffer}`) and "
                        f"{other} as {list(other_root)} (`{other_buffer}`)")
        return None

    def window_violation(self, rule: WholeRows, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        node, storage = self.storage_at(call, target, rule.operand)
        if node is None or storage is None or storage.cols is None or storage.root_cols is None:
            return None
        width = storage.cols[1] - storage.cols[0]
        if width == storage.root_cols:
            return None
        return (f"{_name(opdef, rule.operand)} `{getattr(node, 'name')}` is a {width}-column window of "
                f"`{storage.root}`, whose rows are {storage.root_cols} columns apart")

    def dtype_violation(self, rule: DtypeIn, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        node = self.operand(call, target, rule.operand)
        ty = type_of(node) if node is not None else None
        if not isinstance(ty, (TileType, TensorType)) or ty.dtype in rule.dtypes:
            return None
        if isinstance(rule, DtypeNotIn):
            return f"{_name(opdef, rule.operand)} has element type {ty.dtype.name}"
        accepted = ", ".join(sorted(d.name for d in rule.dtypes))
        return f"{_name(opdef, rule.operand)} has element type {ty.dtype.name}, expected one of {accepted}"

    def storage_at(self, call: Node, target: Node | None, index: int) -> tuple[Node | None, _Storage | None]:
        """An operand and its storage; the result of a (non-view) call is a buffer of its own, also
        when it takes an operand's name (`t = pl.tile.sels(m, s, t, c)` before ConvertToSSA
        names a new value): only a MemRef shared with an operand makes them overlap."""
        node = self.operand(call, target, index)
        if node is None:
            return None, None
        ty = getattr(node, "type", None)
        if index == RESULT and target is not None and isinstance(ty, TileType) \
                and not REGISTRY.is_view(str(getattr(call, "op"))):
            return node, _root(f"{getattr(node, 'name')} (the result)", ty)
        return node, self.storage_of(node)

    def overlap_violation(self, rule: Disjoint, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        node, mine = self.storage_at(call, target, rule.operand)
        if node is None or mine is None:
            return None
        for other_index in rule.others:
            other, theirs = self.storage_at(call, target, other_index)
            if theirs is None or not self.overlap(mine, theirs):
                continue
            return (f"{_name(opdef, rule.operand)} `{getattr(node, 'name')}` shares bytes with "
                    f"{_name(opdef, other_index)} `{getattr(other, 'name')}`")
        return None

    def scratch_violation(self, rule: MaskScratch, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        node = self.operand(call, target, rule.operand)
        tmp = type_of(node) if node is not None else None
        result = _result_type(call, target)
        if not isinstance(tmp, TileType) or not isinstance(result, TileType) or len(result.shape) != 2:
            return None
        rows, cols = _valid(result)
        tmp_rows, tmp_cols = _valid(tmp)
        need_rows, need_cols = rows + rule.extra_rows, mask_cols(cols) * 8 // tmp.dtype.bits
        if tmp_rows >= need_rows and tmp_cols >= need_cols:
            return None
        return (f"{_name(opdef, rule.operand)} has a valid region of [{tmp_rows}, {tmp_cols}], expected at least "
                f"[{need_rows}, {need_cols}] for a [{rows}, {cols}] result")

    def rows_violation(self, rule: UnpaddedRows, opdef: OpDef, call: Node, target: Node | None) -> str | None:
        node = self.operand(call, target, rule.operand)
        ty = _result_type(call, target) if rule.operand == RESULT else type_of(node) if node is not None else None
        if not isinstance(ty, (TileType, TensorType)):
            return None
        return rule.gap(tuple(ty.shape), ty.dtype, _name(opdef, rule.operand),
                        ty.view if isinstance(ty, TileType) else None)


def _valid(ty: TileType) -> tuple[int, int]:
    dims = ty.valid
    return int(dims[0]), int(dims[-1])


def _result_type(call: Node, target: Node | None) -> Type | None:
    if target is not None:
        ty = getattr(target, "type", None)
        if isinstance(ty, (TileType, TensorType)):
            return ty
    return type_of(call)


def _name(opdef: OpDef, index: int) -> str:
    if index == RESULT:
        return "the result"
    decl = opdef.operand_decl(index)
    return f"operand {index}" if decl.variadic else f"operand {decl.name!r}"  # a PTO instruction's: by position


def verify(program: Node, target: object = None) -> list[Diagnostic]:
    """TargetOpRules: every rule, operands' overlap judged within one buffer (no MemRef read)."""
    if target is None or not isinstance(getattr(target, "arch", None), str):
        return []
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        checker = _Checker(cast(Target, target))
        checker.block(getattr(function, "body"))
        out.extend(checker.out)
    return out


def verify_buffers(program: Node, target: object = None) -> list[Diagnostic]:
    """TargetOpBuffers: the `Disjoint` rules between distinct buffers, through their MemRefs. A
    function calling no op with a `Disjoint` rule is decided from its summary, unwalked."""
    if target is None or not isinstance(getattr(target, "arch", None), str):
        return []
    out: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        if not any(isinstance(op, str) and op in _DISJOINT_OPS for op in summary(function).field_values("Call", "op")):
            continue
        checker = _Checker(cast(Target, target), _memref_overlap, Disjoint, BUFFERS_RULE)
        checker.block(getattr(function, "body"))
        out.extend(checker.out)
    return out


class _DisjointOps:
    """The registered ops with a `Disjoint` rule (ops are registered, never removed: the set is
    recomputed only when the registry grew)."""

    def __init__(self) -> None:
        self.size = -1
        self.names: frozenset[str] = frozenset()

    def __contains__(self, op: str) -> bool:
        if self.size != len(REGISTRY):
            self.size = len(REGISTRY)
            self.names = frozenset(o.name for o in REGISTRY if any(isinstance(r, Disjoint) for r in o.target_rules))
        return op in self.names


_DISJOINT_OPS = _DisjointOps()
