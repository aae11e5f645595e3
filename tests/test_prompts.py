"""build_prompt: the three styles, context extraction, and no golden code in any prompt."""

from __future__ import annotations

import ast
import re

import pytest

from biocoder_dataset.configs import load_problem_index, load_problems
from biocoder_dataset.java_source import block_end, enclosing_block_end
from biocoder_dataset.normalize import code_key
from biocoder_dataset.prompts import (
    INSERT_MARKER,
    STYLES,
    build_prompt,
    completion_prefix,
    java_context,
)
from biocoder_dataset.schema import CONFIGS

from _dataset_helpers import DEMO_LIKE, SYNTHETIC_SRC

REAL_CONFIGS = tuple(c for c in CONFIGS if c != "demo")


def _parses_with_body(prompt: str) -> None:
    """A Python completion prompt must be valid code once any body is appended."""
    def_line = [ln for ln in prompt.rstrip("\n").splitlines() if re.match(r"\s*(async\s+)?def\s", ln)][-1]
    indent = re.match(r"\s*", def_line).group(0) + "    "
    ast.parse(prompt + indent + "pass\n")


def _golden_body_key(row: dict) -> str | None:
    """Whitespace-free text of the golden's body (its header and docstring may appear in prompts)."""
    code = row["golden_code"]
    if row["kind"] == "rosalind":
        return code_key(code)
    if row["language"] == "java":
        i = code.find("{")
        return code_key(code[i + 1 :]) if i >= 0 else None
    try:
        fn = ast.parse(code).body[0]
    except SyntaxError:
        return None
    stmts = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    return code_key("\n".join(ast.get_source_segment(code, s) or "" for s in stmts)) or None


def test_unknown_style_lists_the_valid_ones():
    row = load_problems("demo", demo_dir=DEMO_LIKE)[0]
    with pytest.raises(ValueError, match="valid styles: summary_only, full_context, instruct"):
        build_prompt(row, "chat")


def test_demo_like_python_harness_prompts():
    row = {r["task_id"]: r for r in load_problems("demo", demo_dir=DEMO_LIKE)}["demo_py_double"]
    summary = build_prompt(row, "summary_only")
    assert summary == 'def double(x):\n    """Return x multiplied by SCALE."""\n'
    full = build_prompt(row, "full_context")
    assert full == 'SCALE = 2\n\ndef double(x):\n    """Return x multiplied by SCALE."""\n'
    assert row["prompt_summary_only"] == summary and row["prompt_full_context"] == full
    instruct = build_prompt(row, "instruct")
    assert "`double`" in instruct and "```python\nSCALE = 2\n```" in instruct
    assert "single ```python fenced code block" in instruct
    assert "return x * SCALE" not in summary + full + instruct


def test_rosalind_prompts_ask_for_solve():
    row = {r["task_id"]: r for r in load_problems("demo", demo_dir=DEMO_LIKE)}["demo_rosalind_count"]
    for style in ("summary_only", "full_context"):
        prompt = build_prompt(row, style)
        assert prompt.startswith("def solve(input_text: str) -> str:\n")
        assert "number of A characters" in prompt
        _parses_with_body(prompt)
    instruct = build_prompt(row, "instruct")
    assert "def solve(input_text: str) -> str" in instruct and "```python" in instruct
    assert "count(" not in instruct


def test_java_harness_full_context_drops_main_and_placeholders():
    rows = {r["task_id"]: r for r in load_problems("java_public", SYNTHETIC_SRC, verify=False)}
    row = rows["java_cccccccccccc"]
    full = build_prompt(row, "full_context")
    assert full.startswith("public class Main {")
    assert "main(String" not in full and "<|" not in full and INSERT_MARKER not in full
    assert full.endswith("    /**\n     * Three times x.\n     */\n    public static int triple(int x) {\n")
    assert (
        build_prompt(row, "summary_only")
        == "/**\n * Three times x.\n */\npublic static int triple(int x) {\n"
    )
    instruct = build_prompt(row, "instruct")
    assert "Java method `triple`" in instruct and "```java" in instruct and "return 3 * x" not in instruct


