"""Round 28 (Java): inputs drawn to agree as the golden assumes, and stubs that vary.

Each golden is made up; each harness is synthesised from the golden alone and run on the host
with the golden inserted. Each test fails on the round-27 code (2a7587b), where every input was
drawn on its own: the golden threw on nearly every call, or printed one result for all.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from _java_synth_helpers import java_harness, run_java

from biocoder_metric.synth.pipeline import SynthOptions, candidates

pytestmark = pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness"
)


def _outputs(tmp_path: Path, golden: str, name: str, seeds=(3, 4, 5), variant: int = 0) -> str:
    ctx = java_harness(golden, name, variant)
    return "".join(run_java(tmp_path, golden, name, ctx, seed=s) for s in seeds)


def _results(out: str) -> list[str]:
    return re.findall(r"^result: (.*)$", out, re.M)


def _errors(out: str) -> list[str]:
    return re.findall(r"^exception: (.*)$", out, re.M)


def test_arrays_walked_by_one_index_are_drawn_equally_long(tmp_path: Path):
    golden = (
        "public static double dotProduct(double[] xs, double[] ws) {\n"
        '    if (xs.length != ws.length) throw new IllegalArgumentException("lengths differ");\n'
        "    double s = 0;\n"
        "    for (int i = 0; i < xs.length; i++) s += xs[i] * ws[i];\n"
        "    return s;\n}"
    )
    out = _outputs(tmp_path, golden, "dotProduct")
    assert len(_results(out)) == 12 and not _errors(out), out
    xs = re.findall(r"^after xs: \[(.*)\]$", out, re.M)
    ws = re.findall(r"^after ws: \[(.*)\]$", out, re.M)
    assert [len(a.split(",")) for a in xs] == [len(b.split(",")) for b in ws], out


def test_an_int_used_as_an_index_or_a_count_stays_inside_the_array(tmp_path: Path):
    pick = (
        "public static String nameAt(String[] labels, int slot) {\n    return labels[slot].toUpperCase();\n}"
    )
    out = _outputs(tmp_path, pick, "nameAt")
    assert len(_results(out)) == 12 and not _errors(out), out
    # a count parameter bounding a loop over another array: at most its length
    head = (
        "public static long sumFirst(long[] cells, int used) {\n"
        "    long s = 0;\n"
        "    for (int j = 0; j < used; j++) s += cells[j];\n"
        "    return s;\n}"
    )
    out = _outputs(tmp_path, head, "sumFirst")
    assert len(_results(out)) == 12 and not _errors(out), out
    assert len(set(_results(out))) > 3, out


def test_a_key_is_mostly_one_of_the_maps_keys(tmp_path: Path):
    golden = (
        "public static int twiceDepth(Map<String, Integer> depthBySample, String sample) {\n"
        "    return depthBySample.get(sample) * 2;\n}"
    )
    out = _outputs(tmp_path, golden, "twiceDepth")
    assert len(_results(out)) >= 10, out
    # a needle looked for in a list is sometimes one of its elements
    find = "public static int where(List<String> tags, String tag) {\n    return tags.indexOf(tag);\n}"
    out = _outputs(tmp_path, find, "where")
    assert len(set(_results(out)) - {"-1"}) >= 2, out


def test_matrices_are_rectangular_and_square_where_the_diagonal_is_read(tmp_path: Path):
    trace = (
        "public static double diagonalSum(double[][] grid) {\n"
        "    double t = 0;\n"
        "    for (int i = 0; i < grid.length; i++) t += grid[i][i];\n"
        "    return t;\n}"
    )
    out = _outputs(tmp_path, trace, "diagonalSum")
    assert len(_results(out)) == 12 and not _errors(out), out
    cols = (
        "public static int columns(int[][] table) {\n"
        "    int n = table[0].length;\n"
        '    for (int[] row : table) if (row.length != n) throw new IllegalArgumentException("ragged");\n'
        "    return n * table.length;\n}"
    )
    out = _outputs(tmp_path, cols, "columns")
    assert len(_results(out)) == 12 and not _errors(out), out
    from biocoder_metric.synth.java_relations import relations  # (round 28's module)

    assert relations(trace, {"grid": "double[][]"}).square == {"grid"}
    assert relations(cols, {"table": "int[][]"}).square == set()


def test_compared_searched_and_parsed_literals_are_drawn(tmp_path: Path):
    golden = (
        "public static String flags(String strand, int limit, String line, String field) {\n"
        '    String s = strand.equals("minus") ? "M" : "p";\n'
        '    s += limit == -1 ? "S" : "n";\n'
        '    s += line.startsWith("@") ? "A" : "x";\n'
        "    try {\n"
        '        return s + (Integer.parseInt(field) > -5000 ? "N" : "?");\n'
        "    } catch (NumberFormatException e) {\n"
        '        return s + "-";\n'
        "    }\n}"
    )
    out = _outputs(tmp_path, golden, "flags", seeds=(3, 4, 5, 6, 7))
    got = "".join(_results(out))
    for seen in "MpSnAxN-":  # both sides of every branch
        assert seen in got, (seen, out)


def test_stub_getters_of_one_object_differ_and_objects_of_a_call_compare_equal(tmp_path: Path):
    span = "public static double span(Track t) {\n    return t.getEnd() - t.getStart();\n}"
    out = _outputs(tmp_path, span, "span")
    assert set(_results(out)) != {"0"}, out  # two getters of one object drew the same value
    same = (
        "public static boolean sameParentName(Member a, Member b) {\n"
        "    return a.getParent().getName().equals(b.getParent().getName());\n}"
    )
    out = _outputs(tmp_path, same, "sameParentName", seeds=(3, 4, 5, 6))
    assert set(_results(out)) == {"true", "false"}, out
    twice = (
        "public static boolean stable(Junction e, Junction f) {\n"
        "    return e.getHead().equals(e.getHead()) && !e.getHead().equals(null) && e.getHead().equals(f.getHead());\n}"
    )
    out = _outputs(tmp_path, twice, "stable", seeds=(3, 4, 5, 6))
    assert set(_results(out)) == {"true", "false"}, out


def test_a_field_declared_as_null_and_a_field_a_kept_helper_reads_are_drawn(tmp_path: Path):
    """Fields from upstream's metadata: ``int[] order = null;`` was a field with a value (never
    set, so the golden dereferenced null), and a field only the helper ``weight`` reads stayed
    unset."""
    golden = (
        "public double permutedSum(double[] values) {\n"
        "    double s = 0;\n"
        "    for (int i = 0; i < order.length; i++) s += weight(i) * order[i];\n"
        "    return s + values.length;\n}"
    )
    helper = "public double weight(int i) {\n    return scale * (i + 1);\n}"
    meta = {"intraClassFieldsUsed": "private int[] order = null;\nprivate double scale;"}
    row = {"task_id": "java_t", "language": "java", "function_name": "permutedSum", "golden_code": golden,
           "file_path": "src/Perm.java", "repository": "r", "metadata": json.dumps(meta), "signature": None}  # fmt: skip
    cands, reason, _ = candidates(row, SynthOptions(), [("weight", helper)])
    assert reason is None and cands, reason
    ctx = cands[0][2]
    assert "_o.order = " in ctx and "_o.scale = " in ctx, ctx
    out = "".join(run_java(tmp_path, golden, "permutedSum", ctx, seed=s) for s in (3, 4))
    assert len(_results(out)) == 8 and not _errors(out), out
    assert len(set(_results(out))) > 4, out


def test_a_needle_is_sometimes_a_piece_of_its_haystack(tmp_path: Path):
    golden = (
        "public static int lastMatch(byte[] hay, byte[] needle) {\n"
        "    for (int at = hay.length - needle.length; at >= 0; at--) {\n"
        "        int k = 0;\n"
        "        while (k < needle.length && hay[at + k] == needle[k]) k++;\n"
        "        if (k == needle.length) return at;\n"
        "    }\n"
        "    return -1;\n}"
    )
    out = _outputs(tmp_path, golden, "lastMatch")
    assert len(set(_results(out)) - {"-1"}) >= 2, out
    prefix = "public static boolean hasAdapter(String read, String adapter) {\n    return read.contains(adapter);\n}"
    out = _outputs(tmp_path, prefix, "hasAdapter")
    assert set(_results(out)) == {"true", "false"}, out


def test_stub_results_the_golden_tests_for_null_or_failure_are_sometimes_null_or_fail(tmp_path: Path):
    golden = (
        "public static String label(Registry reg, String key) {\n"
        "    Entry e = reg.lookup(key);\n"
        '    if (e == null) return "missing";\n'
        "    try {\n"
        "        e.check();\n"
        "    } catch (IllegalStateException ex) {\n"
        '        return "bad";\n'
        "    }\n"
        '    return "ok";\n}'
    )
    out = _outputs(tmp_path, golden, "label", seeds=(3, 4, 5, 6))
    assert set(_results(out)) == {'"missing"', '"bad"', '"ok"'}, out


def test_an_object_compared_by_an_equals_method_is_sometimes_itself(tmp_path: Path):
    golden = (
        "public boolean equals(Object other) {\n"
        "    if (this == other) return true;\n"
        "    if (!(other instanceof Orig)) return false;\n"
        "    return false;\n}"
    )
    out = _outputs(tmp_path, golden, "equals", seeds=(3, 4))
    assert set(_results(out)) == {"true", "false"}, out


def test_a_file_listed_as_a_folder_is_a_folder(tmp_path: Path):
    golden = (
        "public static int countFiles(File root) {\n"
        "    int n = 0;\n"
        "    for (File f : root.listFiles()) n += f.isDirectory() ? countFiles(f) : 1;\n"
        "    return n;\n}"
    )
    out = _outputs(tmp_path, golden, "countFiles")
    assert len(_results(out)) == 12 and len(set(_results(out))) > 1, out


def test_stub_results_ordered_against_each_other_sometimes_tie(tmp_path: Path):
    golden = (
        "public int compareTo(final Span other) {\n"
        "    if (this.getLow() < other.getLow()) return -1;\n"
        "    if (this.getLow() > other.getLow()) return 1;\n"
        "    return 0;\n}"
    )
    out = _outputs(tmp_path, golden, "compareTo", seeds=(3, 4, 5, 6, 7, 8))
    assert _results(out).count("0") >= 3, out  # ties: where ``<`` and ``<=`` differ


def test_a_field_of_an_inner_class_only_a_helper_reads_is_left_to_the_class(tmp_path: Path):
    """A field only a kept helper reads is drawn when a JDK type holds it; one of the project's
    inner classes is left as the class sets it (the static ``main`` cannot build an inner class:
    the harness did not compile)."""
    from biocoder_metric.synth.pipeline import java_candidates

    source = (
        "package demo;\n"
        "import java.util.*;\n"
        "public class Tree {\n"
        "    private Node root;\n"
        "    private List<String> names;\n"
        "    class Node { int depth; Node() { depth = 1; } }\n"
        "    public Node grow(String label) {\n"
        "        Node n = new Node();\n"
        "        return attach(n, label);\n"
        "    }\n"
        "    private Node attach(Node n, String label) {\n"
        "        names.add(label);\n"
        "        if (root == null) root = n;\n"
        "        return n;\n"
        "    }\n"
        "}\n"
    )
    (tmp_path / "repo" / "demo").mkdir(parents=True)
    (tmp_path / "repo" / "demo" / "Tree.java").write_text(source)
    golden = "public Node grow(String label) {\n    Node n = new Node();\n    return attach(n, label);\n}"
    row = {"task_id": "java_t", "language": "java", "function_name": "grow", "golden_code": golden,
           "file_path": "demo/Tree.java", "repository": "repo", "metadata": "{}", "signature": None}  # fmt: skip
    cands, reason, _ = java_candidates(row, SynthOptions(), str(tmp_path / "repo"))
    assert reason is None and cands, reason
    ctx = cands[0][2]
    assert "_o.names = " in ctx and "_o.root = " not in ctx, ctx
    out = run_java(tmp_path, golden, "grow", ctx)
    assert len(_results(out)) == 4 and not _errors(out), out
