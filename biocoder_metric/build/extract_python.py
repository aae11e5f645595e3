"""Extract Python functions and methods with :mod:`ast`, in upstream BioCoder's record layout.

``ast`` is the reference parser of the language itself: positions are exact and a file that
does not parse under the running Python is a real error, skipped and counted. Functions nested
inside other functions are not extracted: they cannot be called, so they cannot be tested.

Conventions (see ``docs/build.md``): ``lineStart`` is the first line of the signature
(the first decorator when there is one, since upstream's Python signatures include them),
``lineEnd`` the last line of the body, ``numLines = lineEnd - lineStart`` as in upstream's
Java records; ``signature`` is the decorators and the ``def`` line without the colon, as in
upstream's harness tasks (``@on_array()\\ndef modal_location(a)``); ``comment`` is the docstring;
``content`` the function's source, dedented; ``packageName`` the module path, found by walking up
while folders have an ``__init__.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from biocoder_metric import pyast
from biocoder_metric.build.common import (
    SkipLog,
    function_id,
    iter_source_files,
    read_source,
    upstream_repo_name,
)

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def module_path(repo: Path, path: Path) -> str:
    """Dotted module path of ``path``: parent folders count while they hold an ``__init__.py``."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder != repo.parent:
        parts.insert(0, folder.name)
        if folder == repo:
            break
        folder = folder.parent
    return ".".join(parts) or path.stem


def _param_strings(args: ast.arguments) -> list[str]:
    """Each parameter as written: ``name``, ``name: T``, ``name=default``, ``*args``, ``**kw``."""
    out: list[str] = []
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)

    def one(a: ast.arg, default: ast.expr | None, star: str = "") -> str:
        text = star + a.arg + (f": {ast.unparse(a.annotation)}" if a.annotation is not None else "")
        if default is not None:
            text += (" = " if a.annotation is not None else "=") + ast.unparse(default)
        return text

    for a, d in zip(positional, defaults, strict=True):
        out.append(one(a, d))
    if args.vararg is not None:
        out.append(one(args.vararg, None, "*"))
    elif args.kwonlyargs:
        out.append("*")
    for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        out.append(one(a, d))
    if args.kwarg is not None:
        out.append(one(args.kwarg, None, "**"))
    return out


def signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """Decorators and header, normalised by ``ast.unparse`` (upstream's harness signatures look the same)."""
    lines = [f"@{ast.unparse(d)}" for d in node.decorator_list]
    kw = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    head = f"{kw} {node.name}({ast.unparse(node.args)})"
    if node.returns is not None:
        head += f" -> {ast.unparse(node.returns)}"
    return "\n".join(lines + [head])


def _self_attributes(cls: ast.ClassDef) -> list[str]:
    """``self.x`` attributes assigned anywhere in the class, in first-assignment order."""
    seen: dict[str, None] = {}
    for node in ast.walk(cls):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "self"
                ):
                    seen.setdefault(f"self.{sub.attr}", None)
    return list(seen)


def _top_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports at module level, including those under top-level ``if``/``try`` blocks."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.If, ast.Try)):
            children = list(node.body) + list(node.orelse)
            if isinstance(node, ast.Try):
                children += [s for h in node.handlers for s in h.body] + list(node.finalbody)
            stack[:0] = children
    return found


