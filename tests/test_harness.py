"""Harness assembly: fuzz placeholder grammar, seeded values, insertion, Rosalind driver."""

from __future__ import annotations

import ast
import json
import random
import shutil
import string
import subprocess
import sys

import pytest

from biocoder_metric.execution import harness
from biocoder_metric.execution.harness import (
    HarnessError,
    build_harness_programs,
    build_rosalind_program,
    fill_placeholders,
    find_placeholders,
    insert_solution,
)
from biocoder_metric.languages.java import java_class_name


def _values(placeholder: str, n: int = 200, language: str = "python") -> list[str]:
    return [fill_placeholders(placeholder, "t", case, 0, language) for case in range(n)]


# ---------------------------------------------------------------------------- grammar


def test_int_defaults_and_range():
    default = [int(v) for v in _values("<|int|>")]
    assert all(-100000 <= v <= 100000 for v in default)
    assert min(default) < 0 < max(default)  # both signs occur over 200 draws
    ranged = [int(v) for v in _values("<|int;range=3,6|>")]
    assert set(ranged) == {3, 4, 5, 6}


def test_float_defaults_and_range():
    default = [float(v) for v in _values("<|float|>")]
    assert all(-100000.0 <= v <= 100000.0 for v in default)
    ranged = [float(v) for v in _values("<|float;range=0.1,1|>")]
    assert all(0.1 <= v <= 1.0 for v in ranged)
    assert len(set(ranged)) > 150


@pytest.mark.parametrize(
    ("spec", "alphabet"),
    [
        ("", string.ascii_letters),
        (";type=ascii", string.ascii_letters),
        (";type=alpha", string.ascii_lowercase),
        (";type=alphanumeric", string.ascii_lowercase + string.digits),
        (";type=alphanumeric_allcases", string.ascii_letters + string.digits),
        (";custom=ACGT", "ACGT"),
    ],
)
def test_string_alphabets(spec, alphabet):
    values = [ast.literal_eval(v) for v in _values(f"<|string{spec}|>")]
    assert all(len(v) == 10 for v in values)  # default length
    chars = set("".join(values))
    assert chars <= set(alphabet)
    assert len(chars) > len(alphabet) * 0.6  # the whole alphabet is used, not a subset


def test_string_length_forms_and_quotes():
    assert {len(ast.literal_eval(v)) for v in _values("<|string;length=5|>")} == {5}
    assert {len(ast.literal_eval(v)) for v in _values("<|string;length=2,4|>")} == {2, 3, 4}
    assert all(v.startswith('"') and v.endswith('"') for v in _values("<|string|>", 5))
    assert all(v.startswith("'") and v.endswith("'") for v in _values("<|string;quotes=single|>", 5))
    bare = _values("<|string;quotes=none;type=alpha|>", 5)
    assert all(v.isalpha() and v.islower() for v in bare)


def test_bool_types():
    assert set(_values("<|bool|>")) == {"true", "false"}
    assert set(_values("<|bool;type=upper|>")) == {"True", "False"}
    assert set(_values("<|bool;type=lower|>")) == {"true", "false"}
    assert set(_values("<|bool;type=int|>")) == {"1", "0"}


def test_special_strings_are_valid_escaped_literals_python():
    # Upstream pasted raw characters between quotes; we escape, so every value round-trips.
    for quotes in ("double", "single"):
        for v in _values(f"<|string;type=alphanumeric_special;length=30;quotes={quotes}|>", 100):
            value = ast.literal_eval(v)
            assert len(value) == 30
            assert set(value) <= set(string.ascii_letters + string.digits + string.punctuation)
    tricky = fill_placeholders("<|string;custom=\"'\\;length=40|>", "t", 0, 0, "python")
    assert set(ast.literal_eval(tricky)) <= {'"', "'", "\\"}


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs javac")
def test_special_strings_are_valid_java_literals(tmp_path):
    values = [
        fill_placeholders("<|string;type=alphanumeric_special;length=25|>", "t", case, 0, "java")
        for case in range(20)
    ] + [fill_placeholders("<|string;custom=\"'\\;length=25;quotes=double|>", "t", 0, 0, "java")]
    expected = [
        ast.literal_eval(
            fill_placeholders("<|string;type=alphanumeric_special;length=25|>", "t", case, 0, "python")
        )
        for case in range(20)
    ] + [
        ast.literal_eval(
            fill_placeholders("<|string;custom=\"'\\;length=25;quotes=double|>", "t", 0, 0, "python")
        )
    ]
    lines = "\n".join(f"        System.out.println({v});" for v in values)
    (tmp_path / "Main.java").write_text(
        f"public class Main {{\n    public static void main(String[] a) {{\n{lines}\n    }}\n}}\n"
    )
    subprocess.run(["javac", "Main.java"], cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run(
        ["java", "-cp", ".", "Main"], cwd=tmp_path, check=True, capture_output=True, text=True
    ).stdout
    assert out.splitlines() == expected


@pytest.mark.parametrize(
    "bad",
    [
        "<|integer|>",
        "<|int;range=5|>",
        "<|int;range=9,1|>",
        "<|int;range=a,b|>",
        "<|float;range=1,x|>",
        "<|string;length=-1|>",
        "<|string;type=greek|>",
        "<|string;quotes=back|>",
        "<|string;custom=|>",
        "<|bool;type=yes|>",
        "<|int;length=3|>",
        "<|int;range=1,2;range=1,2|>",
        "<|string;length|>",
    ],
)
def test_malformed_placeholders_name_task_and_text(bad):
    with pytest.raises(HarnessError) as info:
        find_placeholders(f"x = {bad}\n", "py_task_42")
    assert "py_task_42" in str(info.value)
    assert bad in str(info.value)


# ---------------------------------------------------------------------------- seeding


def test_values_seeded_per_task_and_case_in_order():
    program = "a = <|int|>\nb = <|string|>\nc = <|float|>\n"
    first = fill_placeholders(program, "task", 3, 7, "python")
    assert first == fill_placeholders(program, "task", 3, 7, "python")
    assert first != fill_placeholders(program, "task", 4, 7, "python")
    assert first != fill_placeholders(program, "other", 3, 7, "python")
    assert first != fill_placeholders(program, "task", 3, 8, "python")
    # The documented rule: Random(f"{seed}:{task}:{case}"), consumed in order of appearance.
    rng = random.Random("7:task:3")
    a = rng.randint(-100000, 100000)
    b = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(10, 10)))
    c = rng.uniform(-100000.0, 100000.0)
    assert first == f'a = {a}\nb = "{b}"\nc = {c!r}\n'


