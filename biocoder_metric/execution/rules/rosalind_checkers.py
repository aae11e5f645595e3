"""Rosalind answers judged by Rosalind's rules (``--rosalind-check rosalind``, the default).

Upstream's tester compares the printed answer with one stored answer, exactly. That fails
correct solutions: a probability printed as ``0.7860`` for ``0.7859951603145796``, another
valid index pair for 2SUM, another longest common substring. Each checker here takes
``(actual, expected, input_text)`` and implements one rule from a problem statement; which
problem gets which is in :mod:`biocoder_metric.execution.rules.rosalind_rules`. Verifiers check
the answer *against the input* (is it a subsequence? do the indices hold?) and use the
stored answer only for what every valid answer shares (its length, the -1 cases).

``--rosalind-check exact`` reproduces upstream: stripped text equality for every problem.
A checker never raises on a malformed answer; it returns False (the answer is wrong).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from biocoder_metric.execution.rules.rosalind_rules import EXACT, rule_for

MODES = ("rosalind", "exact")

Checker = Callable[..., bool]


def exact(actual: str, expected: str, input_text: str = "") -> bool:
    """Upstream's rule: the stripped texts are equal."""
    return actual.strip() == expected.strip()


# ---------------------------------------------------------------------------- parsing helpers


def _fasta(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(">"):
            out.append((line[1:].strip(), ""))
        elif line and out:
            out[-1] = (out[-1][0], out[-1][1] + line)
    return out


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split()]


def _lines(text: str) -> list[str]:
    return [" ".join(ln.split()) for ln in text.strip().splitlines() if ln.strip()]


def _is_subsequence(small: str | list, big: str | list) -> bool:
    it = iter(big)
    return all(any(c == d for d in it) for c in small)


