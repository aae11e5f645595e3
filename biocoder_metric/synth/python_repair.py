"""Repair a plan from where and why the golden raised, as a person reading the traceback would.

Why: the plan search (:mod:`biocoder_metric.synth.python_search`) swaps one parameter's kind at a
time and keeps what makes the golden return more often. When the golden raises on every call,
every single swap scores zero and the search learns nothing: the first failing statement hides
the next, and the kind that would work is often not among the ranked guesses at all (a key the
code reads, a field of an object, a tuple of the width the loop unpacks). A person would read
the exception and change the input it names. This module does that, mechanically, for every
task alike:

1. Each probe case of the current plan reports on stderr (``_bc_diag`` of the harness prelude,
   never compared) the exception type and message, the failing line's offset in the golden and
   the type of every local there. The most common failure is the one to repair.
2. *Blame*: the plan's slots (parameters, ``self`` attributes, constructor parameters) named on
   the failing line, directly or through a local derived from them (``for rec in records``),
   narrowed to those whose value has a type the message names.
3. *Repairs*: kinds the message asks for (:func:`message_kinds`: ``'int' object is not
   subscriptable`` asks for a sequence, ``KeyError: 'name'`` for a dict holding ``name``,
   ``has no attribute 'start'`` for an object with ``start``, ``expected 2`` for pairs), then the
   slot's own ranked kinds and a few generic ones.
4. Every repair runs on the probe's cases in one sandbox job; the best one (more calls return,
   or the same number with the repaired failure gone) becomes the plan, and the next round
   repairs the failure it reveals, for a few rounds.

Only the golden runs here, on the search's cases (not the validation's): no mutant or candidate
influences the choice, and the validation gates still decide whether the repaired plan tests
anything.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from biocoder_metric import pyast
from biocoder_metric.synth.python_access import (
    as_elements,
    attributes_at,
    bindings,
    expr_path,
    kind_at,
    rewrite,
)
from biocoder_metric.synth.python_harness import DIAG_PREFIX, Plan, Subject
from biocoder_metric.synth.python_inputs import (
    _ARRAY_ATTRS,
    _DICT_METHODS,
    _LIST_METHODS,
    _SERIES_ATTRS,
    _SET_METHODS,
    _STR_METHODS,
    TEXT_LINES,
    _derived_names,
    constructor_kind,
    key_kinds,
    rank_kinds,
    read_keys,
    sub_attributes,
)
from biocoder_metric.synth.python_stubs import SLOT_RE

#: Rounds of repair (each one sandbox job), and repairs tried per round and per blamed slot.
ROUNDS = 7
PER_ROUND = 16
PER_SLOT = 8
#: Joint repairs (the n-th kind of every blamed slot of the named type at once) per round.
JOINT = 3
#: String literals of the failing function offered as one choice (``choice:`` kind).
MAX_LITERALS = 24
#: Generic kinds a blamed slot falls back on after the message's and its own.
FALLBACK = ("int_small", "str_word", "list_int", "float_pos", "list_str", "dict_str_int")
_NUMBERS = ("int_small", "int_pos", "float_pos", "float")
_SEQUENCES = ("list_int", "list_str", "str_word", "dict_str_int", "tuple_int")
_PATHS = ("path_text", "path_fasta", "str_path")
_DIGITS = "str(_r.randint(0, 100))"
_DECIMAL = "str(round(_r.uniform(0, 100), 3))"
_NUMBER_TYPES = frozenset({"int", "float", "bool", "int64", "float64", "int32", "float32"})

Slot = tuple[str, int]
#: A table for a pandas-only method (``data.idxmax(axis=1)``): a Series or, as often, a DataFrame.
_FRAME = "frame:['a', 'b', 'c']"
#: Methods of a file read from (``stream.readline()``), and the open text file they ask for.
_READ_METHODS = frozenset({"readline", "readlines", "read", "tell", "seek"})
_READ_HANDLE = "handle:" + repr(TEXT_LINES)
#: Methods of a file written to (``out.write(line)``): the value is an open text file.
_WRITE_METHODS = frozenset({"write", "writelines", "flush"})


@dataclass(frozen=True)
class Diag:
    """One case's failure, as ``_bc_diag`` reported it."""

    exc: str
    func: str  # the function the failing frame belongs to (the golden, or ``__init__``)
    offset: int  # the failing line, counted from the function's first line
    message: str
    types: dict[str, str]  # local (or ``self.attr``) -> type name of its value there
    #: the generated values the failure is about, by identity, wherever it raised (``_bc_origins``):
    #: (slot name: a parameter, ``self.attr`` or a stub's label; the access path to the value
    #: inside the slot's, in :mod:`python_access`'s steps, ``()`` for the value itself; type name)
    origins: tuple[tuple[str, tuple, str], ...] = ()

    @property
    def signature(self) -> tuple[str, str, int, str]:
        return (self.exc, self.func, self.offset, self.message)


def diags(outputs: Sequence[str | None]) -> list[Diag]:
    """The failures reported in a plan's probe outputs (one per case that raised)."""
    out: list[Diag] = []
    for text in outputs:
        for line in (text or "").splitlines():
            if not line.startswith(DIAG_PREFIX):
                continue
            try:
                exc, func, offset, message, types, *rest = pyast.literal_eval(line[len(DIAG_PREFIX) :])
                origins = tuple(
                    (str(n), tuple(map(tuple, p)), str(t)) for n, p, t in (rest[0] if rest else ())
                )
            except (ValueError, SyntaxError, TypeError):
                continue
            out.append(Diag(str(exc), str(func), int(offset), str(message), dict(types), origins))
    return out


