"""The embedded ``demo`` config (biocoder_dataset/demo/) is well-formed, covers the whole fuzz grammar, and works.

The demo tasks are the project's offline default and the workhorse of the other test
suites, so a broken demo task would make every downstream test meaningless. These tests
check them independently of the engine: the placeholder grammar is re-implemented here
from docs/ARCHITECTURE.md (a second, independent reading of the spec), goldens are run
as plain subprocesses (they are our own trusted code), and each mutant must print
something different from its golden without crashing.
"""

from __future__ import annotations

import ast
import json
import random
import re
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest

import biocoder_dataset

DEMO_DIR = Path(biocoder_dataset.__file__).resolve().parent / "demo"
TASK_DIRS = sorted(p for p in DEMO_DIR.iterdir() if p.is_dir()) if DEMO_DIR.is_dir() else []
TASK_KEYS = {"task_id", "language", "kind", "function_name", "signature", "comment", "title"}
INSERT_LINE = "<<insert solution here>>"
PLACEHOLDER = re.compile(r"<\|(.*?)\|>", re.S)

#: Character sets of the string types (upstream BioCoder fuzzer semantics).
CHARSETS = {
    "ascii": string.ascii_letters,
    "alpha": string.ascii_lowercase,
    "alphanumeric": string.ascii_lowercase + string.digits,
    "alphanumeric_special": string.ascii_lowercase + string.digits + string.punctuation,
    "alphanumeric_allcases": string.ascii_letters + string.digits,
}
QUOTES = {"double": '"', "single": "'", "none": ""}
BOOLS = {"upper": ("True", "False"), "lower": ("true", "false"), "int": ("1", "0")}
ALLOWED_OPTIONS = {
    "int": {"range"},
    "float": {"range"},
    "string": {"length", "type", "custom", "quotes"},
    "bool": {"type"},
}


def _ids(dirs: list[Path]) -> list[str]:
    return [d.name for d in dirs]


def _meta(task_dir: Path) -> dict:
    return json.loads((task_dir / "task.json").read_text(encoding="utf-8"))


def _harness_dirs(language: str | None = None) -> list[Path]:
    return [
        d
        for d in TASK_DIRS
        if _meta(d)["kind"] == "harness" and (language is None or _meta(d)["language"] == language)
    ]


def _rosalind_dirs() -> list[Path]:
    return [d for d in TASK_DIRS if _meta(d)["kind"] == "rosalind"]


def _ext(meta: dict) -> str:
    return "py" if meta["language"] == "python" else "java"


def parse_placeholder(spec: str, where: str) -> tuple[str, dict[str, str]]:
    """Split ``kind;opt=value;...`` and validate it against the grammar; errors name ``where``."""
    kind, *parts = spec.split(";")
    if kind not in ALLOWED_OPTIONS:
        raise ValueError(f"{where}: unknown placeholder kind {kind!r} in <|{spec}|>")
    options: dict[str, str] = {}
    for part in parts:
        name, eq, value = part.partition("=")
        if not eq or not value or name not in ALLOWED_OPTIONS[kind] or name in options:
            raise ValueError(f"{where}: bad option {part!r} in <|{spec}|>")
        options[name] = value
    if "range" in options:
        low, high = (float(x) for x in options["range"].split(","))
        if low > high:
            raise ValueError(f"{where}: empty range in <|{spec}|>")
        if kind == "int" and any(not re.fullmatch(r"-?\d+", x) for x in options["range"].split(",")):
            raise ValueError(f"{where}: int range needs integers in <|{spec}|>")
    if "length" in options:
        bounds = [int(x) for x in options["length"].split(",")]
        if len(bounds) not in (1, 2) or bounds[0] < 0 or bounds[-1] < bounds[0]:
            raise ValueError(f"{where}: bad length in <|{spec}|>")
    if kind == "string" and options.get("type", "ascii") not in CHARSETS:
        raise ValueError(f"{where}: unknown string type in <|{spec}|>")
    if options.get("quotes", "double") not in QUOTES:
        raise ValueError(f"{where}: unknown quotes in <|{spec}|>")
    if kind == "bool" and options.get("type", "lower") not in BOOLS:
        raise ValueError(f"{where}: unknown bool type in <|{spec}|>")
    return kind, options


