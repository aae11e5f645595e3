"""Java block structure from text: the one brace scanner of the project.

Prompt building (:mod:`biocoder_dataset.prompts`) and the engine (``biocoder_metric``:
post-processing, candidate assembly, the validity audit) all find Java blocks with
:func:`java_braces`, so a brace inside a string, a char literal, a comment or a text block
is skipped the same way everywhere. It lives here, in the lower layer, because
``biocoder_dataset`` must not import ``biocoder_metric``.
"""

from __future__ import annotations

from collections.abc import Iterator


def java_braces(code: str) -> Iterator[tuple[int, int]]:
    """Yield ``(index, depth_after)`` for each ``{`` / ``}`` outside strings, chars, comments and text blocks.

    Depth never goes below 0, so a stray closing brace cannot shift everything after it
    (it is yielded with depth 0, like the brace that closes a top-level block).
    """
    depth, i, n = 0, 0, len(code)
    while i < n:
        ch = code[i]
        if code.startswith("//", i):
            i = code.find("\n", i)
            i = n if i < 0 else i
            continue
        if code.startswith("/*", i):
            j = code.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch in "\"'":
            if code.startswith('"""', i):  # text block
                j = code.find('"""', i + 3)
                i = n if j < 0 else j + 3
                continue
            j = i + 1
            while j < n and code[j] != ch and code[j] != "\n":
                j += 2 if code[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "{":
            depth += 1
            yield i, depth
        elif ch == "}":
            depth = max(depth - 1, 0)
            yield i, depth
        i += 1


def block_end(code: str, start: int = 0) -> int | None:
    """Index just past the ``}`` that closes the first block opening at or after ``start``.

    ``None`` when no block opens there or it is never closed. ``start`` must not be inside a
    string or comment (scanning begins there).
    """
    opened = False
    for i, depth in java_braces(code[start:]):
        if code[start + i] == "{":
            opened = True
        elif opened and depth == 0:
            return start + i + 1
    return None


def enclosing_block_end(code: str) -> int | None:
    """Index of the first ``}`` that closes a block opened before ``code`` starts, or ``None``.

    For text that begins inside a class body: where the members end.
    """
    before = 0
    for i, depth in java_braces(code):
        if code[i] == "}" and before == 0:
            return i
        before = depth
    return None


def java_mask(code: str) -> str:
    """``code`` with the inside of comments, string, char and text-block literals blanked.

    Same length and same line breaks, so a regex over the mask finds operators only in code
    and its offsets apply to the original text.
    """
    out = list(code)
    i, n = 0, len(code)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if code.startswith("//", i):
            j = code.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
            continue
        if code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
            continue
        ch = code[i]
        if ch in "\"'":
            if code.startswith('"""', i):
                j = code.find('"""', i + 3)
                j = n if j < 0 else j + 3
                blank(i + 1, j - 1)
                i = j
                continue
            j = i + 1
            while j < n and code[j] != ch and code[j] != "\n":
                j += 2 if code[j] == "\\" else 1
            blank(i + 1, j)  # keep the quotes, so "next to a string" stays visible
            i = j + 1
            continue
        i += 1
    return "".join(out)
