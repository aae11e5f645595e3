"""``scripts/synth_changed_rows.py`` lists the rows whose candidate harnesses two checkouts render
differently, the shared harness prelude aside: how a round picks the rows it re-synthesises.
Two copies of this checkout's packages stand for the two code states; the later one renames one
plan label and adds a function to the prelude."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from biocoder_dataset.configs import load_problems
from biocoder_metric.synth import python_harness, python_inputs
from biocoder_metric.synth.pipeline import SynthOptions, candidates, sibling_index

REPO = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location(
        "synth_changed_rows", REPO / "scripts" / "synth_changed_rows.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _checkout(dest: Path) -> Path:
    for pkg in ("biocoder_metric", "biocoder_dataset"):
        shutil.copytree(REPO / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _rendered(rows, index) -> dict[str, str]:
    """In this process: each row's candidates as text, the prelude taken out."""
    out = {}
    for r in rows:
        r = dict(r, context=None, kind="golden_only", executable=False, harness_source=None)
        got, reason, _ = candidates(
            r, SynthOptions(), index.get((r.get("repository") or "", r.get("file_path") or "")), None
        )
        out[r["task_id"]] = repr(
            [(lb, pl, ctx.replace(python_harness.PRELUDE, "")) for lb, pl, ctx in got] + [reason]
        )
    return out


def test_only_rows_whose_candidates_change_are_listed(upstream_dir, tmp_path, monkeypatch):
    before = _checkout(tmp_path / "before")
    after = _checkout(tmp_path / "after")
    inputs = after / "biocoder_metric" / "synth" / "python_inputs.py"
    text = inputs.read_text(encoding="utf-8")
    assert text.count('"bool": "_r.random() < 0.5",') == 1
    inputs.write_text(
        text.replace('"bool": "_r.random() < 0.5",', '"bool": "_r.random() < 0.45",'), encoding="utf-8"
    )
    # a prelude-only change (every row's harness has it): no row may be listed for it
    harness = after / "biocoder_metric" / "synth" / "python_harness.py"
    text = harness.read_text(encoding="utf-8")
    assert "def _bc_retype(" in text
    harness.write_text(
        text.replace("def _bc_retype(", "def _bc_unused():\n    return None\n\n\ndef _bc_retype(", 1),
        encoding="utf-8",
    )

    listed = _script().changed_rows(before, after, "python_public", str(upstream_dir))

    # the same change made here: the rows whose rendered candidates it changes
    rows = load_problems("python_public", source_dir=upstream_dir)
    missing = [r for r in rows if not (r.get("executable") and r.get("context"))]
    index = sibling_index(rows)
    old = _rendered(missing, index)
    monkeypatch.setitem(python_inputs.KINDS, "bool", "_r.random() < 0.45")
    new = _rendered(missing, index)
    expected = [t for t in old if old[t] != new[t]]
    assert expected and len(expected) < len(missing)  # some rows draw a boolean, not all
    assert listed == expected