def _first_line(func: ast.AST) -> int:
    return min([d.lineno for d in getattr(func, "decorator_list", [])] + [func.lineno])


def failing_names(func: ast.FunctionDef, offset: int) -> tuple[set[str], ast.AST | None]:
    """Names (and ``self.attr``) read by the statement on the failing line of ``func``, and the
    statement. For a compound statement only its header counts (the loop's target and iterable,
    the condition): its body has lines of its own."""
    line = _first_line(func) + offset
    best: ast.stmt | None = None
    for node in ast.walk(func):
        if (
            isinstance(node, ast.stmt)
            and node is not func
            and node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            if (
                best is None
                or node.lineno >= best.lineno
                and (node.end_lineno or 0) <= (best.end_lineno or 0)
            ):
                best = node
    if best is None:
        return set(), None
    if isinstance(best, ast.Raise):
        # raised on purpose: what decided it is the condition of the ``if`` it sits in
        guard = _guard_of(func, best)
        if guard is not None:
            best = guard
    names: set[str] = set()
    for part in header_parts(best):
        for n in ast.walk(part):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                names.add(f"{n.value.id}.{n.attr}")  # ``self.size``, a stub's ``mpistate.rank``
    return names, best


def header_parts(stmt: ast.AST | None) -> list[ast.AST]:
    """The parts of a statement on its own line: a compound statement's header only (the loop's
    target and iterable, the condition); its body has lines of its own."""
    if stmt is None:
        return []
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    if isinstance(stmt, (ast.Try, ast.FunctionDef, ast.ClassDef)):
        return []
    return [stmt]


def _guard_of(func: ast.AST, stmt: ast.stmt) -> ast.If | None:
    """The innermost ``if`` whose branch holds ``stmt`` directly."""
    for node in ast.walk(func):
        if isinstance(node, ast.If) and (stmt in node.body or stmt in node.orelse):
            return node
    return None


_QUOTED_TYPE = re.compile(r"'(\w+)'")


def message_types(message: str) -> set[str]:
    """Type names a message mentions (``'int' object ...``, ``... not NoneType``)."""
    found = set(_QUOTED_TYPE.findall(message))
    m = re.search(r"\bnot (\w+)\s*$", message)
    if m:
        found.add(m.group(1))
    m = re.search(r'\(not "(\w+)"\)', message)
    if m:
        found.add(m.group(1))
    return found


@dataclass
class Blame:
    """A slot the failure points at, and the local through which it does."""

    slot: Slot
    local: str  # the name on the line: the parameter itself, or a local derived from it
    element: bool  # the local is an element the code iterates the parameter for
    type: str | None  # the local's type where the call failed
    exact: bool = False  # named by identity (``Diag.origins``), not through the names on the line


def slot_names(subject: Subject, plan: Plan) -> dict[str, Slot]:
    """Name on a line of the golden -> the plan slot whose value it is."""
    out: dict[str, Slot] = {}
    for i, (p, _) in enumerate(plan.args):
        out[p.name] = ("arg", i)
    for i, (attr, _) in enumerate(plan.attrs):
        out["self." + attr] = ("attr", i)
    for i, (label, _) in enumerate(plan.stubs):
        # a name with no source (python_stubs): what its call returns, or its value, is the slot
        m = SLOT_RE.match(label)
        if m is not None and not label.endswith("!"):
            name, attr, _called = m.groups()
            out.setdefault(f"{name}.{attr}" if attr else name, ("stub", i))
    return out


def _element_of(func: ast.AST, local: str, param: str) -> bool:
    """``for local in param`` (or in a comprehension), or ``local = param[i]``: ``local`` is one
    of ``param``'s elements."""
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == local
            and isinstance(node.value, ast.Subscript)
            and not isinstance(node.value.slice, ast.Slice)
            and ast.unparse(node.value.value) == param
        ):
            return True
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            if node.target.id == local and isinstance(node.iter, ast.Name) and node.iter.id == param:
                return True
            if (
                node.target.id == local
                and isinstance(node.iter, ast.Attribute)
                and isinstance(node.iter.value, ast.Name)
                and node.iter.value.id == "self"
                and param == "self." + node.iter.attr
            ):
                return True
    return False


def _iterated(func: ast.AST, local: str) -> bool:
    """``local`` is bound by a loop or a comprehension (one element of what it iterates)."""
    return any(
        isinstance(n, (ast.For, ast.comprehension))
        and isinstance(n.target, ast.Name)
        and n.target.id == local
        for n in ast.walk(func)
    )


def derived(func: ast.AST, param: str, depth: int = 3) -> dict[str, bool]:
    """Locals computed from ``param``, through up to ``depth`` assignments or loops (``combos =
    combinations(systems)``, ``for combo in combos``, ``for cluster in combo``) -> whether the
    local is one of its elements: bound directly by iterating it, or, further along, bound by a
    loop (code iterating a collection made from another mostly reaches the same elements)."""
    out: dict[str, bool] = {}
    frontier = {param}
    for level in range(depth):
        nxt: set[str] = set()
        for src in frontier:
            for local in _derived_names(func, src):
                if local == param or local in out:
                    continue
                out[local] = _element_of(func, local, param) if level == 0 else _iterated(func, local)
                nxt.add(local)
        frontier = nxt
    return out


