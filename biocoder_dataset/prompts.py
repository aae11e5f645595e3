"""Prompt text for a task row: a pure function of the row, no tokenizer, no model.

Styles (:data:`STYLES`):

``summary_only``
    A plain completion prompt: the function header and its description (docstring /
    Javadoc) only. It ends right where the body starts, so a base model continues with
    the body. The full candidate is ``completion_prefix(row) + completion``.
``full_context``
    The same ending, preceded by the code the function lives in: for harness tasks the
    context program up to the insertion point (imports, globals, classes, helper
    functions) with the fuzzing ``main()`` driver removed and fuzz placeholders replaced
    by ``...``; for the Java metadata configs a class skeleton built from upstream's
    declarations of the classes and members the method uses. Tasks without context get
    the ``summary_only`` text.
``instruct``
    One chat/instruction message asking for the complete function in a fenced code block
    (with the context, when there is any).

Rosalind rows ask for ``def solve(input_text: str) -> str``. No style ever includes the
golden code: the header comes from ``signature`` and the text from ``comment``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import PurePosixPath
from typing import Any

from biocoder_dataset.java_source import block_end, enclosing_block_end

STYLES: tuple[str, ...] = ("summary_only", "full_context", "instruct")
#: The line of a harness context where the function under test goes.
INSERT_MARKER = "<<insert solution here>>"
ROSALIND_SIGNATURE = "def solve(input_text: str) -> str"
_PLACEHOLDER = re.compile(r"<\|.*?\|>")
_PY_DRIVER = re.compile(r"^(?:def\s+main\s*\(|if\s+__name__\s*==)")
_FENCE = {"python": "python", "java": "java"}


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(row.get("metadata") or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def description(row: dict[str, Any]) -> str | None:
    """The natural-language description of the function: its comment, else upstream's summary."""
    if row.get("comment"):
        text = row["comment"]
        if row.get("language") == "java":
            from biocoder_dataset.normalize import strip_java_comment

            text = strip_java_comment(text) or ""
        return text.strip() or None
    summary = _meta(row).get("summary")
    return summary.strip() if isinstance(summary, str) and summary.strip() else None


def _signature(row: dict[str, Any]) -> str:
    if row.get("kind") == "rosalind":
        return ROSALIND_SIGNATURE
    sig = (row.get("signature") or "").strip()
    if not sig:
        name = row.get("function_name") or "solution"
        sig = f"def {name}()" if row.get("language") == "python" else f"public void {name}()"
    return sig


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + ln if ln.strip() else "" for ln in text.splitlines())


def _javadoc(comment: str, indent: str) -> str:
    """Re-indent an upstream Javadoc block (upstream keeps the file's tabs/indentation)."""
    comment = comment.strip()
    if not comment.startswith("/*"):  # plain text (e.g. the demo tasks): wrap it
        return "\n".join(
            [indent + "/**"]
            + [indent + (" * " + ln).rstrip() for ln in comment.splitlines()]
            + [indent + " */"]
        )
    lines = [ln.strip() for ln in comment.splitlines()]
    out = [lines[0]] + [(" " + ln if ln.startswith("*") else " * " + ln) for ln in lines[1:]]
    return "\n".join(indent + ln for ln in out)


def completion_prefix(row: dict[str, Any], indent: str = "") -> str:
    """The function header (+ description) that every completion prompt ends with.

    A completion-style candidate is this text followed by the model's continuation.
    """
    sig = _signature(row)
    if row.get("language") == "java":
        head = ""
        if row.get("comment"):
            head = _javadoc(row["comment"], indent) + "\n"
        sig_lines = sig.rstrip().rstrip("{").rstrip().splitlines()
        return head + "\n".join(indent + ln.strip() for ln in sig_lines) + " {\n"
    header = sig.rstrip()
    if not header.endswith(":"):
        header += ":"
    text = _indent(header, indent) + "\n"
    desc = description(row)
    if desc:
        desc = desc.replace('"""', r"\"\"\"")
        body = _indent(desc, indent + "    ")
        text += (
            f'{indent}    """{body.lstrip()}\n{indent}    """\n'
            if "\n" in desc
            else f'{indent}    """{desc}"""\n'
        )
    return text


# -- context extraction --------------------------------------------------------------------------
def _insert_index(lines: list[str]) -> int:
    for i, ln in enumerate(lines):
        if ln.strip() == INSERT_MARKER:
            return i
    raise ValueError(f"harness context has no line {INSERT_MARKER!r}")


def python_context(context: str) -> tuple[str, str]:
    """(code shown before the function, indentation of the insertion point) for a Python harness.

    Top-level definitions that follow the insertion point (helpers, stub classes) are kept and
    moved before it; the test driver (``def main()`` and the ``__main__`` guard) is dropped.
    """
    lines = context.splitlines()
    idx = _insert_index(lines)
    indent = lines[idx][: len(lines[idx]) - len(lines[idx].lstrip())]
    before, after = lines[:idx], lines[idx + 1 :]
    members: list[str] = []  # rest of an enclosing class body after the insertion point
    while after and (not after[0].strip() or after[0][0].isspace()):
        members.append(after.pop(0))
    blocks: list[list[str]] = []
    for ln in after:
        starts_block = ln.strip() and not ln[0].isspace() and not ln.lstrip().startswith((")", "]", "}"))
        if starts_block or not blocks:
            blocks.append([ln])
        else:
            blocks[-1].append(ln)
    kept = [ln for b in blocks if not _PY_DRIVER.match(b[0]) for ln in b]
    if indent:
        # inside a class: members after the insertion point stay in the class; top-level helpers
        # go before the enclosing class, whose first line is the last unindented line before it.
        starts = [i for i, ln in enumerate(before) if ln.strip() and not ln[0].isspace()]
        at = starts[-1] if starts else 0
        before = before[:at] + kept + before[at:] + [m for m in members if m.strip()]
    else:
        before = before + kept
    text = "\n".join(ln.rstrip() for ln in before).strip("\n")
    return _PLACEHOLDER.sub("...", text), indent