def fill_value(spec: str, rng: random.Random, charset_override: dict[str, str] | None = None) -> str:
    """One random value for a placeholder, as the grammar in docs/ARCHITECTURE.md defines it."""
    kind, opts = parse_placeholder(spec, "fill")
    if kind == "int":
        low, high = (int(x) for x in opts.get("range", "-100000,100000").split(","))
        return str(rng.randint(low, high))
    if kind == "float":
        low, high = (float(x) for x in opts.get("range", "-100000,100000").split(","))
        return str(rng.uniform(low, high))
    if kind == "bool":
        return rng.choice(BOOLS[opts.get("type", "lower")])
    bounds = [int(x) for x in opts.get("length", "10").split(",")]
    length = bounds[0] if len(bounds) == 1 else rng.randint(bounds[0], bounds[1])
    string_type = opts.get("type", "ascii")
    chars = opts.get("custom") or (charset_override or {}).get(string_type) or CHARSETS[string_type]
    quote = QUOTES[opts.get("quotes", "double")]
    return quote + "".join(rng.choice(chars) for _ in range(length)) + quote


def fill(context: str, seed: int, task_id: str, charset_override: dict[str, str] | None = None) -> str:
    """The context with every placeholder replaced, values for case ``seed`` of ``task_id``."""
    counter = iter(range(10**6))

    def one(match: re.Match) -> str:
        rng = random.Random(f"{seed}:{task_id}:{next(counter)}")
        return fill_value(match.group(1), rng, charset_override)

    return PLACEHOLDER.sub(one, context)


def insert_solution(program: str, code: str) -> str:
    """Put ``code`` where the insert line is, indented like that line (class bodies, Java methods)."""
    lines = program.split("\n")
    (index,) = [i for i, line in enumerate(lines) if line.strip() == INSERT_LINE]
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    body = [indent + line if line.strip() else "" for line in code.rstrip("\n").split("\n")]
    return "\n".join(lines[:index] + body + lines[index + 1 :])


def all_placeholders() -> list[tuple[str, str, str, str]]:
    """(task_id, language, spec, source line) for every placeholder of every harness context."""
    found = []
    for task_dir in _harness_dirs():
        meta = _meta(task_dir)
        context = (task_dir / f"context.{_ext(meta)}").read_text(encoding="utf-8")
        for line in context.splitlines():
            for spec in PLACEHOLDER.findall(line):
                found.append((meta["task_id"], meta["language"], spec, line))
    return found


# ----------------------------------------------------------------------------- shape


def test_demo_has_the_promised_mix_of_tasks():
    metas = [_meta(d) for d in TASK_DIRS]
    python_harness = [m for m in metas if m["language"] == "python" and m["kind"] == "harness"]
    java_harness = [m for m in metas if m["language"] == "java" and m["kind"] == "harness"]
    rosalind = [m for m in metas if m["kind"] == "rosalind"]
    assert len(python_harness) >= 10, [m["task_id"] for m in python_harness]
    assert len(java_harness) >= 5, [m["task_id"] for m in java_harness]
    assert len(rosalind) >= 5, [m["task_id"] for m in rosalind]
    assert len(metas) == len(python_harness) + len(java_harness) + len(rosalind)


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=_ids(TASK_DIRS))
def test_task_json_is_well_formed(task_dir: Path):
    meta = _meta(task_dir)
    assert set(meta) == TASK_KEYS, f"{task_dir}/task.json keys {sorted(meta)}"
    assert all(isinstance(v, str) and v.strip() for v in meta.values()), (
        f"{task_dir}/task.json has an empty field"
    )
    assert meta["task_id"] == task_dir.name
    expected = {
        "demo_py_": ("python", "harness"),
        "demo_java_": ("java", "harness"),
        "demo_rosalind_": ("python", "rosalind"),
    }
    prefix = next(p for p in expected if meta["task_id"].startswith(p))
    assert (meta["language"], meta["kind"]) == expected[prefix]
    assert re.search(rf"\b{re.escape(meta['function_name'])}\s*\(", meta["signature"]), meta["signature"]
    if meta["kind"] == "rosalind":
        assert meta["function_name"] == "solve"