def blame(subject: Subject, plan: Plan, d: Diag) -> list[Blame]:
    """The slots a failure points at (see the module docstring), most likely first."""
    slots = slot_names(subject, plan)
    wanted = message_types(d.message)
    found: list[Blame] = []
    if d.func == subject.function_name:
        names, _ = failing_names(subject.func, d.offset)
        for name in sorted(names):
            if name in slots:
                found.append(Blame(slots[name], name, False, d.types.get(name)))
        derived_from: dict[str, list[tuple[str, bool]]] = {}
        for pname in slots:
            for local, element in derived(subject.func, pname).items():
                derived_from.setdefault(local, []).append((pname, element))
        for name in sorted(names):
            if name in slots:
                continue
            # a value derived from a call of a name with no source (``recs = load(path)``) is what
            # that call returned: the stub before the arguments it was given
            # (then the collection it is an element of, before an index that only picked it)
            ranked = sorted(derived_from.get(name, []), key=lambda t: (slots[t[0]][0] != "stub", not t[1]))
            for pname, element in ranked:
                found.append(Blame(slots[pname], name, element, d.types.get(name)))
        # ``for rec in self.records``: an element of a self attribute
        for name in sorted(names):
            for pname, slot in slots.items():
                if pname.startswith("self.") and name not in slots and _element_of(subject.func, name, pname):
                    found.append(Blame(slot, name, True, d.types.get(name)))
    elif d.func == "__init__" and plan.construct:
        for i, (p, _) in enumerate(plan.construct):
            if p.name in d.types:
                found.append(Blame(("ctor", i), p.name, False, d.types.get(p.name)))
    found = _origin_blames(plan, slots, d) + found
    if d.exc == "KeyError":  # the message is the key: the value looked up in is a mapping
        wanted = {"dict", "DataFrame", "Series", "defaultdict", "OrderedDict", "Counter"}
    if wanted:
        typed = [b for b in found if b.type in wanted]
        if typed:
            found = typed + [b for b in found if b not in typed]
    seen: set[Slot] = set()
    out = []
    for b in found:
        if b.slot not in seen:
            seen.add(b.slot)
            out.append(b)
    return out


def called_attributes(func: ast.AST) -> set[str]:
    """Attribute names the function calls as methods (``x.is_leaf()``), on whatever receiver."""
    return {
        n.func.attr for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }


def unpacked_width(func: ast.AST, name: str) -> int | None:
    """``a, b = name(...)`` in the function: the call's result is unpacked into that many names."""
    for n in ast.walk(func):
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Tuple)
            and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts)
            and isinstance(n.value, ast.Call)
            and ast.unparse(n.value.func) == name
        ):
            return len(n.targets[0].elts)
    return None


def _origin_blames(plan: Plan, slots: dict[str, Slot], d: Diag) -> list[Blame]:
    """The slots whose generated value the failure is about, by identity (``Diag.origins``):
    exact where the names on the golden's line are not, e.g. a stub's result that a helper the
    golden calls fails on (``stream = setup(path); return read_header(stream)``)."""
    local_of = {slot: name for name, slot in slots.items()}
    out = []
    for name, path, type_name in d.origins:
        slot = _origin_slot(plan, slots, name)
        if slot is not None and (not path or _one_element(path)):
            out.append(Blame(slot, local_of.get(slot, name), bool(path), type_name, exact=True))
    return out


def _origin_slot(plan: Plan, slots: dict[str, Slot], name: str) -> Slot | None:
    labels = {label: ("stub", i) for i, (label, _) in enumerate(plan.stubs)}
    return slots.get(name) or labels.get(name)


def _one_element(path: tuple) -> bool:
    """One step down to an element: of a list (``("elem",)``) or a tuple (``("index", i)``)."""
    return len(path) == 1 and path[0][0] in ("elem", "index")


def origin_repairs(
    subject: Subject, plan: Plan, d: Diag, current_kind: Callable[[Plan, Slot], str | None]
) -> list[tuple[Slot, str]]:
    """Repairs of a value deep inside a slot's (``clusters[i].hits[j]`` an int where the code reads
    ``.gene_ref``), found by identity (``Diag.origins``) wherever the code reached it: the slot's
    kind with the kind at that path replaced, as :func:`path_repairs` does for paths it can
    read off the golden's failing line."""
    slots = slot_names(subject, plan)
    binds = bindings(subject.func, {n: s for n, s in slots.items() if s[0] in ("arg", "attr")})
    out: list[tuple[Slot, str]] = []
    for name, path, _ in d.origins:
        slot = _origin_slot(plan, slots, name)
        if slot is None or not path or _one_element(path) and path[0][0] == "elem":
            continue
        cur = current_kind(plan, slot)
        for leaf in _leaf_kinds(d, None, kind_at(cur, path), subject.func, binds, (name, path)):
            new = rewrite(cur, path, leaf)
            if new is not None and new != cur and (slot, new) not in out:
                out.append((slot, new))
    return out[:PER_PATH]


