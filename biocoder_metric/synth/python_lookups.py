"""Arguments that must agree with each other: the keys a lookup in the code finds.

Independent random values rarely fit together. ``table[codon]`` with a random ``codon`` is a
``KeyError`` in nearly every case; ``self._complexity[(i, j)]`` with random ``i`` and ``j`` is an
``IndexError``; ``CODONS[seq[i:i + 3]]`` never sees a codon in a random string. A human tester
picks the key from the table. This module finds those lookups in the body (and one level down,
in the sliced helpers the function passes its arguments to), and the harness prelude below makes
the values agree at run time, after every input exists:

* **Agreement.** ``C[k]``, ``C[k - 1]``, ``C[i, j]``, ``C.get(k)`` where ``k``, ``i``, ``j`` are
  parameters and ``C`` is a parameter, a ``self`` attribute or a module-level name: in most
  cases the parameters are set to a key ``C`` holds (a dict's keys, a frame's columns, an
  index in range of a sequence or of an array's axes), consistently across all lookups.
* **Membership.** ``k in C`` / ``k not in C`` (a guard before a lookup, or a validator's
  ``if code not in CODES: raise``): in most cases ``k`` is one of ``C``'s keys (a mapping) or
  elements (a list, tuple or set), or a piece of ``C`` (a string).
* **Patterns.** ``re.search(P, S)`` / ``re.findall`` / ``re.finditer`` / ``re.match`` /
  ``re.fullmatch`` / ``re.sub(P, R, S)``, or ``rx.search(S)`` after ``rx = re.compile(P)``, where
  ``P`` is a parameter: a membership of ``P`` in ``S`` (a piece of the string searched, one of
  the strings of a list searched element by element), so a motif is found in its sequence.
* **Pieces** (round 17). ``S.find(P)``, ``S.count(P)``, ``S.startswith(P)``, ``S.split(P)``,
  ``S.replace(P, R)``, ``L.index(P)`` and the like, where ``P`` and ``S`` are parameters: a
  membership of ``P`` in ``S``, as for a pattern (an adaptor is found in its read).
* **Composition.** ``C[x]`` where ``x`` is an element of parameter ``P`` (``for x in P``,
  ``P[i]``, ``P[i:i + 3]``) and ``C`` is a mapping: in some cases ``P`` is rebuilt from ``C``'s
  keys (a string of codons the table knows, a list of known names).

Both keep a share of cases unchanged, so the lookup's failure path stays tested.
"""

from __future__ import annotations

import ast
import builtins

from biocoder_metric import pyast
from biocoder_metric.synth.python_formats import helper_index
from biocoder_metric.synth.python_slice import bound_names

#: A container reference: ("param" | "attr" | "global", name).
Ref = tuple[str, str]
#: One slot of a key: ("var", parameter, offset) or ("const", value, 0).
Slot = tuple[str, object, int]

#: Attribute levels a container may sit below a parameter or ``self`` (``self.index_file.indices``).
MAX_DEPTH = 3
#: Most lookups kept per function (each costs a little time per case).
MAX_LOOKUPS = 8
#: The third field of a membership agreement (``k in C``); lookups carry ``nested`` (a bool) there.
MEMBER = "member"


#: Searches of the ``re`` module (and of a compiled pattern), with the position of the string
#: searched among ``re.F``'s arguments (a compiled pattern's method takes it one earlier).
_SUBJECT = {"search": 1, "match": 1, "fullmatch": 1, "findall": 1, "finditer": 1, "sub": 2, "subn": 2}
_SEARCHES = frozenset(_SUBJECT)
#: Methods of a string (or list) whose first argument is looked for in it: ``seq.find(adaptor)``.
_PIECE_METHODS = frozenset(
    {
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "startswith",
        "endswith",
        "split",
        "rsplit",
        "partition",
        "rpartition",
        "replace",
        "removeprefix",
        "removesuffix",
    }
)
#: Calls a searched string goes through that keep pieces of it findable (case-insensitively).
_CASE_AND_SPACE = frozenset({"upper", "lower", "strip", "rstrip", "lstrip", "casefold"})


def _uncased(node: ast.AST) -> ast.AST:
    """``node`` without the case and space calls around it (``seq.upper().strip()`` -> ``seq``):
    pieces of the string still match through them."""
    return pyast.unwrap_methods(node, _CASE_AND_SPACE)


