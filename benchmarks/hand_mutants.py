"""Hand-style mutants of a golden: the bugs a human reviewer would plant to test a harness.

Why a separate generator: a harness is judged strong when it kills the project's mutants,
and synthesis is tuned against those very mutants (and against the held-out family in
:mod:`biocoder_metric.validity.heldout_mutants`). A measurement that only reuses them can
be fooled by the tuning. This module is written from scratch, without importing or
copying either, and keeps to the five classes a person writes first when asked "would
this test notice a bug?" (issue #20):

* ``off_by_one``: an integer constant +-1, a ``range()`` stop or a slice bound +-1,
  ``<`` <-> ``<=`` / ``>`` <-> ``>=``;
* ``flipped_comparison``: ``<`` <-> ``>``, ``<=`` <-> ``>=``, ``==`` <-> ``!=``,
  ``is`` <-> ``is not``, ``in`` <-> ``not in``;
* ``dropped_branch``: an ``if``'s body does nothing (Python ``pass``; Java ``if (false)``),
  an ``elif``/``else`` is dropped, a conditional expression always takes its ``else``;
* ``changed_return_type``: ``return x`` gives a value of another type (``str(x)``,
  ``list(x)``, ``tuple(x)``, ``None``, chosen from what ``x`` visibly is and from the
  return annotation); Java cannot change a declared type and still compile, so there a
  reference result becomes ``null``, a boolean is negated, a ``double`` is truncated to
  an integer, an integral result becomes ``0``;
* ``wrong_default``: a parameter default changes (a number moves, a flag flips, a mode
  string becomes another mode the body compares against, a separator another
  separator); Java has no defaults, so a local variable's literal initial value changes
  instead (``double sum = 0`` -> ``1``).

Python mutants are made with :mod:`ast` (each parses, and its ``ast.dump`` differs from the
original's and from every other mutant's); Java mutants by text rewrites of the method body
with comments and string literals masked (each differs from the original after whitespace
normalisation). Nothing is run here: a Java mutant may fail to compile, and the caller
counts those apart. :func:`mutants` is deterministic for a given ``seed``.
"""

from __future__ import annotations

import ast
import copy
import random
import re
from collections.abc import Callable, Iterator

from biocoder_metric import pyast

OFF_BY_ONE = "off_by_one"
FLIPPED_COMPARISON = "flipped_comparison"
DROPPED_BRANCH = "dropped_branch"
CHANGED_RETURN_TYPE = "changed_return_type"
WRONG_DEFAULT = "wrong_default"
#: The classes, in the order mutants are taken round-robin.
CLASSES = (OFF_BY_ONE, FLIPPED_COMPARISON, DROPPED_BRANCH, CHANGED_RETURN_TYPE, WRONG_DEFAULT)

#: Version of the generator: recorded with every judged mutant, so cached verdicts of an
#: older generator are never mixed with a newer one's.
VERSION = 1


def mutants(
    code: str, language: str, function_name: str | None = None, limit: int = 10, seed: int | str = 0
) -> list[tuple[str, str]]:
    """Up to ``limit`` distinct mutants ``(class, source)`` of ``code``, a few of each class.

    Classes take turns (round-robin in :data:`CLASSES` order, sites shuffled per class by
    ``seed``), so a small ``limit`` still covers every class the function allows. Code that
    does not parse (Python) or has no method body (Java) gives no mutants.
    """
    if limit <= 0:
        return []
    if language == "python":
        per_class = _python_sites(code, function_name)
    elif language == "java":
        per_class = _java_sites(code)
    else:
        raise ValueError(f"language must be python or java, got {language!r}")
    queues: dict[str, list[Callable[[], str | None]]] = {}
    for cls in CLASSES:
        sites = list(per_class.get(cls, []))
        random.Random(f"{seed}:{cls}").shuffle(sites)
        queues[cls] = sites
    seen = {_key(code, language)}
    out: list[tuple[str, str]] = []
    while len(out) < limit and any(queues.values()):
        for cls in CLASSES:
            while queues[cls]:
                made = queues[cls].pop(0)()
                if made is None:
                    continue
                k = _key(made, language)
                if k is None or k in seen:
                    continue
                seen.add(k)
                out.append((cls, made))
                break
            if len(out) >= limit:
                break
    return out