def _float(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------------------- checkers


def numeric(
    actual: str,
    expected: str,
    input_text: str = "",
    abs_tol: float | None = None,
    rel_tol: float | None = None,
) -> bool:
    """Token by token: numbers within the tolerance, any other token exactly equal.

    Whitespace between tokens is free (Rosalind reads numbers, not layout); the number of
    tokens must match.
    """
    a, e = actual.split(), expected.split()
    if len(a) != len(e):
        return False
    for x, y in zip(a, e, strict=True):
        fy = _float(y)
        if fy is None:
            if x != y:
                return False
            continue
        fx = _float(x)
        if fx is None:
            return False
        if rel_tol is not None:
            if abs(fx - fy) > rel_tol * abs(fy) + 1e-300:
                return False
        elif abs(fx - fy) > (abs_tol if abs_tol is not None else 0.001) + 1e-12:
            return False
    return True


def lines_any_order(actual: str, expected: str, input_text: str = "") -> bool:
    """The same lines (inner whitespace normalised), in any order, as a multiset."""
    return Counter(_lines(actual)) == Counter(_lines(expected))


def count_then_lines_any_order(actual: str, expected: str, input_text: str = "") -> bool:
    """A count on the first line, then lines in any order (PERM, SIGN)."""
    a, e = _lines(actual), _lines(expected)
    return bool(a) and bool(e) and a[0] == e[0] and Counter(a[1:]) == Counter(e[1:])


def tokens_any_order(actual: str, expected: str, input_text: str = "") -> bool:
    """The same whitespace-separated tokens, in any order."""
    return Counter(actual.split()) == Counter(expected.split())


def two_sum(actual: str, expected: str, input_text: str) -> bool:
    """2SUM: per array, ``p q`` with 1 <= p < q <= n and A[p] = -A[q], or ``-1`` when none exists."""
    lines = [ln for ln in input_text.strip().splitlines() if ln.strip()]
    k, n = _ints(lines[0])[:2]
    arrays = [_ints(ln) for ln in lines[1 : 1 + k]]
    answers, wants = _lines(actual), _lines(expected)
    if len(answers) != len(arrays) or len(wants) != len(arrays):
        return False
    for arr, ans, want in zip(arrays, answers, wants, strict=True):
        try:
            got = [int(t) for t in ans.split()]
        except ValueError:
            return False
        if got == [-1]:
            if want != "-1":
                return False
            continue
        if want == "-1" or len(got) != 2:
            return False
        p, q = got
        if not (1 <= p < q <= len(arr)) or arr[p - 1] != -arr[q - 1]:
            return False
    return True


def longest_common_substring(actual: str, expected: str, input_text: str) -> bool:
    """LCSM: as long as the stored answer and a substring of every input string."""
    cand = actual.strip()
    seqs = [s for _, s in _fasta(input_text)]
    return len(cand) == len(expected.strip()) and all(cand in s for s in seqs)


def longest_common_subsequence(actual: str, expected: str, input_text: str) -> bool:
    """LCSQ: as long as the stored answer and a subsequence of both input strings."""
    cand = actual.strip()
    seqs = [s for _, s in _fasta(input_text)]
    return (
        len(seqs) == 2 and len(cand) == len(expected.strip()) and all(_is_subsequence(cand, s) for s in seqs)
    )


def spliced_motif(actual: str, expected: str, input_text: str) -> bool:
    """SSEQ: increasing 1-based indices of s at which the symbols of t appear."""
    seqs = [s for _, s in _fasta(input_text)]
    if len(seqs) != 2:
        return False
    s, t = seqs
    try:
        idx = _ints(actual)
    except ValueError:
        return False
    return (
        len(idx) == len(t)
        and all(1 <= i <= len(s) for i in idx)
        and all(a < b for a, b in pairwise(idx))
        and all(s[i - 1] == c for i, c in zip(idx, t, strict=True))
    )


def increasing_subsequences(actual: str, expected: str, input_text: str) -> bool:
    """LGIS: a longest increasing then a longest decreasing subsequence of the permutation."""
    nums = _ints(input_text)
    perm = nums[1 : 1 + nums[0]]
    try:
        got = [_ints(ln) for ln in _lines(actual)]
    except ValueError:
        return False
    want = [_ints(ln) for ln in _lines(expected)]
    if len(got) != 2 or len(want) != 2:
        return False
    inc, dec = got
    return (
        len(inc) == len(want[0])
        and len(dec) == len(want[1])
        and all(a < b for a, b in pairwise(inc))
        and all(a > b for a, b in pairwise(dec))
        and _is_subsequence(inc, perm)
        and _is_subsequence(dec, perm)
    )


def shortest_common_supersequence(actual: str, expected: str, input_text: str) -> bool:
    """SCSP: as short as the stored answer, with both input strings as subsequences."""
    cand = actual.strip()
    s, t = (input_text.split() + ["", ""])[:2]
    return len(cand) == len(expected.strip()) and _is_subsequence(s, cand) and _is_subsequence(t, cand)


def shortest_superstring(actual: str, expected: str, input_text: str) -> bool:
    """LONG: no longer than the stored answer and containing every read."""
    cand = actual.strip()
    reads = [s for _, s in _fasta(input_text)]
    return bool(cand) and len(cand) <= len(expected.strip()) and all(r in cand for r in reads)


def topological_sort(actual: str, expected: str, input_text: str) -> bool:
    """TS: a permutation of the vertices 1..n in which every edge u -> v has u before v."""
    nums = _ints(input_text)
    n, m = nums[0], nums[1]
    edges = list(zip(nums[2 : 2 + 2 * m : 2], nums[3 : 3 + 2 * m : 2], strict=True))
    try:
        order = _ints(actual)
    except ValueError:
        return False
    if sorted(order) != list(range(1, n + 1)):
        return False
    pos = {v: i for i, v in enumerate(order)}
    return all(pos[u] < pos[v] for u, v in edges)


def _array_input(input_text: str) -> list[int]:
    nums = _ints(input_text)
    return nums[1 : 1 + nums[0]]


def max_heap(actual: str, expected: str, input_text: str) -> bool:
    """HEA: a permutation of the input with B[i] >= both children (0-based 2i+1, 2i+2)."""
    arr = _array_input(input_text)
    try:
        b = _ints(actual)
    except ValueError:
        return False
    return Counter(b) == Counter(arr) and all(
        b[i] >= b[c] for i in range(len(b)) for c in (2 * i + 1, 2 * i + 2) if c < len(b)
    )


def _permutation_of_input(actual: str, input_text: str) -> tuple[list[int], list[int]] | None:
    """(input array A, answer B) when B is a permutation of a non-empty A, else None."""
    arr = _array_input(input_text)
    try:
        b = _ints(actual)
    except ValueError:
        return None
    return (arr, b) if arr and Counter(b) == Counter(arr) else None


def partition2(actual: str, expected: str, input_text: str) -> bool:
    """PAR: a permutation of A with a position q: B[q] = A[1], all before <= A[1], all after > A[1]."""
    got = _permutation_of_input(actual, input_text)
    if got is None:
        return False
    arr, b = got
    pivot = arr[0]
    prefix_max = -math.inf
    suffix_min = [math.inf] * (len(b) + 1)
    for i in range(len(b) - 1, -1, -1):
        suffix_min[i] = min(suffix_min[i + 1], b[i])
    for q, value in enumerate(b):
        if value == pivot and prefix_max <= pivot and suffix_min[q + 1] > pivot:
            return True
        prefix_max = max(prefix_max, value)
    return False


def partition3(actual: str, expected: str, input_text: str) -> bool:
    """PAR3: a permutation of A: the values below A[1], then those equal, then those above."""
    got = _permutation_of_input(actual, input_text)
    if got is None:
        return False
    arr, b = got
    signs = [(v > arr[0]) - (v < arr[0]) for v in b]
    return all(x <= y for x, y in pairwise(signs))


def consensus(actual: str, expected: str, input_text: str) -> bool:
    """CONS: the profile lines exactly; the consensus any string of per-column most frequent symbols."""
    a, e = _lines(actual), _lines(expected)
    if len(a) != len(e) or not a or a[1:] != e[1:]:
        return False
    profile = {}
    for line in e[1:]:
        symbol, _, counts = line.partition(":")
        profile[symbol.strip()] = _ints(counts)
    cand = a[0]
    if not profile or len(cand) != len(next(iter(profile.values()))):
        return False
    for j, ch in enumerate(cand):
        best = max(counts[j] for counts in profile.values())
        if ch not in profile or profile[ch][j] != best:
            return False
    return True


CHECKERS: dict[str, Checker] = {
    "exact": exact,
    "numeric": numeric,
    "lines_any_order": lines_any_order,
    "count_then_lines_any_order": count_then_lines_any_order,
    "tokens_any_order": tokens_any_order,
    "two_sum": two_sum,
    "longest_common_substring": longest_common_substring,
    "longest_common_subsequence": longest_common_subsequence,
    "spliced_motif": spliced_motif,
    "increasing_subsequences": increasing_subsequences,
    "shortest_common_supersequence": shortest_common_supersequence,
    "shortest_superstring": shortest_superstring,
    "topological_sort": topological_sort,
    "max_heap": max_heap,
    "partition2": partition2,
    "partition3": partition3,
    "consensus": consensus,
}


def problem_id(row: dict[str, Any]) -> str | None:
    """The Rosalind problem id of a row: ``metadata.problem_id``, else the task id after ``[demo_]rosalind_``."""
    import json

    meta = row.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    if isinstance(meta, dict) and isinstance(meta.get("problem_id"), str):
        return meta["problem_id"]
    task_id = row.get("task_id") or ""
    for prefix in ("rosalind_", "demo_rosalind_"):  # the config's ids, and the demo config's
        if task_id.startswith(prefix):
            return task_id[len(prefix) :]
    return None


def comparator(row: dict[str, Any], mode: str = "rosalind") -> tuple[str, Callable[[str, str], bool]]:
    """(checker name, compare(actual, expected)) for a Rosalind row under ``mode``.

    ``exact`` always gives upstream's rule. Under ``rosalind`` a problem's checker is used
    when the table has one; if that checker cannot even read the task's own input (a
    malformed or unexpected input file), the answer falls back to ``exact`` for that call
    rather than being failed for the checker's sake.
    """
    if mode not in MODES:
        raise ValueError(f"rosalind_check must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "exact":
        return EXACT, exact
    name, params, _source = rule_for(problem_id(row))
    fn = CHECKERS[name]
    input_text = row.get("test_input") or ""

    def compare(actual: str, expected: str) -> bool:
        if exact(actual, expected):
            return True  # the stored answer is always a valid one
        try:
            return bool(fn(actual, expected, input_text, **params))
        except (ValueError, IndexError, KeyError, TypeError):
            return False

    return name, compare
