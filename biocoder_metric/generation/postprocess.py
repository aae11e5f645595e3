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

The language-specific rules (3, 5, 6, the fence tags) are methods of the language's runner
(``biocoder_metric/languages/``); this module applies them in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from biocoder_metric.languages import runner

_FENCE_RE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.S | re.M)


def extract_code(raw: str, language: str, function_name: str | None = None, stop: Sequence[str] = ()) -> str:
    """The code to insert for one raw model answer (see the module docstring for the rules)."""
    lang = runner(language)  # an unknown language: UnknownLanguageError, a ValueError
    text = (raw or "").replace("\r\n", "\n").replace("\r", "\n")
    blocks = _fenced_blocks(text)
    if blocks:
        code = _choose_block(blocks, language, function_name)
    else:
        code = lang.strip_prose(text)
    for s in stop:
        if s and s in code:
            code = code[: code.index(s)]
    code = lang.clean(code, function_name)
    return code.strip("\n") + "\n" if code.strip() else ""


# ---------------------------------------------------------------------------- fences


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE_RE.finditer(text) if m.group(2).strip()]


def _choose_block(blocks: list[tuple[str, str]], language: str, function_name: str | None) -> str:
    tags = runner(language).fence_tags
    ours = [code for tag, code in blocks if tag in tags or tag == ""]
    pool = ours or [code for _, code in blocks]
    if function_name:
        for code in pool:
            if defines_function(code, function_name, language):
                return code
    return max(pool, key=len)


def defines_function(code: str, function_name: str, language: str) -> bool:
    """Whether ``code`` contains a definition (not just a call) of ``function_name``."""
    return runner(language).defines_function(code, function_name)
