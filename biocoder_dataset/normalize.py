"""Upstream JSON in its several shapes -> plain records with one set of field names.

Upstream publishes the same kind of record in two layouts (pandas "columns" orientation
``{"col": {"0": v, ...}}`` and a list of records; Hub files may also be JSON Lines) and
two field families (camelCase ``test_case_id, filePath, goldenCode, contextCode, ...`` and
the snake_case ``task_id, file_path, golden_code, context, ...``). Everything downstream
reads the canonical names of :data:`ALIASES` only, so a new upstream spelling is one line
here. Also holds the small code-text helpers (normalised text for matching, signature and
docstring extraction) that the config builders share.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biocoder_dataset.errors import RecordError

#: canonical name -> upstream spellings, first match wins.
ALIASES: dict[str, tuple[str, ...]] = {
    "task_id": ("task_id", "taskId"),
    "hash": ("test_case_id", "full_hash", "testCaseId", "fullHash"),
    "language": ("language",),
    "function_name": ("function_name", "functionName"),
    "signature": ("signature",),
    "comment": ("comment",),
    "summary": ("promptSummaryOnly", "prompt_summary_only"),
    "upstream_prompt": ("prompt",),
    "context": ("contextCode", "context_code", "context"),
    "golden_code": ("goldenCode", "golden_code", "golden", "content"),
    "repository": ("repository", "repo_name", "repoName"),
    "file_path": ("filePath", "file_path"),
    "line_start": ("lineStart", "line_start"),
    "line_end": ("lineEnd", "line_end"),
    "package_name": ("packageName", "package_name"),
}
_ALL_ALIASES = {a for names in ALIASES.values() for a in names}
#: Split names a Hub JSON file may be keyed by (``datasets`` writes "train" by default).
SPLIT_NAMES = ("train", "test", "validation")


def read_json(path: Path, name: str) -> Any:
    """Parse a JSON (or JSON Lines) file; errors name the file, the registry entry and the position."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read upstream file {name!r}: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) > 1 and lines[0].lstrip().startswith("{"):  # JSON Lines (a common Hub layout)
            out = []
            for i, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise RecordError(
                        f"{path}:{i}: upstream file {name!r} is neither JSON nor JSON Lines "
                        f"(line {i}: {exc.msg}); truncated or corrupted?"
                    ) from exc
            return out
        raise RecordError(
            f"{path}: upstream file {name!r} is not valid JSON (line {first.lineno}, column "
            f"{first.colno}: {first.msg}); truncated or corrupted?"
        ) from first


def to_records(data: Any, where: str) -> list[dict[str, Any]]:
    """Accept a list of records or the pandas "columns" layout and return a list of dicts in upstream order."""
    if isinstance(data, list):
        for i, rec in enumerate(data):
            if not isinstance(rec, dict):
                raise RecordError(f"{where}: record {i} should be a JSON object, got {type(rec).__name__}")
        return list(data)
    if isinstance(data, dict):
        if data and set(data) <= set(SPLIT_NAMES) and all(isinstance(v, (list, dict)) for v in data.values()):
            # A split-keyed file ({"train": [...]} or {"test": {...}}): the Hub's split name for the
            # public set could not be seen, so both are read; records keep the file's order.
            out: list[dict[str, Any]] = []
            for split, part in data.items():
                out += to_records(part, f"{where} split {split!r}")
            return out
        if data and all(isinstance(v, dict) for v in data.values()):
            index: list[str] = []
            for col in data.values():
                for k in col:
                    if k not in index:
                        index.append(k)
            try:
                index.sort(key=int)
            except ValueError as exc:
                raise RecordError(
                    f"{where}: pandas 'columns' layout expected integer row keys, got {index[:3]}"
                ) from exc
            return [{col: values.get(k) for col, values in data.items()} for k in index]
        if "data" in data and isinstance(data["data"], list):  # a wrapped list of records
            return to_records(data["data"], where)
    raise RecordError(
        f"{where}: expected a list of records or a pandas 'columns' object "
        f"{{column: {{row: value}}}}, got {type(data).__name__}"
    )


def canonical(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split a record into (canonical fields, remaining upstream fields) using :data:`ALIASES`."""
    out: dict[str, Any] = {}
    for key, names in ALIASES.items():
        for n in names:
            if record.get(n) is not None:
                out[key] = record[n]
                break
        else:
            out[key] = None
    extra = {k: v for k, v in record.items() if k not in _ALL_ALIASES}
    return out, extra


def require_str(value: Any, field: str, where: str, allow_none: bool = False) -> str | None:
    """Check one field's type, naming the record and field on failure."""
    if value is None:
        if allow_none:
            return None
        raise RecordError(f"{where}: field {field!r} is missing (expected a non-empty string)")
    if not isinstance(value, str):
        raise RecordError(
            f"{where}: field {field!r} should be a string, got {type(value).__name__}: {value!r:.60}"
        )
    if not allow_none and not value.strip():
        raise RecordError(f"{where}: field {field!r} is empty (expected a non-empty string)")
    return value


def optional_int(value: Any, field: str, where: str) -> int | None:
    """An int field that may be absent; floats with integral values (pandas) are accepted."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
        raise RecordError(f"{where}: field {field!r} should be an integer, got {value!r:.60}")
    return int(value)


def code_key(code: str) -> str:
    """Whitespace-free text used to match the same golden across upstream files.

    Upstream files differ in indentation, blank lines and line wrapping of otherwise equal
    code, so matching on exact text misses some pairs that are the same function.
    """
    return re.sub(r"\s+", "", code)


@dataclass(frozen=True)
class FunctionInfo:
    """What a prompt needs to know about a golden function."""

    name: str | None
    signature: str | None  # the header as written, without the trailing ':' / '{'
    docstring: str | None


@functools.lru_cache(maxsize=4096)  # each golden is looked at by the matcher and the row builder
def python_function_info(code: str) -> FunctionInfo:
    """Name, header and docstring of the first function in ``code`` (ast, then a regex fallback)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        tree = None
    if tree is not None:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = code.splitlines()
                first_body = node.body[0]
                end_line = first_body.lineno - 1  # header spans node.lineno .. the line before the body
                header = "\n".join(lines[node.lineno - 1 : max(end_line, node.lineno)])
                if end_line < node.lineno:  # body on the header line: "def f(x): return x"
                    header = lines[node.lineno - 1][: first_body.col_offset]
                header = re.sub(r":\s*(#.*)?$", "", header.rstrip())
                return FunctionInfo(node.name, header.strip(), ast.get_docstring(node))
    m = re.search(r"^[ \t]*((?:async\s+)?def\s+(\w+)\s*\(.*?\)\s*(?:->[^:]+)?):", code, re.S | re.M)
    if not m:
        return FunctionInfo(None, None, None)
    doc = re.match(r'\s*(?:"""(.*?)"""|\'\'\'(.*?)\'\'\')', code[m.end() :], re.S)
    docstring = (doc.group(1) or doc.group(2)).strip() if doc else None
    return FunctionInfo(m.group(2), m.group(1).strip(), docstring)


_JAVA_LEADING_COMMENT = re.compile(r"^\s*(/\*.*?\*/\s*|//[^\n]*\n\s*)+", re.S)


def java_function_info(code: str) -> FunctionInfo:
    """Name, header (annotations and modifiers included) and leading Javadoc of a Java method."""
    comment = None
    m = _JAVA_LEADING_COMMENT.match(code)
    rest = code
    if m:
        comment = m.group(0).strip()
        rest = code[m.end() :]
    brace = rest.find("{")
    header = rest[:brace] if brace >= 0 else rest.split("\n", 1)[0]
    header = header.strip()
    name = None
    nm = re.search(r"(\w+)\s*\(", header)
    if nm:
        name = nm.group(1)
    return FunctionInfo(name, header or None, comment)


def strip_java_comment(comment: str | None) -> str | None:
    """Javadoc ``/** ... */`` -> its text, one line per line, for instruction prompts."""
    if not comment:
        return comment
    text = re.sub(r"^\s*/\*\*?|\*/\s*$", "", comment.strip())
    lines = [re.sub(r"^\s*\*? ?", "", ln) for ln in text.splitlines()]
    return "\n".join(lines).strip() or None