def _key(code: str, language: str) -> str | None:
    """What makes two versions the same: the AST (Python), the non-whitespace text (Java)."""
    if language == "python":
        try:
            return ast.dump(pyast.parse(code))
        except SyntaxError:
            return None
    return re.sub(r"\s+", "", code)


# ------------------------------------------------------------------------------------ python
def _python_sites(code: str, function_name: str | None) -> dict[str, list[Callable[[], str | None]]]:
    """Per class, one thunk per mutation site; each thunk re-parses and edits one node."""
    try:
        tree = pyast.parse(code)
    except SyntaxError:
        return {}
    target = _target_function(tree, function_name)
    if target is None:
        return {}
    sites: dict[str, list[Callable[[], str | None]]] = {c: [] for c in CLASSES}

    def add(cls: str, edit: Callable[[ast.AST], bool], index: int) -> None:
        def make() -> str | None:
            fresh = pyast.parse(code)
            fn = _target_function(fresh, function_name)
            nodes = list(_body_nodes(fn))
            if index >= len(nodes) or not edit(nodes[index]):
                return None
            ast.fix_missing_locations(fresh)
            try:
                out = ast.unparse(fresh)
                pyast.parse(out)
            except (SyntaxError, ValueError, RecursionError):
                return None
            return out

        sites[cls].append(make)

    for i, node in enumerate(_body_nodes(target)):
        for cls, edit in _python_edits(node, target):
            add(cls, edit, i)
    return sites