def test_java_context_skips_braces_in_strings_and_comments():
    """The context cut uses the one Java scanner: braces in literals/comments do not end a block."""
    context = (
        "public class Main {\n"
        '    static String OPEN = "{";\n'
        "    <<insert solution here>>\n"
        "    static int helper() { return '}' + 1; }  // } not a close\n"
        "    public static void main(String[] args) {\n"
        '        System.out.println("}}" + helper()); /* { */\n'
        "    }\n"
        "    static int after() { return 2; }\n"
        "}\n"
    )
    text, indent = java_context(context)
    assert indent == "    "
    assert "main(" not in text and "println" not in text
    assert "static int helper()" in text and "static int after()" in text
    assert text.startswith('public class Main {\n    static String OPEN = "{";')


def test_java_block_helpers():
    code = 'void f() { if (x) { s = "}"; } } // }\n}'
    assert block_end(code) == code.index("} //") + 1
    assert block_end(code, code.index("if")) == code.index('"; }') + 4
    assert block_end("no block here") is None and block_end("void f() { open") is None
    assert enclosing_block_end("int a; void g() { } } tail") == len("int a; void g() { } ")
    assert enclosing_block_end("int a;") is None


def test_java_golden_only_full_context_uses_upstream_declarations():
    row = {r["task_id"]: r for r in load_problems("java_public", SYNTHETIC_SRC, verify=False)}
    triple, zero = row.values()
    assert (
        build_prompt(zero, "full_context")
        == "package org.acme;\n\npublic class MathUtil {\n\n    public int zero() {\n"
    )
    # the golden's upstream metadata is kept on the harness row
    assert "public class Helper" in triple["metadata"]


@pytest.fixture(scope="module")
def python_public(upstream_dir):
    return load_problem_index("python_public", upstream_dir)


@pytest.mark.upstream
def test_real_harness_full_context_shows_context_but_not_the_driver(python_public):
    harness = [r for r in python_public.values() if r["harness_source"] == "upstream"]
    assert len(harness) == 79
    for row in harness:
        full = row["prompt_full_context"]
        assert INSERT_MARKER not in full and "<|" not in full, row["task_id"]
        assert "def main(" not in full and "__main__" not in full, row["task_id"]
        first_context_line = row["context"].splitlines()[0]
        assert full.startswith(first_context_line), row["task_id"]
        _parses_with_body(full)
        _parses_with_body(row["prompt_summary_only"])


@pytest.mark.upstream
def test_real_class_method_is_indented_inside_its_class(python_public):
    row = python_public["py_13ceb9f85253"]
    full = row["prompt_full_context"]
    assert "class SaveImages:" in full and "self.bit_depth = Object(...)" in full
    assert full.endswith(completion_prefix(row, "    "))
    assert "\n    def get_bit_depth(self):\n" in full


@pytest.mark.upstream
def test_real_helpers_after_the_insertion_point_are_kept(python_public):
    full = python_public["py_59d676dcd71a"]["prompt_full_context"]
    assert "def markov(" in full and full.index("def markov(") < full.index("def pca_sk(")


@pytest.mark.upstream
@pytest.mark.parametrize("config", REAL_CONFIGS)
def test_no_prompt_contains_golden_code(upstream_dir, config):
    rows = load_problems(config, upstream_dir)
    checked = 0
    for row in rows:
        body = _golden_body_key(row)
        if not body:
            continue
        checked += 1
        prompts = (row["prompt_summary_only"], row["prompt_full_context"], build_prompt(row, "instruct"))
        for style, prompt in zip(STYLES, prompts, strict=True):
            assert body not in code_key(prompt), (config, row["task_id"], style)
    assert checked >= 0.95 * len(rows)


@pytest.mark.upstream
def test_python_golden_only_prompt_without_docstring_is_just_the_header(python_public):
    bare = [r for r in python_public.values() if r["kind"] == "golden_only" and not r["comment"]]
    assert bare
    for row in bare:
        assert row["prompt_summary_only"] == row["signature"] + ":\n"
        assert "no description" in build_prompt(row, "instruct")
