"""Objects nested as deep as real records are (round 24 of harness synthesis, docs/synthesis.md):
the elements of a list held by an element of a list are typed by their own fields, a ``self``
field is drawn with what the sliced methods the golden calls read of it beside the golden's own
reads, and a field named ``number`` is an int. The classes and goldens are made up for these
tests; each harness runs for real."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from _synth_helpers import param_kinds, payload, run_context

from biocoder_metric.synth import python_harness, python_inputs, python_slice

_GENES = """
def longest_exon(genes):
    best = 0
    for gene in genes:
        for tx in gene.transcripts:
            for exon in tx.exons:
                best = max(best, exon.end - exon.start)
    return best
"""

_MODULE = '''
class Index:
    """A binned index of a coordinate-sorted file."""

    def __init__(self, index, start):
        self.index = index
        self.start = start

    def _first_offset(self, pos):
        slot = pos // 16
        if slot < len(self.index.offsets):
            return self.index.offsets[slot]
        return None

    def spans(self):
        found = []
        for block in self.index.blocks:
            for part in block.parts:
                if part.stop > self.start:
                    found.append(part.stop - part.begin)
        first = self._first_offset(self.start)
        return found, first
'''


def _method_harness(tmp_path: Path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "index.py").write_text(_MODULE)
    tree = ast.parse(_MODULE)
    golden = ast.unparse(
        next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "spans")
    )
    sl = python_slice.slice_repository(golden, "spans", str(tmp_path), "pkg/index.py")
    subject = python_harness.analyse(
        golden, "spans", str(tmp_path), sl.class_name, sl.class_members, sl.definitions
    )
    return golden, subject, python_harness.render(subject, sl, python_harness.plans(subject)[0])


def test_elements_of_an_element_list_are_objects_with_their_fields():
    genes = payload(param_kinds(_GENES)["genes"][0], "objlist:")
    transcripts = payload(genes["transcripts"], "objlist:")
    assert set(payload(transcripts["exons"], "objlist:")) == {"end", "start"}


def test_a_self_field_has_what_a_called_member_reads_and_what_the_golden_reads(tmp_path: Path):
    _, subject, _ = _method_harness(tmp_path)
    index = payload(dict(subject.attrs)["index"][0], "obj:")
    assert set(index) == {"blocks", "offsets"}, index
    assert index["offsets"].startswith("list"), index
    parts = payload(payload(index["blocks"], "objlist:")["parts"], "objlist:")
    assert set(parts) == {"stop", "begin"}, parts


def test_the_method_runs_and_a_bug_in_the_nested_loop_shows(tmp_path: Path):
    golden, _, ctx = _method_harness(tmp_path)
    seeds = range(12)
    outs = run_context(ctx, golden, seeds)
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) >= 10 and len(set(results)) > 3, outs
    for bug in (
        golden.replace("part.stop - part.begin", "part.stop - part.begin + 1"),
        golden.replace("part.stop > self.start", "part.stop >= self.start"),
        golden.replace("self._first_offset(self.start)", "self._first_offset(self.start + 16)"),
    ):
        assert run_context(ctx, bug, seeds) != outs, bug


def test_a_field_named_number_is_an_int():
    assert python_inputs.family_of_name("number") == "int"
    assert python_inputs.family_of_name("bin_number") == "int"
    golden = textwrap.dedent("""
        def by_number(bins, wanted):
            table = {b.number: b for b in bins}
            return [table[w].size for w in wanted if w in table]
    """)
    bins = payload(param_kinds(golden)["bins"][0], "objlist:")
    assert bins["number"].startswith("int"), bins
