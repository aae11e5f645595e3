"""The calls in a repository that can reach one definition of a function.

Call sites are evidence about arguments (:func:`python_inputs.callsite_votes`, literal example
calls in :func:`python_evidence.callsite_examples`). Matched by name alone, they mix up functions
that share a name: pyteomics defines ``is_decoy(psm, prefix=None)`` in a dozen format modules, and
the tuples passed to one of them typed another one's ``psm``, a dict of lists of dicts, as a tuple.
When a name is defined more than once, the calls kept are those from a file that can see the
function's own module: the module itself, or a file importing it (or the name from it). A call
through an alias bound to *another* module of the repository (``idxml.is_decoy(...)``) is dropped.
When the name is defined once, or the definition is not found, every call by that name is kept,
as before.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from biocoder_metric import pyast


def fingerprint(func: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str, tuple[str, ...]]:
    """What identifies a definition across copies of it: its parameters, docstring and statement
    kinds (an analysis copy with rewritten subscripts still matches its source)."""
    return (
        ast.dump(func.args),
        ast.get_docstring(func) or "",
        tuple(type(s).__name__ for s in func.body),
    )


@dataclass
class _File:
    module: str  # dotted name from the repository root (``pyteomics.mzid``)
    calls: dict[str, list[ast.Call]] = field(default_factory=dict)
    defs: dict[str, list[tuple]] = field(default_factory=dict)  # name -> fingerprints
    imported: set[str] = field(default_factory=set)  # modules (dotted) this file imports from
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> module it is bound to


_INDEX: dict[str, list[_File]] = {}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if module else []
    base = base if is_package else base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _index(repo: str) -> list[_File]:
    if repo in _INDEX:
        return _INDEX[repo]
    root = Path(repo)
    files: list[_File] = []
    for path in sorted(root.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        try:
            tree = pyast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, OSError):
            continue
        f = _File(module=_module_name(path, root))
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                fn = n.func
                name = (
                    fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
                )
                if name:
                    f.calls.setdefault(name, []).append(n)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                f.defs.setdefault(n.name, []).append(fingerprint(n))
            elif isinstance(n, ast.Import):
                for a in n.names:
                    f.imported.add(a.name)
                    f.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(n, ast.ImportFrom):
                mod = _resolve(f.module, n, path.name == "__init__.py")
                f.imported.add(mod)
                for a in n.names:
                    f.imported.add(f"{mod}.{a.name}")
                    f.aliases[a.asname or a.name] = f"{mod}.{a.name}"
        files.append(f)
    _INDEX[repo] = files
    return files


def _same(a: str, b: str) -> bool:
    """Dotted names of one module, whatever folder the repository root adds (``src.pkg.m``)."""
    return bool(a) and bool(b) and (a == b or a.endswith("." + b) or b.endswith("." + a))


def calls_of(
    repo: str | Path, name: str, func: ast.FunctionDef | ast.AsyncFunctionDef | None = None
) -> list[ast.Call]:
    """Every call named ``name`` in ``repo`` that can reach the definition ``func`` (see above)."""
    files = _index(str(repo))
    every = [c for f in files for c in f.calls.get(name, [])]
    if func is None or sum(len(f.defs.get(name, [])) for f in files) < 2:
        return every
    mark = fingerprint(func)
    homes = [f.module for f in files if mark in f.defs.get(name, [])]
    if not homes:
        return every
    others = {f.module for f in files if name in f.defs and f.module not in homes}
    kept: list[ast.Call] = []
    for f in files:
        if f.module in homes:
            kept += f.calls.get(name, [])
            continue
        sees = any(_same(m, h) or _same(m, f"{h}.{name}") for m in f.imported for h in homes)
        if not sees:
            continue
        for call in f.calls.get(name, []):
            fn = call.func
            if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name):
                bound = f.aliases.get(fn.value.id)
                if bound and any(_same(bound, o) for o in others) and not any(_same(bound, h) for h in homes):
                    continue  # idxml.is_decoy(...): another module's function of the same name
            elif isinstance(fn, ast.Name):
                bound = f.aliases.get(fn.id)
                if bound and not any(_same(bound, f"{h}.{name}") for h in homes):
                    continue  # ``from .idxml import is_decoy``
            kept.append(call)
    return kept
