"""Java harness synthesis, round 33: function values, JDK value classes, and the project's own
classes the code names.

Each rule is tried on goldens made up here (none comes from a measured task): the harness
synthesised for the golden is compiled and run on the host, and it must tell the golden from a
variant with the bug the rule is for on some seed, while a rewrite that keeps the meaning (a loop
run backwards, a call made twice) prints the same on every seed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from biocoder_metric.synth import java_harness
from biocoder_metric.synth.pipeline import SynthOptions, candidates
from tests._java_synth_helpers import java_harness as harness_for
from tests._java_synth_helpers import run_java

pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac and java)")

SEEDS = range(3)


def _outputs(tmp_path: Path, golden: str, name: str, ctx: str) -> list[str]:
    return [run_java(tmp_path, golden, name, ctx, seed=s) for s in SEEDS]


def _told_apart(tmp_path: Path, golden: str, variant: str, name: str, ctx: str | None = None) -> bool:
    """Whether the golden's harness prints something else for ``variant`` on some seed."""
    ctx = ctx or harness_for(golden, name)
    return _outputs(tmp_path, golden, name, ctx) != _outputs(tmp_path, variant, name, ctx)


KEPT = """public static int countKept(List<String> xs, Predicate<String> keep) {
    int n = 0;
    for (String x : xs) {
        if (keep.test(x)) n++;
    }
    return n;
}"""


def test_a_predicate_parameter_is_a_function_that_keeps_some_elements(tmp_path: Path):
    ctx = harness_for(KEPT, "countKept")
    assert "_bcPred(" in ctx and "static <T> java.util.function.Predicate<T> _bcPred" in ctx
    outs = _outputs(tmp_path, KEPT, "countKept", ctx)
    assert len({o for o in outs}) > 1, outs  # what it keeps varies between cases
    assert _told_apart(
        tmp_path, KEPT, KEPT.replace("if (keep.test(x))", "if (!keep.test(x))"), "countKept", ctx
    )
    # the same elements asked in the other order, or asked twice: the same answers
    backwards = KEPT.replace(
        "for (String x : xs) {", "for (int i = xs.size() - 1; i >= 0; i--) {\n        String x = xs.get(i);"
    ).replace("if (keep.test(x)) n++;", "keep.test(x);\n        if (keep.test(x)) n++;")
    assert _outputs(tmp_path, backwards, "countKept", ctx) == _outputs(tmp_path, KEPT, "countKept", ctx)


MAPPED = """public static List<Integer> mapAll(List<String> xs, Function<String, Integer> f) {
    List<Integer> out = new ArrayList<>();
    for (String x : xs) out.add(f.apply(x));
    return out;
}"""


def test_a_function_parameter_maps_each_argument_to_a_value_of_its_result_type(tmp_path: Path):
    ctx = harness_for(MAPPED, "mapAll")
    assert "_bcFunc(" in ctx
    skips = MAPPED.replace("for (String x : xs) out.add", "for (String x : xs.subList(1, xs.size())) out.add")
    assert _told_apart(tmp_path, MAPPED, skips, "mapAll", ctx)
    # equal arguments map to equal values: a candidate that maps a copy of each sees the same
    copies = MAPPED.replace("f.apply(x)", "f.apply(new String(x))")
    assert _outputs(tmp_path, copies, "mapAll", ctx) == _outputs(tmp_path, MAPPED, "mapAll", ctx)


REPEAT = """public static int repeat(int n, Runnable task) {
    for (int i = 0; i < n; i++) task.run();
    return n;
}"""


def test_a_runnable_parameter_shows_each_run(tmp_path: Path):
    ctx = harness_for(REPEAT, "repeat")
    assert '_bcRunnable("task")' in ctx
    assert _told_apart(tmp_path, REPEAT, REPEAT.replace("i < n", "i <= n"), "repeat", ctx)


BEST = """public static String best(List<String> xs, Comparator<String> order) {
    String best = xs.get(0);
    for (String x : xs) if (order.compare(x, best) > 0) best = x;
    return best;
}"""


def test_a_comparator_parameter_orders_its_elements_one_way_or_the_other(tmp_path: Path):
    ctx = harness_for(BEST, "best")
    assert "_bcCmp(" in ctx
    assert _told_apart(tmp_path, BEST, BEST.replace("> 0) best = x", "< 0) best = x"), "best", ctx)


TALLY = """public static int tally(List<Integer> xs, Consumer<Integer> sink, IntPredicate odd) {
    int n = 0;
    for (int x : xs) {
        if (odd.test(x)) { sink.accept(x); n++; }
    }
    return n;
}"""


def test_consumers_and_primitive_predicates_get_function_values(tmp_path: Path):
    ctx = harness_for(TALLY, "tally")
    assert '_bcConsumer("sink")' in ctx and "_bcIntPred(" in ctx
    # what the sink was handed is shown: a variant that hands it another value is caught
    assert _told_apart(tmp_path, TALLY, TALLY.replace("sink.accept(x)", "sink.accept(x + 1)"), "tally", ctx)


