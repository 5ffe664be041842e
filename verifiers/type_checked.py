"""TypeChecked: every call's type is what the op registry deduces for it, and every call of a
function (`self.f(...)`) has the callee's return type.

From InitMemRef on, tiles carry MemRefs, which deduction never assigns (it is a storage
decision, not a typing one), so MemRefs are ignored in the comparison.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from languages.decls import FAMILY
from languages.ops import REGISTRY
from languages.pl_printer import format_type
from languages.types import NoneType, TensorType, TileType, TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span, preorder

RULE = "TypeChecked"


def strip_memrefs(ty: Type) -> Type:
    if isinstance(ty, TileType) and ty.memref is not None:
        return replace(ty, memref=None)
    if isinstance(ty, TupleType):
        return TupleType(tuple(strip_memrefs(t) for t in ty.types))
    return ty


def return_type(function: Any) -> Type:
    types: tuple[Type, ...] = function.return_types
    if not types:
        return NoneType()
    return types[0] if len(types) == 1 else TupleType(types)


# Verdicts per function object. Copy-on-write passes return an untouched function as the same
# object, and nodes are immutable, so its calls still type-check exactly as before -- provided
# the facts read outside the function are unchanged too: the language's placement flag and the
# signatures of the functions it calls (`self.f(...)` checks; None for a callee that does not
# exist). Only the callees a function calls are compared: comparing every function's signature
# made each hit cost the size of the program, quadratic in it. The entry keeps its function
# alive, so the id cannot be reused while the entry exists. The memo holds a few programs'
# worth of functions: at a fixed 256 a program of more functions emptied it on every check, so
# nothing ever hit.
_Signature = tuple[tuple[Type, ...], int] | None
_CalleeSignatures = tuple[tuple[str, _Signature], ...]
_VERDICT_MIN_CAPACITY = 256
_VERDICTS: dict[int, tuple[Node, bool, _CalleeSignatures, list[Diagnostic]]] = {}


def _signature(function: Any) -> _Signature:
    return None if function is None else (function.return_types, len(function.params))


def verify(program: Node) -> list[Diagnostic]:
    language = FAMILY.by_name(type(program).LANGUAGE)
    placed = bool(language.type_forms & {"tile-placed", "tile-addressed"})
    program_functions: tuple[Any, ...] = getattr(program, "functions", ())
    functions = {f.name: f for f in program_functions}
    if set(program.CHILD_FIELDS) != {"functions"}:
        return _check_nodes(preorder(program), placed, functions)
    capacity = max(_VERDICT_MIN_CAPACITY, 4 * len(program_functions))
    diagnostics: list[Diagnostic] = []
    for function in program_functions:
        diagnostics.extend(_check_function(function, placed, functions, capacity))
    return diagnostics


def _check_function(function: Node, placed: bool, functions: dict[str, Any], capacity: int) -> list[Diagnostic]:
    hit = _VERDICTS.get(id(function))
    if hit is not None and hit[0] is function and hit[1] == placed and all(
            _signature(functions.get(name)) == signature for name, signature in hit[2]):
        return list(hit[3])
    misannotated: set[str] = set()
    callees: dict[str, _Signature] = {}
    found = (_check_sizes(function) + _check_nodes(preorder(function), placed, functions, misannotated, callees)
             + _check_returns(function, misannotated))
    if len(_VERDICTS) >= capacity:
        for key in list(_VERDICTS)[: capacity // 2]:  # insertion order: oldest first
            del _VERDICTS[key]
    _VERDICTS[id(function)] = (function, placed, tuple(callees.items()), list(found))
    return found


def _check_nodes(nodes: Sequence[Node], placed: bool, functions: dict[str, Any],
                 misannotated: set[str] | None = None,
                 callees: dict[str, _Signature] | None = None) -> list[Diagnostic]:
    """Every call's type against its deduction; the targets whose annotation disagrees are
    added to `misannotated` (their later uses are reported there, once), and the signature of
    every function called, as read, to `callees`."""
    diagnostics: list[Diagnostic] = []
    assigned: dict[int, Node] = {}  # id(call) -> the assignment whose annotation types it
    for node in nodes:
        kind = node.KIND
        if kind == "AssignStmt":
            value = getattr(node, "value", None)
            if isinstance(value, Node) and value.KIND in ("Call", "FuncCall"):
                assigned[id(value)] = node
        elif kind == "Call":
            found = _check_call(node, placed, assigned.get(id(node)))
            if found and misannotated is not None and id(node) in assigned:
                misannotated.add(_target_name(assigned[id(node)]))
            diagnostics.extend(found)
        elif kind == "FuncCall":
            if callees is not None:
                callee = getattr(node, "callee")
                callees[callee] = _signature(functions.get(callee))
            diagnostics.extend(_check_func_call(node, functions, assigned.get(id(node))))
    return diagnostics


# A tensor's byte offsets are signed 64-bit integers in PTO (index arithmetic) and in the
# simulator's addressing: a larger tensor cannot be addressed at all.
MAX_TENSOR_BYTES = 2 ** 63 - 1


def _check_sizes(function: Any) -> list[Diagnostic]:
    """Every parameter and result tensor has positive dims and an addressable byte size."""
    diagnostics: list[Diagnostic] = []
    declared = [(p.var.type, p.var) for p in getattr(function, "params", ())]
    declared += [(t, function) for t in getattr(function, "return_types", ())]
    for ty, where in declared:
        if not isinstance(ty, TensorType) or not all(isinstance(d, int) for d in ty.shape):
            continue
        if any(d <= 0 for d in ty.shape):
            diagnostics.append(Diagnostic.at(where, RULE, f"{format_type(ty)} has a dimension that is not positive",
                                             "every dimension of a tensor is at least 1"))
            continue
        size = ty.dtype.bits // 8 or 1
        for dim in ty.shape:
            size *= dim
        if size > MAX_TENSOR_BYTES:
            diagnostics.append(Diagnostic.at(where, RULE, f"{format_type(ty)} is {size} bytes, more than a 64-bit "
                                             f"offset can address ({MAX_TENSOR_BYTES} bytes)",
                                             "use a smaller shape"))
    return diagnostics


def _check_returns(function: Any, misannotated: set[str] | frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every `return` gives the declared number of results, each of its declared shape and dtype
    (a value whose own annotation was already reported wrong is not reported again here)."""
    declared: tuple[Type, ...] = getattr(function, "return_types", ())
    diagnostics: list[Diagnostic] = []
    returns = [node for node in preorder(function) if node.KIND == "ReturnStmt"]
    if declared and not returns:
        wanted = ", ".join(format_type(t) for t in declared)
        diagnostics.append(Diagnostic.at(
            function, RULE, f"`{function.name}` is declared to return {_count(len(declared), 'value')}, "
            "but its body has no return",
            f"end the body with `return` of {wanted}, or drop the return annotation"))
    for node in returns:
        values: tuple[Any, ...] = getattr(node, "values", ())
        if len(values) != len(declared):
            wanted = ", ".join(format_type(t) for t in declared) or "nothing"
            diagnostics.append(Diagnostic.at(
                node, RULE, f"`{function.name}` is declared to return {_count(len(declared), 'value')}, "
                f"but this return gives {_count(len(values), 'value')}",
                f"return {wanted}" if declared else "drop the returned values, or declare a return type"))
            continue
        for index, (value, want) in enumerate(zip(values, declared)):
            if getattr(value, "name", None) in misannotated:
                continue
            got = getattr(value, "type", None)
            if isinstance(got, (TensorType, TileType)) and isinstance(want, (TensorType, TileType)) and \
                    (got.shape, got.dtype) != (want.shape, want.dtype):
                diagnostics.append(Diagnostic.at(
                    node, RULE, f"return value {index} of `{function.name}` is {format_type(got)}, "
                    f"but the function is declared to return {format_type(want)}",
                    "fix the return annotation, or convert the value before returning it"))
    return diagnostics


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _annotation_span(assign: Node | None, call: Node) -> Span:
    """Where the annotation of `name: T = call(...)` is written: between the target name and
    the call (`: ` and ` = ` around it). The IR keeps the statement's, the target's and the
    call's spans; the annotation lies between the last two when they share a line."""
    if assign is None:
        return call.node_span
    target = getattr(assign, "target", None)
    stmt, at = assign.node_span, call.node_span
    if isinstance(target, Node):
        name = target.node_span
        if name.known and name.line == at.line and name.end_line == name.line and name.end_col + 2 < at.col - 3:
            return Span(at.file, name.line, name.end_col + 2, at.line, at.col - 3)
    return stmt if stmt.known else at


