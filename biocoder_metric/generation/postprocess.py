"""Extract the candidate program from a model's raw answer. Never executes anything.

Models answer in many shapes: a bare function, a prompt continuation (an indented
body), a chat reply with prose around one or several fenced blocks, a whole Java
class where the harness wants methods. :func:`extract_code` turns each into the text
the harness inserts at ``<<insert solution here>>``. The raw answer is always kept
in the results (``SampleResult.completion``), so every decision here can be audited.

Rules, in order:

1. Newlines are normalised (``\\r\\n`` -> ``\\n``).
2. Fenced blocks (```` ```python ````, ```` ```java ````, bare ```` ``` ````; an unterminated
   last fence runs to the end): blocks tagged with another language are ignored when a
   matching or untagged block exists; among the rest the first block that defines
   ``function_name`` wins, else the longest.
3. No fences: leading and trailing prose is cut (Python: the longest span starting at
   a code line that parses; Java: from the first member/import line to the last ``}``).
   A prompt continuation (first code line indented) ends at the first line back at
   column 0, like Codex-style stop sequences.
4. ``stop`` strings cut the extracted code at their first occurrence.
5. Python that parses loses its test scaffolding: top-level ``if __name__ ==
   "__main__":`` blocks, asserts and bare calls of ``print`` or of the target function
   (example usage that would add output to the harness's).
6. Java: ``package`` lines are dropped; a class wrapper around the target method is
   unwrapped to its members (the harness already declares the class).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from biocoder_dataset.java_source import java_braces

_FENCE_RE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.S | re.M)
_LANG_TAGS = {
    "python": {"python", "py", "python3", "py3", "ipython"},
    "java": {"java"},
}
_PY_CODE_START = re.compile(r"^(?:import\s|from\s+\S+\s+import\s|def\s|async\s+def\s|class\s|@)")
_JAVA_CODE_START = re.compile(
    r"^\s*(?:import\s|package\s|public\s|private\s|protected\s|static\s|final\s|abstract\s|synchronized\s|@|/\*\*|class\s|"
    r"[\w<>\[\],.?]+\s+\w+\s*\()"
)
_MAX_TRIM_LINES = 400


def extract_code(raw: str, language: str, function_name: str | None = None, stop: Sequence[str] = ()) -> str:
    """The code to insert for one raw model answer (see the module docstring for the rules)."""
    if language not in _LANG_TAGS:
        raise ValueError(f"unknown language {language!r} (expected python or java)")
    text = (raw or "").replace("\r\n", "\n").replace("\r", "\n")
    blocks = _fenced_blocks(text)
    if blocks:
        code = _choose_block(blocks, language, function_name)
    else:
        code = _strip_prose_python(text) if language == "python" else _strip_prose_java(text)
    for s in stop:
        if s and s in code:
            code = code[: code.index(s)]
    if language == "python":
        code = _drop_python_scaffolding(code, function_name)
    else:
        code = _clean_java(code, function_name)
    return code.strip("\n") + "\n" if code.strip() else ""


# ---------------------------------------------------------------------------- fences


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE_RE.finditer(text) if m.group(2).strip()]


def _choose_block(blocks: list[tuple[str, str]], language: str, function_name: str | None) -> str:
    ours = [code for tag, code in blocks if tag in _LANG_TAGS[language] or tag == ""]
    pool = ours or [code for _, code in blocks]
    if function_name:
        for code in pool:
            if _defines(code, function_name, language):
                return code
    return max(pool, key=len)


def defines_function(code: str, function_name: str, language: str) -> bool:
    """Whether ``code`` contains a definition (not just a call) of ``function_name``."""
    name = re.escape(function_name)
    if language == "python":
        return re.search(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{name}[ \t]*\(", code, re.M) is not None
    # Java: at least one modifier/type token before the name, a parameter list, then '{'.
    pattern = rf"^[ \t]*(?:[\w@<>\[\],.?]+[ \t]+)+{name}[ \t]*\([^)]*\)\s*(?:throws\s+[\w.,\s]+?)?\s*\{{"
    return re.search(pattern, code, re.M) is not None


_defines = defines_function


# ---------------------------------------------------------------------------- prose


def python_parses(code: str) -> bool:
    """Whether ``code`` is syntactically valid Python (compiles to an AST; nothing runs)."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _strip_prose_python(text: str) -> str:
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
    starts = [i for i, ln in enumerate(lines) if _PY_CODE_START.match(ln)]
    for start in starts[:20]:
        # Longest parsable span from this code line (trailing prose is trimmed line by line).
        for end in range(len(lines), max(start, len(lines) - _MAX_TRIM_LINES), -1):
            chunk = "\n".join(lines[start:end])
            if chunk.strip() and python_parses(chunk):
                return chunk
    return text[text.index(lines[starts[0]]) :] if starts else text


def _strip_prose_java(text: str) -> str:
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if _JAVA_CODE_START.match(ln)), None)
    if start is None:
        return text
    body = "\n".join(lines[start:])
    last = body.rfind("}")
    return body[: last + 1] if last >= 0 else body


# ---------------------------------------------------------------------------- python clean-up


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


def _drop_python_scaffolding(code: str, function_name: str | None) -> str:
    try:
        tree = ast.parse(code)
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


# ---------------------------------------------------------------------------- java clean-up


def _java_blocks(code: str):
    """Yield (open_index, close_index) of top-level brace pairs."""
    open_at = -1
    for i, depth in java_braces(code):
        if code[i] == "{" and depth == 1:
            open_at = i
        elif code[i] == "}" and depth == 0 and open_at >= 0:
            yield open_at, i
            open_at = -1


def _clean_java(code: str, function_name: str | None) -> str:
    code = re.sub(r"^[ \t]*package\s+[\w.]+\s*;[ \t]*\n?", "", code, flags=re.M)
    header = re.search(r"^[ \t]*(?:public\s+|final\s+|abstract\s+)*class\s+\w+[^{;]*\{", code, re.M)
    if header and function_name:
        for open_at, close_at in _java_blocks(code):
            if open_at == header.end() - 1:
                members = code[open_at + 1 : close_at]
                if _defines(members, function_name, "java"):
                    imports = "".join(
                        m.group(0)
                        for m in re.finditer(
                            r"^[ \t]*import\s+[\w.*\s]+;[ \t]*\n", code[: header.start()], re.M
                        )
                    )
                    return imports + members.strip("\n")
                break
    return code
