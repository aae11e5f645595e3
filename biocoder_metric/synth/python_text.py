"""Strings the code takes apart: the split tree of a string parameter, read from the parser.

A region ``"chr2:1,200-3,400"`` parsed by ``chrom, span = region.rsplit(":", 1)`` and then
``start, end = (int(x.replace(",", "")) for x in span.split("-", 1))`` is never met by random
words, nor by fields joined with one separator: the golden raises on every call. A human tester
writes a string of the shape the parser takes apart. This module reads that shape from the
body, recursively:

* ``a, b = s.split(SEP)`` / ``s.rsplit(SEP, 1)`` / ``a, _, b = s.partition(SEP)`` (through
  ``strip``/``replace``/``lower``... and slices such as ``s[1:]``): fixed fields, each the shape
  of its own variable;
* ``parts = s.split(SEP)`` then ``parts[i]``: as many fields as the highest index reads;
* ``for x in s.split(SEP)``, ``[f(x) for x in s.split(SEP)]``, ``map(int, s.split(SEP))``: a
  run of fields of one shape;
* ``parts[col - 1]`` (a position the code computes): a run long enough for small positions,
  of the number the code converts such a read to;
* a leaf is an integer where the code converts it with ``int()`` (``float()`` for a float), a
  word indented now and then where the code strips it (``line.lstrip()``), a word otherwise.

The result (:func:`text_structure`) is a nested spec the harness prelude (:data:`PRELUDE`)
draws strings from: ``("int",)``, ``("float",)``, ``("word",)``, ``("fields", sep, [spec,
...])``, ``("run", sep, spec)``, or ``("run", sep, spec, n)`` for a run read at computed
positions (``fields[col - 1]``), mostly at least ``n`` long. Nothing here decides that a parameter is a string
(python_inputs does); only what its text looks like. :func:`regex_samples` draws strings a
literal pattern matches (a parameter the code matches, a message a file is searched for).
"""

from __future__ import annotations

import ast
import re

#: String methods a value goes through before it is split (``s.strip().split(':')``).
_THROUGH = frozenset(
    {"strip", "rstrip", "lstrip", "lower", "upper", "casefold", "replace", "decode", "encode", "expandtabs"}
)
_SPLITS = frozenset({"split", "rsplit"})
_CONVERT = {"int": ("int",), "float": ("float",)}
#: Deepest nesting read, and most fields a split gets.
MAX_DEPTH = 3
MAX_FIELDS = 12
#: Fields of a split read at computed positions (``fields[col - 1]``): past the largest small
#: integer a harness draws for the position (``int_pos``: 1 to 20), so most reads land inside.
INDEXED_FIELDS = 21


def _base(node: ast.AST) -> ast.AST:
    """``s`` of ``s.strip().replace(',', '')`` or ``s[1:]``: the value under string methods and
    slices (a marker the code skips, ``header[1:]`` after ``startswith('>')``, is planted apart)."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _THROUGH:
            node = node.func.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            node = node.value
        else:
            return node


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(_base(node), ast.Name) and _base(node).id == name  # type: ignore[attr-defined]


def split_separator(node: ast.AST) -> tuple[ast.AST, str] | None:
    """``(receiver, SEP)`` when ``node`` is ``receiver.split(SEP)`` / ``rsplit`` (``' '`` for a bare
    ``split()``, a newline for ``splitlines()``; separators of 1 to 3 characters), else ``None``. python_files reads file lines
    with it too."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "splitlines":
        return node.func.value, "\n"  # lines, as ``split('\n')`` takes them (round 32)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SPLITS:
        if not node.args:
            return node.func.value, " "
        a = node.args[0]
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and 0 < len(a.value) <= 3:
            return node.func.value, a.value
    return None


def _split_of(node: ast.AST, name: str) -> str | None:
    """The separator when ``node`` is ``name.split(SEP)`` (under string methods), else ``None``."""
    got = split_separator(node)
    return got[1] if got is not None and _is(got[0], name) else None