@pytest.mark.parametrize("task_dir", _harness_dirs(), ids=_ids(_harness_dirs()))
def test_harness_files_are_well_formed(task_dir: Path):
    meta = _meta(task_dir)
    ext = _ext(meta)
    expected_files = {"task.json", f"context.{ext}", f"golden.{ext}", f"mutant.{ext}"}
    assert {p.name for p in task_dir.iterdir()} == expected_files
    context = (task_dir / f"context.{ext}").read_text(encoding="utf-8")
    golden = (task_dir / f"golden.{ext}").read_text(encoding="utf-8")
    mutant = (task_dir / f"mutant.{ext}").read_text(encoding="utf-8")

    insert_lines = [line for line in context.splitlines() if INSERT_LINE in line]
    assert len(insert_lines) == 1 and insert_lines[0].strip() == INSERT_LINE, insert_lines
    assert PLACEHOLDER.search(context), "a harness without fuzz placeholders tests one case only"
    for code in (golden, mutant):
        assert INSERT_LINE not in code and "<|" not in code and "|>" not in code
        assert code == code.lstrip() and not code.startswith((" ", "\t")), (
            "golden/mutant are stored unindented"
        )
    assert golden != mutant

    if meta["language"] == "python":
        for name, code in (("golden", golden), ("mutant", mutant)):
            defs = [n.name for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)]
            assert meta["function_name"] in defs, f"{task_dir}/{name}.py defines {defs}"
    else:
        assert "public class Main {" in context
        assert insert_lines[0].startswith("    "), "Java methods go inside class Main, indented"
        assert context.index("public class Main {") < context.index(INSERT_LINE)
        for code in (golden, mutant):
            assert code.startswith(meta["signature"]), f"{task_dir}: method must start with its signature"


def test_a_python_placeholder_is_indented_inside_a_class():
    indented = []
    for task_dir in _harness_dirs("python"):
        lines = (task_dir / "context.py").read_text(encoding="utf-8").splitlines()
        (index,) = [i for i, line in enumerate(lines) if line.strip() == INSERT_LINE]
        if lines[index].startswith(" ") and any(line.startswith("class ") for line in lines[:index]):
            indented.append(task_dir.name)
    assert indented, "no Python task inserts its solution as a method (upstream has many)"


@pytest.mark.parametrize("task_dir", _rosalind_dirs(), ids=_ids(_rosalind_dirs()))
def test_rosalind_files_are_well_formed(task_dir: Path):
    assert {p.name for p in task_dir.iterdir()} == {
        "task.json",
        "golden.py",
        "mutant.py",
        "input.txt",
        "output.txt",
    }
    for name in ("golden.py", "mutant.py"):
        tree = ast.parse((task_dir / name).read_text(encoding="utf-8"))
        assert "solve" in [n.name for n in tree.body if isinstance(n, ast.FunctionDef)], f"{task_dir}/{name}"
    assert (task_dir / "input.txt").read_text(encoding="utf-8").strip()
    assert (task_dir / "output.txt").read_text(encoding="utf-8").strip()


def test_readme_describes_every_task():
    readme = (DEMO_DIR / "README.md").read_text(encoding="utf-8")
    missing = [d.name for d in TASK_DIRS if d.name not in readme]
    assert not missing, f"biocoder_dataset/demo/README.md does not describe {missing}"


