"""Access paths: where, inside a plan slot's value, the golden reached a value.

Why: a failure deep in a record (``for compound, value in reaction.compounds`` then
``compound.name`` on an ``int``) names a local the code reached through fields, elements and
tuple positions of a parameter. Blaming the parameter itself (or a local bound directly from it)
rebuilds the wrong level: the repair gave ``reaction`` a ``name``, or the dict the name was
looked up in. A person follows the path back: ``compound`` is position 0 of an element of
``reaction.compounds``, so that position is what must be an object with ``name``.

This module is that bookkeeping, independent of any failure:

- :func:`bindings` follows a function's assignments, loops and comprehensions (tuple targets,
  ``enumerate``, ``zip``) from the slot names to ``local -> (slot, path)``;
- :func:`expr_path` gives an expression's ``(slot, path)`` (``clusters[0].model``);
- :func:`kind_at` and :func:`rewrite` read and replace the kind at a path inside a slot's kind
  (``obj:``, ``dictkeys:``, ``fixed:`` and the list kinds), creating the levels that are missing.

A path is a tuple of steps: ``("attr", name)``, ``("key", key)``, ``("elem",)`` (any element of
a collection), ``("call",)`` (what a record's method returns), ``("index", i)`` (``x[0]``: a tuple's position when the kind is a tuple, else an
element) and ``("pos", i, width)`` (a position of a tuple the code unpacks into ``width`` names).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from biocoder_metric import pyast
from biocoder_metric.synth.python_inputs import (
    _ARRAY_ATTRS,
    _DICT_METHODS,
    _LIST_METHODS,
    _SERIES_ATTRS,
    _SET_METHODS,
    _STR_METHODS,
)

Step = tuple
Path = tuple[Step, ...]
#: Calls that keep the elements of their argument (``sorted(hits)`` holds the same hits).
_SAME_ELEMENTS = frozenset({"sorted", "list", "tuple", "reversed", "set", "frozenset", "iter"})
#: List kinds and the kind of their elements.
_ELEMENTS = {
    "list_int": "int_small",
    "list_str": "str_word",
    "list_float": "float",
    "list_dna": "str_dna",
    "tuple_int": "int_small",
}
#: Methods of builtin, numpy and pandas values: their results are no field of a record.
_BUILTIN_METHODS = frozenset().union(
    _STR_METHODS,
    _LIST_METHODS,
    _DICT_METHODS,
    _ARRAY_ATTRS,
    _SERIES_ATTRS,
    _SET_METHODS,
    {"copy", "count", "index"},
)
#: Fixpoint passes over the assignments (a later statement may bind what an earlier one reads).
PASSES = 3


def as_elements(kind: str | None) -> str | None:
    """The kind of a list whose elements are of ``kind`` (None: no such kind)."""
    if kind is None:
        return None
    if kind.startswith("obj:"):
        return "objlist:" + kind[len("obj:") :]
    if kind.startswith("dictkeys:"):
        return "dictlist:" + kind[len("dictkeys:") :]
    if kind.startswith("fixed:"):
        return "tuplelist:" + kind[len("fixed:") :]
    return {
        "str_word": "list_str",
        "str_dna": "list_dna",
        "int_small": "list_int",
        "int_pos": "list_int",
        "float_pos": "list_float",
        "float": "list_float",
        "float_unit": "list_float",
        "dict_str_int": "dictlist:{}",
        "list_int": "tuplelist:['int_small', 'int_small']",
        "tuple_int": "tuplelist:['int_small', 'int_small']",
    }.get(kind)


def element_kind(kind: str | None) -> str | None:
    """The kind of one element of a collection kind (None: not a collection this module knows)."""
    if kind is None:
        return None
    for head, one in (("objlist:", "obj:"), ("dictlist:", "dictkeys:"), ("tuplelist:", "fixed:")):
        if kind.startswith(head):
            rest = kind[len(head) :]
            if head == "dictlist:" and rest.strip() == "{}":
                return "dict_str_int"
            return one + rest
    return _ELEMENTS.get(kind)


def _fields(kind: str | None, head: str) -> dict | list | None:
    if not kind or not kind.startswith(head):
        return None
    try:
        return pyast.literal_eval(kind[len(head) :])
    except (ValueError, SyntaxError):
        return None


def expr_path(node: ast.AST, binds: dict[str, tuple[str, Path]]) -> tuple[str, Path] | None:
    """``(slot name, path)`` of an expression built from a slot by attributes, subscripts and
    element-keeping calls; None when it is anything else (a computation, a call's result)."""
    if isinstance(node, ast.Name):
        return binds.get(node.id)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "self" and "self." + node.attr in binds:
            return binds["self." + node.attr]
        base = expr_path(node.value, binds)
        return None if base is None else (base[0], (*base[1], ("attr", node.attr)))
    if isinstance(node, ast.Subscript):
        base = expr_path(node.value, binds)
        if base is None:
            return None
        s = node.slice
        if isinstance(s, ast.Slice):
            return base  # a slice holds the same kind of elements
        if isinstance(s, ast.Constant) and isinstance(s.value, str):
            return base[0], (*base[1], ("key", s.value))
        if isinstance(s, ast.Constant) and isinstance(s.value, int) and not isinstance(s.value, bool):
            return base[0], (*base[1], ("index", s.value))
        if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub) and isinstance(s.operand, ast.Constant):
            return base[0], (*base[1], ("elem",))  # ``x[-1]``: the last element
        if isinstance(s, (ast.Name, ast.BinOp, ast.Attribute)):
            return base[0], (*base[1], ("elem",))
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _SAME_ELEMENTS
        and len(node.args) == 1
    ):
        return expr_path(node.args[0], binds)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr not in _BUILTIN_METHODS
    ):
        # ``cnarr.by_arm()``: what a record's own method returns (a ``stub:`` field of the record)
        base = expr_path(node.func, binds)
        return None if base is None else (base[0], (*base[1], ("call",)))
    return None