def test_function_types_without_a_value_generator_stay_unsupported():
    assert java_harness.generator("BiFunction<String, Integer, Void>", "f", []) is not None  # for its effect
    assert java_harness.generator("Function<String, Undrawable>", "f", []) is None  # no value of the result
    assert java_harness.generator("Supplier<String>", "f", []).startswith("((java.util.function.Supplier")


BUMP = """public static int bump(AtomicInteger counter, int by) {
    return counter.addAndGet(by);
}"""


def test_an_atomic_counter_parameter_is_built_with_a_drawn_value(tmp_path: Path):
    ctx = harness_for(BUMP, "bump")
    assert "new java.util.concurrent.atomic.AtomicInteger(" in ctx
    assert _told_apart(tmp_path, BUMP, BUMP.replace("addAndGet", "getAndAdd"), "bump", ctx)


def test_harnesses_without_function_values_do_not_carry_their_helpers():
    ctx = harness_for("public static int twice(int x) {\n    return 2 * x;\n}", "twice")
    assert "_bcPred" not in ctx and "_bcSalted" not in ctx


# ------------------------------------------------------------- the project's own classes, named

RGB = """package org.example.paint;

public class RGB {
    public int r;
    public int g;
    public int b;

    public RGB(int r, int g, int b) {
        this.r = r;
        this.g = g;
        this.b = b;
    }
}
"""

PALETTE = """package org.example.paint;

public class Palette {
    private RGB getRGB(double value, int max) {
        int red = (int) Math.min(max, Math.abs(value) * 10);
        return new RGB(red, max - red, value < 0 ? max : 0);
    }

    /** The brightness of a shade of the palette. */
    public int brightness(double value, int max) {
        RGB r = getRGB(value, max);
        return r.r * 3 + r.g * 2 - r.b;
    }
}
"""


def _palette_row(repo: Path, golden: str) -> dict:
    return {
        "task_id": "build_java_palette",
        "language": "java",
        "function_name": "brightness",
        "golden_code": golden,
        "file_path": "src/org/example/paint/Palette.java",
        "repository": "example/paint",
        "metadata": json.dumps({}),
        "signature": None,
    }


def _palette_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "paint"
    pkg = repo / "src" / "org" / "example" / "paint"
    pkg.mkdir(parents=True)
    (pkg / "RGB.java").write_text(RGB)
    (pkg / "Palette.java").write_text(PALETTE)
    return repo


def test_a_class_of_the_project_the_code_names_is_inlined_from_its_source(tmp_path: Path):
    """``RGB r = getRGB(...)``: ``RGB`` is neither a parameter's nor a field's type, and it is in
    the same package (never imported). Its own source is inlined, so ``r.r`` (a field named like
    the variable) is the class's real field and the golden compiles; the harness tells the golden
    from a variant that reads the wrong field."""
    repo = _palette_repo(tmp_path)
    start = PALETTE.index("    /** The brightness")
    golden = "\n".join(ln[4:] for ln in PALETTE[start : PALETTE.index("\n    }\n", start) + 6].splitlines())
    row = _palette_row(repo, golden)
    subject = java_harness.analyse_java(row, repo)
    assert "RGB" in subject.repo_types and "public int r;" in subject.repo_types["RGB"].source
    cands, reason, origin = candidates(row, SynthOptions(repos={"example/paint": str(repo)}), [])
    assert reason is None and cands and origin == "repository", reason
    ctx = cands[0][2]
    assert "class RGB {" in ctx and "BcType_r" not in ctx
    variant = golden.replace("r.r * 3 + r.g * 2", "r.g * 3 + r.r * 2")
    assert _told_apart(tmp_path, golden, variant, "brightness", ctx)


def test_a_named_class_already_declared_by_the_slice_is_not_inlined_again(tmp_path: Path):
    repo = _palette_repo(tmp_path)
    subject = java_harness.JavaSubject(
        name="f", return_type="int", params=[], is_static=True, class_name="Palette",
        golden="int f() { RGB c = new RGB(1, 2, 3); Palette p = null; return c.r; }",
        members=["static class RGB { int r; }"],
    )  # fmt: skip
    assert java_harness.named_repo_types(subject, repo) == []
    subject.members = []
    assert java_harness.named_repo_types(subject, repo) == ["RGB"]  # not Palette: the golden's own class


# ------------------------------------------------- the golden's own nested classes, and stubs

KMERS = """package org.example;

import java.util.*;

public class KmerCount {
    private Kmer[] top;
    private int k = 3;

    /** The weighted count of the top k-mers. */
    public int total() {
        int n = 0;
        for (Kmer m : top) n += (int) m.count * k;
        return n;
    }

    class Kmer {
        private String seq;
        private long count;

        Kmer(String seq, long count) {
            this.seq = seq;
            this.count = count;
        }
    }
}
"""


