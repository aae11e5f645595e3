"""The plan search (biocoder_metric.synth.python_search): the golden decides between plans.

The scoring is a pure function of case outputs; the search itself runs real goldens in the
bubblewrap sandbox through the same probe synthesis uses (skipped where bubblewrap does not work).
"""

from __future__ import annotations

import shutil

import pytest

from biocoder_dataset.schema import empty_row
from biocoder_metric.execution import EvalOptions
from biocoder_metric.execution.executors.local import SandboxPool
from biocoder_metric.synth import python_harness, python_search, python_slice
from biocoder_metric.synth.pipeline import SynthOptions, make_probe, synthesize_task
from biocoder_metric.synth.python_harness import Plan


def _bwrap_ok() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


@pytest.fixture(scope="module")
def pool():
    if not _bwrap_ok():
        pytest.skip("needs a working bubblewrap sandbox")
    p = SandboxPool(EvalOptions(sandbox="bwrap", workers=1), 1)
    yield p
    p.close()


def _row(name: str, golden: str) -> dict:
    row = empty_row()
    row.update(
        task_id=f"u_search_{name}",
        config="unit",
        language="python",
        kind="golden_only",
        executable=False,
        function_name=name,
        signature=f"def {name}(...)",
        golden_code=golden,
    )
    return row


def _subject(golden: str, name: str):
    sl = python_slice.slice_golden(golden, name)
    return python_harness.analyse(golden, name, None, sl.class_name, sl.class_members, sl.definitions), sl


def _forced(subject, kinds: dict[str, str | None]) -> Plan:
    """The best guess with some parameters forced to a kind the golden rejects."""
    base = python_harness.plans(subject, 4)[0]
    return Plan(args=[(p, kinds.get(p.name, k)) for p, k in base.args], attrs=base.attrs, label="best guess")


def test_score_counts_returned_calls_and_distinct_results():
    outs = ["result: 1\n", "result: 2\nafter x: [1]\n", "exception: TypeError\n", None]
    s = python_search.score(outs)
    assert (s.returned, s.calls, s.distinct) == (2, 4, 2)
    # probe lines are not the call's exception
    assert python_search.score(["result: 3\nprobe exception: ValueError\n"]).returned == 1
    # one constant result counts for less than the same number of varied ones
    const = python_search.score(["result: 0\n"] * 3)
    varied = python_search.score(["result: 0\n", "result: 1\n", "result: 2\n"])
    assert const.value < varied.value


MOTIF = '''def count_motif(text, motif="GA"):
    """How often a motif occurs in a sequence."""
    return text.upper().count(motif.upper())
'''

QUALITY = '''def mean_quality(qualities):
    """Mean Phred quality of a read."""
    return round(sum(ord(c) - 33 for c in qualities) / len(qualities), 3)
'''


@pytest.mark.bwrap
def test_a_rejected_guess_is_replaced_by_a_kind_the_golden_accepts(pool):
    row = _row("count_motif", MOTIF)
    subject, sl = _subject(MOTIF, "count_motif")
    base = _forced(subject, {"text": "int_small"})  # ints have no .upper(): raises on every call
    probe = make_probe(pool, row, SynthOptions(sandbox="bwrap"))
    base_score = python_search.score(probe([python_harness.render(subject, sl, base)], 3)[0])
    assert base_score.returned == 0
    found = python_search.search(subject, sl, base, probe)
    assert found is not None
    plan, info = found
    chosen = dict((p.name, k) for p, k in plan.args)
    assert chosen["text"] is not None and chosen["text"].startswith(("str", "path", "text"))
    won = python_search.score(probe([python_harness.render(subject, sl, plan)], 4)[0])
    assert won.returned == won.calls == 4
    assert info["base"]["returned"] == 0 and info["winner"]["returned"] == 4


WEIGHT = '''def weight(text):
    """Sum of the character codes of a string."""
    return sum(ord(c) for c in text)
'''


@pytest.mark.bwrap
def test_a_guess_on_which_every_call_returns_a_new_result_is_kept(pool):
    row = _row("weight", WEIGHT)
    subject, sl = _subject(WEIGHT, "weight")
    base = _forced(subject, {"text": "str_word"})
    assert (
        python_search.search(subject, sl, base, make_probe(pool, row, SynthOptions(sandbox="bwrap"))) is None
    )


@pytest.mark.bwrap
def test_a_guess_on_which_the_result_is_mostly_the_same_is_improved(pool):
    """Counting a random 2-letter motif in random DNA is mostly 0: a kind with more varied
    results wins, and the winner's score is really higher on the probe's cases."""
    row = _row("count_motif", MOTIF)
    subject, sl = _subject(MOTIF, "count_motif")
    base = _forced(subject, {"text": "str_dna", "motif": "str_dna"})
    probe = make_probe(pool, row, SynthOptions(sandbox="bwrap"))
    found = python_search.search(subject, sl, base, probe)
    before = python_search.score(probe([python_harness.render(subject, sl, base)], 4)[0])
    if before.perfect:
        assert found is None
    else:
        assert found is not None
        after = python_search.score(probe([python_harness.render(subject, sl, found[0])], 4)[0])
        assert after.value > before.value
        # the golden returned on every call of the base: it keeps its place, the winner comes second
        if before.returned == before.calls:
            assert python_search.with_search(subject, sl, base, probe)[0] is base


