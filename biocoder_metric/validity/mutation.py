"""Mutation operators for Python and Java code: realistic one-site bugs, deterministically.

Two users: the speed benchmark (``benchmarks/speed.py``, outside the package) needs failing samples next
to passing ones, and the harness audit (:mod:`biocoder_metric.validity.audit`) measures how
many realistic bugs a task's test catches (its mutation score). Both need the same thing:
single-site mutants of a golden, named by operator, reproducible from run to run.

The operators (names as returned):

* ``arithmetic``: ``+``/``-`` swapped, ``*`` to ``//`` (Java ``/``), ``/`` to ``*``,
  ``%`` to ``//``, ``**`` to ``*``, and the augmented forms (``+=`` to ``-=``, ...);
* ``comparison``: a comparison negated (``<`` to ``>=``, ``==`` to ``!=``, ``in`` to ``not in``);
* ``boundary``: a strict comparison made inclusive or back (``<`` to ``<=``), a ``range``
  bound off by one;
* ``constant``: a number + 1 (floats scaled), ``True``/``False`` swapped;
* ``return``: a returned value replaced by ``None`` (Java: the type's default);
* ``statement deletion``: one statement in a function body removed (``pass`` where it was alone).

Mutants that would mostly loop forever are not made: nothing in a ``while`` condition is
changed and nothing directly inside a ``while`` body is deleted or has its ``+=`` flipped,
because a test full of timeouts measures the timeout, not the test.

Why round-robin over operators: with a small ``limit`` a plain shuffle of all sites would
mostly draw the most frequent operator (constants); taking one site of each operator in
turn gives every kind of bug a say.
"""

from __future__ import annotations

import ast
import copy
import random
import re
from collections.abc import Iterator

from biocoder_dataset.java_source import java_mask
from biocoder_metric import pyast

ARITHMETIC = "arithmetic"
COMPARISON = "comparison"
BOUNDARY = "boundary"
CONSTANT = "constant"
RETURN = "return"
DELETION = "statement deletion"

#: Every operator name, in the round-robin order used when picking mutants.
OPERATORS: tuple[str, ...] = (ARITHMETIC, COMPARISON, BOUNDARY, CONSTANT, RETURN, DELETION)

# ---------------------------------------------------------------------------- python

_CMP_NEGATE: dict[type, type] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_CMP_BOUNDARY: dict[type, type] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
_ARITH: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}