def _target_function(tree: ast.AST, name: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function to mutate: the one named ``name`` (any depth), else the first one."""
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for f in funcs:
        if f.name == name:
            return f
    return funcs[0] if funcs else None


def _body_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """Every node of the function in a fixed order: its signature (for defaults) and its body.

    The docstring, decorators and annotations are left out: changing them changes no behaviour.
    """
    yield fn  # the function itself carries the defaults
    body = fn.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    for stmt in body:
        yield from _walk_no_annotations(stmt)


def _walk_no_annotations(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    for name, value in ast.iter_fields(node):
        if name in ("annotation", "returns", "decorator_list", "type_comment"):
            continue
        if isinstance(value, list):
            for v in value:
                if isinstance(v, ast.AST):
                    yield from _walk_no_annotations(v)
        elif isinstance(value, ast.AST):
            yield from _walk_no_annotations(value)


_FLIP = {
    ast.Lt: ast.Gt,
    ast.Gt: ast.Lt,
    ast.LtE: ast.GtE,
    ast.GtE: ast.LtE,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_LOOSEN = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _plus(expr: ast.expr, delta: int) -> ast.expr:
    """``expr + 1`` / ``expr - 1`` (a constant is folded: ``3`` -> ``4``)."""
    if _is_int(expr):
        return ast.Constant(expr.value + delta)
    return ast.BinOp(
        left=copy.deepcopy(expr), op=ast.Add() if delta > 0 else ast.Sub(), right=ast.Constant(1)
    )


def _python_edits(
    node: ast.AST, fn: ast.FunctionDef | ast.AsyncFunctionDef
) -> list[tuple[str, Callable[[ast.AST], bool]]]:
    """The (class, in-place edit) pairs that apply to ``node``; each edit returns whether it changed it."""
    edits: list[tuple[str, Callable[[ast.AST], bool]]] = []
    if node is fn:
        n_pos = len(fn.args.defaults)
        for j in range(n_pos):
            edits.append((WRONG_DEFAULT, _default_edit("defaults", j)))
        for j, d in enumerate(fn.args.kw_defaults):
            if d is not None:
                edits.append((WRONG_DEFAULT, _default_edit("kw_defaults", j)))
        return edits
    if _is_int(node):
        delta = 1 if node.value % 2 == 0 else -1  # a fixed, varied direction: no coin needed

        def const(n: ast.AST, delta: int = delta) -> bool:
            n.value = n.value + delta
            return True

        edits.append((OFF_BY_ONE, const))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and node.args
        and not node.keywords
    ):
        stop = 1 if len(node.args) >= 2 else 0

        def range_stop(n: ast.AST, stop: int = stop) -> bool:
            if _is_int(n.args[stop]):
                return False  # the constant itself is an off-by-one site already
            n.args[stop] = _plus(n.args[stop], 1)
            return True

        edits.append((OFF_BY_ONE, range_stop))
    if isinstance(node, ast.Slice):
        for bound in ("lower", "upper"):
            if getattr(node, bound) is not None:

                def slice_bound(n: ast.AST, bound: str = bound) -> bool:
                    if _is_int(getattr(n, bound)):
                        return False
                    setattr(n, bound, _plus(getattr(n, bound), 1 if bound == "upper" else -1))
                    return True

                edits.append((OFF_BY_ONE, slice_bound))
    if isinstance(node, ast.Compare):
        for j, op in enumerate(node.ops):
            if type(op) in _LOOSEN:

                def loosen(n: ast.AST, j: int = j) -> bool:
                    n.ops[j] = _LOOSEN[type(n.ops[j])]()
                    return True

                edits.append((OFF_BY_ONE, loosen))
            if type(op) in _FLIP:

                def flip(n: ast.AST, j: int = j) -> bool:
                    n.ops[j] = _FLIP[type(n.ops[j])]()
                    return True

                edits.append((FLIPPED_COMPARISON, flip))
    if isinstance(node, ast.If):

        def drop_body(n: ast.AST) -> bool:
            if all(isinstance(s, ast.Pass) for s in n.body):
                return False
            n.body = [ast.Pass()]
            return True

        edits.append((DROPPED_BRANCH, drop_body))
        if node.orelse:

            def drop_else(n: ast.AST) -> bool:
                n.orelse = []
                return True

            edits.append((DROPPED_BRANCH, drop_else))
    if isinstance(node, ast.IfExp):

        def take_else(n: ast.AST) -> bool:
            n.body = copy.deepcopy(n.orelse)
            return True

        edits.append((DROPPED_BRANCH, take_else))
    if isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value):
        edits.append((CHANGED_RETURN_TYPE, _return_edit(fn)))
    return edits


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


#: Names that, in bioinformatics code, usually hold text: ``str(x)`` would change nothing.
_TEXTY = re.compile(
    r"(^|_)(s|seq|sequence|str|string|text|name|line|header|id|chrom|contig|sep|fmt)(_|$|s$)", re.IGNORECASE
)


def _return_edit(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Callable[[ast.AST], bool]:
    """``return x`` -> a value of another type, picked as a reviewer would from what x is."""
    annotation = ast.unparse(fn.returns) if fn.returns is not None else ""

    def edit(n: ast.AST) -> bool:
        v = n.value
        wrap: str | None
        if isinstance(v, ast.Tuple):
            wrap = "list"
        elif isinstance(v, ast.List | ast.ListComp):
            wrap = "tuple"
        elif isinstance(v, ast.Dict | ast.DictComp | ast.Set | ast.SetComp):
            wrap = "list"
        elif isinstance(v, ast.JoinedStr) or (isinstance(v, ast.Constant) and isinstance(v.value, str)):
            wrap = "list"
        elif isinstance(v, ast.Constant | ast.Compare | ast.BoolOp | ast.BinOp | ast.UnaryOp):
            wrap = "str"
        elif re.search(r"\b(str)\b", annotation):
            wrap = "list"
        elif re.search(r"\b(list|List|Sequence)\b", annotation):
            wrap = "tuple"
        elif re.search(r"\b(tuple|Tuple)\b", annotation):
            wrap = "list"
        elif re.search(r"\b(int|float|bool|dict|Dict)\b", annotation):
            wrap = "str"
        elif isinstance(v, ast.Name) and _TEXTY.search(v.id):
            wrap = "list"
        elif (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr in ("join", "upper", "lower", "strip", "format", "replace")
        ):
            wrap = "list"
        elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("str", "repr"):
            wrap = "list"
        else:
            wrap = "str"
        n.value = ast.Call(func=ast.Name(id=wrap, ctx=ast.Load()), args=[v], keywords=[])
        return True

    return edit


#: Separators a reviewer would swap for one another.
_SEPARATORS = {"\t": ",", ",": "\t", " ": "\t", ";": ",", ":": ";", "\n": " ", "|": ",", "-": "_", "_": "-"}


def _default_edit(field: str, j: int) -> Callable[[ast.AST], bool]:
    def edit(fn: ast.AST) -> bool:
        defaults = getattr(fn.args, field)
        old = defaults[j]
        new = _other_default(old, fn, _param_for_default(fn, field, j))
        if new is None:
            return False
        defaults[j] = new
        return True

    return edit


def _param_for_default(fn: ast.FunctionDef | ast.AsyncFunctionDef, field: str, j: int) -> str:
    if field == "kw_defaults":
        return fn.args.kwonlyargs[j].arg
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return positional[len(positional) - len(fn.args.defaults) + j].arg


def _other_default(old: ast.expr, fn: ast.AST, param: str) -> ast.expr | None:
    """A different, plausible default: what a reviewer would type instead."""
    if (
        isinstance(old, ast.UnaryOp)
        and isinstance(old.op, ast.USub)
        and isinstance(old.operand, ast.Constant)
        and isinstance(old.operand.value, int | float)
        and not isinstance(old.operand.value, bool)
    ):
        return ast.Constant(-old.operand.value + 1)
    if not isinstance(old, ast.Constant | ast.Tuple | ast.List):
        return None  # a name or call: no obvious other value
    if isinstance(old, ast.Tuple | ast.List):
        return (
            type(old)(elts=copy.deepcopy(old.elts[:-1]), ctx=ast.Load())
            if old.elts
            else type(old)(elts=[ast.Constant(0)], ctx=ast.Load())
        )
    v = old.value
    if isinstance(v, bool):
        return ast.Constant(not v)
    if isinstance(v, int):
        return ast.Constant(v + 1)
    if isinstance(v, float):
        return ast.Constant(v * 2 if v else 1.0)
    if v is None:
        return ast.Constant(0)
    if isinstance(v, str):
        # Another mode the body compares the parameter with, as a reviewer would pick.
        others = sorted({c.value for c in _compared_strings(fn, param)} - {v})
        if others:
            return ast.Constant(others[0])
        if v in _SEPARATORS:
            return ast.Constant(_SEPARATORS[v])
        return ast.Constant(v[:-1] if len(v) > 1 else (v + "x" if v else "x"))
    if isinstance(v, bytes):
        return ast.Constant(v + b"x")
    return None


def _compared_strings(fn: ast.AST, param: str) -> list[ast.Constant]:
    """String constants the body compares ``param`` with (``==``, ``!=``, ``in (...)``)."""
    found = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == param:
            for comp in node.comparators:
                elts = comp.elts if isinstance(comp, ast.Tuple | ast.List | ast.Set) else [comp]
                found += [e for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return found


# -------------------------------------------------------------------------------------- java
_JAVA_MASK = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
_PRIMITIVE_NUM = ("int", "long", "short", "byte", "char")
_PRIMITIVE_FLOAT = ("double", "float")


def _masked(code: str) -> str:
    """``code`` with comments and string/char literals blanked (same length), so edits never land inside them."""
    return _JAVA_MASK.sub(
        lambda m: (
            m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1]
            if m.group(0)[0] in "\"'"
            else " " * len(m.group(0))
        ),
        code,
    )


def _unannotated(masked: str) -> str:
    """``masked`` with annotations (``@Override``, ``@SuppressWarnings({...})``) blanked, same length."""
    return re.sub(r"@\w+(\s*\([^)]*\))?", lambda m: " " * len(m.group(0)), masked)


def _java_body_span(masked: str) -> tuple[int, int] | None:
    """Start (after ``{``) and end (the closing ``}``) of the method body."""
    masked = _unannotated(masked)
    head = masked.find("(")
    if head < 0:
        return None
    start = masked.find("{", head)
    end = masked.rfind("}")
    if start < 0 or end <= start:
        return None
    return start + 1, end


def _java_return_type(code: str, masked: str) -> str:
    """The declared return type, read from the signature (annotations such as ``@Override`` aside)."""
    unannotated = _unannotated(masked)
    head = unannotated[: unannotated.find("(")]
    words = re.findall(r"[\w\[\]<>,.?]+", head.replace(", ", ","))
    words = [
        w
        for w in words
        if w
        not in (
            "public",
            "private",
            "protected",
            "static",
            "final",
            "synchronized",
            "abstract",
            "native",
            "strictfp",
            "default",
        )
    ]
    return words[-2] if len(words) >= 2 else ""


def _java_sites(code: str) -> dict[str, list[Callable[[], str | None]]]:
    masked = _masked(code)
    span = _java_body_span(masked)
    if span is None:
        return {}
    a, b = span
    body = masked[a:b]
    sites: dict[str, list[Callable[[], str | None]]] = {c: [] for c in CLASSES}

    def replace(start: int, end: int, text: str) -> Callable[[], str | None]:
        return lambda: code[: a + start] + text + code[a + end :]

    # off-by-one: integer literals (not part of a name, a float, a hex number or an array size in `new`)
    for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", body):
        n = int(m.group(1))
        sites[OFF_BY_ONE].append(replace(m.start(1), m.end(1), str(n + 1 if n % 2 == 0 else n - 1)))
    # comparisons written with spaces around them (generics never are: List<String>)
    for m in re.finditer(r"(?<=\s)(<=|>=|<|>|==|!=)(?=\s)", body):
        op = m.group(1)
        if op in ("<", "<=", ">", ">="):
            sites[OFF_BY_ONE].append(
                replace(m.start(1), m.end(1), {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}[op])
            )
        sites[FLIPPED_COMPARISON].append(
            replace(
                m.start(1), m.end(1), {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "!=", "!=": "=="}[op]
            )
        )
    # dropped branch: `if (cond)` -> `if (false)`; `else { ... }` / `else stmt;` removed
    for m in re.finditer(r"\bif\s*\(", body):
        close = _matching(body, m.end() - 1, "(", ")")
        if close is not None:
            sites[DROPPED_BRANCH].append(replace(m.end(), close, "false"))
    for m in re.finditer(r"\belse\b", body):
        after = m.end()
        rest = body[after:]
        stripped = len(rest) - len(rest.lstrip())
        if rest.lstrip().startswith("{"):
            close = _matching(body, after + stripped, "{", "}")
            if close is not None:
                sites[DROPPED_BRANCH].append(replace(m.start(), close + 1, ""))
    # changed return value (a declared type cannot change and still compile)
    rtype = _java_return_type(code, masked)
    for m in re.finditer(r"\breturn\b([^;]+);", body):
        expr = code[a + m.start(1) : a + m.end(1)].strip()
        if not expr:
            continue
        if rtype == "boolean":
            new = f" !({expr})"
        elif rtype in _PRIMITIVE_FLOAT:
            new = f" ({rtype}) (long) ({expr})"
        elif rtype in _PRIMITIVE_NUM:
            new = " 0" if expr != "0" else " 1"
        elif rtype in ("void", ""):
            continue
        else:
            new = " null" if expr != "null" else None
            if new is None:
                continue
        sites[CHANGED_RETURN_TYPE].append(replace(m.start(1), m.end(1), new))
    # wrong default: a local variable's literal initial value
    decl = re.compile(r"\b(int|long|short|double|float|boolean|String|char)\s+(\w+)\s*=\s*([^;,]+?)\s*[;,]")
    for m in decl.finditer(body):
        typ, value = m.group(1), code[a + m.start(3) : a + m.end(3)]
        other = _java_other_value(typ, value)
        if other is not None:
            sites[WRONG_DEFAULT].append(replace(m.start(3), m.end(3), other))
    return sites


def _java_other_value(typ: str, value: str) -> str | None:
    v = value.strip()
    if typ == "boolean" and v in ("true", "false"):
        return "false" if v == "true" else "true"
    if typ in ("int", "long", "short") and re.fullmatch(r"-?\d+[lL]?", v):
        return str(int(v.rstrip("lL")) + 1)
    if typ in ("double", "float") and re.fullmatch(r"-?\d+(\.\d*)?([eE]-?\d+)?[dDfF]?", v):
        num = float(v.rstrip("dDfF"))
        return repr(num * 2 if num else 1.0) + ("f" if typ == "float" else "")
    if typ == "String" and re.fullmatch(r'"(?:\\.|[^"\\])*"', v):
        inner = v[1:-1]
        swap = {"\\t": ",", ",": "\\t", " ": "\\t", ";": ",", ":": ";", "\\n": " ", "|": ","}
        if inner in swap:
            return f'"{swap[inner]}"'
        return '"x"' if inner == "" else f'"{inner[:-1]}"'
    if typ == "char" and re.fullmatch(r"'(?:\\.|[^'\\])'", v):
        return "'\\t'" if v != "'\\t'" else "','"
    return None


def _matching(text: str, open_at: int, opening: str, closing: str) -> int | None:
    """Index of the bracket closing the one at ``open_at`` (``text`` is masked: no strings)."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return None