def _same_modulo_memref(a: Type, b: Type) -> bool:
    """`strip_memrefs(a) == strip_memrefs(b)` without building the stripped copies."""
    if isinstance(a, TileType) and isinstance(b, TileType):
        return (a.shape == b.shape and a.dtype == b.dtype and a.valid_shape == b.valid_shape
                and a.memory_space == b.memory_space and a.view == b.view)
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(_same_modulo_memref(x, y) for x, y in zip(a.types, b.types))
    return strip_memrefs(a) == strip_memrefs(b)


def _check_call(call: Any, placed: bool, assign: Node | None = None) -> list[Diagnostic]:
    try:
        expected = REGISTRY.deduce(call.op, call.args, call.attrs, placed=placed, at=call)
    except CompileError as err:
        # An operand error is the call's: the registry names the operand, whose own span is
        # where it was defined (a variable is one node at all its uses).
        return [replace(d, rule=RULE, span=call.node_span, node=call) for d in err.diagnostics]
    if not _same_modulo_memref(expected, call.type) and not _author_placed(call, expected):
        name = _target_name(assign)
        what = f"`{name}` is annotated" if name else f"{call.op} is annotated"
        return [Diagnostic(
            RULE, f"{what} {format_type(call.type)}, but {call.op} of these operands gives {format_type(expected)}",
            _annotation_span(assign, call),
            f"annotate {f'`{name}`' if name else 'the result'} as {format_type(expected)}, or convert the value "
            "(e.g. pl.cast) to the type you want", call)]
    return []