class _Mutator(ast.NodeTransformer):
    """Numbers every mutation site of each operator in visiting order; with ``target`` set
    (operator, index), changes only that one site.
    """

    def __init__(self, target: tuple[str, int] | None = None):
        self.target = target
        self.counts: dict[str, int] = dict.fromkeys(OPERATORS, 0)
        self.done = False
        self._in_while_test = 0
        self._in_while_body = 0
        self._in_function = 0

    def _site(self, op: str) -> bool:
        if self._in_while_test:
            return False
        hit = self.target == (op, self.counts[op])
        self.counts[op] += 1
        if hit:
            self.done = True
        return hit

    # -- structure: where sites may be
    def visit_While(self, node: ast.While) -> ast.AST:
        self._in_while_test += 1
        node.test = self.visit(node.test)
        self._in_while_test -= 1
        self._in_while_body += 1
        node.body = self._body(node.body, deletable=False)
        self._in_while_body -= 1
        if node.orelse:
            node.orelse = self._body(node.orelse, deletable=True)
        return node

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        self._in_function += 1
        node.body = self._body(node.body, deletable=True)
        self._in_function -= 1
        return node

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # Statement lists of compound statements (if/for/with/try) go through _body so that
        # their statements are deletion sites; everything else is the ordinary traversal.
        for name in ("body", "orelse", "finalbody"):
            value = getattr(node, name, None)
            if (
                isinstance(value, list)
                and value
                and isinstance(value[0], ast.stmt)
                and not isinstance(node, (ast.Module, ast.ClassDef))
            ):
                setattr(node, name, self._body(value, deletable=True))
        for field, value in ast.iter_fields(node):
            if field in ("body", "orelse", "finalbody") and not isinstance(node, (ast.Module, ast.ClassDef)):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    continue
            if isinstance(value, list):
                new = []
                for item in value:
                    if isinstance(item, ast.AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                    new.append(item)
                value[:] = new
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def _body(self, body: list[ast.stmt], deletable: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            if deletable and self._in_function and _deletable(stmt) and self._site(DELETION):
                continue
            out.append(self.visit(stmt))
        return out or [ast.Pass()]

    # -- operators
    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        v = node.value
        if isinstance(v, bool):
            if self._site(CONSTANT):
                return ast.copy_location(ast.Constant(value=not v), node)
            return node
        if not isinstance(v, (int, float)):
            return node
        if self._site(CONSTANT):
            return ast.copy_location(ast.Constant(value=v + 1 if isinstance(v, int) else v * 1.5 + 1.0), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        op = type(node.ops[0])
        if op in _CMP_NEGATE and self._site(COMPARISON):
            node.ops = [_CMP_NEGATE[op](), *node.ops[1:]]
        elif op in _CMP_BOUNDARY and self._site(BOUNDARY):
            node.ops = [_CMP_BOUNDARY[op](), *node.ops[1:]]
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if type(node.op) in _ARITH and self._site(ARITHMETIC):
            node.op = _ARITH[type(node.op)]()
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if self._in_while_body:
            return node  # `i += 1` -> `i -= 1` in a while loop mostly never ends
        if type(node.op) in _ARITH and self._site(ARITHMETIC):
            node.op = _ARITH[type(node.op)]()
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
            if self._site(BOUNDARY):
                idx = len(node.args) - 1 if len(node.args) < 3 else 1
                last = node.args[idx]
                bumped = ast.BinOp(left=last, op=ast.Add(), right=ast.Constant(value=1))
                node.args[idx] = ast.copy_location(bumped, last)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        if (
            node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
            and self._site(RETURN)
        ):
            node.value = ast.Constant(value=None)
        return node


def _deletable(stmt: ast.stmt) -> bool:
    """A statement whose removal is a realistic bug, not a no-op or a guaranteed crash."""
    if isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)):
        return False
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    # a docstring or bare constant: deleting it changes nothing
    return not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))


def _round_robin(sites: dict[str, list[int]]) -> Iterator[tuple[str, int]]:
    queues = {op: list(idx) for op, idx in sites.items()}
    while any(queues.values()):
        for op in OPERATORS:
            if queues.get(op):
                yield op, queues[op].pop(0)


def python_mutants(code: str, limit: int, seed: str = "") -> list[tuple[str, str]]:
    """Up to ``limit`` distinct single-site mutants of ``code`` as (operator name, source).

    Within each operator the sites are shuffled deterministically by ``seed`` (the task id),
    then taken one operator at a time. Returns ``[]`` for code that does not parse, and fewer
    than ``limit`` when the code has fewer sites. Mutants whose text equals the original
    (after ``ast.unparse``) or an earlier mutant are dropped.
    """
    try:
        tree = pyast.parse(code)
    except SyntaxError:
        return []
    counter = _Mutator()
    counter.visit(copy.deepcopy(tree))
    rng = random.Random(f"mutants:{seed}")
    sites: dict[str, list[int]] = {}
    for op in OPERATORS:
        order = list(range(counter.counts[op]))
        rng.shuffle(order)
        sites[op] = order
    seen = {ast.unparse(tree)}
    out: list[tuple[str, str]] = []
    for op, index in _round_robin(sites):
        if len(out) >= limit:
            break
        m = _Mutator((op, index))
        new = m.visit(copy.deepcopy(tree))
        try:
            text = ast.unparse(ast.fix_missing_locations(new))
        except Exception:  # noqa: BLE001 - an unparsable mutant is simply not used
            continue
        if not m.done or text in seen:
            continue
        seen.add(text)
        out.append((op, text))
    return out


# ---------------------------------------------------------------------------- java


_JAVA_DEFAULTS = {
    "int": "0",
    "long": "0L",
    "short": "(short) 0",
    "byte": "(byte) 0",
    "double": "0.0",
    "float": "0.0f",
    "boolean": "false",
    "char": "'\\0'",
}
_JAVA_METHOD = re.compile(
    r"(?:(?:public|private|protected|static|final|synchronized|abstract)\s+)*"
    r"([\w.]+(?:\s*<[^;{}()]*>)?(?:\s*\[\s*\])*)\s+\w+\s*\([^;{}]*\)\s*(?:throws\s+[\w.,\s]+)?\{"
)
_JAVA_KEYWORDS = {
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "new",
    "else",
    "do",
    "try",
    "synchronized",
}
_JAVA_CMP = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}
_JAVA_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_JAVA_ARITH = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "%": "/",
    "+=": "-=",
    "-=": "+=",
    "*=": "/=",
    "/=": "*=",
}


