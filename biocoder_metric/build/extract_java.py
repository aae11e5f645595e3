"""Extract Java methods with tree-sitter, in upstream BioCoder's record layout.

Why tree-sitter (``tree-sitter`` + ``tree-sitter-java`` wheels from PyPI): it is a real,
maintained Java grammar with exact byte/line positions for every node, it needs no JVM
(upstream used JavaParser, which would add a Java toolchain to the build half), and it parses
modern Java (generics, lambdas, records, text blocks). Regex or hand-written brace matching
gets comments, strings and generics wrong; the standard-library has no Java parser.

Conventions matched to ``java_public.json`` (see ``docs/build.md``): ``lineStart`` is the
signature's line (annotations included, the Javadoc not), ``lineEnd`` the closing brace's,
``numLines = lineEnd - lineStart``; ``signature`` is modifiers (no annotations), return type,
name and parameters, without type parameters, ``throws`` or the ``{``; ``content`` is the
comment attached to the method followed by the method, both dedented; ``comment`` is the
Javadoc only, as written in the file; ``intraClassFieldsUsed`` lists the class's fields and its
other methods' signatures; ``imports`` describes the imported classes found in the repository.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_metric.build.common import (
    SkipLog,
    dedent_block,
    function_id,
    iter_source_files,
    read_source,
    upstream_repo_name,
)

_TYPE_DECLS = ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration")
_COMMENTS = ("block_comment", "line_comment")
_ANNOTATIONS = ("annotation", "marker_annotation")

_PARSER: Any = None


def parser() -> Any:
    """The (lazily built, process-wide) tree-sitter parser for Java."""
    global _PARSER
    if _PARSER is None:
        try:
            import tree_sitter_java
            from tree_sitter import Language, Parser
        except ImportError as exc:  # pragma: no cover - the `build` extra is installed by scripts/install.sh
            raise RuntimeError(
                "Java extraction needs tree-sitter: pip install 'biocoder-eval[build]'"
            ) from exc
        _PARSER = Parser(_language(Language, tree_sitter_java.language()))
    return _PARSER


def _language(language_cls: Any, handle: Any) -> Any:
    """``Language`` from a grammar handle, across py-tree-sitter releases.

    Grammar wheels >= 0.23 return a PyCapsule; py-tree-sitter 0.22 (which ``codebleu`` pins)
    only accepts the raw pointer as an int, so the capsule is unwrapped for it.
    """
    try:
        return language_cls(handle)
    except TypeError:
        import ctypes

        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        return language_cls(get(handle, b"tree_sitter.Language"))


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace")


def _squash(text: str) -> str:
    return " ".join(text.split())


def _column(src: bytes, node: Any) -> str:
    """The text before ``node`` on its line (its indentation, tabs kept as tabs)."""
    line_start = src.rfind(b"\n", 0, node.start_byte) + 1
    return src[line_start : node.start_byte].decode("utf-8", errors="replace")


def _modifiers(node: Any) -> list[str]:
    """Modifier keywords of a declaration, annotations left out (upstream's signatures have none)."""
    for child in node.children:
        if child.type == "modifiers":
            return [
                _text(c) for c in child.children if c.type not in _ANNOTATIONS and c.type not in _COMMENTS
            ]
    return []


def _params(method: Any) -> list[str]:
    params = method.child_by_field_name("parameters")
    out: list[str] = []
    for p in params.named_children if params is not None else ():
        if p.type in ("formal_parameter", "spread_parameter", "receiver_parameter"):
            parts = [
                _squash(_text(c))
                for c in p.children
                if c.type not in _ANNOTATIONS and c.type not in _COMMENTS
            ]
            if p.type == "formal_parameter" and p.children and p.children[0].type == "modifiers":
                parts[0] = " ".join(_modifiers(p))
            out.append(_squash(" ".join(x for x in parts if x)).replace(" ...", "..."))
    return out


def method_signature(method: Any) -> tuple[str, str, str, list[str]]:
    """(signature, name, return type, params) of a method_declaration node."""
    name = _text(method.child_by_field_name("name"))
    rtype = _squash(_text(method.child_by_field_name("type")))
    dims = method.child_by_field_name("dimensions")
    if dims is not None:
        rtype += _squash(_text(dims))
    params = _params(method)
    sig = " ".join(_modifiers(method) + [rtype, f"{name}({', '.join(params)})"])
    return sig, name, rtype, params


def _attached_comments(node: Any) -> list[Any]:
    """The run of comments right above a member, with no blank line between (JavaParser's attribution)."""
    run: list[Any] = []
    cur, top_line = node, node.start_point[0]
    while True:
        prev = cur.prev_named_sibling
        if prev is None or prev.type not in _COMMENTS or prev.end_point[0] < top_line - 1:
            break
        run.insert(0, prev)
        cur, top_line = prev, prev.start_point[0]
    return run


def _field_text(node: Any) -> str:
    parts = [_text(c) for c in node.children if c.type not in ("modifiers",) and c.type not in _COMMENTS]
    mods = _modifiers(node)
    return _squash(" ".join(mods + parts)).replace(" ;", ";")


@dataclass
class _Class:
    name: str
    fields: list[str] = field(default_factory=list)
    methods: list[tuple[str, Any]] = field(default_factory=list)  # (signature, node)
    line_count: int = 0

    def skeleton(self) -> str:
        body = [f"    {f}" for f in self.fields] + [f"    {s};" for s, _ in self.methods]
        return f"class {self.name} {{\n" + "\n".join(body) + "\n}\n"


@dataclass
class JavaFile:
    """One parsed file: what the per-file record and the method records need."""

    rel: str
    package: str
    imports: list[str]
    classes: list[_Class]
    src: bytes


def _collect_classes(node: Any, out: list[_Class]) -> None:
    for child in node.named_children:
        if child.type in _TYPE_DECLS:
            name_node = child.child_by_field_name("name")
            cls = _Class(_text(name_node) if name_node is not None else "")
            cls.line_count = child.end_point[0] - child.start_point[0]
            body = child.child_by_field_name("body")
            members = list(body.named_children) if body is not None else []
            for m in members:
                if m.type == "enum_body_declarations":
                    members.extend(m.named_children)
            for m in members:
                if m.type in ("field_declaration", "constant_declaration"):
                    cls.fields.append(_field_text(m))
                elif m.type == "method_declaration":
                    cls.methods.append((method_signature(m)[0], m))
            out.append(cls)
            if body is not None:
                _collect_classes(body, out)
                for m in members:
                    if m.type == "enum_body_declarations":
                        _collect_classes(m, out)


def parse_file(src: bytes, rel: str) -> JavaFile:
    """Parse one file; raises ValueError when tree-sitter reports a syntax error."""
    tree = parser().parse(src)
    root = tree.root_node
    if root.has_error:
        bad = _first_error(root)
        where = f"line {bad.start_point[0] + 1}" if bad is not None else "unknown line"
        raise ValueError(f"syntax error at {where}")
    package, imports = "", []
    for child in root.named_children:
        if child.type == "package_declaration":
            package = "".join(
                _text(c) for c in child.named_children if c.type in ("scoped_identifier", "identifier")
            )
        elif child.type == "import_declaration":
            imports.append(_squash(_text(child)))
    classes: list[_Class] = []
    _collect_classes(root, classes)
    return JavaFile(rel, package, imports, classes, src)


def _first_error(node: Any) -> Any:
    if node.type == "ERROR" or node.is_missing:
        return node
    for c in node.children:
        if c.has_error:
            return _first_error(c)
    return None


def _import_target(imp: str) -> str | None:
    """``import a.b.C;`` -> ``a.b.C`` (static and wildcard imports resolve to nothing)."""
    body = imp.removeprefix("import").strip().rstrip(";").strip()
    if body.startswith("static ") or body.endswith("*"):
        return None
    return body


def method_records(jf: JavaFile, repo_name: str, imported: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Upstream-shaped records for every method with a body in ``jf``."""
    records = []
    for cls in jf.classes:
        for sig, node in cls.methods:
            body = node.child_by_field_name("body")
            if body is None:  # abstract / interface method: nothing to implement
                continue
            _, _, rtype, params = method_signature(node)
            method_text = dedent_block(_text(node), _column(jf.src, node))
            comments = _attached_comments(node)
            comment, content = "", method_text
            if comments:
                first = comments[0]
                raw_run = jf.src[first.start_byte : comments[-1].end_byte].decode("utf-8", errors="replace")
                content = dedent_block(raw_run, _column(jf.src, first)).rstrip("\n") + "\n" + method_text
                last = _text(comments[-1])
                if last.startswith("/**"):
                    comment = last
            others = [s + ";" for s, n in cls.methods if n is not node]
            line_start, line_end = node.start_point[0] + 1, node.end_point[0] + 1
            records.append(
                {
                    "function_id": function_id(repo_name, jf.rel, cls.name, sig),
                    "numParams": len(params),
                    "numLines": line_end - line_start,
                    "numChars": len(content),
                    "lineStart": line_start,
                    "lineEnd": line_end,
                    "returnType": rtype,
                    "params": params,
                    "parentClass": cls.name,
                    "filePath": jf.rel,
                    "signature": sig,
                    "content": content,
                    "comment": comment,
                    "numCommentLines": comment.count("\n"),
                    "numCommentChars": len(comment),
                    "packageName": jf.package,
                    "repoName": upstream_repo_name(repo_name),
                    "imports": imported,
                    "additionalImports": {},
                    "intraClassFieldsUsed": "".join(f + "\n" for f in cls.fields + others),
                    "fileImports": jf.imports,
                    "language": "java",
                    "functionName": _text(node.child_by_field_name("name")),
                }
            )
    return records


def extract(
    repo: Path,
    repo_name: str,
    package_dir: str | None = None,
    skips: SkipLog | None = None,
    progress: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], SkipLog]:
    """(method records, file-imports records, skip log) for every ``.java`` file under ``repo``."""
    from tqdm import tqdm

    skips = skips or SkipLog()
    repo = Path(repo)
    parsed: list[JavaFile] = []
    for path in tqdm(
        list(iter_source_files(repo, "java", package_dir)),
        desc="parse java",
        unit="file",
        disable=not progress,
    ):
        rel = path.relative_to(repo).as_posix()
        text = read_source(path, rel, skips)
        if text is None:
            continue
        try:
            parsed.append(parse_file(text.encode("utf-8"), rel))
        except (ValueError, RecursionError) as exc:
            skips.skip(rel, "parse_error", str(exc))
    by_fqcn: dict[str, tuple[JavaFile, _Class]] = {}
    for jf in parsed:
        for cls in jf.classes:
            by_fqcn[f"{jf.package}.{cls.name}" if jf.package else cls.name] = (jf, cls)
    functions: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    for jf in parsed:
        imported = []
        for imp in jf.imports:
            target = _import_target(imp)
            if target in by_fqcn:
                ofile, ocls = by_fqcn[target]
                imported.append(
                    {
                        "fieldCount": len(ocls.fields),
                        "classCount": 1,
                        "methodsOnly": ocls.skeleton(),
                        "filePath": ofile.rel,
                        "methodCount": len(ocls.methods),
                        "lineCount": ocls.line_count,
                    }
                )
        recs = method_records(jf, repo_name, imported)
        functions.extend(recs)
        files.append(
            {
                "filePath": jf.rel,
                "packageName": jf.package,
                "repoName": upstream_repo_name(repo_name),
                "language": "java",
                "imports": jf.imports,
                "globals": [],
                "classes": [
                    {
                        "name": c.name,
                        "bases": [],
                        "attributes": c.fields,
                        "methods": [r["function_id"] for r in recs if r["parentClass"] == c.name],
                    }
                    for c in jf.classes
                ],
                "functions": [r["function_id"] for r in recs],
            }
        )
    return functions, files, skips
