"""Search the generator plans the golden accepts, by running the golden on a few cases of each.

Why: the ranked kinds of :mod:`biocoder_metric.synth.python_inputs` are guesses from static
evidence, and the best guess is wrong for a large share of code nobody tuned them to: on fresh
repositories most rejected harnesses were rejected because the golden raised on every call
(an object where a string was guessed, a list where a number was). A person writing a harness
would try another value and watch what happens; this module does the same, mechanically, for
every task alike, with nothing learnt from any particular task:

1. *Single swaps*: the best guess, and the best guess with one parameter (or ``self``
   attribute, or parameter of the constructor that builds ``self``) replaced by another kind:
   its own ranked alternatives first, its default (when it has one), tokens of the function's
   vocabulary (:func:`vocabulary`: one, a string of them, a list of them), then a fixed pool of
   generic kinds (:data:`GENERIC`).
2. *Combination*: per parameter, the kind that scored best in step 1 (ties keep the better
   ranked one), plus a few seeded random combinations of each parameter's top kinds, for
   parameters that only work together.

Each variant is rendered by :func:`biocoder_metric.synth.python_harness.render` (the very
program validation would run), and its golden runs on :data:`CASES` fuzz cases, all variants in
one sandbox job. A variant's score counts the calls that returned (no ``exception:`` line, exit
0) plus the distinct results, so a plan on which the golden returns the same empty value for
garbage input does not beat one that exercises it. A perfect best guess (every call returns a
result not seen before) ends the search at once. The winner, when it beats the best guess,
becomes the first plan; the validation gates decide, exactly as for every other plan, whether it
tests anything. Only the golden runs here: no mutant or candidate influences the choice.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import random
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from biocoder_metric import pyast
from biocoder_metric.synth import python_repair
from biocoder_metric.synth.python_harness import EXCEPTION_PREFIX, Plan, Subject, render

#: Fuzz cases per variant: enough to tell "always raises" or "always the same" from "sometimes",
#: few enough that a search of ~50 variants costs a few seconds.
CASES = 4
#: Kinds every parameter may fall back on, whatever the evidence said (broad families first).
GENERIC: tuple[str, ...] = (
    "int_small",
    "str_word",
    "list_int",
    "float_unit",
    "str_dna",
    "list_str",
    "int_signed",
    "float",
    "list_float",
    "dict_str_int",
    "ndarray1",
    "ndarray2",
    "str_line",
    "path_text",
    "tuple_int",
    "bool",
)
#: Tokens of the vocabulary kinds: literals up to this length, at most this many.
MAX_TOKEN = 24
MAX_VOCABULARY = 40
#: A winner's share of calls that return (of :data:`CASES`).
MIN_RETURNED_SHARE = 0.75
#: Alternatives per parameter in the single-swap step (at most ``OWN`` of its own ranked kinds,
#: then generic ones), and variants in all.
OWN = 5
PER_PARAM = 12
MAX_VARIANTS = 48
#: Random combinations in the second step (from each parameter's top kinds).
COMBOS = 10
TOP_PER_PARAM = 3

#: A probe: contexts -> per context, the golden's stdout of each case ("" for a failed run).
Probe = Callable[[Sequence[str], int], list[list[str | None]]]


@dataclass(frozen=True)
class Score:
    """How well the golden takes one variant's inputs."""

    returned: int  # calls that returned a value (no exception, exit 0)
    calls: int
    distinct: int  # distinct result lines among those

    @property
    def value(self) -> int:
        # a call that returns and a result not seen before count alike: a plan on which the
        # golden returns the same 0 every time tests as little as one on which it raises
        return self.returned + self.distinct

    @property
    def perfect(self) -> bool:
        return self.returned == self.calls == self.distinct


def score(outputs: Sequence[str | None]) -> Score:
    """The :class:`Score` of one variant from its cases' outputs (``None``: the run failed)."""
    returned = 0
    results: set[str] = set()
    for out in outputs:
        if out is None:
            continue
        lines = out.splitlines()
        if any(ln.startswith(EXCEPTION_PREFIX) for ln in lines):
            continue
        got = [ln for ln in lines if ln.startswith("result: ")]
        if got:
            returned += 1
            results.add(got[0])
    return Score(returned=returned, calls=len(outputs), distinct=len(results))


