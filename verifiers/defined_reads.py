"""DefinedReads: no op reads an element that holds no data.

An op writes its result's valid region only; the rest of a fresh buffer (its padding) holds
nothing (the simulator's 0xFF poison). Reading padding is legitimate where bytes are there -- a
tile loaded whole and then narrowed by set_validshape, a fill, a load with a pad value -- and
undefined where they are not. The reads that reach padding:

- an element-wise op over operands of different valid regions: its result is full-shape (the
  spec's exact-region rule keeps a valid shape only for equal regions), so it reads the
  narrower operand over the result's region (`READS_OVER_RESULT_REGION` in the op registry),
  a broadcast operand ([n] of an [m, n] result) along the axes it is not spread on;
- any op reading an operand whose valid region set_validshape widened past what was written.

Each array value's data extent follows the registry's facts (`languages.ops.data_extents`):
a fresh result holds its valid region, a fill or a padded load all of it, a view its source's
(a reshape: its source's data box in the new shape, whatever valid shape it narrows to -- the
same bytes), an in-place update its target's joined with its own, and a fresh tensor.create /
tile.create none at all (`HOLDS_NO_DATA`: its contents are undefined until an op writes them,
the interpreter's and the simulator's poison). A created buffer written in place -- an Out
argument of a kernel call, the target of a store, assemble or write, through any view of it --
holds data everywhere from then on (GM tensors are shared by reference). Parameters,
loop-carried values, `if` results and call results hold data everywhere as far as this check
knows, as do runtime extents: it refuses only what it proves.

On a loaded program a finding is the user's (a located error at the op, naming the operand and
what wrote it); after a pass it is that pass's bug: a rewrite that widens, copies or re-types a
tile must carry the data the original op read (LegalizeVecDtypes' widening cast before an op
that reads past its operand's valid region converts the whole tile).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from languages.functions import ORCHESTRATION
from languages.ops import (
    HOLDS_NO_DATA, PACKED_MASK_OPERAND, PER_COLUMN_OPERAND, PER_ROW_OPERAND, REGISTRY, SAME_BYTES_VIEWS, Effect,
    InheritInput, OpDef, static_int, type_of,
)
from languages.ops.data_extents import (
    PRODUCT_KINDS, WHOLE, Extents, Written, array_type, block_bytes, describe, extents, holds_nothing, in_place_target,
    read_extent, reads_past, result_data, views_nothing,
)
from languages.types import Attrs, TensorType, TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "DefinedReads"


class _Checker:
    def __init__(self) -> None:
        self.written: dict[str, tuple[Written, str]] = {}  # variable -> its data extent, the op that wrote it
        self.gm: set[str] = set()  # GM tensors: a kernel's tensor parameters and views of them
        self.kernel = False  # the function runs on the cores (its returned tensors are stored)
        self.out: list[Diagnostic] = []
        # A created buffer and every view / in-place result of it: variable -> the created
        # variable (its name and line), whose bytes they show.
        self.created: dict[str, tuple[str, int, str]] = {}
        self.first_iteration = False  # walking a loop body's first iteration (`first_step`)

    def written_through(self, names: Sequence[str]) -> None:
        """`names` are written in place (a kernel call's argument, a store's or an assemble's
        target): every variable showing the same created buffer holds data from now on."""
        roots = {self.created[n] for n in names if n in self.created}
        for name, root in list(self.created.items()):
            if root in roots:
                self.written.pop(name, None)
                del self.created[name]

    def of(self, expr: Node) -> tuple[Written, str]:
        """`expr`'s data extent and its producer's op name (nested calls are checked too)."""
        if expr.KIND == "Var":
            return self.written.get(str(getattr(expr, "name")), (WHOLE, ""))
        if expr.KIND == "Call":
            return self.call(expr)
        if expr.KIND == "FuncCall":
            args: tuple[Node, ...] = getattr(expr, "args")
            for arg in args:
                if arg.KIND == "Call":
                    self.call(arg)
            # The callee may write any tensor it is handed (an Out / InOut parameter).
            self.written_through([str(getattr(a, "name")) for a in args if a.KIND == "Var"])
        return WHOLE, ""

    def call(self, call: Node) -> tuple[Written, str]:
        op = str(getattr(call, "op"))
        args: tuple[Node, ...] = getattr(call, "args")
        operands = [self.of(arg) if arg.KIND in ("Var", "Call") else (WHOLE, "") for arg in args]
        result = array_type(call)
        if op not in REGISTRY or result is None:
            return WHOLE, ""
        opdef = REGISTRY.get(op)
        self.check(call, opdef, result, operands)
        self.written_through([str(getattr(a, "name")) for i, a in enumerate(args)
                              if a.KIND == "Var" and _writes(opdef, i, getattr(call, "attrs"))])
        in_gm = bool(args) and args[0].KIND == "Var" and str(getattr(args[0], "name")) in self.gm
        written = result_data(opdef, args, result, [w for w, _ in operands], in_gm, getattr(call, "attrs"))
        if opdef.semantics[:1] and opdef.semantics[0] in SAME_BYTES_VIEWS and operands and operands[0][1]:
            return written, operands[0][1]  # a view's data was written by its source's producer
        return written, op

    def check(self, call: Node, opdef: OpDef, result: TensorType | TileType,
              operands: Sequence[tuple[Written, str]]) -> None:
        args: tuple[Node, ...] = getattr(call, "args")
        for index, (arg, (written, producer)) in enumerate(zip(args, operands)):
            ty = array_type(arg)
            if ty is None or written is None or views_nothing(opdef, index, written):
                continue
            read = read_extent(opdef, index, ty, result, getattr(call, "attrs"), args)
            if read is not None and reads_past(read, written):
                unwritten = self.never_written(arg, written)
                if unwritten is not None:
                    self.out.append(Diagnostic.at(
                        call, RULE, f"{opdef.name} reads {_named(arg, opdef, index)} over {list(read)}, but "
                                    f"{unwritten}: it holds no data", hint=_create_hint(self.root_of(arg))))
                    return
                self.out.append(_finding(call, opdef, index, arg, read, written, producer,
                                         tuple(read) != extents(ty.valid_extents), self.root_of(arg)))
                return

    def block(self, body: Sequence[Node]) -> None:
        for stmt in body:
            kind = stmt.KIND
            if kind in ("AssignStmt", "EvalStmt"):
                value = getattr(stmt, "value")
                found = self.of(value) if value.KIND in ("Var", "Call", "FuncCall") else (WHOLE, "")
                target = getattr(stmt, "target", None)
                if target is not None and target.KIND == "Var":
                    self.written[str(getattr(target, "name"))] = found
                    if _keeps_gm(value, self.gm):
                        self.gm.add(str(getattr(target, "name")))
                    root = self.root_of(value)
                    if root is not None:
                        self.created[str(getattr(target, "name"))] = root
                    elif value.KIND == "Call" and str(getattr(value, "op")) in REGISTRY \
                            and REGISTRY.get(str(getattr(value, "op"))).semantics[:1] in _CREATES:
                        self.created[str(getattr(target, "name"))] = (
                            str(getattr(target, "name")), getattr(value, "span").line, str(getattr(value, "op")))
                continue
            nested = [getattr(stmt, f) for f in stmt.CHILD_FIELDS if f.endswith("body")]
            if not nested:  # yield / return: before NormalizeStmtStructure their values may be calls
                for field in stmt.CHILD_FIELDS:
                    value = getattr(stmt, field)
                    for expr in value if isinstance(value, tuple) else (value,):
                        if not isinstance(expr, Node) or expr.KIND not in ("Call", "Var", "FuncCall"):
                            continue
                        found = self.of(expr)
                        if kind == "ReturnStmt" and self.kernel:
                            self.returned(stmt, expr, found)
                continue
            assigned = {str(getattr(getattr(n, "target"), "name")) for body in nested for s in body
                        for n in walk(s) if n.KIND == "AssignStmt" and getattr(n, "target").KIND == "Var"}
            if self.first_iteration and kind == "IfStmt":
                # On a loop's first iteration a branch may not run (`if k == 0: pl.matmul ...
                # else: pl.matmul_acc ...`): its reads are checked on the general walk only.
                for name in assigned:
                    self.written.pop(name, None)
                    self.created.pop(name, None)
                self.written_through(sorted(_written_in(nested)))
                continue
            if kind == "ForStmt" and self.carries_nothing(stmt, assigned) and _runs(stmt):
                self.first_step(stmt)
            # A loop body reads the previous iteration's values (and, before SSA form, names
            # reassigned in it): nothing is known about them on entry, nor after the statement.
            for name in assigned:
                self.written.pop(name, None)
                self.created.pop(name, None)
            # A buffer written in the loop holds data on the iterations after the write.
            self.written_through(sorted(_written_in(nested)))
            for body in nested:
                self.block(body)
            for name in assigned:
                self.written.pop(name, None)

    def carries_nothing(self, loop: Node, assigned: set[str]) -> bool:
        """Whether a created buffer no op wrote enters `loop` as a carried value (an iter-arg's
        init, or before SSA form a name the body reassigns)."""
        inits = [getattr(a, "init") for a in getattr(loop, "iter_args")]
        return any(init.KIND == "Var" and holds_nothing(self.written.get(str(getattr(init, "name")), (WHOLE, ""))[0])
                   for init in inits) or any(holds_nothing(self.written.get(n, (WHOLE, ""))[0]) for n in assigned)

    def first_step(self, loop: Node) -> None:
        """Check `loop`'s first iteration: its carried values are their inits (and, before SSA
        form, a reassigned name its value before the loop), so a read of a created buffer's
        elements before the body writes them reads garbage. Its state is dropped after."""
        saved = dict(self.written), dict(self.created), set(self.gm), self.first_iteration
        for arg in getattr(loop, "iter_args"):
            init, var = getattr(arg, "init"), str(getattr(getattr(arg, "var"), "name"))
            if init.KIND == "Var":
                self.written[var] = self.written.get(str(getattr(init, "name")), (WHOLE, ""))
                root = self.root_of(init)
                if root is not None:
                    self.created[var] = root
        self.first_iteration = True
        self.block(getattr(loop, "body"))
        self.written, self.created, self.gm, self.first_iteration = saved

    def root_of(self, value: Node) -> tuple[str, int, str] | None:
        """The created buffer `value` shows: a created variable, a view of one, or an in-place
        result whose target is one."""
        if value.KIND == "Var":
            return self.created.get(str(getattr(value, "name")))
        if value.KIND != "Call" or str(getattr(value, "op")) not in REGISTRY:
            return None
        opdef = REGISTRY.get(str(getattr(value, "op")))
        args: tuple[Node, ...] = getattr(value, "args")
        index = in_place_target(opdef)
        if opdef.semantics[:1] and opdef.semantics[0] in SAME_BYTES_VIEWS:
            index = 0
        elif isinstance(opdef.output_memory, InheritInput) and isinstance(type_of(value), TensorType):
            index = opdef.output_memory.index  # a tensor view names its operand's GM bytes (tensor.window)
        if index is None or index >= len(args) or args[index].KIND != "Var":
            return None
        return self.created.get(str(getattr(args[index], "name")))

    def never_written(self, expr: Node, written: Written) -> str | None:
        """`expr` shows a created buffer no op wrote (`written`: its data extent): how to say so."""
        root = self.root_of(expr)
        if root is None or not holds_nothing(written):
            return None
        name, line, op = root
        return f"`{name}` (line {line}) is a {op} whose contents are undefined, and no op wrote it"

    def returned(self, stmt: Node, expr: Node, found: tuple[Written, str]) -> None:
        """A kernel's returned tensor is stored to its output over its valid region (whole
        elements: a packed mask's partial last word is not data)."""
        ty = array_type(expr)
        if not isinstance(ty, TensorType):
            return
        written, producer = found
        valid = extents(ty.valid_extents)
        if written is None or not reads_past(valid, written):
            return
        name = f"`{getattr(expr, 'name')}`" if expr.KIND == "Var" else "its value"
        unwritten = self.never_written(expr, written)
        if unwritten is not None:
            self.out.append(Diagnostic.at(
                stmt, RULE, f"the kernel returns {name}, which is stored over its valid region {list(valid)}, but "
                            f"{unwritten}: it holds no data", hint=_create_hint(self.root_of(expr))))
            return
        what = _wrote(producer, written, ty.dtype.bits) + _rest_of(self.root_of(expr))
        hint = _product_hint(producer) or \
            "narrow the returned value's valid region to what was computed (pl.set_validshape), or compute the rest"
        root = self.root_of(expr)
        if root is not None:
            hint = f"{hint}; or {_create_hint(root)}"
        if any(isinstance(e, Fraction) for e in written) or (producer in REGISTRY
                                                            and REGISTRY.get(producer).semantics[:1] == ("compare",)):
            hint = ("a compare defines only the bits of its source's valid columns, in its valid rows (the rest of "
                    "the mask's bytes are undefined on chip): return the mask narrowed to its whole compared bytes "
                    "(pl.set_validshape), or compare a multiple of 8 columns")
        self.out.append(Diagnostic.at(
            stmt, RULE, f"the kernel returns {name}, which is stored over its valid region {list(valid)}, but {what}: "
                        "the elements beyond hold no data", hint=hint))