def _bind(target: ast.AST, path: tuple[str, Path] | None, out: dict[str, tuple[str, Path]], roots: set[str]):
    """Bind the names of an assignment or loop target to ``path`` (positions for tuple targets)."""
    if path is None:
        return
    if isinstance(target, ast.Name):
        if target.id not in roots:  # a slot rebinding itself (``x = x.strip()``) stays the slot
            out.setdefault(target.id, path)
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(
        isinstance(e, ast.Starred) for e in target.elts
    ):
        width = len(target.elts)
        for i, e in enumerate(target.elts):
            _bind(e, (path[0], (*path[1], ("pos", i, width))), out, roots)


def _loop(target: ast.AST, it: ast.AST, out: dict[str, tuple[str, Path]], roots: set[str]) -> None:
    """Bind a loop's target: one element of what it iterates (``enumerate`` and ``zip`` unpacked)."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
        if it.func.id == "enumerate" and it.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            base = expr_path(it.args[0], out)
            if base is not None:
                _bind(target.elts[1], (base[0], (*base[1], ("elem",))), out, roots)
            return
        if it.func.id == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(it.args):
            for t, a in zip(target.elts, it.args, strict=True):
                base = expr_path(a, out)
                if base is not None:
                    _bind(t, (base[0], (*base[1], ("elem",))), out, roots)
            return
    base = expr_path(it, out)
    if base is not None:
        _bind(target, (base[0], (*base[1], ("elem",))), out, roots)


def bindings(func: ast.AST, slot_names: Iterable[str]) -> dict[str, tuple[str, Path]]:
    """Every slot name (a parameter, ``self.attr``) and every local reached from one by
    assignment, unpacking or iteration -> ``(slot name, path)``. The first binding wins: a
    local rebound later to something else keeps the path the code first gave it."""
    roots = set(slot_names)
    out: dict[str, tuple[str, Path]] = {n: (n, ()) for n in roots}
    for _ in range(PASSES):
        before = len(out)
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                _bind(node.targets[0], expr_path(node.value, out), out, roots)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                _loop(node.target, node.iter, out, roots)
        if len(out) == before:
            break
    return out


def attributes_at(
    func: ast.AST, binds: dict[str, tuple[str, Path]], where: tuple[str, Path]
) -> dict[str, bool]:
    """Attributes the function reads on values at ``where`` -> whether it calls them."""
    called = {id(n.func) for n in ast.walk(func) if isinstance(n, ast.Call)}
    out: dict[str, bool] = {}
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and not node.attr.startswith("__")
            and expr_path(node.value, binds) == where
        ):
            out[node.attr] = out.get(node.attr, False) or id(node) in called
    return out


def kind_at(kind: str | None, path: Path) -> str | None:
    """The kind found at ``path`` inside ``kind``; None where a level is missing."""
    for step in path:
        if kind is None:
            return None
        if step[0] in ("attr", "key"):
            got = _fields(kind, "obj:" if step[0] == "attr" else "dictkeys:")
            kind = got.get(step[1]) if isinstance(got, dict) else None
        elif step[0] in ("pos", "index") and kind.startswith("fixed:"):
            got = _fields(kind, "fixed:")
            kind = got[step[1]] if isinstance(got, list) and -len(got) <= step[1] < len(got) else None
        elif step[0] == "pos":
            return None
        elif step[0] == "call":
            kind = _returned(kind)
        else:
            kind = element_kind(kind)
    return kind


def _returned(kind: str | None) -> str | None:
    """What a ``stub:``/``callable:`` kind's calls return."""
    if kind and kind.startswith("stub:"):
        return kind[len("stub:") :]
    if kind and kind.startswith("callable:"):
        try:
            got = pyast.literal_eval(kind[len("callable:") :])
        except (ValueError, SyntaxError):
            return None
        return got if isinstance(got, str) else None
    return None


def rewrite(kind: str | None, path: Path, leaf: str) -> str | None:
    """``kind`` with the kind at ``path`` replaced by ``leaf``, building missing levels (an object
    for a field, a list for an element, a tuple for an unpacked position); None when a level
    cannot be written as a kind."""
    if not path:
        return leaf
    step, rest = path[0], path[1:]
    if step[0] in ("attr", "key"):
        head = "obj:" if step[0] == "attr" else "dictkeys:"
        got = _fields(kind, head)
        fields = dict(got) if isinstance(got, dict) else {}
        inner = rewrite(fields.get(step[1]), rest, leaf)
        if inner is None:
            return None
        fields[step[1]] = inner
        return head + repr(fields)
    got = _fields(kind, "fixed:")
    if step[0] in ("pos", "index") and isinstance(got, list) and -len(got) <= step[1] < len(got):
        items = list(got)
        inner = rewrite(items[step[1]], rest, leaf)
        if inner is None:
            return None
        items[step[1]] = inner
        return "fixed:" + repr(items)
    if step[0] == "call":  # a method whose result is at the rest of the path
        inner = rewrite(_returned(kind), rest, leaf)
        return None if inner is None else "stub:" + inner
    if step[0] == "pos":
        i, width = step[1], step[2]
        if not 0 <= i < width:
            return None
        items = ["int_small"] * width
        inner = rewrite(None, rest, leaf)
        if inner is None:
            return None
        items[i] = inner
        return "fixed:" + repr(items)
    inner = rewrite(element_kind(kind), rest, leaf)
    return as_elements(inner)