def test_golden_and_candidate_get_identical_values():
    row = {
        "task_id": "t1",
        "language": "python",
        "function_name": "f",
        "signature": "def f(x)",
        "context": "import os\n<<insert solution here>>\nprint(f(<|int|>), <|string;length=3,9|>)\n",
    }
    golden = build_harness_programs(row, "def f(x):\n    return x\n", fuzz_cases=5, seed=0)
    cand = build_harness_programs(row, "def f(x):\n    return -x\n", fuzz_cases=5, seed=0)
    assert len(golden) == len(cand) == 5
    for g, c in zip(golden, cand, strict=True):
        assert g.splitlines()[-1] == c.splitlines()[-1]  # the driver line with the filled values
        assert "<|" not in g
    assert len({g.splitlines()[-1] for g in golden}) == 5


def test_placeholder_text_in_a_candidate_is_not_filled():
    row = {
        "task_id": "t",
        "language": "python",
        "function_name": "f",
        "signature": None,
        "context": "<<insert solution here>>\nprint(f(<|int|>))\n",
    }
    progs = build_harness_programs(row, "def f(x):\n    return '<|int|>'\n", fuzz_cases=2, seed=0)
    assert all("return '<|int|>'" in p for p in progs)


def test_harness_without_placeholders_is_one_case():
    row = {
        "task_id": "t",
        "language": "python",
        "function_name": "f",
        "signature": None,
        "context": "<<insert solution here>>\nprint(f())\n",
    }
    assert len(build_harness_programs(row, "def f():\n    return 1\n", fuzz_cases=10, seed=0)) == 1


# ---------------------------------------------------------------------------- insertion


CLASS_CONTEXT = """class Obj:
    def __init__(self):
        self.v = <|int;range=1,5|>
    <<insert solution here>>
def main():
    print(Obj().get())
main()
"""


def test_insertion_keeps_marker_indentation_inside_class():
    for candidate in (
        "def get(self):\n    if self.v:\n        return self.v * 2\n    return 0\n",
        "    def get(self):\n        return self.v * 2\n",
    ):
        program = insert_solution(CLASS_CONTEXT.replace("<|int;range=1,5|>", "3"), candidate, "t")
        assert "\n    def get(self):\n" in program
        proc = _run_host(program, "")  # our own fixed test program
        assert proc.stdout == "6\n", proc.stderr


def test_insertion_refuses_zero_or_two_markers():
    with pytest.raises(HarnessError, match="task py_x.*found 0"):
        insert_solution("print(1)\n", "def f(): pass", "py_x")
    with pytest.raises(HarnessError, match="task py_y.*found 2"):
        insert_solution("<<insert solution here>>\n<<insert solution here>>\n", "def f(): pass", "py_y")
    row = {
        "task_id": "py_z",
        "language": "python",
        "context": "print(1)\n",
        "function_name": "f",
        "signature": None,
    }
    with pytest.raises(HarnessError, match="py_z"):
        build_harness_programs(row, "def f(): pass", fuzz_cases=1, seed=0)


