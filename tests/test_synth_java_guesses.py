"""Java stubs whose first guess javac rejects: made-up goldens, each compiled and run on the host.

Round 25's rules (``biocoder_metric.synth.java_stubs``): a stub called with other argument types
at another call site, a guessed JDK type lacking what the golden calls on it, the value a member
chain ends in, ``this`` where a class is wanted, and a JDK exception thrown by a JDK call.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _java_synth_helpers import java_harness, run_java

from biocoder_metric.synth.java_stubs import call_argument_at, misguessed_owners

pytestmark = pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness"
)


_harness = java_harness
_run = run_java


def test_where_a_call_argument_is_found_from_the_caret():
    line = '    Checks.notNull(window, lookup(a, b), "window");'
    assert call_argument_at(line, line.index("window")) == ("notNull", 0)
    assert call_argument_at(line, line.index('"window"')) == ("notNull", 2)
    assert call_argument_at(line, line.index("b)")) == ("lookup", 1)
    assert call_argument_at("    if (flag) {", 8) is None  # a condition, not a call


def test_a_stub_called_with_other_types_at_other_sites_takes_any_object(tmp_path: Path):
    """``Checks.notNull(reads, ...)`` then ``Checks.notNull(window, ...)``: javac typed the stub
    from one call; the other did not compile ("int[] cannot be converted to List<String>")."""
    golden = (
        "public static int covered(List<String> reads, int[] window, boolean strict) {\n"
        '    Checks.notNull(reads, "reads");\n'
        '    Checks.notNull(window, "window");\n'
        '    Checks.require(strict, "strict");\n'
        '    Checks.require(window.length, "width");\n'
        "    int n = 0;\n"
        "    for (String r : reads) if (r.length() >= window.length) n++;\n"
        "    return n;\n}"
    )
    ctx = _harness(golden, "covered")
    assert re.search(r"void notNull\(Object _p0, String _p1\)", ctx), ctx
    out = _run(tmp_path, golden, "covered", ctx)
    assert "stub call: Checks.notNull" in out and "stub call: Checks.require" in out, out
    assert len(set(re.findall(r"^result: (.*)$", out, re.M))) > 1, out


def test_a_guessed_jdk_type_lacking_a_member_becomes_a_stub_class(tmp_path: Path):
    """``index.isEmpty()`` reads as a List; ``index.offset(key)`` is no List method, so ``index``
    is an object of a class with no source, whose members are stubbed as javac names them."""
    golden = (
        "public int locate(String key, int shift) {\n"
        "    if (index.isEmpty()) {\n"
        "        return -1;\n"
        "    }\n"
        "    return index.offset(key) + shift;\n}"
    )
    ctx = _harness(golden, "locate")
    assert "BcType_index index" in ctx, ctx
    out = _run(tmp_path, golden, "locate", ctx)
    assert len(set(re.findall(r"^result: (.*)$", out, re.M))) > 1, out


def test_a_guessed_list_called_with_no_index_becomes_a_stub_class(tmp_path: Path):
    """``toggle.get()`` with ``toggle.size()`` beside it: a List has no ``get()``; javac says so as
    "method get in interface List<E> cannot be applied to given types"."""
    golden = (
        "public static int weight(int base) {\n"
        "    if (toggle.size() > 2 && toggle.get()) {\n"
        "        return base * 2;\n"
        "    }\n"
        "    return base;\n}"
    )
    assert misguessed_owners(
        "Main.java:3: error: method get in interface List<E> cannot be applied to given types;\n"
        "    if (toggle.size() > 2 && toggle.get()) {\n"
        "                                   ^\n",
        {"toggle"}, set(), lambda n: "List<Integer>",
    ) == ["toggle"]  # fmt: skip
    ctx = _harness(golden, "weight")
    assert "BcType_toggle toggle" in ctx, ctx
    _run(tmp_path, golden, "weight", ctx)


def test_the_value_a_member_chain_ends_in_is_what_javac_could_not_convert(tmp_path: Path):
    """``if (settings.verbose)``: javac's caret is on the dot; the field guessed wrong is
    ``verbose``, not ``settings`` (retyping that one made it a boolean that has no members)."""
    golden = (
        "public static String label(String name) {\n"
        "    if (settings.verbose) {\n"
        '        return name + ":" + settings.depth;\n'
        "    }\n"
        "    return name;\n}"
    )
    ctx = _harness(golden, "label")
    assert re.search(r"boolean verbose;", ctx), ctx
    out = _run(tmp_path, golden, "label", ctx)
    results = set(re.findall(r"^result: (.*)$", out, re.M))
    assert any(":" in r for r in results) and any(":" not in r for r in results), out


def test_this_returned_where_a_class_is_wanted_names_the_golden_class(tmp_path: Path):
    """A builder's ``return this`` typed ``ReadWindowBuilder``: the row does not name the class,
    the return does, so the harness's class is that one (before: "Main cannot be converted")."""
    golden = (
        "public ReadWindowBuilder withFlank(int flank) {\n"
        "    this.flank = Math.max(flank, 0);\n"
        "    this.width = this.flank * 2 + 1;\n"
        "    return this;\n}"
    )
    ctx = _harness(golden, "withFlank")
    assert "class ReadWindowBuilder" in ctx and "class Main extends ReadWindowBuilder" in ctx, ctx
    out = _run(tmp_path, golden, "withFlank", ctx)
    assert re.search(r"width: \d+", out), out


