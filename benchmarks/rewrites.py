"""Semantics-preserving rewrites of a golden: code a harness must accept because it *is* the golden.

Why: a harness is only fair if a correct solution written differently passes it. The mutant
scores say whether a harness catches bugs; these rewrites say whether it also lets correct code
through, which issue #20 asks to hold on 100% of validated harnesses. A harness that prints an
object's address, depends on a local variable's name, on which of two equal operands is
evaluated first, or on the text of the function (not its behaviour) fails here.

Written apart from the project's code (only :mod:`ast`), and kept to rewrites a person makes
without changing what the function computes:

* ``renamed_locals``: every local variable (not a parameter: callers may pass those by keyword)
  gets a new name;
* ``mirrored_comparisons``: ``a < b`` -> ``b > a`` (``==``/``!=``/``is``/``is not`` swap their
  operands), for single comparisons whose operands have no calls (evaluation order unchanged in
  effect);
* ``swapped_branches``: ``if c: A else: B`` -> ``if not c: B else: A``;
* ``returns_named``: ``return e`` -> ``_bc_rv = e; return _bc_rv`` (outside generators and
  lambdas);
* ``combined``: all of the above at once.

Python only: the Java harnesses validated on the benchmark's parts are too few to say anything.
Each rewrite parses, and its ``ast.dump`` differs from the original's; a class that finds nothing
to rewrite gives nothing.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from biocoder_metric import pyast

RENAMED_LOCALS = "renamed_locals"
MIRRORED_COMPARISONS = "mirrored_comparisons"
SWAPPED_BRANCHES = "swapped_branches"
RETURNS_NAMED = "returns_named"
COMBINED = "combined"
CLASSES = (RENAMED_LOCALS, MIRRORED_COMPARISONS, SWAPPED_BRANCHES, RETURNS_NAMED, COMBINED)
#: Version of the generator, recorded with cached verdicts (like hand_mutants.VERSION).
VERSION = 1

#: Calls that see local names as strings: renaming would change what they do.
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "dir", "globals"})
_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_SYMMETRIC = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)


def _target(tree: ast.Module, name: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (name is None or node.name == name):
            return node
    return None


def _rename_locals(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _INTROSPECTION
        for n in ast.walk(func)
    ):
        return False
    declared = {name for n in ast.walk(func) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    params = {a.arg for n in ast.walk(func) if isinstance(n, ast.arguments) for a in _all_args(n)}
    if any(isinstance(n, ast.ClassDef) for n in ast.walk(func)):
        return False  # a class body's names are attributes, not locals
    nested = {
        n.name
        for n in ast.walk(func)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not func
    }
    # names bound as strings, not Name nodes: renaming their uses alone would unbind them
    nested |= {n.name for n in ast.walk(func) if isinstance(n, ast.ExceptHandler) and n.name}
    nested |= {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(func)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }
    stored = [
        n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    ]
    local = [s for s in dict.fromkeys(stored) if s not in declared | params | nested]
    if not local:
        return False
    taken = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | params
    mapping: dict[str, str] = {}
    for i, name in enumerate(local):
        new = f"_rw{i}_{name}"
        while new in taken:
            new += "_"
        mapping[name] = new
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
    return True


def _all_args(a: ast.arguments) -> list[ast.arg]:
    out = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    out += [x for x in (a.vararg, a.kwarg) if x is not None]
    return out


def _pure(node: ast.AST) -> bool:
    return not any(
        isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)) for n in ast.walk(node)
    )


def _mirror(func: ast.AST) -> bool:
    changed = False
    for n in ast.walk(func):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and _pure(n.left) and _pure(n.comparators[0]):
            op = type(n.ops[0])
            if op in _MIRROR:
                n.ops = [_MIRROR[op]()]
            elif not issubclass(op, _SYMMETRIC):
                continue
            n.left, n.comparators = n.comparators[0], [n.left]
            changed = True
    return changed


def _swap_branches(func: ast.AST) -> bool:
    changed = False
    for n in ast.walk(func):
        if isinstance(n, ast.If) and n.orelse:
            n.test = ast.UnaryOp(op=ast.Not(), operand=n.test)
            n.body, n.orelse = n.orelse, n.body
            changed = True
    return changed


def _is_generator(func: ast.AST) -> bool:
    for n in ast.walk(func):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
    return False


def _name_returns(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if _is_generator(func):
        return False
    changed = False

    class _Returns(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            return node if node is not func else self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 (ast visitor name)

        def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
            return node

        def visit_Return(self, node: ast.Return) -> ast.AST | list[ast.AST]:
            nonlocal changed
            if node.value is None:
                return node
            changed = True
            name = "_bc_rv"
            return [
                ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=node.value),
                ast.Return(value=ast.Name(id=name, ctx=ast.Load())),
            ]

    _Returns().visit(func)
    return changed


_STEPS: dict[str, Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool]] = {
    RENAMED_LOCALS: _rename_locals,
    MIRRORED_COMPARISONS: _mirror,
    SWAPPED_BRANCHES: _swap_branches,
    RETURNS_NAMED: _name_returns,
}


def rewrites(code: str, language: str, function_name: str | None = None) -> list[tuple[str, str]]:
    """``(class, source)`` for each class that changes ``code`` (Python; Java gives none)."""
    if language != "python":
        return []
    try:
        tree = pyast.parse(code)
    except SyntaxError:
        return []
    if _target(tree, function_name) is None:
        return []
    original = ast.dump(tree)
    out: list[tuple[str, str]] = []
    seen = {original}
    for cls in CLASSES:
        t = copy.deepcopy(tree)
        func = _target(t, function_name)
        assert func is not None
        steps = list(_STEPS.values()) if cls == COMBINED else [_STEPS[cls]]
        if not any([step(func) for step in steps]):
            continue
        ast.fix_missing_locations(t)
        if ast.dump(t) in seen:
            continue
        seen.add(ast.dump(t))
        out.append((cls, ast.unparse(t)))
    return out