def _repo_row(tmp_path: Path, source: str, cls: str, name: str) -> tuple[dict, SynthOptions, str]:
    repo = tmp_path / cls.lower()
    (repo / "src").mkdir(parents=True)
    (repo / "src" / f"{cls}.java").write_text(source)
    start = source.index(f"    public int {name}(") if f"public int {name}(" in source else None
    assert start is not None
    doc = source.rfind("    /**", 0, start)
    start = doc if doc != -1 and "}" not in source[doc:start] else start
    golden = "\n".join(ln[4:] for ln in source[start : source.index("\n    }\n", start) + 6].splitlines())
    row = {
        "task_id": f"build_java_{name}", "language": "java", "function_name": name, "golden_code": golden,
        "file_path": f"src/{cls}.java", "repository": f"example/{cls.lower()}", "metadata": "{}", "signature": None,
    }  # fmt: skip
    return row, SynthOptions(repos={row["repository"]: str(repo)}), golden


def test_an_inner_class_of_the_golden_is_built_through_an_instance_and_its_privates_are_read(tmp_path: Path):
    """``Kmer[] top`` of an inner class: built with ``new Main().new Kmer(...)`` (no stub of the same
    name beside it), and ``m.count``, private to the inner class, still compiles in ``Main``."""
    row, opts, golden = _repo_row(tmp_path, KMERS, "KmerCount", "total")
    cands, reason, _ = candidates(row, opts, [])
    assert reason is None and cands, reason
    ctx = cands[0][2]
    assert "new Main().new Kmer(" in ctx and "private long count" not in ctx
    assert _told_apart(
        tmp_path, golden, golden.replace("(int) m.count * k", "(int) m.count + k"), "total", ctx
    )


def test_a_stub_method_whose_result_is_a_string_buffer_returns_one(tmp_path: Path):
    """A helper's result used as a ``StringBuffer``: javac rejects the first guess (an ``int``) and
    the stub is retyped, which needs a generator for ``StringBuffer``."""
    golden = """public static String report(Summary summary) {
    StringBuffer sb = summary.document();
    sb.append("end");
    return sb.toString();
}"""
    ctx = harness_for(golden, "report")
    assert "StringBuffer document(" in ctx
    assert _told_apart(tmp_path, golden, golden.replace('append("end")', 'append("END")'), "report", ctx)


PAINTER = """package org.example;

import java.awt.Graphics;

public class Painter {
    private int calls;

    private void mark(Graphics g, int x) {
        g.drawLine(x, 0, x, 10);
        calls++;
    }

    public int paint(Graphics g, int n) {
        for (int i = 0; i < n; i++) mark(g, i);
        return calls;
    }
}
"""


def test_a_stubbed_library_class_the_file_imports_replaces_the_import(tmp_path: Path):
    """``java.awt.Graphics`` (abstract: no generator) is stubbed, and the sliced helper names it, so
    the stubs are top-level classes; the file's ``import java.awt.Graphics`` would clash with the
    stub ("Graphics is already defined in this compilation unit"): the stub is the class."""
    row, opts, golden = _repo_row(tmp_path, PAINTER, "Painter", "paint")
    cands, reason, _ = candidates(row, opts, [])
    assert reason is None and cands, reason
    ctx = cands[0][2]
    assert "import java.awt.Graphics;" not in ctx and "class Graphics extends BcBase" in ctx
    assert _told_apart(tmp_path, golden, golden.replace("i < n", "i <= n"), "paint", ctx)


LINES = """public static int countLines(FileInputStream in) throws IOException {
    BufferedReader r = new BufferedReader(new InputStreamReader(in));
    int n = 0;
    while (r.readLine() != null) n++;
    return n;
}"""


def test_a_file_input_stream_reads_a_file_the_harness_writes(tmp_path: Path):
    ctx = harness_for(LINES, "countLines")
    assert "_bcFileIn(_r)" in ctx and "static java.io.FileInputStream _bcFileIn" in ctx
    assert _told_apart(tmp_path, LINES, LINES.replace("int n = 0;", "int n = 1;"), "countLines", ctx)


def test_a_function_value_shows_the_same_on_every_run(tmp_path: Path):
    """A function value handed to a stub is shown in the stub's call line; a lambda's class name
    holds an address that differs between JVM runs, so it is shown as ``<function>``."""
    golden = """public static boolean allMatch(final int[] array, final IntPredicate pred) {
    Checks.nonNull(pred, "predicate may not be null");
    for (final int x : array) {
        if (!pred.test(x)) return false;
    }
    return true;
}"""
    ctx = harness_for(golden, "allMatch")
    first, second = (run_java(tmp_path, golden, "allMatch", ctx, seed=1) for _ in range(2))
    assert "<function>" in first and "$$Lambda" not in first
    assert first == second