@pytest.mark.bwrap
def test_synthesis_validates_a_task_whose_best_guess_always_raises(pool):
    """End to end: the inference guesses a list of ints for a quality string (``ord`` of an int
    raises on every call); the searched plan comes first, and its harness passes every gate,
    mutants included, on its own merits."""
    row = _row("mean_quality", QUALITY)
    subject, _ = _subject(QUALITY, "mean_quality")
    # the precondition that makes this a test of the search: the static guess is wrong
    assert subject.params[0].kinds[0] == "list_int"
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap", fuzz_cases=6, mutant_limit=8))
    assert rec["attempts"][0]["plan"] == "searched"  # the base raised: the winner goes first
    assert rec["status"] == "validated", rec["reason"]
    assert rec["plan"]["qualities"].startswith("str")


def test_constructor_arguments_are_searched_like_parameters():
    """A method's ``self`` built through ``__init__``: the constructor's arguments are slots of the
    search too, and a variant changes only the slot it names."""
    from biocoder_metric.synth.python_inputs import ParamSpec

    subject, _ = _subject(WEIGHT, "weight")
    x = ParamSpec(name="x", kinds=["int_small", "str_word"])
    sure = ParamSpec(name="cls", kinds=["a_type"])
    base = Plan(
        args=[(p, p.kinds[0]) for p in subject.params],
        construct=[(x, "int_small"), (sure, "a_type")],
        label="constructed",
    )
    slots = {(kind, i): options for kind, i, options in python_search._slots(subject, base)}
    assert ("ctor", 0) in slots and slots[("ctor", 0)][0] == "str_word"
    assert ("ctor", 1) not in slots  # a class tested with isinstance is certain
    v = python_search._variant(base, {("ctor", 0): "str_dna"}, "constructed, searched")
    assert [k for _, k in v.construct] == ["str_dna", "a_type"]
    assert [k for _, k in v.args] == [k for _, k in base.args]
    assert python_search.base_kind_of(base, ("ctor", 0)) == "int_small"


TABLE = '''CODONS = {"ATG": "M", "TGG": "W", "TAA": "*", "GCC": "A"}


def translate(seq):
    """Translate a coding sequence; unknown codons become X."""
    return "".join(CODONS.get(seq[i:i + 3], "X") for i in range(0, len(seq) - 2, 3))
'''


def test_the_vocabulary_holds_the_literals_and_table_keys_the_code_recognises():
    golden = TABLE.split("\n\n\n")[1]
    subject = python_harness.analyse(golden, "translate", None, None, [], [TABLE.split("\n\n\n")[0]])
    words = python_search.vocabulary(subject, python_slice.Slice(definitions=[TABLE.split("\n\n\n")[0]]))
    assert {"ATG", "TGG", "TAA", "GCC", "X"} <= set(words)
    assert not any("Translate" in w for w in words)  # the docstring is no token


@pytest.mark.bwrap
def test_vocabulary_tokens_let_a_table_lookup_return_more_than_its_fallback(pool):
    """Random DNA hits a 4-codon table rarely: strings of its own codons make the golden's
    result vary, and the probe's score says so."""
    row = _row("translate", TABLE)
    sl = python_slice.Slice(definitions=[TABLE.split("\n\n\n")[0]])
    golden = TABLE.split("\n\n\n")[1]
    subject = python_harness.analyse(golden, "translate", None, None, [], sl.definitions)
    assert subject.compositions == [("seq", ("global", "CODONS"))]
    # the composition rule (python_lookups) would rebuild ``seq`` from the table's keys by itself;
    # without it, this is about what the search's vocabulary alone gives
    subject.compositions = []
    base = _forced(subject, {"seq": "str_word"})
    probe = make_probe(pool, dict(row, golden_code=golden), SynthOptions(sandbox="bwrap"))
    words = python_search.vocabulary(subject, sl)
    vocab = Plan(args=[(p, f"vocab_str:{words!r}") for p, _ in base.args], label="vocab")
    outs = probe([python_harness.render(subject, sl, base), python_harness.render(subject, sl, vocab)], 4)
    letters = [
        {c for o in case if o for c in o.split("result: ", 1)[1].split("\n", 1)[0] if c.isalpha() or c == "*"}
        for case in outs
    ]
    assert letters[0] <= {"X"}  # random letters: only the fallback
    assert letters[1] - {"X"}  # the table's own codons: real translations


@pytest.mark.bwrap
def test_the_searched_plan_is_added_without_pushing_out_a_ranked_alternative(pool):
    """``--max-plans`` bounds the ranked plans; the searched one comes on top of them, so a plan
    that validated before the search found anything is still tried."""
    from biocoder_metric.synth.pipeline import python_candidates

    row = _row("mean_quality", QUALITY)
    opts = SynthOptions(sandbox="bwrap", max_plans=2)
    plain, why, _ = python_candidates(row, opts, None, [], None)
    assert why is None and len(plain) == 2
    searched, why, _ = python_candidates(row, opts, None, [], make_probe(pool, row, opts))
    assert why is None
    labels = [label for label, _, _ in searched]
    assert labels[0] == "searched" and labels[1:] == [label for label, _, _ in plain]