def _index_of(node: ast.AST, parts: str, limit: int) -> int | None:
    """``i`` when ``node`` is ``parts[i]`` with a constant ``0 <= i < limit``, else ``None``."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == parts
        and isinstance(node.slice, ast.Constant)
        and type(node.slice.value) is int
        and 0 <= node.slice.value < limit
    ):
        return node.slice.value
    return None


def _computed_index(node: ast.AST, parts: str) -> bool:
    """Whether ``node`` is ``parts[expr]`` with a computed (not constant, not slice) position:
    ``fields[col - 1]``, ``parts[idx]``, ``fields[self.index.col_beg - 1]``."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == parts
        and not isinstance(node.slice, ast.Constant | ast.Slice)
    )


def _partition_of(node: ast.AST, name: str) -> str | None:
    """The separator when ``node`` is ``name.partition(SEP)`` / ``rpartition``, else ``None``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("partition", "rpartition")
        and _is(node.func.value, name)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and 0 < len(node.args[0].value) <= 3
    ):
        return node.args[0].value
    return None


def _iter_split(node: ast.AST, name: str) -> str | None:
    """The separator of ``name.split(SEP)`` or ``map(f, name.split(SEP))``."""
    sep = _split_of(node, name)
    if sep is not None:
        return sep
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "map"
        and len(node.args) == 2
    ):
        return _split_of(node.args[1], name)
    return None


def _mapped(node: ast.AST) -> tuple[str, ...] | None:
    """``map(int, ...)``: the leaf each element becomes."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "map"
        and node.args
        and isinstance(node.args[0], ast.Name)
    ):
        return _CONVERT.get(node.args[0].id)
    return None


