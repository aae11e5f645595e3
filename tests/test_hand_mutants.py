"""The independent hand-style mutant generator (benchmarks/hand_mutants.py) on functions written here.

The generator is the yardstick of ``python -m benchmarks synth_generalise``: if it quietly
produced nothing, or only mutants equal to the original, every harness would look strong.
So each class must appear where the function allows it, every mutant must parse and differ,
and some must really compute something else when run.
"""

from __future__ import annotations

import ast
import re

import pytest

from benchmarks import hand_mutants as hm

GC = '''
def gc_window(seq, start=0, width=10, mode="fraction"):
    """GC content of seq[start:start + width]."""
    window = seq[start:start + width]
    if not window:
        return None
    gc = 0
    for base in window:
        if base == "G" or base == "C":
            gc += 1
    if mode == "count":
        return gc
    elif mode == "percent":
        return 100.0 * gc / len(window)
    return gc / len(window)
'''

BINS = """
def bin_of(pos: int, size: int = 16384) -> int:
    if pos < 0:
        raise ValueError("negative position")
    return pos // size if pos >= size else 0
"""

FRAGMENTS = """
def fragments(seq, k=3):
    out = []
    for i in range(len(seq) - k):
        out.append(seq[i:i + k])
    return out
"""

JAVA = """/**
 * Counts the bases at or above a quality threshold.
 */
public static int countHighQuality(String qualities, int threshold) {
    // the offset is Phred+33; "!" is quality 0
    int count = 0;
    boolean seen = false;
    for (int i = 0; i < qualities.length(); i++) {
        int q = qualities.charAt(i) - 33;
        if (q >= threshold) {
            count++;
            seen = true;
        } else {
            seen = false;
        }
    }
    if (count == 0) {
        return -1;
    }
    return count;
}
"""

JAVA_REF = """public String label(String name, double score) {
    String sep = "\\t";
    if (score > 0.5) {
        return name + sep + "high";
    }
    return name + sep + "low";
}
"""