def _re_call(node: ast.AST) -> str | None:
    """``F`` when ``node`` is ``re.F(...)``, else ``None``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
    ):
        return node.func.attr
    return None


class _Scan:
    """One function's lookups, with its parameters renamed to the subject's (``rename``)."""

    def __init__(self, func: ast.AST, rename: dict[str, str], self_name: str | None) -> None:
        self.func, self.rename, self.self_name = func, rename, self_name
        self.locals = bound_names(func) - set(rename)
        # loop variable -> the parameter it runs over (``for x in P``, ``[... for x in P]``)
        self.elements: dict[str, str] = {}
        for node in ast.walk(func):
            pairs: list[tuple[ast.AST, ast.AST]] = []
            if isinstance(node, (ast.For, ast.AsyncFor)):
                pairs.append((node.target, node.iter))
            elif isinstance(node, ast.comprehension):
                pairs.append((node.target, node.iter))
            for target, it in pairs:
                if isinstance(target, ast.Name) and isinstance(it, ast.Name) and it.id in rename:
                    self.elements[target.id] = rename[it.id]
        # rx = re.compile(P): the compiled pattern stands for parameter P
        self.compiled: dict[str, str] = {}
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and _re_call(node.value) == "compile"
                and node.value.args  # type: ignore[attr-defined]
                and isinstance(node.value.args[0], ast.Name)  # type: ignore[attr-defined]
                and node.value.args[0].id in rename  # type: ignore[attr-defined]
            ):
                self.compiled[node.targets[0].id] = rename[node.value.args[0].id]  # type: ignore[attr-defined]
        # col = params['mzCol'] (bound once): the local is that item of the parameter (round 31)
        bound: dict[str, list[ast.AST]] = {}
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                bound.setdefault(node.targets[0].id, []).append(node.value)
        self.items: dict[str, str] = {}
        for name, values in bound.items():
            item = self.item(values[0]) if len(values) == 1 and name not in rename else None
            if item is not None:
                self.items[name] = item

    def item(self, node: ast.AST) -> str | None:
        """``P['key']`` for a parameter ``P`` as a slot name (``"P['key']"``): a key the code
        takes from a mapping it is handed (``groupMass[parameters['mzCol']]``)."""
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.rename
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            return f"{self.rename[node.value.id]}[{node.slice.value!r}]"
        return None

    def container(self, node: ast.AST) -> Ref | None:
        if isinstance(node, ast.Name):
            if node.id in self.rename:
                return ("param", self.rename[node.id])
            if node.id not in self.locals and not hasattr(builtins, node.id):
                return ("global", node.id)
        elif isinstance(node, ast.Attribute):
            # ``self.index``, and one or two levels further (``self.index_file.indices``,
            # ``table.columns``): what a parameter or ``self`` holds holds the keys too
            parts: list[str] = []
            base: ast.AST = node
            while isinstance(base, ast.Attribute) and len(parts) <= MAX_DEPTH:
                parts.insert(0, base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or len(parts) > MAX_DEPTH:
                return None
            if self.self_name is not None and base.id == self.self_name:
                return ("attr", ".".join(parts))
            if base.id in self.rename:
                return ("param", ".".join([self.rename[base.id], *parts]))
        return None

    def slot(self, node: ast.AST) -> Slot | None:
        if isinstance(node, ast.Name) and node.id in self.rename:
            return ("var", self.rename[node.id], 0)
        item = self.items.get(node.id) if isinstance(node, ast.Name) else self.item(node)
        if item is not None:
            return ("var", item, 0)
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, (ast.Add, ast.Sub))
            and isinstance(node.left, ast.Name)
            and node.left.id in self.rename
            and isinstance(node.right, ast.Constant)
            and type(node.right.value) is int
        ):
            off = node.right.value if isinstance(node.op, ast.Add) else -node.right.value
            return ("var", self.rename[node.left.id], off)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
            return ("const", node.value, 0)
        return None

    def element_of(self, node: ast.AST) -> str | None:
        """The parameter ``node`` is an element or piece of, if any."""
        if isinstance(node, ast.Name):
            return self.elements.get(node.id)
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.rename
        ):
            return self.rename[node.value.id]
        return None

    def key(self, ref: Ref, key: ast.AST, found: list, composed: list) -> None:
        parts = key.elts if isinstance(key, ast.Tuple) else [key]
        slots = [self.slot(p) for p in parts]
        if all(s is not None for s in slots) and any(s[0] == "var" for s in slots):  # type: ignore[index]
            # C[k] is a plain lookup; C[i, j] and C[(k,)] look a tuple up
            item = (ref, tuple(slots), len(slots) == 1 and not isinstance(key, ast.Tuple))
            if item not in found:
                found.append(item)
            return
        if len(parts) == 1:
            whole = self.element_of(parts[0])
            if whole is not None and ref != ("param", whole) and (whole, ref) not in composed:
                composed.append((whole, ref))

    def member(self, ref: Ref, key: ast.AST, found: list) -> None:
        """``key in C``: ``key`` (or each part of a tuple ``key``) agrees with what ``C`` holds."""
        parts = key.elts if isinstance(key, ast.Tuple) else [key]
        slots = [self.slot(p) for p in parts]
        if all(s is not None for s in slots) and any(s[0] == "var" for s in slots):  # type: ignore[index]
            item = (ref, tuple(slots), MEMBER)
            if item not in found:
                found.append(item)

    def pattern(self, node: ast.Call, found: list) -> None:
        """``re.search(P, S)`` or ``rx.search(S)`` (``rx = re.compile(P)``): ``P`` is found in ``S``."""
        name = _re_call(node)
        if name in _SEARCHES and len(node.args) >= _SUBJECT[name] + 1:
            pat, subject = node.args[0], node.args[_SUBJECT[name]]
            if isinstance(pat, ast.Name) and pat.id in self.compiled:
                param = self.compiled[pat.id]
            elif isinstance(pat, ast.Name) and pat.id in self.rename:
                param = self.rename[pat.id]
            else:
                return
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in _SEARCHES
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in self.compiled
            and len(node.args) >= _SUBJECT[node.func.attr]
        ):
            param = self.compiled[node.func.value.id]
            subject = node.args[_SUBJECT[node.func.attr] - 1]
        else:
            return
        subject = _uncased(subject)  # sequence.upper(): pieces of the sequence still match
        ref = self.container(subject)
        if ref is None and isinstance(subject, ast.Subscript):
            whole = self.element_of(subject)  # tags[0]: one of the strings of tags
            ref = ("param", whole) if whole is not None else None
        if ref is None and isinstance(subject, ast.Name) and subject.id in self.elements:
            ref = ("param", self.elements[subject.id])  # for n in names: rx.search(n)
        if ref is None or ref == ("param", param):
            return
        item = (ref, (("var", param, 0),), MEMBER)
        if item not in found:
            found.append(item)

    def piece(self, node: ast.Call, found: list) -> None:
        """``S.find(P)``, ``S.count(P)``, ``S.startswith(P)``, ``S.split(P)``, ``L.index(P)``...:
        ``P`` is found in ``S`` (a piece of a string, an element of a list)."""
        if not (isinstance(node.func, ast.Attribute) and node.func.attr in _PIECE_METHODS and node.args):
            return
        arg = node.args[0]
        if not (isinstance(arg, ast.Name) and arg.id in self.rename):
            return
        subject = node.func.value
        subject = _uncased(subject)
        ref = self.container(subject)
        if ref is None or ref[0] != "param" or ref == ("param", self.rename[arg.id]):
            return
        item = (ref, (("var", self.rename[arg.id], 0),), MEMBER)
        if item not in found:
            found.append(item)

    def chain(self, node: ast.Subscript, found: list) -> None:
        """``C[i][j]``: one nested lookup (a list of rows, a dict of dicts)."""
        keys: list[ast.AST] = []
        base: ast.AST = node
        while isinstance(base, ast.Subscript):
            keys.insert(0, base.slice)
            base = base.value
        ref = self.container(base)
        slots = [self.slot(k) for k in keys]
        if ref is not None and all(s is not None for s in slots) and any(s[0] == "var" for s in slots):  # type: ignore[index]
            item = (ref, tuple(slots), True)
            if item not in found:
                found.append(item)

    def scan(self, found: list, composed: list) -> None:
        for node in ast.walk(self.func):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                if isinstance(node.value, ast.Subscript):
                    self.chain(node, found)
                    continue
                key = node.slice
                base = node.value
                if (
                    isinstance(base, ast.Attribute)
                    and base.attr == "loc"
                    and isinstance(key, ast.Tuple)
                    and len(key.elts) == 2
                    and isinstance(key.elts[0], ast.Slice)
                    and key.elts[0].lower is key.elts[0].upper is None
                ):
                    base, key = base.value, key.elts[1]  # table.loc[:, col] is table[col] (round 31)
                ref = self.container(base)
                if ref is not None and not isinstance(key, ast.Slice):
                    self.key(ref, key, found, composed)
            elif (
                isinstance(node, ast.Compare)
                and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.In, ast.NotIn))
            ):
                ref = self.container(node.comparators[0])
                if ref is not None:
                    self.member(ref, node.left, found)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and node.args
            ):
                ref = self.container(node.func.value)
                if ref is not None:
                    self.key(ref, node.args[0], found, composed)
            elif isinstance(node, ast.Call):
                self.pattern(node, found)
                self.piece(node, found)


def lookups(
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    params: list[str],
    self_name: str | None = None,
    helper_sources: list[str] | tuple[str, ...] = (),
) -> tuple[list[tuple[Ref, tuple[Slot, ...], bool]], list[tuple[str, Ref]]]:
    """(agreements, compositions) of ``func`` over the parameters ``params``.

    Agreements: (container, key slots, nested) for each ``C[k]``-like lookup keyed by parameters;
    nested: ``C[i][j]`` (one key per level), else ``C[i, j]`` (one tuple key); :data:`MEMBER` for
    ``k in C`` (``k`` one of what ``C`` holds).
    Compositions: (parameter, mapping) where an element of the parameter is looked up.
    A helper of ``helper_sources`` called with parameters as plain positional or keyword
    arguments (``self._pair(i, j)``, ``_lookup(table, k)``) is scanned too, its parameters renamed.
    """
    found: list = []
    composed: list = []
    _Scan(func, {p: p for p in params}, self_name).scan(found, composed)
    helpers = helper_index(list(helper_sources))
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        callee = None
        skip = 0
        if isinstance(node.func, ast.Name) and node.func.id in helpers:
            callee = helpers[node.func.id]
        elif (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == self_name
            and node.func.attr in helpers
        ):
            callee, skip = helpers[node.func.attr], 1
        if callee is None or callee is func:
            continue
        names = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]][skip:]
        rename: dict[str, str] = {}
        for name, arg in zip(names, node.args, strict=False):
            if isinstance(arg, ast.Name) and arg.id in params:
                rename[name] = arg.id
        for kw in node.keywords:
            if kw.arg and isinstance(kw.value, ast.Name) and kw.value.id in params:
                rename[kw.arg] = kw.value.id
        if rename:
            inner_self = names and skip and [*callee.args.posonlyargs, *callee.args.args][0].arg
            _Scan(callee, rename, inner_self or None).scan(found, composed)
    return found[:MAX_LOOKUPS], composed[:MAX_LOOKUPS]


#: Most selections kept per function.
MAX_SELECTIONS = 4


def _free(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _target_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def selections(
    func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str], self_name: str | None = None
) -> list[tuple[tuple[str, str], list[str], str, str, str]]:
    """Filters over another input's elements: ``(container, inputs, items, key, mode)``.

    ``for line in header.lines: if (line.key, line.value) in remove: continue`` (also
    ``not in``, ``C[key]``, ``C.get(key)``, comprehensions and ``key = ...; if key in C``): the
    container ``remove`` (a parameter or a ``self`` field) is tested with a key computed from the
    elements of ``header.lines``. Independent random values almost never meet, so the filter
    never fires and a mutant that drops it survives (a null candidate returning its first
    argument may even pass). The harness adds some of the keys the code computes, at run time,
    to the container in most cases (:func:`_bc_select` in the prelude).

    ``inputs`` are the names ``items`` reads (parameters, ``self``); ``items`` and ``key`` are
    lambda sources: ``lambda header: header.lines`` and ``lambda _bc_e: [KEY for T in [_bc_e]][0]``;
    ``mode`` is ``"member"`` (``in``: any collection) or ``"key"`` (``C[key]``, ``C.get(key)``: a
    mapping only, since a list's index is not a key to add).
    """
    names = set(params)
    selves = {self_name} if self_name else set()
    local = bound_names(func) - names - selves
    assigned: dict[str, list[ast.AST]] = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            assigned.setdefault(n.targets[0].id, []).append(n.value)
    loops: list[tuple[ast.AST, ast.AST]] = []
    for n in ast.walk(func):
        if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            loops.append((n.target, n.iter))

    def container(node: ast.AST) -> tuple[str, str] | None:
        if isinstance(node, ast.Name) and node.id in names:
            return ("param", node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in selves:
            return ("attr", node.attr)
        return None

    out: list[tuple[tuple[str, str], list[str], str, str, str]] = []

    def consider(ref: tuple[str, str] | None, key: ast.AST, mode: str) -> None:
        if ref is None or len(out) >= MAX_SELECTIONS:
            return
        if isinstance(key, ast.Name) and key.id in local and len(assigned.get(key.id, [])) == 1:
            key = assigned[key.id][0]  # key = (line.key, line.value); if key in remove
        used = _free(key)
        if used & names or used & selves:
            return  # a parameter itself is a lookup the arguments agree with (lookups)
        for target, it in loops:
            bound = _target_names(target)
            if not (used & bound):
                continue
            if used & local - bound:
                continue  # the key reads another local: not computable from the element alone
            inputs = _free(it)
            if not inputs & (names | selves) or inputs & local:
                continue
            if (ref[0] == "param" and ref[1] in inputs) or (
                ref[0] == "attr"
                and any(isinstance(a, ast.Attribute) and a.attr == ref[1] for a in ast.walk(it))
            ):
                continue  # for x in C: x in C holds already
            args = sorted(inputs & (names | selves))
            items = f"lambda {', '.join(args)}: {ast.unparse(it)}"
            key_src = f"lambda _bc_e: [{ast.unparse(key)} for {ast.unparse(target)} in [_bc_e]][0]"
            item = (ref, args, items, key_src, mode)
            if item not in out:
                out.append(item)
            return

    for n in ast.walk(func):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)):
            consider(container(n.comparators[0]), n.left, "member")
        elif (
            isinstance(n, ast.Subscript)
            and isinstance(n.ctx, ast.Load)
            and not isinstance(n.slice, ast.Slice)
        ):
            consider(container(n.value), n.slice, "key")
        elif (
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and n.args
        ):
            consider(container(n.func.value), n.args[0], "key")
    return out


PRELUDE = r'''
def _bc_field(obj, name):
    """``obj.name`` or None: a property that raises on an unset field is no container."""
    try:
        return getattr(obj, name)
    except Exception:
        return None


def _bc_pick(_r, v):
    """One key or index ``v`` holds (a sequence's index, a mapping's key, an array's row)."""
    if isinstance(v, (str, bytes, list, tuple)):
        return _r.randrange(len(v)) if len(v) else None
    keys = getattr(v, "keys", None)
    if callable(keys):
        try:
            ks = list(keys())[:5000]
        except Exception:
            return None
        return _r.choice(ks) if ks else None
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple) and shape and shape[0]:
        return _r.randrange(shape[0])
    return None


def _bc_members(_r, c, n):
    """Up to 60 tuples of ``n`` that ``c`` holds: a mapping's keys, a collection's elements, pieces of a string."""
    if isinstance(c, (str, bytes)):
        if n != 1 or not c:
            return []
        out = []
        for _ in range(60):
            i = _r.randrange(len(c))
            out.append((c[i : i + _r.choice([1, 1, 2, 3])],))
        return out
    keys = getattr(c, "keys", None)
    try:
        if callable(keys):
            pool = list(keys())[:5000]
        elif isinstance(c, (set, frozenset)):
            pool = sorted(c, key=repr)[:5000]  # a set's order follows hashing: the case must not
        elif isinstance(c, (list, tuple)):
            pool = list(c[:5000])
        else:
            return []
    except Exception:
        return []
    if n == 1:
        pool = [(k,) for k in pool]
    else:
        pool = [tuple(k) for k in pool if isinstance(k, tuple) and len(k) == n]
    return _r.sample(pool, min(60, len(pool)))


def _bc_keyspace(_r, c, n, nested):
    """Up to 60 candidate keys (tuples of ``n``) of container ``c``: one per level when ``nested``,
    what ``c`` holds for a membership test (``nested == "member"``)."""
    out = []
    if nested == "member":
        return _bc_members(_r, c, n)
    if nested:
        for _ in range(60):
            k, v = [], c
            for _j in range(n):
                i = _bc_pick(_r, v)
                if i is None:
                    break
                k.append(i)
                try:
                    v = v[i]
                except Exception:
                    break
            if len(k) == n:
                out.append(tuple(k))
        return out
    keys = getattr(c, "keys", None)
    if callable(keys):
        try:
            ks = [k for k in list(keys())[:5000] if isinstance(k, tuple) and len(k) == n]
        except Exception:
            return out
        return _r.sample(ks, min(60, len(ks)))
    shape = getattr(c, "shape", None)
    if isinstance(shape, tuple) and len(shape) >= n and all(shape[:n]):
        return [tuple(_r.randrange(s) for s in shape[:n]) for _ in range(60)]
    return out


def _bc_lookup(c, k, nested):
    if nested == "member":
        if (k[0] if len(k) == 1 else k) not in c:
            raise KeyError(k)
        return None
    if not nested:
        return c[k]
    for i in k:
        c = c[i]
    return c


def _bc_agree(_r, values, lookups, rate=0.8):
    """Often the arguments set to keys the code's lookups find (``d[k]``, ``a[i, j]``), consistently."""
    if _r.random() >= rate:
        return values
    out = dict(values)
    fixed = set()
    # the lookup with the most keys first: d[(i, j)] holds fewer pairs than d[(i,)] and d[(j,)] allow
    for c, slots, nested in sorted(lookups, key=lambda lk: -len(lk[1])):
        space = _bc_keyspace(_r, c, len(slots), nested)
        for k in space or ():
            trial, ok = {}, True
            for (what, name, off), part in zip(slots, k):
                if what == "const":
                    ok = part == name
                else:
                    try:
                        want = part - off if off else part
                    except TypeError:
                        ok = False
                        break
                    if name in trial or name in fixed:
                        ok = trial.get(name, out.get(name)) == want
                    else:
                        trial[name] = want
                if not ok:
                    break
            if not ok:
                continue
            try:
                _bc_lookup(c, k, nested)
            except Exception:
                continue
            out.update(trial)
            fixed.update(trial)
            break
    return out


def _bc_compose(_r, v, c, rate=0.6):
    """Sometimes ``v`` rebuilt from the keys of mapping ``c`` (a string of codons the table knows)."""
    keys = getattr(c, "keys", None)
    if _r.random() >= rate or not callable(keys) or not isinstance(v, (str, list, tuple)):
        return v
    try:
        ks = list(keys())[:5000]
    except Exception:
        return v
    if isinstance(v, str):
        ks = [k for k in ks if isinstance(k, str) and k]
        if not ks:
            return v
        out = ""
        while len(out) < max(1, len(v)):
            out += _r.choice(ks)
        return out
    if not ks:
        return v
    return type(v)(_r.choice(ks) for _ in range(max(1, len(v))))


def _bc_try_items(f, *args):
    """What ``f(*args)`` gives (the elements a filter runs over), or () when it raises, or when
    an argument is an iterator (an open file): reading it here would leave nothing to the code."""
    for a in args:
        try:
            if iter(a) is a:
                return ()
        except Exception:
            pass
    try:
        return f(*args)
    except Exception:
        return ()


def _bc_select(_r, c, items, key, mode, rate=0.7):
    """Often ``c`` holding some of the keys the code computes from another input's elements
    (python_lookups.selections): a filter that fires, a table that has the entry."""
    if _r.random() >= rate or (mode == "key" and not isinstance(c, dict)):
        return c
    try:
        elems = list(items)[:500]
    except Exception:
        return c
    keys = []
    for e in elems:
        try:
            k = key(e)
            hash(k)
        except Exception:
            continue
        if k not in keys:
            keys.append(k)
    try:
        held = list(c.keys() if isinstance(c, dict) else c)[:50] if not isinstance(c, str) else [c]
    except Exception:
        return c
    if held:  # keys like what the container holds: a list of ints gets no strings
        kinds = {type(h) for h in held}
        keys = [k for k in keys if type(k) in kinds]
    if not keys:
        return c
    pick = _r.sample(keys, _r.randint(1, min(3, len(keys))))
    try:
        if isinstance(c, (set, frozenset)):
            return type(c)(set(c) | set(pick))
        if isinstance(c, list):
            out = list(c)
            for k in pick:
                out.insert(_r.randint(0, len(out)), k)
            return out
        if isinstance(c, tuple):
            return tuple(c) + tuple(pick)
        if isinstance(c, dict):
            if not c:
                return c
            out = dict(c)
            values = list(c.values())
            for k in pick:
                out[k] = _r.choice(values)
            return out
        if isinstance(c, str) and all(isinstance(k, str) for k in pick):
            return c + "".join(pick)
    except Exception:
        pass
    return c
'''