def _intra_repo_imports(
    imports: list[ast.Import | ast.ImportFrom], package: str, top_packages: set[str]
) -> dict[str, str]:
    """``{local name: qualified target}`` for imports that resolve inside the repository."""
    out: dict[str, str] = {}
    base = package.split(".")
    for node in imports:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                mod = ".".join(base[: len(base) - node.level] + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if node.level or mod.split(".")[0] in top_packages:
                for alias in node.names:
                    out[alias.asname or alias.name] = f"{mod}.{alias.name}" if mod else alias.name
        else:
            for alias in node.names:
                if alias.name.split(".")[0] in top_packages:
                    out[alias.asname or alias.name.split(".")[0]] = alias.name
    return out


def _globals(tree: ast.Module, lines: list[str]) -> list[str]:
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            seg = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            out.append(seg.strip())
    return out


def file_records(
    text: str, rel: str, package: str, repo_name: str, top_packages: set[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(function records, file record) of one parsed file; raises SyntaxError/ValueError when it does not parse."""
    tree = pyast.parse(text, filename=rel)
    lines = text.splitlines()
    imports = _top_imports(tree)
    import_lines = [ast.unparse(n) for n in imports]
    additional = _intra_repo_imports(imports, package, top_packages)
    records: list[dict[str, Any]] = []
    classes: list[dict[str, Any]] = []
    top_ids: list[str] = []

    def record(
        node: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef | None, siblings: list[str]
    ) -> dict[str, Any]:
        sig = signature(node)
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        end = node.end_lineno or node.lineno
        col = node.col_offset
        body_lines = lines[start - 1 : end]
        # dedent by the definition's own column (string literals with less indentation stay intact)
        content = "\n".join(ln[col:] if ln[:col].strip() == "" else ln for ln in body_lines) + "\n"
        doc = ast.get_docstring(node, clean=True) or ""
        params = _param_strings(node.args)
        parent = cls.name if cls is not None else ""
        intra = ""
        if cls is not None:
            intra = "".join(a + "\n" for a in _self_attributes(cls)) + "".join(
                s + "\n" for s in siblings if s != sig
            )
        return {
            "function_id": function_id(repo_name, rel, parent, sig),
            "numParams": len(params),
            "numLines": end - start,
            "numChars": len(content),
            "lineStart": start,
            "lineEnd": end,
            "returnType": ast.unparse(node.returns) if node.returns is not None else "",
            "params": params,
            "parentClass": parent,
            "filePath": rel,
            "signature": sig,
            "content": content,
            "comment": doc,
            "numCommentLines": doc.count("\n"),
            "numCommentChars": len(doc),
            "packageName": package,
            "repoName": upstream_repo_name(repo_name),
            "imports": import_lines,
            "additionalImports": additional,
            "intraClassFieldsUsed": intra,
            "fileImports": import_lines,
            "language": "python",
            "functionName": node.name,
        }

    def visit_class(cls: ast.ClassDef, qual: str) -> None:
        methods = [n for n in cls.body if isinstance(n, _FUNCS)]
        sigs = [signature(m) for m in methods]
        ids = []
        for m in methods:
            rec = record(m, cls, sigs)
            records.append(rec)
            ids.append(rec["function_id"])
        classes.append(
            {
                "name": qual,
                "bases": [ast.unparse(b) for b in cls.bases],
                "attributes": _self_attributes(cls),
                "methods": ids,
            }
        )
        for inner in cls.body:
            if isinstance(inner, ast.ClassDef):
                visit_class(inner, f"{qual}.{inner.name}")

    for node in tree.body:
        if isinstance(node, _FUNCS):
            rec = record(node, None, [])
            records.append(rec)
            top_ids.append(rec["function_id"])
        elif isinstance(node, ast.ClassDef):
            visit_class(node, node.name)
    file_rec = {
        "filePath": rel,
        "packageName": package,
        "repoName": upstream_repo_name(repo_name),
        "language": "python",
        "imports": import_lines,
        "globals": _globals(tree, lines),
        "classes": classes,
        "functions": top_ids,
    }
    return records, file_rec


def extract(
    repo: Path,
    repo_name: str,
    package_dir: str | None = None,
    skips: SkipLog | None = None,
    progress: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], SkipLog]:
    """(function records, file-imports records, skip log) for every ``.py`` file under ``repo``."""
    from tqdm import tqdm

    skips = skips or SkipLog()
    repo = Path(repo)
    paths = list(iter_source_files(repo, "python", package_dir))
    top_packages = {p.name for p in repo.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    if package_dir:
        top_packages |= {
            p.name for p in (repo / package_dir).iterdir() if p.is_dir() and (p / "__init__.py").is_file()
        }
        top_packages.add(Path(package_dir).name)
    functions: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    for path in tqdm(paths, desc="parse python", unit="file", disable=not progress):
        rel = path.relative_to(repo).as_posix()
        text = read_source(path, rel, skips)
        if text is None:
            continue
        try:
            recs, frec = file_records(text, rel, module_path(repo, path), repo_name, top_packages)
        except SyntaxError as exc:
            skips.skip(rel, "parse_error", f"line {exc.lineno}: {exc.msg}")
            continue
        except (ValueError, RecursionError, MemoryError) as exc:
            skips.skip(rel, "parse_error", f"{type(exc).__name__}: {exc}")
            continue
        functions.extend(recs)
        files.append(frec)
    return functions, files, skips
