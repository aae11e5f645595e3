"""``--plus``: a stronger test per harness task, reported as its own headline (like evalplus).

The normal test fills each fuzz placeholder with seeded random values, ``fuzz_cases`` times.
Random values rarely hit the edges where code breaks: a range bound, zero, an empty or a
long string. Plus mode adds, per task,

* **edge cases**: every placeholder at once at its low edge, at its high edge, at zero /
  empty; then each placeholder alone at each of its edges with the others random;
* **more random cases**: another ``fuzz_cases`` seeded cases (case numbers after the base
  ones, so the base cases are unchanged).

Edge values per placeholder type (grammar in :mod:`biocoder_metric.execution.harness`):

=========  ===================================================================
``int``    range bounds ``lo``, ``hi``; ``0`` when inside the range
``float``  range bounds; ``0.0`` when inside the range
``string`` with ``length=a,b``: a string of length ``a`` and one of length ``b``;
           without ``length``: the empty string and a 100-character string
``bool``   both values
=========  ===================================================================

An edge value can be outside what the function was written for. As in evalplus, a plus
case counts only where the *golden* runs cleanly and deterministically on it; the engine
drops the others (and reports how many), so plus mode never blames a candidate for an
input the reference itself rejects.
"""

from __future__ import annotations

import random
from typing import Any

from biocoder_metric.execution import harness
from biocoder_metric.languages import runner

#: Length of the "long string" edge value for a ``<|string|>`` without ``length=``.
LONG_STRING = 100
#: At most this many edge cases per task (the all-at-once ones come first).
MAX_EDGE_CASES = 24


def edge_values(ph: harness.Placeholder, language: str, rng: random.Random) -> list[str]:
    """Source texts of the edge values of one placeholder (distinct, deterministic for ``rng``)."""

    def bad(why: str) -> harness.HarnessError:
        return harness.HarnessError(f"malformed fuzz placeholder {ph.text!r}: {why}")

    out: list[str] = []
    if ph.kind in ("int", "float"):
        conv = int if ph.kind == "int" else float
        default = harness.INT_RANGE if ph.kind == "int" else harness.FLOAT_RANGE
        lo, hi = harness._parse_range(ph.get("range"), conv, bad) if ph.get("range") else default
        values = [lo, hi] + ([conv(0)] if lo <= 0 <= hi else [])
        out = [str(v) if ph.kind == "int" else repr(float(v)) for v in values]
    elif ph.kind == "bool":
        kind = ph.get("type") or "lower"
        out = {"upper": ["True", "False"], "int": ["1", "0"]}.get(kind, ["true", "false"])
    else:
        if ph.get("length"):
            lo, hi = harness._parse_range(ph.get("length"), int, bad, single_ok=True)
        else:
            lo, hi = 0, LONG_STRING
        alphabet = ph.get("custom") or harness.STRING_ALPHABETS[ph.get("type") or "ascii"]
        quotes = ph.get("quotes") or "double"
        out = [
            harness._quote("".join(rng.choice(alphabet) for _ in range(n)), quotes, language)
            for n in (lo, hi)
        ]
    seen: list[str] = []
    for v in out:
        if v not in seen:
            seen.append(v)
    return seen


def _fill(program: str, task_id: str, language: str, rng: random.Random, overrides: dict[int, str]) -> str:
    counter = iter(range(1 << 30))

    def value(match) -> str:
        i = next(counter)
        ph = harness.parse_placeholder(match.group(1), task_id)
        generated = harness.generate_value(ph, rng, language)  # always drawn: keeps the others stable
        return overrides.get(i, generated)

    return harness.PLACEHOLDER_RE.sub(value, program)


def plus_contexts(row: dict[str, Any], *, fuzz_cases: int, seed: int) -> list[str]:
    """The harness with its placeholders filled, one text per plus case (edge cases, then more random)."""
    task_id, language, context = row["task_id"], row["language"], row["context"]
    placeholders = harness.find_placeholders(context, task_id)
    if not placeholders:
        return []  # one deterministic case: nothing to add
    rng = random.Random(f"plus:{seed}:{task_id}")
    edges = [edge_values(ph, language, rng) for ph in placeholders]
    profiles: list[dict[int, str]] = [
        {i: e[0] for i, e in enumerate(edges)},
        {i: e[-1] for i, e in enumerate(edges)},
        {i: e[2 if len(e) > 2 else 0] for i, e in enumerate(edges)},
    ]
    for i, e in enumerate(edges):
        profiles.extend({i: v} for v in e)
    unique: list[dict[int, str]] = []
    for p in profiles:
        if p not in unique:
            unique.append(p)
    out = []
    for n, overrides in enumerate(unique[:MAX_EDGE_CASES]):
        out.append(_fill(context, task_id, language, random.Random(f"plus:{seed}:{task_id}:{n}"), overrides))
    for case in range(fuzz_cases, 2 * fuzz_cases):
        out.append(harness.fill_placeholders(context, task_id, case, seed, language))
    return out


def plus_programs(
    row: dict[str, Any], solution: str, *, fuzz_cases: int, seed: int, prompt: str | None = None
) -> tuple[str, ...]:
    """One complete program per plus case: the same completion and insertion as the base cases."""
    language = row["language"]
    full = harness.complete_solution(
        solution,
        language=language,
        function_name=row.get("function_name"),
        prompt=prompt,
        signature=row.get("signature"),
    )
    full, imports = runner(language).split_imports(full)
    programs = []
    for filled in plus_contexts(row, fuzz_cases=fuzz_cases, seed=seed):
        program = harness.insert_solution(filled, full, row["task_id"])
        missing = [imp for imp in imports if imp not in program.splitlines()]
        programs.append("".join(line + "\n" for line in missing) + program)
    return tuple(programs)
