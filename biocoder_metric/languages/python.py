"""Python's runner: the Python text rules of post-processing and harness insertion.

Moved here from ``generation/postprocess.py``, ``generation/processors/base.py`` and
``execution/harness.py`` (the rules are unchanged); the tools above the engine are hooks.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Any

from biocoder_metric import pyast
from biocoder_metric.languages.base import LanguageRunner

_PY_DOCSTRING = re.compile(r'(?:"""|\'\'\').*?(?:"""|\'\'\')', re.S)
_PY_COMMENT = re.compile(r"#[^\n]*")


def _without_docstrings(code: str) -> str | None:
    """AST dump without docstrings (None when the code does not parse)."""
    import textwrap

    try:
        tree = pyast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


_CODE_START = re.compile(r"^(?:import\s|from\s+\S+\s+import\s|def\s|async\s+def\s|class\s|@)")
_MAX_TRIM_LINES = 400


def python_parses(code: str) -> bool:
    """Whether ``code`` is syntactically valid Python (compiles to an AST; nothing runs)."""
    try:
        pyast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _strip_prose(text: str) -> str:
    if not text.strip() or python_parses(text):
        return text
    lines = text.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
    if lines[first].startswith((" ", "\t")):
        # A continuation of the prompt: the body ends where a line returns to column 0.
        end = next(
            (i for i in range(first + 1, len(lines)) if lines[i].strip() and not lines[i][0].isspace()),
            len(lines),
        )
        return "\n".join(lines[:end])
    starts = [i for i, ln in enumerate(lines) if _CODE_START.match(ln)]
    for start in starts[:20]:
        # Longest parsable span from this code line (trailing prose is trimmed line by line).
        for end in range(len(lines), max(start, len(lines) - _MAX_TRIM_LINES), -1):
            chunk = "\n".join(lines[start:end])
            if chunk.strip() and python_parses(chunk):
                return chunk
    return text[text.index(lines[starts[0]]) :] if starts else text


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    names = [p for p in parts if isinstance(p, ast.Name) and p.id == "__name__"]
    consts = [p for p in parts if isinstance(p, ast.Constant) and p.value == "__main__"]
    return bool(names and consts)


def _is_usage(node: ast.stmt, function_name: str | None) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    func = node.value.func
    called = func.id if isinstance(func, ast.Name) else None
    return called == "print" or (function_name is not None and called == function_name)


def _drop_scaffolding(code: str, function_name: str | None) -> str:
    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError):
        return code  # a continuation or broken code: leave it to the harness / the run to judge
    drop: set[int] = set()
    for node in tree.body:
        if _is_main_guard(node) or _is_usage(node, function_name):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            drop.update(range(start, (node.end_lineno or node.lineno) + 1))
    if not drop:
        return code
    kept = [ln for i, ln in enumerate(code.split("\n"), start=1) if i not in drop]
    return "\n".join(kept)


def _cut_body(head: str, body: str) -> str:
    """End a continuation at the first line indented no deeper than the ``def`` (like a stop string).

    A line that only looks dedented because it continues a multi-line string or bracket is
    skipped: the cut is taken at the first such line where the function so far parses.
    When no cut parses but the whole text does, nothing is cut; broken code never parses, and
    then the first dedented line is the cut.
    """
    first = next((ln for ln in head.splitlines() if ln.lstrip().startswith(("def ", "async "))), "")
    indent = len(first) - len(first.lstrip())
    lines = body.split("\n")
    cuts = [
        i
        for i, ln in enumerate(lines)
        if (i > 0 or head.endswith("\n"))
        and ln.strip()
        and len(ln) - len(ln.lstrip()) <= indent
        and not ln.lstrip().startswith((")", "]", "}"))
    ]
    wrapper = "if True:\n" if indent else ""  # lets an indented method parse on its own
    for i in cuts:
        if python_parses(wrapper + head + "\n".join(lines[:i])):
            return "\n".join(lines[:i])
    if not cuts or python_parses(wrapper + head + body):
        return body
    return "\n".join(lines[: cuts[0]])


class PythonRunner(LanguageRunner):
    name = "python"
    fence_tags = frozenset({"python", "py", "python3", "py3", "ipython"})
    task_prefix = "py"
    comment = "#"
    block_open = ":"
    empty_body = "pass"
    compile_error_re = re.compile(r"(SyntaxError|IndentationError|TabError)\b")
    canary_source = 'print("biocoder canary ok")\n'
    control_escape = "\\x{:02x}"
    hooks = {
        "mutants": "biocoder_metric.validity.mutation:python_mutants",
        "heldout_mutants": "biocoder_metric.validity.heldout_mutants:python_heldout_mutants",
        "null_candidates": "biocoder_metric.execution.strength:python_null_candidates",
        "wrapped_candidates": "biocoder_metric.execution.strength:python_wrapped_candidates",
        "synthesize": "biocoder_metric.synth.pipeline:python_candidates",
        "extract": "biocoder_metric.build.extract_python:extract",
        "scaffolding": "biocoder_metric.build.scaffolding:PYTHON_RULES",
    }
    attribute_separator = ","
    siblings_by_repository = True

    def raised_exceptions(self, code: str) -> frozenset[str]:
        try:
            tree = pyast.parse(textwrap.dedent(code))
        except SyntaxError:
            return frozenset(re.findall(r"\braise\s+(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)", code))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise):
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc  # raise X(...) / raise X
                if isinstance(exc, ast.Name):
                    names.add(exc.id)
                elif isinstance(exc, ast.Attribute):
                    names.add(exc.attr)
        return frozenset(names)

    def strip_comments(self, code: str) -> str:
        return _PY_COMMENT.sub(" ", _PY_DOCSTRING.sub(" ", code))

    def own_packages(self, rec: dict[str, Any]) -> set[str]:
        pkg = str(rec.get("packageName") or "")
        out = {pkg.split(".")[0]} if pkg else set()
        add = rec.get("additionalImports")
        if isinstance(add, dict):
            out.update(str(v).split(".")[0] for v in add.values() if v)
        return out

    def same_function(self, a: str, b: str) -> bool:
        """Same AST, docstrings aside."""
        da, db = _without_docstrings(a), _without_docstrings(b)
        return da is not None and da == db

    def defines_function(self, code: str, function_name: str) -> bool:
        name = re.escape(function_name)
        return re.search(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{name}[ \t]*\(", code, re.M) is not None

    def definition_header(self, function_name: str) -> re.Pattern[str]:
        name = re.escape(function_name)
        return re.compile(rf"^[ \t]*(?:@.*\n[ \t]*)*(?:async[ \t]+)?def[ \t]+{name}[ \t]*\(", re.M)

    def strip_prose(self, text: str) -> str:
        return _strip_prose(text)

    def clean(self, code: str, function_name: str | None) -> str:
        return _drop_scaffolding(code, function_name)

    def join_continuation(self, head: str, text: str) -> str:
        return head + _cut_body(head, text)

    def nest_body(self, signature: str, body: str) -> str:
        # Tokenizers often strip the first line's indentation; re-nest the body under the signature.
        inner = re.match(r"[ \t]*", signature).group(0) + "    "
        lines = body.splitlines()
        if not lines[0].startswith((" ", "\t")):
            if any(ln.startswith((" ", "\t")) for ln in lines[1:] if ln.strip()):
                lines[0] = inner + lines[0]
            else:
                lines = [inner + ln if ln.strip() else ln for ln in lines]
        return "\n".join(lines)