def _author_placed(call: Any, expected: Type) -> bool:
    """A result the deduction leaves unplaced (`pl.tile.load` without target_memory) may be
    placed by its annotation: PyPTO checks an annotation's kind, dtype and dims, and the space
    is the author's or InferTileMemorySpace's decision. The space must be one the op can
    produce (its target_memory choices) -- TileMemoryPlaced checks what consumers need."""
    declared = call.type
    if not (isinstance(expected, TileType) and expected.memory_space is None
            and isinstance(declared, TileType) and declared.memory_space is not None):
        return False
    if (expected.shape, expected.dtype, expected.valid_shape) != (declared.shape, declared.dtype, declared.valid_shape):
        return False
    return declared.memory_space in REGISTRY.producible_spaces(call.op)


def _target_name(assign: Node | None) -> str:
    target = getattr(assign, "target", None) if assign is not None else None
    name = getattr(target, "name", "")
    return name if isinstance(name, str) else ""


def _check_func_call(call: Any, functions: dict[str, Any], assign: Node | None = None) -> list[Diagnostic]:
    # The argument count and types are CallSitesComplete's (a separate property: between
    # ConvertTensorToTileOps and UpdateOrchestrationCallSites it does not hold).
    callee = functions.get(call.callee)
    if callee is None:
        return [Diagnostic.at(call, RULE, f"call of unknown function `{call.callee}`",
                              f"define `{call.callee}` in the program, or fix the name")]
    expected = return_type(callee)
    if expected != call.type:
        name = _target_name(assign)
        return [Diagnostic(RULE, f"{f'`{name}`' if name else f'self.{call.callee}(...)'} is annotated "
                           f"{format_type(call.type)}, but `{call.callee}` returns {format_type(expected)}",
                           _annotation_span(assign, call),
                           f"annotate it as {format_type(expected)}, or change `{call.callee}`'s return annotation",
                           call)]
    return []
