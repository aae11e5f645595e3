"""A held-out mutant family: bugs of other kinds than :mod:`.mutation` makes, for honest scores.

Why a second family: harness synthesis picks its input generators by how many of
:mod:`.mutation`'s mutants they kill, so that family's score is tuned to. A score from bugs
that never influenced any choice says how strong a harness is against bugs nobody tuned
to. This family is only ever *recorded* (``heldout_mutation_score``), never used to pick.

Operators (one site each, deterministic order, round-robin):

* ``branch drop``: an ``if`` statement replaced by its ``else`` part (or nothing);
* ``boolean swap``: ``and`` <-> ``or``; Java ``&&`` <-> ``||``;
* ``negation drop``: ``not x`` -> ``x``, ``-x`` -> ``x``; Java ``!x`` -> ``x``;
* ``argument swap``: the first two positional arguments of a call exchanged;
* ``default change``: a parameter default changed (numbers + 1, strings + ``"x"``, booleans
  flipped, ``None`` -> ``0``);
* ``min/max swap``: ``min`` <-> ``max`` (Java ``Math.min`` <-> ``Math.max``);
* ``index shift``: a subscript ``x[i]`` -> ``x[i + 1]`` for a plain name or number index.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Iterator

from biocoder_dataset.java_source import java_mask
from biocoder_metric import pyast
from biocoder_metric.languages import runner

BRANCH_DROP = "branch drop"
BOOLEAN_SWAP = "boolean swap"
NEGATION_DROP = "negation drop"
ARGUMENT_SWAP = "argument swap"
DEFAULT_CHANGE = "default change"
MINMAX_SWAP = "min/max swap"
INDEX_SHIFT = "index shift"
OPERATORS = (
    BRANCH_DROP,
    BOOLEAN_SWAP,
    NEGATION_DROP,
    ARGUMENT_SWAP,
    DEFAULT_CHANGE,
    MINMAX_SWAP,
    INDEX_SHIFT,
)


def _changed_default(node: ast.expr) -> ast.expr | None:
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return ast.Constant(not v)
        if isinstance(v, (int, float)):
            return ast.Constant(v + 1)
        if isinstance(v, str):
            return ast.Constant(v + "x")
        if v is None:
            return ast.Constant(0)
    return None


def _python_sites(tree: ast.Module) -> dict[str, list[Callable[[ast.Module], bool]]]:
    """Per operator, functions that apply one mutation to a deep copy of ``tree`` (by node order)."""
    nodes = list(ast.walk(tree))
    sites: dict[str, list[int]] = {op: [] for op in OPERATORS}
    for i, n in enumerate(nodes):
        if isinstance(n, ast.If):
            sites[BRANCH_DROP].append(i)
        elif isinstance(n, ast.BoolOp):
            sites[BOOLEAN_SWAP].append(i)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Not, ast.USub)):
            sites[NEGATION_DROP].append(i)
        elif isinstance(n, ast.Call):
            if len(n.args) >= 2 and not any(isinstance(a, ast.Starred) for a in n.args[:2]):
                sites[ARGUMENT_SWAP].append(i)
            if isinstance(n.func, ast.Name) and n.func.id in ("min", "max"):
                sites[MINMAX_SWAP].append(i)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(
                _changed_default(d) is not None
                for d in [*n.args.defaults, *n.args.kw_defaults]
                if d is not None
            ):
                sites[DEFAULT_CHANGE].append(i)
        elif (
            isinstance(n, ast.Subscript)
            and isinstance(n.ctx, ast.Load)
            and isinstance(n.slice, (ast.Name, ast.Constant))
        ):
            if not isinstance(n.slice, ast.Constant) or isinstance(n.slice.value, int):
                sites[INDEX_SHIFT].append(i)
    return {op: [_python_apply(op, i) for i in idx] for op, idx in sites.items()}


def _python_apply(op: str, index: int) -> Callable[[ast.Module], bool]:
    def apply(tree: ast.Module) -> bool:
        nodes = list(ast.walk(tree))
        n = nodes[index]
        if op == BRANCH_DROP:
            for parent in nodes:
                for field in ("body", "orelse", "finalbody"):
                    stmts = getattr(parent, field, None)
                    if isinstance(stmts, list) and n in stmts:
                        k = stmts.index(n)
                        stmts[k : k + 1] = n.orelse or [ast.Pass()]
                        return True
            return False
        if op == BOOLEAN_SWAP:
            n.op = ast.Or() if isinstance(n.op, ast.And) else ast.And()
            return True
        if op == NEGATION_DROP:
            for parent in nodes:
                for field, value in ast.iter_fields(parent):
                    if value is n:
                        setattr(parent, field, n.operand)
                        return True
                    if isinstance(value, list) and n in value:
                        value[value.index(n)] = n.operand
                        return True
            return False
        if op == ARGUMENT_SWAP:
            n.args[0], n.args[1] = n.args[1], n.args[0]
            return True
        if op == MINMAX_SWAP:
            n.func.id = "max" if n.func.id == "min" else "min"
            return True
        if op == DEFAULT_CHANGE:
            for defaults in (n.args.defaults, n.args.kw_defaults):
                for k, d in enumerate(defaults):
                    new = _changed_default(d) if d is not None else None
                    if new is not None:
                        defaults[k] = new
                        return True
            return False
        if op == INDEX_SHIFT:
            n.slice = ast.BinOp(left=n.slice, op=ast.Add(), right=ast.Constant(1))
            return True
        return False

    return apply


def _round_robin(per_op: dict[str, list]) -> Iterator[tuple[str, object]]:
    queues = {op: list(v) for op, v in per_op.items() if v}
    while queues:
        for op in list(queues):
            yield op, queues[op].pop(0)
            if not queues[op]:
                del queues[op]


def python_heldout_mutants(code: str, limit: int) -> list[tuple[str, str]]:
    """(operator, source) of up to ``limit`` held-out mutants of ``code``, distinct from it."""
    try:
        tree = pyast.parse(code)
    except SyntaxError:
        return []
    original = ast.unparse(tree)
    out: list[tuple[str, str]] = []
    seen = {original}
    for op, apply in _round_robin(_python_sites(tree)):
        if len(out) >= limit:
            break
        mutant = copy.deepcopy(tree)
        if not apply(mutant):
            continue
        try:
            src = ast.unparse(ast.fix_missing_locations(mutant))
            compile(src, "<mutant>", "exec")
        except (SyntaxError, ValueError):
            continue
        if src not in seen:
            seen.add(src)
            out.append((op, src))
    return out


_JAVA_RULES: tuple[tuple[str, str, Callable[[re.Match[str]], str]], ...] = (
    (BOOLEAN_SWAP, r"&&|\|\|", lambda m: "||" if m.group(0) == "&&" else "&&"),
    (NEGATION_DROP, r"!(?!=)", lambda m: ""),
    (MINMAX_SWAP, r"\bMath\.(min|max)\b", lambda m: "Math.max" if m.group(1) == "min" else "Math.min"),
    (INDEX_SHIFT, r"\[(\w+)\]", lambda m: f"[{m.group(1)} + 1]"),
)


def java_heldout_mutants(code: str, limit: int) -> list[tuple[str, str]]:
    """(operator, source) of up to ``limit`` held-out Java mutants (textual, on the masked code)."""
    mask = java_mask(code)
    per_op: dict[str, list[tuple[int, int, str]]] = {}
    for op, pattern, repl in _JAVA_RULES:
        for m in re.finditer(pattern, mask):
            per_op.setdefault(op, []).append(
                (m.start(), m.end(), repl(re.match(pattern, code[m.start() : m.end()]) or m))
            )
    out: list[tuple[str, str]] = []
    for op, (a, b, new) in _round_robin(per_op):
        if len(out) >= limit:
            break
        src = code[:a] + new + code[b:]
        if src != code:
            out.append((op, src))
    return out


def heldout_mutants(code: str, language: str, limit: int) -> list[tuple[str, str]]:
    """The held-out family for one golden."""
    return runner(language).heldout_mutants(code, limit)