def vocabulary(subject: Subject, sl=None) -> list[str]:
    """The short string literals of the function (docstring aside) and the string keys of the dict
    literals its slice defines: the tokens code that looks things up (codon and residue tables,
    record types, option names) recognises, where random letters match none of them."""
    found: list[str] = []
    body = subject.func.body
    doc = (
        body[0]
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        else None
    )
    for stmt in body:
        if stmt is doc:
            continue
        for n in ast.walk(stmt):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and 0 < len(n.value) <= MAX_TOKEN:
                found.append(n.value)
    for src in getattr(sl, "definitions", None) or []:
        try:
            tree = pyast.parse(src)
        except SyntaxError:
            continue
        for n in tree.body:
            value = n.value if isinstance(n, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Dict):
                found += [
                    k.value
                    for k in value.keys
                    if isinstance(k, ast.Constant)
                    and isinstance(k.value, str)
                    and 0 < len(k.value) <= MAX_TOKEN
                ]
    return list(dict.fromkeys(found))[:MAX_VOCABULARY]


def _vocabulary_kinds(words: list[str]) -> list[str]:
    """One token, a string of tokens, a list of tokens (kinds of python_inputs.kind_expr)."""
    if len(words) < 2:
        return []
    return [f"choice:{words!r}", f"vocab_str:{words!r}", f"vocab_list:{words!r}"]


#: Kinds of a value the code uses as a path (``os.path.exists(p)``, ``open(p)``).
_PATH_KINDS = ("path_", "checked:", "file:", "prefix:", "fmt:path:")


def _generic(ranked: list[str]) -> tuple[str, ...]:
    """The generic kinds a slot may also try: no number for a path (``os.path.exists(3)`` and
    ``open(3)`` read a file descriptor, so the output was whatever the process had open: round 27)."""
    if ranked and ranked[0].startswith(_PATH_KINDS):
        return tuple(k for k in GENERIC if not k.startswith("int_"))
    return GENERIC