def test_a_jdk_exception_a_jdk_call_throws_is_imported_and_a_thrown_one_may_stay_a_stub(tmp_path: Path):
    """``new URL(s)`` throws java.net's checked ``MalformedURLException``: an unchecked stand-in
    of that name left it uncaught ("unreported exception"). A golden that throws one without
    declaring it keeps the stand-in (the project's own class of that name is unchecked)."""
    golden = (
        "public static String hostOf(String address) {\n"
        "    URL url = null;\n"
        "    try {\n"
        "        url = new URL(address);\n"
        "    } catch (MalformedURLException e) {\n"
        '        return "bad";\n'
        "    }\n"
        "    return url.getHost();\n}"
    )
    ctx = _harness(golden, "hostOf")
    assert "import java.net.MalformedURLException;" in ctx, ctx
    _run(tmp_path, golden, "hostOf", ctx)
    thrown = (
        "public static String check(String s) {\n"
        "    if (s.isEmpty()) {\n"
        '        throw new MalformedURLException("empty");\n'
        "    }\n"
        "    return s.trim();\n}"
    )
    ctx = _harness(thrown, "check")
    assert "import java.net.MalformedURLException;" not in ctx
    assert "class MalformedURLException extends RuntimeException" in ctx, ctx


def test_classes_nested_in_a_stub_class_are_declared_inside_it(tmp_path: Path):
    """``Registry.Kind`` written as a type and read through (``Registry.Kind.PLAIN``), a generic
    ``Table.Builder<String>`` and ``Codes.Base.N.weight`` (javac: "package Codes.Base does not
    exist"): classes nested in classes with no source, declared inside their stubs."""
    golden = (
        "public static Registry.Kind kindOf(String name, int w) {\n"
        "    Table.Builder<String> b = new Table.Builder<String>();\n"
        "    b.add(name);\n"
        "    if (name.length() > w + Codes.Base.N.weight) {\n"
        "        return Registry.Kind.LONG;\n"
        "    }\n"
        "    return b.size() > 1 ? Registry.Kind.PLAIN : Registry.Kind.SHORT;\n}"
    )
    ctx = _harness(golden, "kindOf")
    for outer, inner in (("Registry", "Kind"), ("Table", "Builder"), ("Codes", "Base")):
        block = re.search(rf"static class {outer} implements.*?\n(    )?}}\n", ctx, re.S)
        assert block and f"static class {inner}" in block.group(0), (outer, ctx)
    assert re.search(r"static class Builder<_BcT0>", ctx), ctx
    # (a few programs: one program's four calls may all take the likelier branch)
    out = "".join(_run(tmp_path, golden, "kindOf", ctx, seed=s) for s in (3, 4, 5))
    assert len(set(re.findall(r"^result: (.*)$", out, re.M))) > 1, out