def _unpack_width(stmt: ast.AST | None, message: str) -> int | None:
    m = re.search(r"expected (\d+)", message)
    if m:
        return int(m.group(1))
    if isinstance(stmt, (ast.For, ast.AsyncFor)) and isinstance(stmt.target, ast.Tuple):
        return len(stmt.target.elts)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple):
        return len(stmt.targets[0].elts)
    return None


def _tuples(head: str, width: int) -> list[str]:
    """Tuples (``fixed:``) or lists of tuples (``tuplelist:``) of ``width`` items: all numbers,
    or a name then numbers (``chrom, start, end``)."""
    return [head + repr(["int_small"] * width), head + repr(["str_word"] + ["int_small"] * (width - 1))]


def _field_kind(name: str) -> str:
    kinds = [k for k in rank_kinds(name, {}) if not k.startswith(("stub:", "callable:"))]
    return kinds[0] if kinds else "int_small"


def _held_fields(kind: str | None) -> dict[str, str]:
    """The keys (fields) a dict (object) kind already holds, so a repair adds to them."""
    for head in ("obj:", "objlist:", "dictkeys:", "dictlist:"):
        if kind and kind.startswith(head):
            try:
                got = pyast.literal_eval(kind[len(head) :])
            except (ValueError, SyntaxError):
                return {}
            return dict(got) if isinstance(got, dict) else {}
    return {}


_OTHER = {
    "str": ("int_small", "float_pos"),
    "int": ("str_word", "float_pos"),
    "float": ("int_small", "str_word"),
}
_FIELD_FAMILIES = (
    ("str", ("str_", "choice:", "vocab_str:", "default:str(")),
    ("int", ("int_",)),
    ("float", ("float",)),
    ("list", ("list_", "objlist:", "dictlist:", "tuplelist:", "vocab_list:")),
    ("dict", ("dict_", "dictkeys:")),
    ("bool", ("bool",)),
    ("_bc_ns", ("obj:",)),
    ("_bc_fns", ("obj:",)),
)


def _retyped(current: str, held: dict[str, str], types: set[str], alternatives) -> list[str]:
    """``current`` (an ``obj:``/``dictkeys:`` kind) with its fields of a type the message names
    given the kinds the message asks for (``alternatives(type)``): one kind per alternative."""
    head = current.split(":", 1)[0] + ":"
    out = []
    for t, prefixes in _FIELD_FAMILIES:
        if t not in types:
            continue
        hit = [f for f, k in held.items() if isinstance(k, str) and k.startswith(prefixes)]
        if not hit:
            continue
        for alt in [*alternatives(t), *_OTHER.get(t, ())][:3]:
            out.append(head + repr({f: (alt if f in hit else k) for f, k in held.items()}))
    return list(dict.fromkeys(out))


def message_kinds(
    subject: Subject, d: Diag, b: Blame, stmt: ast.AST | None, current: str | None = None
) -> list[str]:
    """Kinds for the blamed value that the failure asks for (for the local; the caller wraps
    them as elements when the local is an element of the slot's value). ``current``: the slot's
    kind now, whose keys or fields a repair keeps."""
    held = _held_fields(current)
    types = message_types(d.message)
    own = _asked(subject, d, b, stmt, held, types)
    if held and current and d.exc in ("TypeError", "ValueError", "AttributeError"):
        # the value is a record the repair built: the failing operation may be on one of its
        # fields (``rec['stop'] - rec['begin']`` on two strings), so retype the fields of the named
        # type too; first, unless the record itself is what the message names
        retyped = _retyped(
            current,
            held,
            types,
            lambda t: _asked(subject, d, Blame(b.slot, "_", False, t), stmt, {}, {t}),
        )
        itself = (
            current.startswith("obj:")
            and "_bc_ns" in types
            or current.startswith("dictkeys:")
            and "dict" in types
        )
        return list(dict.fromkeys([*own, *retyped] if itself else [*retyped, *own]))
    return own


