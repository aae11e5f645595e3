"""What a table (pandas DataFrame) parameter must hold for the golden to run: its columns and
which of them hold text. Made-up goldens in the idioms of bioinformatics table code (round 22
of harness synthesis, docs/synthesis.md)."""

from __future__ import annotations

import pytest
from _synth_helpers import param_kinds as _kinds
from _synth_helpers import payload as _payload
from _synth_helpers import run_harness


def _run_plan(golden: str, name: str, label: str, seed: int = 3) -> str:
    return run_harness(golden, name, (seed,), label=label)[0]


_SECTIONS = """
    def label_rows(tables, kind="exons", key="gene"):
        t = tables[kind]
        ids = t[key] + ":" + t["strand"].fillna(".")
        scores = t.iloc[[0, 1]]["score"]
        return ids.tolist(), float(scores.sum())
"""


def test_a_table_reached_through_a_local_has_the_columns_read_on_the_local_and_its_rows():
    # ``t = tables[kind]`` then ``t[key]``, ``t['strand'].fillna(...)`` and ``t.iloc[...]['score']``:
    # the dict's value is a table with all three columns (before: a Series, or no table at all)
    value = _payload(_kinds(_SECTIONS)["tables"][0], "dictkeys:")["exons"]
    columns = _payload(value, "frame:")
    assert set(columns) == {"gene", "strand", "score"}


def test_a_column_joined_with_or_filled_with_a_string_holds_text():
    value = _payload(_kinds(_SECTIONS)["tables"][0], "dictkeys:")["exons"]
    columns = _payload(value, "frame:")
    assert isinstance(columns, dict)
    assert columns["gene"] == [] and columns["strand"] == []  # text, no value compared with
    assert columns["score"] is None  # drawn by its name (numbers): summed


def test_a_column_compared_with_strings_holds_those_strings_among_others():
    k = _kinds("""
        def forward_lengths(df):
            fwd = df[df['strand'] == '+']
            kept = df['biotype'].isin(['protein_coding', 'lncRNA'])
            return (fwd['end'] - fwd['start']).sum(), int(kept.sum())
    """)
    columns = _payload(k["df"][0], "frame:")
    assert columns["strand"] == ["+"]
    assert columns["biotype"] == ["protein_coding", "lncRNA"]
    assert columns["start"] is None and columns["end"] is None


def test_a_numeric_only_table_keeps_its_plain_column_list():
    # no text evidence: the kind is unchanged from before (a list of columns)
    k = _kinds("""
        def mask(cnarr):
            return (cnarr['log2'] < -1.0) | (cnarr['spread'] > 1.0)
    """)
    assert isinstance(_payload(k["cnarr"][0], "frame:"), list)


def test_the_table_the_rules_describe_runs_the_golden_on_the_host():
    pytest.importorskip("pandas")
    out = _run_plan(_SECTIONS, "label_rows", "defaults kept")
    lines = out.splitlines()
    assert lines and lines[0].startswith("result: ")
    assert not any(ln.startswith("exception: ") for ln in lines), out[:500]
    out = _run_plan(
        """
        def forward_lengths(df):
            fwd = df[df['strand'] == '+']
            return int((fwd['end'] - fwd['start']).abs().sum()), len(fwd)
        """,
        "forward_lengths",
        "best guess",
    )
    # some rows are on '+' in some case: the length is not always 0
    results = [ln for ln in out.splitlines() if ln.startswith("result: ")]
    assert results and any(not ln.endswith(", 0)") for ln in results), out[:500]
