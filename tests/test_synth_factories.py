"""A golden that builds and returns a function (a factory) is observed by calling what it
returns (round 22 of harness synthesis, docs/synthesis.md). Made-up goldens."""

from __future__ import annotations

import textwrap

from _synth_helpers import run_context, run_harness

from biocoder_metric.synth import python_harness

_TRIMMER = """
    def make_trimmer(prefix="chr", minimum=3):
        def trim(name):
            if name.startswith(prefix):
                name = name[len(prefix):]
            return name if len(name) >= minimum else None
        return trim
"""
_THRESHOLD = """
    def above(cutoff):
        return lambda value: value > cutoff
"""


def _outputs(golden: str, name: str, seeds=range(8), code: str | None = None) -> list[str]:
    """stdout of the best-guess harness per seed, with ``code`` (default: the golden) inserted."""
    return run_harness(golden, name, seeds, code=code)


def test_the_function_a_factory_returns_is_found_with_its_parameters():
    subject = python_harness.analyse(textwrap.dedent(_TRIMMER), "make_trimmer")
    assert subject.returned is not None and [p.name for p in subject.returned] == ["name"]
    assert subject.returned[0].kinds[0].startswith("str")
    lam = python_harness.analyse(textwrap.dedent(_THRESHOLD), "above")
    assert lam.returned is not None and [p.name for p in lam.returned] == ["value"]
    plain = python_harness.analyse("def f(x):\n    def g(y):\n        return y\n    return g(x)\n", "f")
    assert plain.returned is None  # it calls its nested function; it does not return it


def test_each_case_calls_the_returned_function_and_shows_what_it_gives():
    outs = _outputs(_TRIMMER, "make_trimmer")
    calls = [ln for out in outs for ln in out.splitlines() if ln.startswith("returned function")]
    assert len(calls) == 8 * python_harness.RETURNED_CALLS
    assert len(set(outs)) > 1  # the output varies with the input (before: one function object)


def test_a_bug_inside_the_returned_function_changes_the_output():
    # the boundary of the inner comparison moved: some case shows it
    golden = _outputs(_THRESHOLD, "above", seeds=range(12))
    mutant = _outputs(
        _THRESHOLD,
        "above",
        seeds=range(12),
        code="""
            def above(cutoff):
                return lambda value: value < cutoff
        """,
    )
    assert golden != mutant


_LABELLER = """
    def make_labeller(gene_tag="G_", exon_tag="E_"):
        def label(entry):
            if isinstance(entry, GeneRecord):
                tag = gene_tag
            elif isinstance(entry, ExonRecord):
                tag = exon_tag
            else:
                tag = ""
            return tag + entry.name.strip()
        return label
"""


def test_the_returned_function_gets_instances_of_the_classes_it_dispatches_on():
    """The returned function tests its argument against classes with no source: the harness
    hands it instances of each now and then, so a wrong default of one branch shows (round 23;
    before, every call took the last branch)."""
    from biocoder_metric.synth import pipeline

    golden = textwrap.dedent(_LABELLER)
    row = {"golden_code": golden, "function_name": "make_labeller", "language": "python", "task_id": "t"}
    out, reason, _ = pipeline.python_candidates(row, pipeline.SynthOptions(), None, [])
    assert reason is None, reason
    ctx = out[0][2]
    seeds = range(16)
    outs = run_context(ctx, golden, seeds)
    calls = [ln for o in outs for ln in o.splitlines() if ln.startswith("returned function: ")]
    assert any("'G_" in c for c in calls) and any("'E_" in c for c in calls), calls
    for wrong in ('exon_tag="e_"', 'gene_tag="G"'):
        mutant = golden.replace(wrong.split("=")[0] + "=" + ('"E_"' if "exon" in wrong else '"G_"'), wrong)
        assert mutant != golden
        assert run_context(ctx, mutant, seeds) != outs, wrong