# ----------------------------------------------------------------------------- placeholders


def test_every_placeholder_follows_the_grammar():
    placeholders = all_placeholders()
    assert placeholders
    for task_id, _, spec, _ in placeholders:
        parse_placeholder(spec, task_id)


def test_every_placeholder_type_and_option_is_covered():
    features: set[str] = set()
    for task_id, _, spec, _ in all_placeholders():
        kind, opts = parse_placeholder(spec, task_id)
        if "range" in opts:
            features.add(f"{kind};range")
        if kind == "int" and not opts:
            features.add("int plain")
        if kind == "float" and not opts:
            features.add("float plain")
        if kind == "string":
            if not opts:
                features.add("string plain")
            if "length" in opts:
                features.add("string;length=a,b" if "," in opts["length"] else "string;length=n")
            if "type" in opts:
                features.add(f"string;type={opts['type']}")
            if "custom" in opts:
                features.add("string;custom")
                if set(opts["custom"]) == set("ACGT"):
                    features.add("string;custom=ACGT")
            if "quotes" in opts:
                features.add(f"string;quotes={opts['quotes']}")
        if kind == "bool":
            features.add(f"bool;type={opts['type']}" if "type" in opts else "bool plain")
    required = {
        "int plain", "int;range", "float plain", "float;range", "string plain", "string;length=n",
        "string;length=a,b", "string;custom=ACGT", "bool plain",
        *(f"string;type={t}" for t in CHARSETS),
        *(f"string;quotes={q}" for q in QUOTES),
        *(f"bool;type={t}" for t in BOOLS),
    }  # fmt: skip
    assert not required - features, f"demo contexts never use {sorted(required - features)}"


def test_placeholders_are_placed_where_every_value_is_valid_code():
    """Values are inserted verbatim (no escaping), so each placeholder must sit where any of its values parses."""
    for task_id, language, spec, line in all_placeholders():
        kind, opts = parse_placeholder(spec, task_id)
        where = f"{task_id}: <|{spec}|>"
        if kind == "bool":
            bool_type = opts.get("type", "lower")
            allowed = {"python": {"upper", "int"}, "java": {"lower", "int"}}[language]
            assert bool_type in allowed, f"{where}: {bool_type} booleans are not {language} literals"
        if kind in ("int", "float"):
            assert not re.search(r"-\s*<\|" + re.escape(spec), line), (
                f"{where}: a negative value would make '--'"
            )
        if kind == "string" and opts.get("type") == "alphanumeric_special":
            assert language == "python", f"{where}: Java comments still decode \\u escapes"
            before = line.split("<|" + spec + "|>")[0]
            assert "#" in before, f"{where}: quotes and backslashes are only safe inside a Python comment"
        if kind == "string" and language == "java" and opts.get("quotes") == "single":
            assert opts.get("length") == "1", f"{where}: a Java single-quoted literal is a char"
        if (
            kind == "string"
            and opts.get("quotes", "double") != "none"
            and opts.get("type") != "alphanumeric_special"
        ):
            chars = opts.get("custom") or CHARSETS[opts.get("type", "ascii")]
            assert not set(chars) & set("\"'\\"), f"{where}: characters that would break the literal"


@pytest.mark.parametrize("task_dir", _harness_dirs("python"), ids=_ids(_harness_dirs("python")))
def test_python_contexts_parse_for_hostile_values(task_dir: Path):
    """Fill alphanumeric_special with the nastiest characters (quotes, backslashes, '<|') and still compile."""
    hostile = {"alphanumeric_special": "\"'\\\\<|>#{}" + string.punctuation}
    context = (task_dir / "context.py").read_text(encoding="utf-8")
    golden = (task_dir / "golden.py").read_text(encoding="utf-8")
    for seed in range(30):
        program = insert_solution(fill(context, seed, task_dir.name, hostile), golden)
        compile(program, f"{task_dir.name}[{seed}]", "exec")


