"""Which Rosalind acceptance rule applies to which problem, and where that rule comes from.

Upstream BioCoder compares a Rosalind answer with one stored answer, exactly (after
``strip()``). Rosalind itself does not: its problem statements say when any one of several
answers is accepted and that decimal answers are accepted within an absolute error. This
table records, per problem id, the checker that implements the problem's own rule
(:mod:`biocoder_metric.execution.rules.rosalind_checkers`) and the sentence of the statement at
``https://rosalind.info/problems/<id>/`` it implements.

The statements could not be fetched when this table was written (no network), so
``source`` gives the rule as the statement words it, recalled, not a verbatim copy; the
decimal rule is the site-wide one the GC statement spells out. Problems not listed keep
``exact`` (upstream's rule) and are counted as "no checker yet" (:func:`coverage`).

Each entry: ``problem_id -> (checker, params, source)``.
"""

from __future__ import annotations

from typing import Any

_DECIMAL = (
    "site-wide rule, stated in GC ('Computing GC Content'): Rosalind allows for a default error of "
    "0.001 in all decimal answers unless otherwise stated"
)
_TINY = (
    "answers are probabilities far below 0.001 (e.g. 3.26e-21), where an absolute error of 0.001 would "
    "accept any small number; judged with a relative error of 0.001 instead (project choice, see docs/validity.md)"
)

#: problem id -> (checker name, parameters, where the rule comes from)
RULES: dict[str, tuple[str, dict[str, Any], str]] = {
    # -- decimal answers: numeric tokens within an absolute error, other tokens exact
    **{
        pid: ("numeric", {"abs_tol": 0.001}, _DECIMAL)
        for pid in (
            "lia",
            "mend",
            "prtm",
            "ba8c",
            "rstr",
            "ba10e",
            "pdst",
            "ebin",
            "eval",
            "conv",
            "iprb",
            "ba10h",
            "afrq",
            "need",
            "iev",
            "ba8d",
            "tran",
            "ba10k",
            "wfmd",
            "foun",
            "sexl",
            "prob",
            "ba10j",
            "indc",
            "gc",
            "ba8a",
            "ba10f",
            "ba8b",
            "ba10i",
            "ba11i",
        )
    },
    **{pid: ("numeric", {"rel_tol": 0.001}, _TINY) for pid in ("ba10a", "ba10b", "ba10d")},
    # -- any one of several valid answers: verified against the input
    "2sum": (
        "two_sum",
        {},
        "2SUM: 'If multiple solutions exist, you may output any one' (indices 1 <= p < q <= n "
        "with A[p] = -A[q], or -1)",
    ),
    "lcsm": (
        "longest_common_substring",
        {},
        "LCSM: 'A longest common substring of the collection. (If multiple "
        "solutions exist, you may return any single solution.)'",
    ),
    "lcsq": (
        "longest_common_subsequence",
        {},
        "LCSQ: 'A longest common subsequence of s and t. (If more than one "
        "solution exists, you may return any one.)'",
    ),
    "sseq": (
        "spliced_motif",
        {},
        "SSEQ: 'One collection of indices of s in which the symbols of t appear as a "
        "subsequence of s. If multiple solutions exist, you may return any one.'",
    ),
    "lgis": (
        "increasing_subsequences",
        {},
        "LGIS: 'A longest increasing subsequence of pi, followed by a longest "
        "decreasing subsequence of pi' (any longest one)",
    ),
    "scsp": (
        "shortest_common_supersequence",
        {},
        "SCSP: 'A shortest common supersequence of s and t. If multiple "
        "solutions exist, you may output any one.'",
    ),
    "long": (
        "shortest_superstring",
        {},
        "LONG: 'A shortest superstring containing all the given strings' (any shortest one)",
    ),
    "ts": (
        "topological_sort",
        {},
        "TS: 'A topological sorting (i.e., a permutation of vertices) of the graph' (any valid ordering)",
    ),
    "hea": (
        "max_heap",
        {},
        "HEA: 'A permuted array A satisfying the binary max heap property' (any such array)",
    ),
    "par": (
        "partition2",
        {},
        "PAR: 'A permuted array B[1..n] such that it is a permutation of A and there is an "
        "index 1 <= q <= n such that B[i] <= A[1] for i < q, B[q] = A[1], and B[i] > A[1] for i > q'",
    ),
    "par3": (
        "partition3",
        {},
        "PAR3: 'An array B[1..n] such that it is a permutation of A and there are indices "
        "1 <= q <= r <= n such that B[i] < A[1] for i < q, B[i] = A[1] for q <= i <= r, B[i] > A[1] for i > r'",
    ),
    "cons": (
        "consensus",
        {},
        "CONS: 'A consensus string and profile matrix for the collection. (If several "
        "possible consensus strings exist, then you may return any one of them.)'",
    ),
    # -- lists whose order the statement leaves free
    "perm": (
        "count_then_lines_any_order",
        {},
        "PERM: 'The total number of permutations of length n, followed by "
        "a list of all such permutations (in any order)'",
    ),
    "sign": (
        "count_then_lines_any_order",
        {},
        "SIGN: 'The total number of signed permutations of length n, "
        "followed by a list of all such permutations (you may list the signed permutations in any order)'",
    ),
    "orf": (
        "lines_any_order",
        {},
        "ORF: 'Every distinct candidate protein string that can be translated from "
        "ORFs of s. Strings can be returned in any order.'",
    ),
    "revp": (
        "lines_any_order",
        {},
        "REVP: 'The position and length of every reverse palindrome in s having "
        "length between 4 and 12. You may return these pairs in any order.'",
    ),
    "grph": (
        "lines_any_order",
        {},
        "GRPH: 'The adjacency list corresponding to O3. You may return edges in any order.'",
    ),
    "corr": (
        "lines_any_order",
        {},
        'CORR: \'A list of all corrections in the form "[old read]->[new read]". '
        "(Each correction must be a single symbol substitution, and you may return the corrections in any "
        "order.)'",
    ),
    "dbru": (
        "lines_any_order",
        {},
        "DBRU: 'The adjacency list corresponding to the de Bruijn graph' (edges in any order)",
    ),
    "ba1b": ("tokens_any_order", {}, "BA1B: 'All most frequent k-mers in Text' (in any order)"),
    "ba1i": (
        "tokens_any_order",
        {},
        "BA1I: 'All most frequent k-mers with up to d mismatches in Text' (in any order)",
    ),
}

EXACT = "exact"


def rule_for(problem_id: str | None) -> tuple[str, dict[str, Any], str | None]:
    """(checker, params, source) for a problem; ``("exact", {}, None)`` when it has no checker yet."""
    if problem_id is None or problem_id not in RULES:
        return EXACT, {}, None
    return RULES[problem_id]


def coverage(problem_ids: list[str]) -> dict[str, Any]:
    """How many of ``problem_ids`` have a Rosalind-rule checker, and which keep ``exact``."""
    checked = sorted(p for p in problem_ids if p in RULES)
    exact = sorted(p for p in problem_ids if p not in RULES)
    by_checker: dict[str, int] = {}
    for p in checked:
        by_checker[RULES[p][0]] = by_checker.get(RULES[p][0], 0) + 1
    return {
        "problems": len(problem_ids),
        "with_checker": len(checked),
        "exact": len(exact),
        "by_checker": dict(sorted(by_checker.items())),
        "exact_problems": exact,
    }