def _java_sites(code: str, mask: str) -> dict[str, list[tuple[int, int, str]]]:
    """Every (start, end, replacement) per operator, in textual order."""
    sites: dict[str, list[tuple[int, int, str]]] = {op: [] for op in OPERATORS}
    # Operators with spaces on both sides: generics (List<String>), shifts and lambdas have none.
    for m in re.finditer(r"(?<=\s)(<=|>=|==|!=|<|>)(?=\s)", mask):
        sites[COMPARISON].append((m.start(), m.end(), _JAVA_CMP[m.group(1)]))
        if m.group(1) in _JAVA_BOUNDARY:
            sites[BOUNDARY].append((m.start(), m.end(), _JAVA_BOUNDARY[m.group(1)]))
    for m in re.finditer(r"(?<=\s)(\+=|-=|\*=|/=|\+|-|\*|/|%)(?=\s)", mask):
        left = mask[: m.start()].rstrip()[-1:]
        right = mask[m.end() :].lstrip()[:1]
        if m.group(1) == "+" and ('"' in (left, right) or "'" in (left, right)):
            continue  # string concatenation: "-" would not compile, a trivially killed mutant
        sites[ARITHMETIC].append((m.start(), m.end(), _JAVA_ARITH[m.group(1)]))
    for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", mask):
        sites[CONSTANT].append((m.start(), m.end(), str(int(m.group(1)) + 1)))
    for m in re.finditer(r"\b(true|false)\b", mask):
        sites[CONSTANT].append((m.start(), m.end(), "false" if m.group(1) == "true" else "true"))
    headers = [(m.end(), m.group(1).split("<")[0].strip()) for m in _JAVA_METHOD.finditer(mask)]
    for m in re.finditer(r"\breturn\s+([^;]+);", mask):
        rtype = next((t for end, t in reversed(headers) if end <= m.start()), None)
        if rtype is None or rtype == "void" or rtype in _JAVA_KEYWORDS:
            continue
        default = _JAVA_DEFAULTS.get(rtype, "null")
        if code[m.start(1) : m.end(1)].strip() == default:
            continue
        sites[RETURN].append((m.start(1), m.end(1), default))
    # Statement deletion: whole-line assignments to existing variables, ++/--, calls, break and
    # continue; not declarations (a missing declaration only fails to compile).
    for m in re.finditer(
        r"^[ \t]*(?:[\w.]+(?:\[[^\]\n]*\])*\s*(?:[-+*/%]?=(?!=)|\+\+|--)[^;\n]*|[\w.]+\s*\([^;\n]*\)|"
        r"(?:\+\+|--)[\w.]+|break|continue);[ \t]*(?://[^\n]*)?\n",
        mask,
        re.M,
    ):
        if mask[m.start() : m.end()].lstrip().split("(")[0].strip() in _JAVA_KEYWORDS:
            continue
        sites[DELETION].append((m.start(), m.end(), ""))
    return sites


def java_mutants(code: str, limit: int | None = None, seed: str = "") -> list[tuple[str, str]]:
    """Distinct single-site textual mutants of Java ``code`` as (operator name, source).

    ``seed`` is accepted for the language runner's common signature and not used: the order
    is deterministic without one.

    Textual because Python has no Java parser in the standard library; comments and string
    literals are masked first (:func:`java_mask`) so only code is changed. Sites are taken
    one operator at a time in textual order, which is deterministic without a seed.
    ``limit=None`` returns every mutant.
    """
    mask = java_mask(code)
    sites = _java_sites(code, mask)
    queues = {op: list(s) for op, s in sites.items()}
    seen = {code}
    out: list[tuple[str, str]] = []
    while any(queues.values()):
        for op in OPERATORS:
            if not queues[op] or (limit is not None and len(out) >= limit):
                continue
            start, end, repl = queues[op].pop(0)
            text = code[:start] + repl + code[end:]
            if text not in seen:
                seen.add(text)
                out.append((op, text))
        if limit is not None and len(out) >= limit:
            break
    return out