def _asked(
    subject: Subject,
    d: Diag,
    b: Blame,
    stmt: ast.AST | None,
    held: dict[str, str],
    types: set[str],
) -> list[str]:
    """:func:`message_kinds` for the blamed value itself (``held``: the fields it keeps)."""
    msg, exc = d.message, d.exc
    func = subject.func
    local = b.local  # a name, or ``self.field``: the analyses of python_inputs take either
    if exc == "AttributeError":
        m = re.search(r"has no attribute '(\w+)'", msg)
        if b.type == "NoneType" or "NoneType" in types:
            return []  # a value left to None: the slot's own kinds (below) give it one
        if not m:
            return []
        attr = m.group(1)
        if attr in _DICT_METHODS:  # the keys the function reads first
            return _dict_kinds(func, local) + ["dictkeys:{}", "dict_str_int", "dict_str_list"]
        simple = _method_kinds(attr)
        if simple is not None:
            return simple
        fields = list(dict.fromkeys([*held, *sub_attributes(func, local), attr]))[:12]
        # an attribute the code calls (``node.is_leaf()``, wherever the node came from) is a method
        methods = called_attributes(func)

        def field(f: str, kind: str) -> str:
            return held.get(f) or ("stub:" + kind if f in methods else kind)

        by_name = {f: field(f, _field_kind(f)) for f in fields}
        objects = ["obj:" + repr(by_name), "obj:" + repr({f: field(f, "int_small") for f in fields})]
        if attr in _READ_METHODS:  # ``stream.readline()``: an open file read from, or an object
            return [_READ_HANDLE, *objects]
        return objects
    if exc == "KeyError":
        try:
            key = pyast.literal_eval(msg)
        except (ValueError, SyntaxError):
            key = None
        if isinstance(key, str):
            read = read_keys(func, local)
            keys = list(dict.fromkeys([*held, *read, key]))[:12]
            # only keys the golden itself reads have usage to type them by
            known = dict(key_kinds(func, local, [k for k in read if k not in held], 0)) if read else {}
            known.update(held)
            return [
                "dictkeys:" + repr({k: known.get(k, "int_small") for k in keys}),
                "dictkeys:" + repr({k: known.get(k, "str_word") if k != key else "str_word" for k in keys}),
            ]
        if isinstance(key, int):
            return ["dict_int_list", "list_int"]
        return []
    if exc == "TypeError":
        if re.search(r"indices must be integers|string indices", msg):
            return _dict_kinds(func, local) + ["dictkeys:{}", "dict_str_int", "dict_str_list"]
        if re.search(r"cannot unpack non-iterable", msg):
            return _tuples("fixed:", _unpack_width(stmt, msg) or 2)
        if re.search(r"not subscriptable|is not iterable|has no len\(\)|not reversible", msg):
            return list(_SEQUENCES)
        if re.search(r"cannot be interpreted as an integer|slice indices must be|integer is required", msg):
            return ["int_small", "int_pos"]
        if re.search(r"expected str, bytes or os\.PathLike|path should be", msg):
            return list(_PATHS)
        if re.search(r"is not callable", msg):
            return ["callable:'int_small'", "passthrough", "callable:'str_word'"]
        if re.search(
            r"unsupported operand|not supported between|can't multiply|must be real number|bad operand|can only concatenate|must be str, not|can't convert",
            msg,
        ):
            if b.type in _NUMBER_TYPES:
                # a number where text or a sequence was meant: the other operand's type says which
                other = types - _NUMBER_TYPES - {"NoneType"}
                m = re.search(r"can only concatenate (\w+)", msg)
                if m:
                    other.add(m.group(1))
                if "str" in other:
                    return ["str_word", "str_dna"]
                if "list" in other:
                    return ["list_int", "list_float"]
                return []
            if b.type in ("list", "tuple") and "str" in types:
                return ["str_word", "str_path"]  # ``prefix + '.bim'`` on a list: the text it extends
            if b.type in ("list", "tuple") and re.search(r"for (\*\*|//|[-/*%]):", msg):
                # ``(a - b) / n`` on sequences: arithmetic element by element, arrays
                return ["ndarray1", *_NUMBERS]
            return list(_NUMBERS)
        return []
    if exc == "ValueError":
        if re.search(r"values to unpack", msg):
            return _tuples("fixed:", _unpack_width(stmt, msg) or 2)
        if re.search(r"invalid literal for int\(\)", msg):
            if b.type in ("list", "tuple"):  # ``int(fields[1])``: fields of digits
                return [f"default:[{_DIGITS} for _ in range(_r.randint(2, 10))]"]
            return [f"default:{_DIGITS}"]
        if re.search(r"could not convert string to float", msg):
            if b.type in ("list", "tuple"):
                return [f"default:[{_DECIMAL} for _ in range(_r.randint(2, 10))]"]
            return [f"default:{_DECIMAL}"]
        if re.search(r"math domain error", msg):
            return ["float_pos", "int_pos"]
        return []
    if exc == "ZeroDivisionError":
        return ["int_pos", "float_pos"]
    if exc in ("FileNotFoundError", "IsADirectoryError", "NotADirectoryError"):
        return list(_PATHS)
    return []


def _dict_kinds(func: ast.AST, local: str) -> list[str]:
    keys = read_keys(func, local)[:12]
    if not keys:
        return []
    return ["dictkeys:" + repr(key_kinds(func, local, keys, 0))]


def literals(func: ast.AST | None) -> list[str]:
    """The short string literals of a function, docstring aside: the values it tests its input
    against (``if disttype not in ('euclid', 'google')``: raise)."""
    if func is None:
        return []
    body = list(getattr(func, "body", []))
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    found = [
        n.value
        for stmt in body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and 0 < len(n.value) <= 24
        and "\n" not in n.value
    ]
    return list(dict.fromkeys([*found, *doc_literals(func)]))[:MAX_LITERALS]


#: A word quoted in a docstring (````texttt````, ```fasta```, ``'euclid'``, ``"gff3"``).
_DOC_QUOTED = re.compile(
    r"``([A-Za-z_][\w.+-]{0,23})``|`([A-Za-z_][\w.+-]{0,23})`|'([A-Za-z_][\w.+-]{0,23})'|\"([A-Za-z_][\w.+-]{0,23})\""
)


def doc_literals(func: ast.AST | None) -> list[str]:
    """Words a function's docstring quotes: the values it documents (``Only the following
    formats are available: ``texttt``, ``emph``...``), after the body's own literals."""
    doc = ast.get_docstring(func) if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if not doc:
        return []
    words = ["".join(g) for g in _DOC_QUOTED.findall(doc)]
    return list(dict.fromkeys(w for w in words if w))


