"""A parameter passed on to a helper of the same file is drawn with what that helper reads of it
(round 23 of harness synthesis, docs/synthesis.md): the fields of an object beside the body's own,
and, for a value the body only passes on, the helper's whole kind (its fields, columns or keys).
The goldens and helpers are made up for these tests; each harness runs for real."""

from __future__ import annotations

import ast
import textwrap

from _synth_helpers import payload, run_context

from biocoder_metric.synth import pipeline, python_inputs

_HELPER = """
def compound_table(model):
    out = {}
    for compound in model.compounds:
        out[compound.id] = compound.charge
    return out
"""
_NETWORK = """
def charged_reactions(model, cutoff):
    table = compound_table(model)
    return len(model.reactions), sorted(c for c in table.values() if c > cutoff)
"""
_TOTAL = """
def total_charge(model):
    table = compound_table(model)
    return sum(table.values())
"""
_FRAME_HELPER = """
def mean_depth(frame):
    return frame['depth'].mean() + frame['quality'].min()
"""
_FRAME = """
def depth_report(frame, digits=2):
    return round(mean_depth(frame), digits)
"""


def _kinds(golden: str, helper: str) -> dict[str, list[str]]:
    helpers = {n.name: n for n in ast.parse(textwrap.dedent(helper)).body}
    func = ast.parse(textwrap.dedent(golden)).body[0]
    return {p.name: p.kinds for p in python_inputs.infer_params(func, helpers=helpers)}


def test_an_object_passed_to_a_helper_gets_the_fields_the_helper_reads():
    model = _kinds(_NETWORK, _HELPER)["model"][0]
    fields = payload(model, "obj:")
    assert "reactions" in fields and "compounds" in fields, fields
    assert set(payload(fields["compounds"], "objlist:")) == {"id", "charge"}


def test_a_value_only_passed_on_is_drawn_as_the_helper_draws_it():
    assert set(payload(_kinds(_TOTAL, _HELPER)["model"][0], "obj:")) == {"compounds"}
    helper = ast.parse(_FRAME_HELPER).body[0]
    own = python_inputs.infer_params(helper)[0].kinds[0]  # the keys (columns) the helper reads
    assert "'depth'" in own and "'quality'" in own, own
    assert _kinds(_FRAME, _FRAME_HELPER)["frame"][0] == own


def test_a_declared_type_is_not_overridden_by_the_helper():
    documented = '''
def depth_report(frame, digits=2):
    """Round the mean depth.

    Args:
        frame (list): depths
    """
    return round(mean_depth(frame), digits)
'''
    assert _kinds(documented, _FRAME_HELPER)["frame"][0].startswith("list"), _kinds(documented, _FRAME_HELPER)


def _outputs(golden: str, helper: str, name: str, seeds, code: str | None = None) -> list[str]:
    golden = textwrap.dedent(golden)
    row = {"golden_code": golden, "function_name": name, "language": "python", "task_id": name}
    siblings = [(n.name, ast.unparse(n)) for n in ast.parse(textwrap.dedent(helper)).body]
    out, reason, _ = pipeline.python_candidates(row, pipeline.SynthOptions(), None, siblings)
    assert reason is None, reason
    return run_context(out[0][2], textwrap.dedent(code) if code else golden, seeds)


def test_the_golden_runs_with_the_helper_and_a_bug_shows():
    seeds = range(10)
    golden = _outputs(_NETWORK, _HELPER, "charged_reactions", seeds)
    results = [ln for o in golden for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) >= 8 and len(set(results)) > 1, golden
    mutant = _NETWORK.replace("c > cutoff", "c < cutoff")
    assert _outputs(_NETWORK, _HELPER, "charged_reactions", seeds, code=mutant) != golden