_CREATES = frozenset((kind,) for kind in HOLDS_NO_DATA)  # as `OpDef.semantics[:1]`


def _writes(opdef: OpDef, index: int, attrs: Attrs) -> bool:
    """Whether the op writes argument `index` in place (the registry's effect)."""
    try:
        return bool(opdef.effect_of(index, attrs) & Effect.WRITE)
    except IndexError:
        return False


def _runs(loop: Node) -> bool:
    """Whether a for loop provably runs an iteration (constant bounds)."""
    start, stop, step = (static_int(getattr(loop, f)) for f in ("start", "stop", "step"))
    if start is None or stop is None or step is None or step == 0:
        return False
    return start < stop if step > 0 else start > stop


def _written_in(bodies: Sequence[Sequence[Node]]) -> set[str]:
    """The variables the statements of `bodies` write in place (an op's written operand, a
    kernel call's argument)."""
    names: set[str] = set()
    for body in bodies:
        for stmt in body:
            for node in walk(stmt):
                if node.KIND == "FuncCall":
                    names.update(str(getattr(a, "name")) for a in getattr(node, "args") if a.KIND == "Var")
                elif node.KIND == "Call" and str(getattr(node, "op")) in REGISTRY:
                    opdef = REGISTRY.get(str(getattr(node, "op")))
                    names.update(str(getattr(a, "name")) for i, a in enumerate(getattr(node, "args"))
                                 if a.KIND == "Var" and _writes(opdef, i, getattr(node, "attrs")))
    return names