def repairs(
    subject: Subject,
    plan: Plan,
    d: Diag,
    b: Blame,
    current: str | None,
    sources: dict[str, list[ast.AST]] | None = None,
) -> list[str | None]:
    """Kinds to try in blamed slot ``b`` for failure ``d``: the message's, then the slot's own.
    ``sources``: function name -> definition, for a failure outside the golden (a constructor)."""
    golden = d.func == subject.function_name
    _, stmt = failing_names(subject.func, d.offset) if golden else (set(), None)
    held = current
    if not b.element and current and b.type == "list":
        # a list of records whose record the message names (``'_bc_ns' object has no attribute
        # 'score'`` from ``hits.sort(key=attrgetter('score'))``): the elements are at fault
        named = message_types(d.message)
        element_type = {"objlist:": "_bc_ns", "dictlist:": "dict", "tuplelist:": "tuple"}
        if any(current.startswith(h) and t in named for h, t in element_type.items()):
            b = Blame(b.slot, b.local, True, b.type)
    if b.element and current and current.startswith(("objlist:", "dictlist:", "tuplelist:")):
        held = (
            current.replace("list:", ":", 1).replace("dict:", "dictkeys:", 1).replace("tuple:", "fixed:", 1)
        )
    asked = message_kinds(subject, d, b, stmt, held)
    width = unpacked_width(subject.func, b.local) if b.element and b.slot[0] == "stub" else None
    if width:
        # ``x, y = helper(h)`` and then ``x[::-1]``: the helper returns ``width`` values, each of
        # the kind the failure asks for (not a list of them)
        asked = [f"fixed:{[k] * width!r}" for k in asked if k and not k.startswith("fixed:")]
    elif b.element:
        asked = [k for k in (as_elements(k) for k in asked) if k]
        if d.exc in ("TypeError", "ValueError") and re.search(r"unpack", d.message):
            asked = [*_tuples("tuplelist:", _unpack_width(stmt, d.message) or 2), *asked]
    if d.exc == "TypeError" and not b.element:
        # ``expected <class 'GenotypeArray'>, found <class 'dict'>``: one of the slice's classes,
        # built through its constructor
        asked = [*classes_named(d.message, sources or {}), *asked]
    if d.exc in ("ValueError", "KeyError", "AssertionError") or d.exc.endswith("Error") and b.type == "str":
        # rejected by value: one of the strings the failing function knows
        funcs = [subject.func] if golden else (sources or {}).get(d.func, [])
        words = list(dict.fromkeys(w for f in funcs for w in literals(f)))[:MAX_LITERALS]
        if words and (b.type in ("str", None) or d.exc == "AssertionError") and not b.element:
            asked = [f"choice:{words!r}", *asked]
    kind_of, i = b.slot
    if kind_of == "arg":
        own = list(plan.args[i][0].kinds)
    elif kind_of == "ctor":
        own = list((plan.construct or [])[i][0].kinds)
    elif kind_of == "attr":
        own = list(dict(subject.attrs).get(plan.attrs[i][0]) or [])
    elif kind_of == "stub":
        own = list(dict(subject.stubs).get(plan.stubs[i][0]) or [])
    else:
        own = []
    own = [k for k in own if k != "a_type"]
    out: list[str | None] = []
    for k in [*asked, *own[:4], *FALLBACK]:
        if k != current and k not in out:
            out.append(k)
    return out[:PER_SLOT]


#: Repairs tried per round at an access path inside a slot's value (:func:`path_repairs`).
PER_PATH = 6


def _method_kinds(attr: str) -> list[str] | None:
    """Kinds a builtin method or data attribute asks for (``.split`` a string); None: a field."""
    for names, kinds in (
        (_WRITE_METHODS, ["handle_out"]),
        (_STR_METHODS, ["str_word", "str_dna", "str_line"]),
        (_LIST_METHODS, ["list_int", "list_str"]),
        (_DICT_METHODS, ["dict_str_int", "dict_str_list"]),
        (_ARRAY_ATTRS, ["ndarray1", "ndarray2"]),
        (_SERIES_ATTRS, ["series", _FRAME]),
        (_SET_METHODS, ["set_str"]),
    ):
        if attr in names:
            return kinds
    return None