def java_context(context: str) -> tuple[str, str]:
    """(code shown before the method, indentation) for a Java harness; ``main`` is dropped."""
    lines = context.splitlines()
    idx = _insert_index(lines)
    indent = lines[idx][: len(lines[idx]) - len(lines[idx].lstrip())]
    before = "\n".join(lines[:idx])
    after = "\n".join(lines[idx + 1 :])
    end = enclosing_block_end(after)  # members of the enclosing class: up to the brace that closes it
    members = after if end is None else after[:end]
    m = re.search(r"(?:public\s+)?static\s+void\s+main\s*\(", members)
    if m:
        start = members.rfind("\n", 0, m.start()) + 1
        members = members[:start] + members[block_end(members, m.start()) or len(members) :]
    text = before.rstrip() + ("\n" + members.strip("\n") if members.strip() else "")
    return _PLACEHOLDER.sub("...", text.rstrip()), indent


def _java_skeleton(row: dict[str, Any]) -> tuple[str, str] | None:
    """Class skeleton from upstream's Java metadata (imports' declarations, members used)."""
    meta = _meta(row)
    parts: list[str] = []
    if meta.get("package_name"):
        parts.append(f"package {meta['package_name']};\n")
    imports = meta.get("imports") if isinstance(meta.get("imports"), list) else []  # d1c922e: a count
    decls = [
        i["methodsOnly"] for i in imports if isinstance(i, dict) and isinstance(i.get("methodsOnly"), str)
    ]
    extra = meta.get("additionalImports")
    if isinstance(extra, str):
        try:
            extra = ast.literal_eval(extra)
        except (ValueError, SyntaxError):
            extra = {"": extra}
    if isinstance(extra, dict):
        decls += [v for v in extra.values() if isinstance(v, str) and v.strip()]
    if decls:
        parts.append("// Declarations of other classes this method uses:")
        parts += [d.rstrip() + "\n" for d in decls]
    fields = meta.get("intraClassFieldsUsed")
    fields = fields if isinstance(fields, str) else ""
    if not (parts or fields.strip()):
        return None
    cls = PurePosixPath(row.get("file_path") or "Main.java").stem or "Main"
    parts.append(f"public class {cls} {{")
    if isinstance(fields, str) and fields.strip():
        parts.append("    // Fields and methods of this class used by the method:")
        parts.append(_indent(fields.strip(), "    ") + "\n")
    return "\n".join(parts), "    "


def _context(row: dict[str, Any]) -> tuple[str, str] | None:
    """(context text, insertion indent) or None when the row has no context to show."""
    if row.get("kind") == "harness" and row.get("context"):
        return (
            python_context(row["context"])
            if row.get("language") == "python"
            else java_context(row["context"])
        )
    if row.get("language") == "java" and row.get("kind") != "rosalind":
        return _java_skeleton(row)
    return None


def rosalind_comment(problem_id: str, title: str | None) -> str:
    """The description stored in a Rosalind row's ``comment`` (the config builder uses it)."""
    name = f'"{title}"' if title else problem_id
    return (
        f"Solve the Rosalind problem {name} (https://rosalind.info/problems/{problem_id}/).\n\n"
        "`input_text` is the problem's dataset exactly as Rosalind provides it (the contents of\n"
        "the dataset file). Return the answer as Rosalind expects it, as text; it is compared\n"
        "with the expected output after strip()."
    )


def build_prompt(row: dict[str, Any], style: str) -> str:
    """The prompt text of ``row`` in ``style`` (one of :data:`STYLES`)."""
    if style not in STYLES:
        raise ValueError(f"unknown prompt style {style!r}; valid styles: {', '.join(STYLES)}")
    if style == "instruct":
        return _instruct(row)
    ctx = _context(row) if style == "full_context" else None
    if ctx is None:
        return completion_prefix(row)
    text, indent = ctx
    return text.rstrip() + "\n\n" + completion_prefix(row, indent)


def _instruct(row: dict[str, Any]) -> str:
    lang = row.get("language") or "python"
    fence = _FENCE.get(lang, lang)
    if row.get("kind") == "rosalind":
        msg = [
            f"Write a Python function with the signature `{ROSALIND_SIGNATURE}`.",
            "",
            description(row) or "",
            "",
            "Put any imports and helper functions it needs in the same code block.",
        ]
        msg += ["", "Reply with the complete code in a single ```python fenced code block."]
        return "\n".join(msg)
    kind = "method" if lang == "java" else "function"
    name = row.get("function_name") or "the function"
    msg = [f"Write the {lang.capitalize()} {kind} `{name}`.", ""]
    desc = description(row)
    msg += (
        [desc, ""]
        if desc
        else ["(Upstream gives no description: infer it from the signature and context.)", ""]
    )
    msg += ["Its signature:", f"```{fence}", _signature(row).rstrip().rstrip(":{").rstrip(), "```", ""]
    ctx = _context(row)
    if ctx is not None:
        text, _ = ctx
        msg += [
            f"It is part of this code (the {kind} goes where the code ends); use what it defines:",
            f"```{fence}",
            text.rstrip(),
            "```",
            "",
        ]
    msg.append(
        f"Reply with the complete {kind}, including its signature, in a single ```{fence} fenced code "
        f"block. Do not repeat the surrounding code and do not add tests or example usage."
    )
    return "\n".join(msg)