def test_completion_continuing_python_signature_gets_it_prepended():
    row = {
        "task_id": "t",
        "language": "python",
        "function_name": "gc",
        "signature": "def gc(seq: str) -> float:",
        "context": "<<insert solution here>>\nprint(gc('GGA'))\n",
    }
    body = "    n = len(seq)\n    return (seq.count('G') + seq.count('C')) / n\n"
    (program,) = build_harness_programs(row, body, fuzz_cases=1, seed=0)
    assert program.startswith("def gc(seq: str) -> float:\n    n = len(seq)")
    ast.parse(program)
    # first line stripped by the tokenizer: re-nested under the signature
    (program2,) = build_harness_programs(row, "n = len(seq)\n    return n\n", fuzz_cases=1, seed=0)
    ast.parse(program2)
    # the prompt's own last line wins over the signature column
    prompt = "import os\n\ndef gc(seq, extra=1):\n"
    (program3,) = build_harness_programs(row, "    return 0.0\n", fuzz_cases=1, seed=0, prompt=prompt)
    assert program3.startswith("def gc(seq, extra=1):\n    return 0.0")


def test_java_method_inside_main_class_and_continuation():
    context = "public class Main {\n    <<insert solution here>>\n\n    public static void main(String[] a) {\n        System.out.println(add(<|int;range=1,3|>, 2));\n    }\n}\n"
    row = {
        "task_id": "j",
        "language": "java",
        "function_name": "add",
        "signature": "public static int add(int a, int b)",
        "context": context,
    }
    full = "public static int add(int a, int b) {\n    return a + b;\n}\n"
    (p1,) = build_harness_programs(row, full, fuzz_cases=1, seed=0)
    assert "    public static int add(int a, int b) {\n        return a + b;\n    }\n" in p1
    (p2,) = build_harness_programs(row, "    return a + b;\n}\n", fuzz_cases=1, seed=0)
    assert "public static int add(int a, int b) {" in p2
    assert java_class_name(p2) == "Main"


def test_defines_function_distinguishes_definitions_from_calls():
    from biocoder_metric.generation.postprocess import defines_function

    assert defines_function("def f(x):\n    pass", "f", "python")
    assert defines_function("class A:\n    async def f(self): pass", "f", "python")
    assert not defines_function("print(f(3))", "f", "python")
    assert defines_function("public static int add(int a, int b) {", "add", "java")
    assert defines_function(
        "static Map<String, Integer> add(String s)\n    throws IOException {", "add", "java"
    )
    assert not defines_function("    return add(a, b);", "add", "java")
    assert not defines_function("if (add(a, b)) {", "add", "java")


# ---------------------------------------------------------------------------- rosalind driver


def _run_host(program: str, stdin: str) -> subprocess.CompletedProcess:
    # Our own fixed test programs (no generated code): safe to run directly.
    return subprocess.run(
        [sys.executable, "-c", program], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_rosalind_driver_prints_solve_of_stdin_and_ignores_main_block():
    candidate = (
        "import sys\n\ndef solve(text):\n    return str(sum(int(x) for x in text.split()))\n\n"
        "if __name__ == '__main__':\n    print('SHOULD NOT RUN')\n    sys.exit(3)\n"
    )
    proc = _run_host(build_rosalind_program(candidate), "1 2\n3\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "6\n"


def test_rosalind_driver_syntax_error_surfaces_as_syntax_error():
    proc = _run_host(build_rosalind_program("def solve(x)\n    return x\n"), "")
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1].startswith("SyntaxError")


# ---------------------------------------------------------------------------- real upstream harnesses


@pytest.mark.upstream
def test_every_upstream_python_harness_assembles(upstream_dir):
    tasks = json.loads((upstream_dir / "python-harness" / "tasks.json").read_text())
    assert len(tasks) == 79
    indented = 0
    for t in tasks:
        row = {
            "task_id": t["task_id"],
            "language": "python",
            "function_name": t["function_name"],
            "signature": t["signature"],
            "context": t["context"],
        }
        indented += "\n    <<insert solution here>>" in t["context"]
        programs = build_harness_programs(row, t["golden_code"], fuzz_cases=3, seed=0)
        for p in programs:
            assert "<|" not in p and harness.INSERT_MARKER not in p
            ast.parse(p)  # every case of every golden program is valid Python
    assert indented == 20  # the class-method harnesses are among them


def test_java_imports_of_a_solution_move_to_the_top():
    context = "import java.util.Map;\n\npublic class Main {\n    <<insert solution here>>\n    public static void main(String[] a) { System.out.println(f()); }\n}\n"
    row = {
        "task_id": "j",
        "language": "java",
        "function_name": "f",
        "signature": "static int f()",
        "context": context,
    }
    sol = "import java.util.Map;\nimport java.util.ArrayList;\nstatic int f() {\n    return new ArrayList<Integer>().size();\n}\n"
    (program,) = build_harness_programs(row, sol, fuzz_cases=1, seed=0)
    lines = program.splitlines()
    assert lines[0] == "import java.util.ArrayList;"
    assert lines.count("import java.util.Map;") == 1
    assert "    static int f() {" in lines