def _leaf_kinds(
    d: Diag, stmt: ast.AST | None, old: str | None, func: ast.AST, binds: dict, where: tuple
) -> list[str]:
    """Kinds the failure asks for at an access path (``where``), keeping the fields the value
    there already has: every attribute (key) the function reads at that same path, not only the
    missing one, so the next statement does not fail on the next field."""
    msg = d.message
    if d.exc == "AttributeError":
        m = re.search(r"has no attribute '(\w+)'", msg)
        if not m or "NoneType" in message_types(msg):
            return []
        simple = _method_kinds(m.group(1))
        if simple is not None:
            return simple
        held = _held_fields(old) if old and old.startswith("obj:") else {}
        read = attributes_at(func, binds, where)
        read.setdefault(m.group(1), False)
        names = list(dict.fromkeys([*held, *(a for a in read if _method_kinds(a) is None)]))[:12]

        methods = called_attributes(func)  # called somewhere, whatever the receiver: a method

        def field(name: str, fallback: str) -> str:
            return held.get(name) or ("stub:int_small" if read.get(name) or name in methods else fallback)

        return [
            "obj:" + repr({f: field(f, _field_kind(f)) for f in names}),
            "obj:" + repr({f: field(f, "int_small") for f in names}),
        ]
    if d.exc == "KeyError":
        try:
            key = pyast.literal_eval(msg)
        except (ValueError, SyntaxError):
            return []
        if not isinstance(key, str):
            return ["dict_int_list"]
        held = _held_fields(old) if old and old.startswith("dictkeys:") else {}
        keys = [key, *held]
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
                and expr_path(node.value, binds) == where
            ):
                keys.append(node.slice.value)
        keys = list(dict.fromkeys(keys))[:12]
        return [
            "dictkeys:" + repr({k: held.get(k) or _field_kind(k) for k in keys}),
            "dictkeys:" + repr({k: held.get(k) or "int_small" for k in keys}),
        ]
    if d.exc in ("TypeError", "ValueError") and re.search(r"unpack", msg):
        return _tuples("fixed:", _unpack_width(stmt, msg) or 2)
    if d.exc == "TypeError" and re.search(r"indices must be integers", msg):
        return ["dict_str_int", "dict_str_list"]  # ``d[rec.id] = ...`` on a list: a mapping
    if d.exc == "TypeError" and re.search(r"not subscriptable|is not iterable|has no len\(\)", msg):
        return ["list_int", "list_str"]
    return []


def _path_targets(d: Diag, stmt: ast.AST | None) -> list[tuple[ast.AST, tuple]]:
    """Expressions on the failing line the failure is about, with any steps beyond them (the
    element a loop unpacks): ``x.attr`` for a missing ``attr``, ``x['k']`` for a missing key, what
    is subscripted, iterated or unpacked."""
    parts = header_parts(stmt)
    nodes = [n for part in parts for n in ast.walk(part)]
    msg = d.message
    out: list[tuple[ast.AST, tuple]] = []
    if d.exc == "AttributeError":
        m = re.search(r"has no attribute '(\w+)'", msg)
        out = [(n.value, ()) for n in nodes if m and isinstance(n, ast.Attribute) and n.attr == m.group(1)]
    elif d.exc == "KeyError":
        out = [
            (n.value, ())
            for n in nodes
            if isinstance(n, ast.Subscript)
            and isinstance(n.slice, ast.Constant)
            and repr(n.slice.value) == msg
        ]
    elif re.search(r"unpack", msg):
        if isinstance(stmt, (ast.For, ast.AsyncFor)) and isinstance(stmt.target, ast.Tuple):
            out.append((stmt.iter, (("elem",),)))
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple):
            out.append((stmt.value, ()))
        out += [
            (n.iter, (("elem",),))
            for n in nodes
            if isinstance(n, ast.comprehension) and isinstance(n.target, ast.Tuple)
        ]
    elif d.exc == "TypeError" and re.search(r"not subscriptable|indices must be integers", msg):
        out = [(n.value, ()) for n in nodes if isinstance(n, ast.Subscript)]
    elif d.exc == "TypeError" and "is not iterable" in msg:
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            out.append((stmt.iter, ()))
        out += [(n.iter, ()) for n in nodes if isinstance(n, ast.comprehension)]
    elif d.exc == "TypeError" and "has no len()" in msg:
        out = [
            (n.args[0], ())
            for n in nodes
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args
        ]
    return out


def path_repairs(
    subject: Subject, plan: Plan, d: Diag, current_kind: Callable[[Plan, Slot], str | None]
) -> list[tuple[Slot, str]]:
    """Repairs of a value the golden reached inside a slot's value (``reaction.compounds[i][0]``,
    ``clusters[0].model``): the slot's kind with the kind at that access path replaced
    (:mod:`biocoder_metric.synth.python_access`). A failure on the slot itself is :func:`blame`'s."""
    if d.func != subject.function_name:
        return []
    _, stmt = failing_names(subject.func, d.offset)
    slots = {n: s for n, s in slot_names(subject, plan).items() if s[0] in ("arg", "attr")}
    binds = bindings(subject.func, slots)
    out: list[tuple[Slot, str]] = []
    for expr, extra in _path_targets(d, stmt):
        found = expr_path(expr, binds)
        if found is None or not (found[1] or extra):
            continue
        root, path = found[0], (*found[1], *extra)
        slot = slots[root]
        cur = current_kind(plan, slot)
        old = kind_at(cur, path)
        for leaf in _leaf_kinds(d, stmt, old, subject.func, binds, (root, path)):
            new = rewrite(cur, path, leaf)
            if new is not None and new != cur and (slot, new) not in out:
                out.append((slot, new))
    return out[:PER_PATH]


def classes_named(message: str, sources: dict[str, list[ast.AST]]) -> list[str]:
    """``ctor:`` kinds for the slice's classes a message names (``<class 'mod.Name'>`` or a bare
    capitalised ``Name``), in the order named; a class whose constructor has no generator is left out."""
    out: list[str] = []
    for quoted, bare in re.findall(r"<class '(?:[\w.]*\.)?(\w+)'>|\b([A-Z]\w*)\b", message):
        name = quoted or bare
        for node in sources.get("class:" + name, [])[:1]:
            kind = constructor_kind(ast.unparse(node), name)
            if kind and kind not in out:
                out.append(kind)
    return out