def _keeps_gm(value: Node, gm: set[str]) -> bool:
    """Whether `value` names a GM tensor: a GM variable, a view of one, an in-place write into one."""
    if value.KIND == "Var":
        return str(getattr(value, "name")) in gm
    if value.KIND != "Call" or str(getattr(value, "op")) not in REGISTRY or not isinstance(type_of(value), TensorType):
        return False
    opdef = REGISTRY.get(str(getattr(value, "op")))
    args: tuple[Node, ...] = getattr(value, "args")
    index = 0 if opdef.semantics[:1] and opdef.semantics[0] in SAME_BYTES_VIEWS else in_place_target(opdef)
    return index is not None and index < len(args) and args[index].KIND == "Var" \
        and str(getattr(args[index], "name")) in gm


def _named(arg: Node, opdef: OpDef, index: int) -> str:
    return f"`{getattr(arg, 'name')}`" if arg.KIND == "Var" else f"its {opdef.operand_decl(index).name} operand"


def _create_hint(root: tuple[str, int, str] | None) -> str:
    name = f"`{root[0]}`" if root is not None else "the created buffer"
    return (f"initialise {name} with pl.full(shape, dtype, value) instead, or write it before it is read: a "
            "store or an assemble over what is read, or for an accumulator init_cond=True on the first "
            "pl.matmul_acc (init_cond=k == 0 in a loop over k)")