# ----------------------------------------------------------------------------- behaviour


def _run_python(
    program: str, tmp_path: Path, stdin_files: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "main.py").write_text(program, encoding="utf-8")
    for name, text in (stdin_files or {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize("task_dir", _harness_dirs("python"), ids=_ids(_harness_dirs("python")))
def test_python_golden_passes_and_mutant_fails(task_dir: Path, tmp_path: Path):
    context = (task_dir / "context.py").read_text(encoding="utf-8")
    golden = (task_dir / "golden.py").read_text(encoding="utf-8")
    mutant = (task_dir / "mutant.py").read_text(encoding="utf-8")
    outputs = set()
    for seed in range(2):
        program = fill(context, seed, task_dir.name)
        first = _run_python(insert_solution(program, golden), tmp_path / f"g{seed}")
        again = _run_python(insert_solution(program, golden), tmp_path / f"h{seed}")
        bad = _run_python(insert_solution(program, mutant), tmp_path / f"m{seed}")
        assert first.returncode == 0 and first.stdout.strip(), (
            f"golden failed on seed {seed}: {first.stderr[-2000:]}"
        )
        assert again.stdout == first.stdout, f"golden output is not deterministic on seed {seed}"
        assert bad.returncode == 0, (
            f"mutant must fail by output, not crash (seed {seed}): {bad.stderr[-2000:]}"
        )
        assert bad.stdout != first.stdout, f"mutant prints the golden output on seed {seed}"
        outputs.add(first.stdout)
    assert len(outputs) == 2, "two fuzz cases gave identical output: the placeholders do not reach the output"


@pytest.mark.parametrize("task_dir", _rosalind_dirs(), ids=_ids(_rosalind_dirs()))
def test_rosalind_golden_reproduces_output_and_mutant_does_not(task_dir: Path, tmp_path: Path):
    driver = "\n\nprint(solve(open('input.txt', encoding='utf-8').read()))\n"
    files = {"input.txt": (task_dir / "input.txt").read_text(encoding="utf-8")}
    expected = (task_dir / "output.txt").read_text(encoding="utf-8").strip()
    golden = _run_python((task_dir / "golden.py").read_text(encoding="utf-8") + driver, tmp_path / "g", files)
    mutant = _run_python((task_dir / "mutant.py").read_text(encoding="utf-8") + driver, tmp_path / "m", files)
    assert golden.returncode == 0, golden.stderr[-2000:]
    assert golden.stdout.strip() == expected
    assert mutant.returncode == 0, mutant.stderr[-2000:]
    assert mutant.stdout.strip() != expected


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("javac") is None or shutil.which("java") is None, reason="needs a JDK (javac, java) on PATH"
)
@pytest.mark.parametrize("task_dir", _harness_dirs("java"), ids=_ids(_harness_dirs("java")))
def test_java_golden_passes_and_mutant_fails(task_dir: Path, tmp_path: Path):
    context = (task_dir / "context.java").read_text(encoding="utf-8")
    program = fill(context, 0, task_dir.name)
    stdout = {}
    for which in ("golden", "mutant"):
        work = tmp_path / which
        work.mkdir()
        code = (task_dir / f"{which}.java").read_text(encoding="utf-8")
        (work / "Main.java").write_text(insert_solution(program, code), encoding="utf-8")
        compiled = subprocess.run(
            ["javac", "Main.java"], cwd=work, capture_output=True, text=True, timeout=120
        )
        assert compiled.returncode == 0, f"{which} does not compile: {compiled.stderr[-2000:]}"
        ran = subprocess.run(
            ["java", "-cp", ".", "Main"], cwd=work, capture_output=True, text=True, timeout=60
        )
        assert ran.returncode == 0, f"{which} crashed: {ran.stderr[-2000:]}"
        stdout[which] = ran.stdout
    assert stdout["golden"].strip()
    assert stdout["mutant"] != stdout["golden"]