def missing_attribute(subject: Subject, plan: Plan, d: Diag) -> list[tuple[str, str]]:
    """``(attribute, kind)`` to try when ``self`` lacks an attribute the code reads (one a helper
    method reads, which the analysis of the golden alone cannot see): ``self`` is built with
    ``__new__``, so only the attributes the plan sets exist."""
    if not subject.method or d.exc != "AttributeError":
        return []
    m = re.search(r"'(\w+)' object has no attribute '(\w+)'", d.message)
    if not m or m.group(1) != subject.class_name:
        return []
    name = m.group(2)
    if name in {a for a, _ in plan.attrs} or name.startswith("__"):
        return []
    kinds = [_field_kind(name), "int_small", "str_word", "list_int", "dict_str_int", "float_pos"]
    return [(name, k) for k in dict.fromkeys(kinds)]


#: Runs plans on the probe's cases: plans -> per plan, its cases' outputs (with diagnostics).
Runner = Callable[[list[Plan]], list[list[str | None]]]
#: Scores outputs (python_search.score) -> a comparable value (higher is better).
Scorer = Callable[[Sequence[str | None]], tuple[int, int]]


def _further(now: tuple[str, str, int, str], before: tuple[str, str, int, str], golden: str) -> bool:
    """Whether failure ``now`` comes no earlier than ``before``: later in the same function, or
    in the golden where it was in the constructor that builds its object."""
    if now[1] == before[1]:
        return now[2] >= before[2]
    return now[1] == golden


def repair(
    subject: Subject,
    plan: Plan,
    outputs: list[str | None],
    run: Runner,
    value: Callable[[Sequence[str | None]], int],
    variant: Callable[[Plan, dict[Slot, str | None], str], Plan],
    current_kind: Callable[[Plan, Slot], str | None],
    label: str,
    rounds: int = ROUNDS,
    sources: dict[str, list[ast.AST]] | None = None,
) -> tuple[Plan, list[str | None], list[str]] | None:
    """A plan the golden accepts better than ``plan`` (whose probe outputs are ``outputs``),
    reached by repairing one failure per round; its outputs and what each round changed.
    None when no round helped."""
    cur, cur_out = plan, outputs
    steps: list[str] = []
    seen: set[tuple[str, str, int, str]] = set()  # failures met so far: no repair may go back to one
    for _ in range(rounds):
        found = diags(cur_out)
        if not found:
            break
        seen |= {x.signature for x in found}
        target = Counter(x.signature for x in found).most_common(1)[0][0]
        d = next(x for x in found if x.signature == target)
        trials: list[tuple[Slot, str | None]] = []
        plans: list[Plan] = []
        for name, kind in missing_attribute(subject, cur, d):
            trials.append((("new attr", len(cur.attrs)), f"{name}={kind}"))
            plans.append(dataclasses.replace(cur, attrs=[*cur.attrs, (name, kind)], label=label))
        for slot, k in [
            *origin_repairs(subject, cur, d, current_kind),
            *path_repairs(subject, cur, d, current_kind),
        ]:
            trials.append((slot, k))
            plans.append(variant(cur, {slot: k}, label))
        blamed = blame(subject, cur, d)
        options = {b.slot: repairs(subject, cur, d, b, current_kind(cur, b.slot), sources) for b in blamed}
        # slots whose values all have the type the message names (``len(a) != len(b)`` on two
        # ints): one repair at a time leaves the same failure on the next, so also all at once
        named = message_types(d.message)
        joint = [b.slot for b in blamed if b.type in named and not b.element]
        if any(b.exact for b in blamed):  # the failing value is known: only such values fail alike
            joint = [b.slot for b in blamed if b.exact and b.type in named and not b.element]
        if len(joint) >= 2:
            for n in range(JOINT):
                change = {slot: options[slot][n] for slot in joint if len(options[slot]) > n}
                if len(change) == len(joint):
                    trials.append((("joint", len(joint)), " & ".join(str(k) for k in change.values())))
                    plans.append(variant(cur, change, label))
        for b in blamed:
            for k in options[b.slot]:
                trials.append((b.slot, k))
                plans.append(variant(cur, {b.slot: k}, label))
        if not trials:
            break
        trials, plans = trials[:PER_ROUND], plans[:PER_ROUND]
        outs = run(plans)
        cur_value = value(cur_out)
        best = None
        for n, ((slot, k), p, o) in enumerate(zip(trials, plans, outs, strict=True)):
            v = value(o)
            now = diags(o)
            dominant = Counter(x.signature for x in now).most_common(1)[0][0] if now else None
            if v > cur_value:
                rank = (v, 1, 0, -n)
            elif (
                v == cur_value
                and dominant is not None
                and dominant not in seen
                and _further(dominant, target, subject.function_name)
                and 2 * sum(x.signature == dominant for x in now) >= max(len(now), 2)
                and sum(x.signature == target for x in now) < sum(x.signature == target for x in found)
            ):
                # the failure is gone and the next one is new, no earlier, and the same in most
                # cases (a message that quotes the random value differs each time: no progress):
                # progress that the score cannot show yet (the call still raises, further on)
                rank = (v, 0, dominant[2] if dominant[1] == subject.function_name else -1, -n)
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, p, o, f"{slot[0]} {slot[1]} -> {k} ({d.exc})")
        if best is None:
            break
        _, cur, cur_out, step = best
        steps.append(step)
    if not steps or value(cur_out) <= value(outputs):
        return None
    return cur, cur_out, steps