def test_an_exception_nested_in_a_project_exception_and_an_annotation_with_no_source(tmp_path: Path):
    """``new ToolError.CannotWrite(msg, e)`` (a kind of the project's ``ToolError``) and a
    ``@Reviewed`` annotation on the golden: both compile; the harness catches what is thrown."""
    golden = (
        "@Reviewed\n"
        "public static int closeAll(List<String> names, boolean fail) {\n"
        "    if (fail && names.size() > 2) {\n"
        '        throw new ToolError.CannotWrite("cannot close " + names.get(0), new IllegalStateException());\n'
        "    }\n"
        "    return names.size();\n}"
    )
    ctx = _harness(golden, "closeAll")
    assert "@interface Reviewed" in ctx, ctx
    assert re.search(r"static class CannotWrite extends ToolError", ctx), ctx
    out = _run(tmp_path, golden, "closeAll", ctx)
    assert "exception: CannotWrite" in out and re.search(r"^result: \d+$", out, re.M), out


def test_a_collection_field_holds_what_its_loop_or_typed_get_says():
    """``for (Effect e : effects)`` beside ``effects.isEmpty()``: a list of ``Effect``, not of
    ``Integer`` (javac then rejected ``Effect worst = effects.iterator().next()``); a
    ``Map<String, Effect> m = byGene.get(g)`` makes ``byGene`` hold maps."""
    from biocoder_metric.synth.java_stubs import field_type

    golden = (
        "public Effect worst(String gene) {\n"
        "    if (effects.isEmpty()) return null;\n"
        "    Effect w = effects.iterator().next();\n"
        "    for (Effect e : effects) if (e.rank() > w.rank()) w = e;\n"
        "    Map<String, Effect> m = byGene.get(gene);\n"
        "    return m == null ? w : m.get(gene);\n}"
    )
    assert field_type(golden, "effects", "Effect") == "List<Effect>"
    assert field_type(golden, "byGene", "Effect") == "Map<String,Map<String, Effect>>"


def test_a_library_class_is_built_through_a_constructor_the_harness_can_fill(tmp_path: Path):
    """htsjdk's ``CRAMVersion`` (a class, ``new CRAMVersion(int, int)``) and its
    ``ValidationStringency`` (an enum) had no generator, so such a task stayed golden-only; read
    with ``javap`` from the image's jar, each is built from drawn arguments or drawn values."""
    from biocoder_metric.sandbox.runtime.protocol import java_libs

    libs = java_libs()
    if not any(lib.endswith("htsjdk.jar") for lib in libs):
        pytest.skip("needs the image's htsjdk.jar")
    golden = (
        "public static String describe(CRAMVersion version, ValidationStringency strictness, int extra) {\n"
        "    if (strictness == ValidationStringency.STRICT && version.getMajor() < 3) {\n"
        '        return "old:" + version.getMinor();\n'
        "    }\n"
        '    return version.toString() + "/" + strictness.name() + "/" + extra;\n}'
    )
    ctx = _harness(golden, "describe")
    assert re.search(r"new CRAMVersion\(_r\.nextInt\(\d+\), _r\.nextInt\(\d+\)\)", ctx), ctx
    assert "ValidationStringency.values()[" in ctx, ctx
    out = "".join(_run(tmp_path, golden, "describe", ctx, seed=s, classpath=libs) for s in (3, 4, 5))
    results = set(re.findall(r"^result: (.*)$", out, re.M))
    assert len(results) > 5, out
    assert len({r.split("/")[1] for r in results if r.count("/") == 2}) > 1, out  # drawn enum values