def _rest_of(root: tuple[str, int, str] | None) -> str:
    """What the elements past the data are, when they are a created buffer's."""
    if root is None:
        return ""
    return f" (the rest is `{root[0]}`'s, a {root[2]} at line {root[1]} whose contents are undefined and no op wrote)"


def _finding(call: Node, opdef: OpDef, index: int, arg: Node, read: Extents,
             written: Extents, producer: str, over_result: bool,
             root: tuple[str, int, str] | None = None) -> Diagnostic:
    name = _named(arg, opdef, index)
    ty = array_type(arg)
    bits = ty.dtype.bits if ty is not None else 8
    what = _wrote(producer, written, bits) + _rest_of(root)
    block = block_bytes(opdef, index)
    if block:
        why = (f"{opdef.name} reads {name} in whole {block}-byte blocks at byte offsets anywhere in it ({list(read)} "
               f"elements at least), but {what}")
        hint = "gather from a tile whose every block holds data (load or fill it whole)"
    elif index == 0 and opdef.semantics[:1] and opdef.semantics[0] in PACKED_MASK_OPERAND:
        why = (f"{opdef.name} reads its mask {name} one row per result row, as packed predicate words "
               f"({describe(read, bits)} [rows, words] for a result valid over {list(_valid(call))}), but {what}")
        hint = ("give the mask as many written rows and compared columns as the result has valid rows and "
                "columns (a compare defines the bits of its source's valid columns only), or narrow the "
                "result's valid region to the mask's")
    elif index == 1 and opdef.semantics[:1] and opdef.semantics[0] in PER_ROW_OPERAND | PER_COLUMN_OPERAND:
        axis = "row" if opdef.semantics[0] in PER_ROW_OPERAND else "column"
        why = (f"{opdef.name} spreads {name} over its result, one value per result {axis} ({list(read)} of "
               f"{name} for a result valid over {list(_valid(call))}), but {what}")
        hint = (f"give {name} a value for every valid {axis} of the result, or narrow the result's valid "
                f"{axis}s to the ones {name} holds")
    elif over_result:
        region = list(_valid(call))
        there = "there" if list(read) == region else f"over {list(read)} (broadcast to the result)"
        why = (f"{opdef.name} computes its result over its valid region {region}, so it reads {name} "
               f"{there}, past {name}'s valid region; {what}")
        hint = ("give the operands one valid shape (pl.set_validshape on the wider one), or fill the "
                "narrower one's padding first (pl.tile.fillpad), or load it at its full extent")
    else:
        why = f"{opdef.name} reads {name} over its valid region {list(read)}, but {what}"
        hint = "set_validshape widens the metadata only: write the elements first (load or fill them)"
    hint = _product_hint(producer) or hint
    if root is not None:
        hint = f"{hint}; or {_create_hint(root)}"
    return Diagnostic.at(call, RULE, f"{why}: the elements beyond hold no data", hint=hint)