class _Shapes:
    """The shapes of the string variables of one body."""

    def __init__(self, body: ast.AST) -> None:
        self.body = body
        self.nodes = list(ast.walk(body))

    def leaf(self, name: str) -> tuple:
        """``int``/``float`` when the body converts ``name`` (``int(name)``,
        ``int(name.replace(',', ''))``), else a word."""
        for node in self.nodes:
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in _CONVERT
                and node.args
                and _is(node.args[0], name)
            ):
                return _CONVERT[node.func.id]
        if self._stripped(name):
            return ("padded",)
        return ("word",)

    def _stripped(self, name: str) -> bool:
        """Whether the code strips leading whitespace off ``name`` (``line.lstrip()``,
        ``len(line) - len(line.strip())``): a word with spaces before it now and then (round 32:
        no drawn line was ever indented, so what the code does with indentation never ran)."""
        return any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("strip", "lstrip")
            and not n.args
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == name
            for n in self.nodes
        )

    def shape(self, name: str, depth: int = 0) -> tuple:
        """The shape of string variable ``name``: a split tree, or a leaf."""
        if depth >= MAX_DEPTH:
            return self.leaf(name)
        for node in self.nodes:
            # a, b = name.split(SEP) / a, b = map(int, name.split(SEP))
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                sep = _partition_of(value, name)  # head, _, tail = s.partition(SEP)
                if (
                    sep is not None
                    and isinstance(target, ast.Tuple)
                    and len(target.elts) == 3
                    and isinstance(target.elts[0], ast.Name)
                    and isinstance(target.elts[2], ast.Name)
                ):
                    head, tail = target.elts[0].id, target.elts[2].id
                    return ("fields", sep, [self.shape(head, depth + 1), self.shape(tail, depth + 1)])
                sep = _iter_split(value, name)
                if sep is None and isinstance(value, ast.GeneratorExp | ast.ListComp):
                    gen = value.generators[0]
                    sep = _split_of(gen.iter, name)
                    if sep is not None and isinstance(gen.target, ast.Name) and isinstance(target, ast.Tuple):
                        elem = self.shape(gen.target.id, depth + 1)
                        return ("fields", sep, [elem] * min(len(target.elts), MAX_FIELDS))
                    sep = None
                if sep is None:
                    continue
                mapped = _mapped(value)
                if isinstance(target, ast.Tuple | ast.List) and all(
                    isinstance(e, ast.Name) for e in target.elts
                ):
                    names = [e.id for e in target.elts][:MAX_FIELDS]  # type: ignore[attr-defined]
                    return ("fields", sep, [mapped or self.shape(n, depth + 1) for n in names])
                if isinstance(target, ast.Name):
                    return self._indexed(target.id, sep, mapped, depth)
            # for x in name.split(SEP) / [... for x in name.split(SEP)]
            if isinstance(node, ast.For | ast.comprehension):
                sep = _iter_split(node.iter, name)
                if sep is not None and isinstance(node.target, ast.Name):
                    return ("run", sep, _mapped(node.iter) or self.shape(node.target.id, depth + 1))
        return self.leaf(name)

    def _indexed(self, parts: str, sep: str, mapped: tuple | None, depth: int) -> tuple:
        """``parts = s.split(SEP)``: as many fields as ``parts[i]`` reads, each typed by its use."""
        width, fields = 0, {}
        for node in self.nodes:
            i = _index_of(node, parts, MAX_FIELDS)
            if i is not None:
                width = max(width, i + 1)
        for node in self.nodes:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                i = _index_of(node.value, parts, width)  # name = parts[i]: the shape of name
                if i is not None:
                    fields[i] = self.shape(node.targets[0].id, depth + 1)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in _CONVERT
                and node.args
                and (i := _index_of(node.args[0], parts, width)) is not None
            ):
                fields.setdefault(i, _CONVERT[node.func.id])
        computed = [n for n in self.nodes if _computed_index(n, parts)]
        if computed:
            # parts[col - 1]: a run long enough for the positions the code computes, each field
            # the number the code converts it to (a column of digits is also a word it returns)
            elem = mapped
            for node in self.nodes:
                if (
                    elem is None
                    and isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in _CONVERT
                    and node.args
                    and _computed_index(node.args[0], parts)
                ):
                    elem = _CONVERT[node.func.id]
            elem = elem or self._element(parts, None, depth)
            if elem is None and any(
                isinstance(f, tuple) and f[0] in ("int", "float") for f in fields.values()
            ):
                elem = next(f for f in fields.values() if f[0] in ("int", "float"))
            return ("run", sep, elem or ("word",), max(width, INDEXED_FIELDS))
        if not width:  # iterated whole: for a in parts / [int(a) for a in parts] / map(int, parts)
            return ("run", sep, self._element(parts, mapped, depth) or ("word",))
        if self._iterated(parts):
            # ``lines[0]`` read and ``for line in lines[1:]`` iterated (round 32): a run longer than
            # the positions read, or the loop past them never runs
            elem = mapped or self._element(parts, None, depth) or fields.get(0, ("word",))
            return ("run", sep, elem, width + 2)
        return ("fields", sep, [mapped or fields.get(i, ("word",)) for i in range(width)])

    def _iterated(self, parts: str) -> bool:
        """Whether the code loops over ``parts`` or a slice of it (``for x in parts[1:]``)."""
        for node in self.nodes:
            if isinstance(node, ast.For | ast.comprehension):
                it = node.iter
                if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice):
                    it = it.value
                if isinstance(it, ast.Name) and it.id == parts:
                    return True
        return False

    def _element(self, parts: str, mapped: tuple | None, depth: int) -> tuple | None:
        """The shape of an element of ``parts`` where the code iterates it whole
        (``for a in parts``, ``map(int, parts)``), else ``None``."""
        elem = mapped
        for node in self.nodes:
            if elem is not None and elem != ("word",):
                break
            it = node.iter if isinstance(node, ast.For | ast.comprehension) else None
            if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice):
                it = it.value  # ``for line in lines[1:]``: the same elements
            if isinstance(it, ast.Name) and it.id == parts and isinstance(node.target, ast.Name):
                # of several loops, the one that says more than "a word" (round 32)
                elem = self.shape(node.target.id, depth + 1)
            elif elem is None and (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "map"
                and len(node.args) == 2
                and isinstance(node.args[1], ast.Name)
                and node.args[1].id == parts
            ):
                elem = _mapped(node)
        return elem