def _run(code: str, name: str, *args, **kwargs):
    ns: dict = {}
    exec(compile(code, "<mutant>", "exec"), ns)  # noqa: S102 - our own small test functions
    try:
        return ns[name](*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a raised error is a behaviour too
        return f"raised {type(exc).__name__}"


@pytest.mark.parametrize("code,name", [(GC, "gc_window"), (BINS, "bin_of"), (FRAGMENTS, "fragments")])
def test_every_python_mutant_parses_differs_and_is_unique(code, name):
    original = ast.dump(ast.parse(code))
    ms = hm.mutants(code, "python", name, limit=40, seed=0)
    assert ms
    dumps = [ast.dump(ast.parse(m)) for _, m in ms]
    assert all(d != original for d in dumps)
    assert len(set(dumps)) == len(dumps)
    assert {c for c, _ in ms} <= set(hm.CLASSES)


def test_each_class_appears_where_the_function_allows_it():
    classes = {c for c, _ in hm.mutants(GC, "python", "gc_window", limit=40, seed=0)}
    assert classes == set(hm.CLASSES)
    # a small limit still covers every class first (round-robin), not five off-by-ones
    assert {c for c, _ in hm.mutants(GC, "python", "gc_window", limit=5, seed=0)} == set(hm.CLASSES)


def test_deterministic_for_a_seed_and_varied_across_seeds():
    a = hm.mutants(GC, "python", "gc_window", limit=8, seed="task-1")
    assert a == hm.mutants(GC, "python", "gc_window", limit=8, seed="task-1")
    others = [hm.mutants(GC, "python", "gc_window", limit=8, seed=f"task-{i}") for i in range(2, 6)]
    assert any(o != a for o in others)
    assert len(hm.mutants(GC, "python", "gc_window", limit=3, seed=0)) == 3


def test_the_docstring_and_annotations_are_never_mutated():
    for _, m in hm.mutants(GC, "python", "gc_window", limit=60, seed=0):
        assert ast.get_docstring(ast.parse(m).body[0]) == "GC content of seq[start:start + width]."
    for _, m in hm.mutants(BINS, "python", "bin_of", limit=60, seed=0):
        fn = ast.parse(m).body[0]
        assert ast.unparse(fn.returns) == "int" and ast.unparse(fn.args.args[0].annotation) == "int"


def test_wrong_default_changes_a_mode_to_another_mode_the_body_knows():
    defaults = [
        m for c, m in hm.mutants(GC, "python", "gc_window", limit=60, seed=0) if c == hm.WRONG_DEFAULT
    ]
    heads = {ast.unparse(ast.parse(m).body[0].args) for m in defaults}
    assert "seq, start=1, width=10, mode='fraction'" in heads
    assert "seq, start=0, width=11, mode='fraction'" in heads
    assert "seq, start=0, width=10, mode='count'" in heads  # a mode compared in the body
    # and it shows only when the default is used: the bug a positional-only harness misses
    changed = next(m for m in defaults if "mode='count'" in m)
    assert _run(changed, "gc_window", "GGCATT", 0, 6, "fraction") == _run(
        GC, "gc_window", "GGCATT", 0, 6, "fraction"
    )
    assert _run(changed, "gc_window", "GGCATT") != _run(GC, "gc_window", "GGCATT")


def test_mutants_really_behave_differently():
    """Some mutant of each kind computes another answer on an ordinary input."""
    ms = hm.mutants(FRAGMENTS, "python", "fragments", limit=40, seed=0)
    want = _run(FRAGMENTS, "fragments", "ACGTAC")
    off = [m for c, m in ms if c == hm.OFF_BY_ONE]
    assert any("range(len(seq) - k + 1)" in m for m in off)  # the classic fix-the-bound mutant
    assert any(_run(m, "fragments", "ACGTAC") != want for m in off)
    ret = [m for c, m in ms if c == hm.CHANGED_RETURN_TYPE]
    assert ret and all(type(_run(m, "fragments", "ACGTAC")) is not list for m in ret)

    b = hm.mutants(BINS, "python", "bin_of", limit=40, seed=0)
    flipped = [m for c, m in b if c == hm.FLIPPED_COMPARISON]
    assert any(_run(m, "bin_of", 20000) != _run(BINS, "bin_of", 20000) for m in flipped)
    dropped = [m for c, m in b if c == hm.DROPPED_BRANCH]
    assert any(_run(m, "bin_of", -5) != _run(BINS, "bin_of", -5) for m in dropped)  # the guard is gone
    ifexp = [m for m in dropped if "return 0 if pos >= size else 0" in m]
    assert ifexp and _run(ifexp[0], "bin_of", 20000) == 0  # always takes the else
    # a boundary mutant shows only at the boundary: 16384 exactly
    loose = [m for c, m in b if c == hm.OFF_BY_ONE and "pos > size" in m]
    assert loose and _run(loose[0], "bin_of", 16384) != _run(BINS, "bin_of", 16384)
    assert _run(loose[0], "bin_of", 16000) == _run(BINS, "bin_of", 16000)


def test_bad_input_gives_no_mutants():
    assert hm.mutants("def broken(:\n", "python", "broken") == []
    assert hm.mutants("x = 1\n", "python", None) == []
    assert hm.mutants(GC, "python", "gc_window", limit=0) == []
    assert hm.mutants("int x;", "java") == []
    with pytest.raises(ValueError):
        hm.mutants(GC, "rust")


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


def test_java_mutants_differ_and_cover_the_classes():
    ms = hm.mutants(JAVA, "java", "countHighQuality", limit=40, seed=0)
    assert {c for c, _ in ms} == set(hm.CLASSES)
    norms = [_norm(m) for _, m in ms]
    assert _norm(JAVA) not in norms and len(set(norms)) == len(norms)
    for _, m in ms:
        # comments and string literals are never edited; the signature never changes
        assert '// the offset is Phred+33; "!" is quality 0' in m
        assert "public static int countHighQuality(String qualities, int threshold) {" in m
    by_class = {c: [m for k, m in ms if k == c] for c in hm.CLASSES}
    assert any("i <= qualities.length()" in m for m in by_class[hm.OFF_BY_ONE])
    assert any("- 32;" in m or "- 34;" in m for m in by_class[hm.OFF_BY_ONE])
    assert any("q <= threshold" in m for m in by_class[hm.FLIPPED_COMPARISON])
    assert any("if (false)" in m for m in by_class[hm.DROPPED_BRANCH])
    assert any("else" not in m for m in by_class[hm.DROPPED_BRANCH])
    assert any("return 0;" in m for m in by_class[hm.CHANGED_RETURN_TYPE])
    assert any("int count = 1;" in m or "boolean seen = true;" in m for m in by_class[hm.WRONG_DEFAULT])


def test_java_reference_results_become_null_and_strings_keep_their_text():
    ms = hm.mutants(JAVA_REF, "java", "label", limit=40, seed=0)
    assert any("return null;" in m for c, m in ms if c == hm.CHANGED_RETURN_TYPE)
    assert any('String sep = ",";' in m for c, m in ms if c == hm.WRONG_DEFAULT)
    assert all('"high"' in m and '"low"' in m for c, m in ms if c != hm.CHANGED_RETURN_TYPE)
    assert any("score < 0.5" in m for c, m in ms if c == hm.FLIPPED_COMPARISON)
    # 0.5 is a float literal: no integer off-by-one inside it
    assert not any("0.4" in m or "1.5" in m or "0.6" in m for _, m in ms)


# ---------------------------------------------------------------- the benchmark's other yardsticks
# The corpus split and the failure-cause keys decide what synth_generalise reports; both are
# pure functions, checked here beside the generator they are measured with.


def test_the_corpus_manifest_follows_its_split_rule():
    from benchmarks import synth_generalise as sg

    manifest = sg.load_manifest()
    projects = manifest["projects"]
    assert len(projects) >= 12 and len({p["domain"] for p in projects}) >= 10
    for lang in ("python", "java"):
        parts = [p["part"] for p in projects if p["language"] == lang]
        assert parts.count("dev") >= 1 and parts.count("heldout") >= 1
    assert all(re.fullmatch(r"[0-9a-f]{64}", p["sha256"]) for p in projects)
    assert not {"cnvkit", "VarDictJava"} & {p["name"] for p in projects}
    moved = [
        dict(p, part="heldout" if p["part"] == "dev" else "dev") if i == 0 else p
        for i, p in enumerate(projects)
    ]
    assert sg.rule_parts(moved) == sg.rule_parts(projects)  # the rule ignores the recorded parts ...
    assert sg.rule_parts(projects) == {p["name"]: p["part"] for p in projects}  # ... and they agree with it


def test_upstream_split_is_by_task_id_capped_and_deduplicated():
    from benchmarks import synth_generalise as sg

    rows = {
        "a": [
            {"task_id": f"t{i}", "language": "python", "golden_code": f"def f{i}(): pass"} for i in range(40)
        ],
        "b": [{"task_id": "dup", "language": "python", "golden_code": "def f0(): pass"}],
    }
    split = sg.upstream_split(rows, ["a", "b"], cap=5)
    assert all(len(v) == 5 for v in split.values())
    for (part, _), chosen in split.items():
        assert all(sg.upstream_part(r["task_id"]) == part for r in chosen)
    assert "dup" not in {r["task_id"] for v in split.values() for r in v}  # same golden as t0
    assert split == sg.upstream_split(rows, ["a", "b"], cap=5)


def test_failure_causes_drop_plan_labels_and_numbers():
    from benchmarks.synth_generalise import cause_key

    def rec(*reasons):
        return {
            "status": "failed",
            "reason": "; ".join(reasons),
            "attempts": [{"plan": "best guess", "reason": reasons[0]}] if reasons else [],
        }

    assert cause_key({"status": "validated"}) is None
    assert (
        cause_key(rec("golden raises on 10/10 calls (exception: TypeError, exception: KeyError)"))
        == "golden raises: TypeError"
    )
    assert (
        cause_key(rec("golden case 0 (run 1): runtime_error: NameError: name 'x' is not defined"))
        == "golden case fails: runtime_error: NameError"
    )
    assert (
        cause_key(rec("kills 3 of 7 non-equivalent mutants (needs 80%)"))
        == "kills N of N non-equivalent mutants"
    )
    assert (
        cause_key(
            {
                "status": "failed",
                "reason": "unresolved names: etree (from lxml, not in the image or repository)",
                "attempts": [],
            }
        )
        == "unresolved names: from X not in the image or repository"
    )
    assert (
        cause_key({"status": "failed", "reason": "no generator for type(s): SAMRecord", "attempts": []})
        == "no generator for type"
    )


def test_nothing_is_judged_against_a_golden_that_does_not_pass_itself():
    """Where the golden fails as a candidate of its own task (its output varies between runs), a
    mutant's or null candidate's different output is no kill: nothing is judged, and the golden's
    verdict is still reported."""
    from benchmarks.synth_generalise import judged_counts

    def entry(golden: str) -> dict:
        return {
            "task_status": "ok",
            "seconds": 1.0,
            "verdicts": [
                {"kind": "golden", "label": "golden", "status": golden},
                {"kind": "null", "label": "return None", "status": "failed"},
                {"kind": "hand", "label": "wrong_default", "status": "failed", "diff": "-a\n+b"},
                {"kind": "hand", "label": "off_by_one", "status": "passed", "diff": "-c\n+d"},
                {"kind": "rewrite", "label": "renamed_locals", "status": "failed"},
            ],
        }

    good = judged_counts(entry("passed"))
    assert (good["hand_killed"], good["hand_judged"], good["nulls_rejected"], good["rewrites_judged"]) == (
        1,
        2,
        1,
        1,
    )
    assert good["rewrites_failing"] == ["renamed_locals"]
    flaky = judged_counts(entry("failed"))
    assert flaky["engine_golden"] == "failed"
    assert (flaky["hand_killed"], flaky["hand_judged"], flaky["nulls_total"], flaky["rewrites_judged"]) == (
        0,
        0,
        0,
        0,
    )
    assert flaky["hand_per_class"]["wrong_default"]["not_judged"] == 1 and flaky["hand_survivors"] == []