def _slots(subject: Subject, base: Plan, sl=None) -> list[tuple[str, int, list[str | None]]]:
    """(``arg`` | ``attr`` | ``ctor``, index, kinds to try) for every slot of the plan that may change."""
    out: list[tuple[str, int, list[str | None]]] = []
    vocab = _vocabulary_kinds(vocabulary(subject, sl))
    for i, (p, kind) in enumerate(base.args):
        ranked = list(p.kinds)
        if ranked and ranked[0] == "a_type":  # certain: a class tested with isinstance
            continue
        options: list[str | None] = [k for k in ranked if k != kind][:OWN]
        if p.has_default and kind is not None:
            options.insert(0, None)
        options += [k for k in vocab if k not in options and k != kind]
        options += [k for k in _generic(ranked) if k not in options and k != kind]
        out.append(("arg", i, options[:PER_PARAM]))
    for i, (p, kind) in enumerate(base.construct or []):
        # a parameter of the constructor that builds ``self`` (python_construct): the method can
        # only run on an object its class accepts, so these are searched like the method's own
        ranked = list(p.kinds)
        if ranked and ranked[0] == "a_type":
            continue
        options = [k for k in ranked if k != kind][:OWN]
        options += [k for k in _generic(ranked) if k not in options and k != kind]
        out.append(("ctor", i, options[:PER_PARAM]))
    ranked_attrs = dict(subject.attrs)
    for i, (attr, kind) in enumerate(base.attrs):
        ranked = list(ranked_attrs.get(attr) or [])
        if ranked and ranked[0] == "a_type":
            continue
        options = [k for k in ranked if k != kind][:OWN]
        options += [k for k in _generic(ranked) if k not in options and k != kind]
        out.append(("attr", i, options[: PER_PARAM // 2]))
    ranked_stubs = dict(subject.stubs)
    for i, (label, kind) in enumerate(base.stubs):
        # a helper with no source (python_stubs): what it returns is a guess like a parameter's
        ranked = list(ranked_stubs.get(label) or [])
        options = [k for k in ranked if k != kind][:OWN]
        options += [k for k in _generic(ranked) if k not in options and k != kind]
        out.append(("stub", i, options[: PER_PARAM // 2]))
    return out


def _variant(base: Plan, changes: dict[tuple[str, int], str | None], label: str) -> Plan:
    args = [(p, changes.get(("arg", i), k)) for i, (p, k) in enumerate(base.args)]
    attrs = [(a, changes.get(("attr", i), k)) for i, (a, k) in enumerate(base.attrs)]
    construct = (
        [(p, changes.get(("ctor", i), k)) for i, (p, k) in enumerate(base.construct)]
        if base.construct is not None
        else None
    )
    stubs = [(s, changes.get(("stub", i), k)) for i, (s, k) in enumerate(base.stubs)]
    return Plan(
        args=args,
        attrs=attrs,
        label=label,
        explore=base.explore,
        example_rate=base.example_rate,
        construct=construct,
        construct_examples=base.construct_examples,
        construct_callee=base.construct_callee,
        stubs=stubs,
        square=base.square,
    )


def _outputs(subject: Subject, sl, plans: list[Plan], probe: Probe) -> list[list[str | None]]:
    return probe([render(subject, sl, p) for p in plans], CASES) if plans else []


def _run(subject: Subject, sl, plans: list[Plan], probe: Probe) -> list[Score]:
    return [score(outs) for outs in _outputs(subject, sl, plans, probe)]


def search(
    subject: Subject, sl, base: Plan, probe: Probe, seed: int = 0, label: str = "searched"
) -> tuple[Plan, dict] | None:
    """A plan the golden accepts better than ``base`` (labelled ``label``), or None.

    The second value says what the search saw (variants run, base and winner scores), for the
    synthesis report.
    """
    slots = _slots(subject, base, sl)
    if not slots:
        return None
    singles: list[tuple[tuple[str, int], str | None]] = []
    for kind_of, i, options in slots:
        for k in options:
            singles.append(((kind_of, i), k))
    singles = singles[: MAX_VARIANTS - 1]
    # the base alone first: where the best guess already works (most tasks that validate), the
    # search costs one small job
    base_out = _outputs(subject, sl, [base], probe)[0]
    base_score = score(base_out)
    if base_score.perfect:
        return None
    plans = [base] + [_variant(base, {slot: k}, label) for slot, k in singles]
    # the same kinds with every array's axes of one size: the base, and each swap to a sized kind
    # (``matrix @ loadings`` needs a vector swapped in *and* its length the matrix's width)
    squares = [_variant(base, {}, label)] + [
        p for (_, k), p in zip(singles, plans[1:], strict=True) if k and any(t in k for t in _SIZED)
    ]
    plans += [dataclasses.replace(p, square=True) for p in squares if _shaped(p)]
    outs = [base_out, *_outputs(subject, sl, plans[1:], probe)]
    scores = [score(o) for o in outs]
    # the base keeps its place when the golden returned on every probe call (only variety was
    # lacking): four cases are a small sample, and a variant that looked more varied may raise
    # on the validation's cases; a base that raised is worth less than any winner
    info: dict = {
        "variants": len(plans),
        "base": base_score.__dict__,
        "replace": base_score.returned < base_score.calls,
    }
    # per slot, its kinds ranked by score (the base's own kind counts with the base's score)
    per_slot: dict[tuple[str, int], list[tuple[float, int, str | None]]] = {}
    for n, ((slot, k), s) in enumerate(zip(singles, scores[1 : len(singles) + 1], strict=True)):
        per_slot.setdefault(slot, []).append((s.value, -n, k))
    best_changes: dict[tuple[str, int], str | None] = {}
    for slot, ranked in per_slot.items():
        ranked.sort(key=lambda t: (t[0], t[1]), reverse=True)
        if ranked[0][0] > base_score.value:
            best_changes[slot] = ranked[0][2]
    rnd = random.Random(seed)
    combos: list[dict[tuple[str, int], str | None]] = []
    if best_changes:
        combos.append(dict(best_changes))
    tops = {
        slot: [base_kind_of(base, slot)] + [k for _, _, k in sorted(r, reverse=True)[: TOP_PER_PARAM - 1]]
        for slot, r in per_slot.items()
    }
    for _ in range(COMBOS * 3):
        if len(combos) >= COMBOS or len(tops) < 2:
            break
        pick = {slot: rnd.choice(ks) for slot, ks in tops.items()}
        pick = {s: k for s, k in pick.items() if k != base_kind_of(base, s)}
        if pick and pick not in combos:
            combos.append(pick)
    candidates: list[tuple[Score, Plan, list[str | None]]] = [
        (s, p, o)
        for s, p, o in zip(scores[1:], plans[1:], outs[1:], strict=True)
        if s.value > base_score.value
    ]
    if combos:
        combo_plans = [_variant(base, c, label) for c in combos]
        if best_changes and _shaped(combo_plans[0]):
            combo_plans.append(dataclasses.replace(combo_plans[0], square=True))
        combo_outs = _outputs(subject, sl, combo_plans, probe)
        candidates += [(score(o), p, o) for p, o in zip(combo_plans, combo_outs, strict=True)]
        info["variants"] += len(combo_plans)
    # the best so far still raises: repair it from where the golden raised (python_repair)
    start = max(candidates, key=lambda c: c[0].value) if candidates else (base_score, base, base_out)
    if start[0].returned < start[0].calls:
        fixed = python_repair.repair(
            subject,
            start[1],
            start[2],
            run=lambda ps: _outputs(subject, sl, ps, probe),
            value=lambda o: score(o).value,
            variant=_variant,
            current_kind=base_kind_of,
            label=label,
            sources=_sources(sl),
        )
        if fixed is not None:
            plan, out, steps = fixed
            candidates.append((score(out), plan, out))
            info["repaired"] = steps
    # a winner must be worth a validation: the golden returns on nearly every call (the gate
    # allows 20% raising; a plan that raises on half the probe's calls would only cost time)
    need = max(1, math.ceil(MIN_RETURNED_SHARE * CASES))
    candidates = [c for c in candidates if c[0].value > base_score.value and c[0].returned >= need]
    if not candidates:
        info["winner"] = None
        return None
    # the first best: single swaps come before combinations, and ranked kinds before generic ones
    best = max(candidates, key=lambda c: c[0].value)[:2]
    info["winner"] = best[0].__dict__
    return best[1], info


#: Kinds drawn with the case's shared sizes (``_bc_n``, ``_bc_h``, ``_bc_w``).
_SIZED = ("ndarray", "series", "frame", "list_float", "dict_str_ndarray")


def _shaped(plan: Plan) -> bool:
    """Whether ``plan`` draws values whose sizes could disagree: two sized values, or a matrix
    (its own two axes: ``data.T @ data`` against ``cov(data)``)."""
    kinds = [k for _, k in plan.args] + [k for _, k in plan.attrs] + [k for _, k in plan.stubs]
    kinds = [k for k in kinds + [k for _, k in plan.construct or []] if k]
    matrix = any(t in k for k in kinds for t in ("ndarray2", "ndarray3", "dict_str_ndarray"))
    return matrix or sum(1 for k in kinds if any(t in k for t in _SIZED)) >= 2


def _sources(sl) -> dict[str, list[ast.AST]]:
    """Function name -> its definitions (a class's ``__init__`` and its bases'), over the slice's
    class members and definitions: where a failure outside the golden, a constructor's, happened
    (a traceback frame names the function, not its class)."""
    out: dict[str, list[ast.AST]] = {}
    # the class's own members first: its ``__init__`` is the one that builds ``self``
    for src in [*(getattr(sl, "class_members", None) or []), *(getattr(sl, "definitions", None) or [])]:
        try:
            tree = pyast.parse(textwrap.dedent(src))
        except SyntaxError:
            continue
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(n.name, []).append(n)
            elif isinstance(n, ast.ClassDef):  # a class a type error may name (``class:`` keys)
                out.setdefault("class:" + n.name, []).append(n)
    return out


def base_kind_of(base: Plan, slot: tuple[str, int]) -> str | None:
    kind_of, i = slot
    if kind_of == "ctor":
        return (base.construct or [])[i][1]
    if kind_of == "stub":
        return base.stubs[i][1]
    return base.args[i][1] if kind_of == "arg" else base.attrs[i][1]


def with_search(
    subject: Subject, sl, base: Plan, probe: Probe | None, seed: int = 0, label: str = "searched"
) -> list[Plan]:
    """``base`` and the searched plan, in the order they should be validated (see :func:`search`):
    the searched one first when the golden raised on some of the base's calls, else second."""
    found = search(subject, sl, base, probe, seed=seed, label=label) if probe is not None else None
    if found is None:
        return [base]
    plan, info = found
    return [plan, base] if info["replace"] else [base, plan]