def text_structure(body: ast.AST, target: str) -> tuple | None:
    """The split tree of string parameter ``target``, or ``None`` when the body splits it nowhere."""
    spec = _Shapes(body).shape(target)
    return spec if spec[0] in ("fields", "run") else None


def regex_samples(pattern: str, n: int = 24, seed: int = 0) -> list[str] | None:
    """``n`` distinct strings matching ``pattern`` (simple patterns only), or ``None``."""
    import random

    try:
        import re._parser as sre_parse  # Python 3.11+
        from re import _constants as sre_c
    except ImportError:  # pragma: no cover - older Pythons
        import sre_constants as sre_c
        import sre_parse
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - any pattern we cannot parse just gets no generator
        return None
    rng = random.Random(seed)
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"

    def gen(items) -> str:
        out = []
        for op, av in items:
            if op is sre_c.LITERAL:
                out.append(chr(av))
            elif op is sre_c.NOT_LITERAL:
                out.append(rng.choice([c for c in alnum if c != chr(av)]))
            elif op is sre_c.ANY:
                out.append(rng.choice(alnum))
            elif op is sre_c.IN:
                out.append(pick(av))
            elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
                lo, hi, sub = av
                hi = min(hi, lo + 4) if hi != sre_c.MAXREPEAT else lo + 4
                out.extend(gen(sub) for _ in range(rng.randint(lo, max(lo, hi))))
            elif op is sre_c.SUBPATTERN:
                out.append(gen(av[-1]))
            elif op is sre_c.BRANCH:
                out.append(gen(rng.choice(av[1])))
            elif op is sre_c.AT:
                continue
            else:
                raise ValueError(op)
        return "".join(out)

    def pick(av) -> str:
        chars: list[str] = []
        negate = False
        for op, a in av:
            if op is sre_c.NEGATE:
                negate = True
            elif op is sre_c.LITERAL:
                chars.append(chr(a))
            elif op is sre_c.RANGE:
                chars.extend(chr(c) for c in range(a[0], min(a[1], a[0] + 40) + 1))
            elif op is sre_c.CATEGORY:
                name = str(a).lower()
                chars.extend("0123456789" if "digit" in name else " \t" if "space" in name else alnum + "_")
        if negate:
            chars = [c for c in alnum if c not in chars]
        if not chars:
            raise ValueError("empty set")
        return rng.choice(chars)

    out: list[str] = []
    try:
        for _ in range(n * 4):
            text = gen(list(parsed))
            if re.search(pattern, text) and text not in out:
                out.append(text)
            if len(out) >= n:
                break
    except (ValueError, TypeError, IndexError):
        return None
    return out or None


#: Harness helper (stdlib only; ``_bc_word`` comes from the main prelude).
PRELUDE = r'''

def _bc_struct(_r, spec):
    """A string of the shape the code splits (python_text): fields joined by their separators."""
    what = spec[0]
    if what == "int":
        return str(_r.randint(0, 20) if _r.random() < 0.5 else _r.randint(0, 5000))
    if what == "float":
        return "%.3f" % _r.uniform(0, 100)
    if what == "word":
        return _bc_word(_r)
    if what == "padded":  # a word the code strips: sometimes indented
        return " " * _r.choice([0, 0, 2, 4, 8]) + _bc_word(_r)
    if what == "fields":
        return spec[1].join(_bc_struct(_r, s) for s in spec[2])
    if len(spec) > 3:  # read at computed positions: mostly long enough, sometimes short (the bounds)
        n = _r.randint(spec[3], spec[3] + 3) if _r.random() < 0.85 else _r.randint(1, 5)
    else:
        n = _r.randint(1, 5)
    return spec[1].join(_bc_struct(_r, spec[2]) for _ in range(n))
'''