def _product_hint(producer: str) -> str | None:
    """The hint for data a matmul did not compute (None: `producer` is no matmul)."""
    if producer not in REGISTRY or REGISTRY.get(producer).semantics[:1] not in PRODUCT_KINDS:
        return None
    return ("a matmul computes its left operand's valid rows and its right operand's valid columns only (the "
            "product's other elements are never written, whatever its type's valid region): narrow what reads "
            "it to those rows and columns (pl.set_validshape on the product and on the reader's other operands), "
            "or give the matmul's operands the rows and columns that are read")


def _wrote(producer: str, written: Extents, element_bits: int) -> str:
    shown = describe(written, element_bits)
    return f"{producer} wrote only {shown} of it" if producer else f"only {shown} of it holds data"


def _valid(call: Node) -> Extents:
    ty = array_type(call)
    return extents(ty.valid_extents) if ty is not None else ()


def verify(program: Node) -> list[Diagnostic]:
    checker = _Checker()
    for function in getattr(program, "functions"):
        checker.written = {}
        # A kernel's tensor parameters are GM (its slices load); an orchestration slices GM views.
        checker.gm = set() if getattr(function, "func_type", "") == ORCHESTRATION else {
            str(getattr(getattr(p, "var"), "name")) for p in getattr(function, "params")
            if isinstance(getattr(getattr(p, "var"), "type", None), TensorType)}
        checker.kernel = getattr(function, "func_type", "") != ORCHESTRATION
        checker.block(getattr(function, "body"))
    # A read found on a loop's first iteration may be found again on the general walk.
    unique: dict[tuple[int, str], Diagnostic] = {}
    for diagnostic in checker.out:
        unique.setdefault((id(diagnostic.node), diagnostic.message), diagnostic)
    return list(unique.values())
