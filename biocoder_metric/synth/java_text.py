"""Bracket matching over masked Java text (strings and comments blanked by ``java_mask``).

Shared by the stub builder (``java_stubs``) and the input relations (``java_relations``); it
lives apart because ``java_stubs`` imports ``java_harness``, which imports ``java_relations``.
"""

from __future__ import annotations


def matching_close(mask: str, open_at: int, pair: str = "()") -> int:
    """The index of the bracket that closes the one at ``open_at`` (``pair``: ``"()"``, ``"{}"``
    or ``"[]"``), or -1 when it never closes."""
    opening, closing = pair
    depth = 0
    for i in range(open_at, len(mask)):
        c = mask[i]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def paren_end(mask: str, open_at: int) -> int:
    """The index just past the ``)`` closing the ``(`` at ``open_at`` (the text's end if none)."""
    close = matching_close(mask, open_at, "()")
    return len(mask) if close < 0 else close + 1


def statement_end(mask: str, start: int) -> int:
    """The index past the statement or block starting at ``start`` (a loop's body)."""
    i = start
    while i < len(mask) and mask[i].isspace():
        i += 1
    if i < len(mask) and mask[i] == "{":
        close = matching_close(mask, i, "{}")
        return len(mask) if close < 0 else close + 1
    depth = 0
    for j in range(i, len(mask)):
        c = mask[j]
        depth += {"(": 1, ")": -1, "{": 1, "}": -1}.get(c, 0)
        if c == ";" and depth == 0:
            return j + 1
    return len(mask)
