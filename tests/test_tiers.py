"""Every test file is in exactly one tier on purpose (tests/conftest.py), and the tiers select."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import FAST, FULL

TESTS = Path(__file__).resolve().parent


def test_every_test_file_is_in_exactly_one_tier():
    files = {p.name for p in TESTS.glob("test_*.py")}
    assert not (FAST & FULL), f"in both tiers: {sorted(FAST & FULL)}"
    assert files == FAST | FULL, (
        f"not in a tier: {sorted(files - FAST - FULL)}; gone: {sorted((FAST | FULL) - files)}"
    )


def test_the_default_run_leaves_the_full_tier_out_and_all_keeps_it():
    def collected(*args: str) -> set[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
            cwd=TESTS.parent,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return {line.split("::")[0].split("/")[-1] for line in proc.stdout.splitlines() if "::" in line}

    default, everything = collected(), collected("--all")
    assert default <= FAST and default & FAST
    assert everything >= default | {"test_sabotage_accounting.py", "test_reliability_hostile.py"}


# --------------------------------------------------------- engine-running tests carry a marker
#: What running the engine (or a sandbox worker) looks like in a test's source: the engine's entry
#: points, pools and sandboxes, and a ``sandbox=`` backend or a ``--sandbox`` flag.
ENGINE_NAMES = {
    "make_sandbox",
    "SandboxPool",
    "make_pool",
    "RayPool",
    "BwrapSandbox",
    "DockerSandbox",
    "NoneSandbox",
    "WorkerSandbox",
    "Session",
    "Verifier",
    "evaluate_samples",
    "run_evaluation",
    "check_goldens",
    "golden_outputs",
    "evaluate_run",
    "check_run",
    "merge_run",
    "audit_tasks",
}
ENGINE_MARKS = {"engine", "slow", "bwrap", "docker"}
#: Fast-tier tests that name the engine but run no sandbox (a fake sandbox factory), with why.
NO_SANDBOX = {
    ("test_execute.py", "test_a_golden_sandbox_error_is_retried_twice_on_fresh_sandboxes"): "fake sandboxes",
    (
        "test_execute.py",
        "test_a_candidate_sandbox_error_is_retried_once_then_attributed_by_a_canary",
    ): "fake sandboxes",
}


def _marks(node: ast.AST) -> set[str]:
    """``pytest.mark.X`` names in ``node`` (decorators, or a ``pytestmark`` value)."""
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and n.value.attr == "mark"
    }


def _engine_uses(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if (
            isinstance(n, ast.Name)
            and n.id in ENGINE_NAMES
            or isinstance(n, ast.Attribute)
            and n.attr in ENGINE_NAMES
        ):
            out.add(n.id if isinstance(n, ast.Name) else n.attr)
        elif (
            isinstance(n, ast.keyword)
            and n.arg == "sandbox"
            and isinstance(n.value, ast.Constant)
            and n.value.value in ("bwrap", "docker", "none", "auto")
        ):
            out.add(f"sandbox={n.value.value}")
        elif isinstance(n, ast.Constant) and n.value == "--sandbox":
            out.add("--sandbox")
    return out


def unmarked_engine_tests(source: str) -> dict[str, list[str]]:
    """Test functions of one file that run the engine (themselves, or through the file's helpers and
    fixtures they use) without an engine marker (theirs, their class's or the module's)."""
    tree = ast.parse(source)
    module_marks = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
            module_marks |= _marks(node.value)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    tests = [(n, set()) for n in helpers.values() if n.name.startswith("test_")]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        tests += [
            (n, _marks(ast.Module(body=cls.decorator_list, type_ignores=[])))
            for n in cls.body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
        ]

    def reach(fn: ast.AST, seen: set[str]) -> set[str]:
        uses = _engine_uses(fn)
        called = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in fn.args.args}
        for name in sorted(called & set(helpers) - seen):
            seen.add(name)
            uses |= reach(helpers[name], seen)
        return uses

    out = {}
    for fn, class_marks in tests:
        uses = reach(fn, {fn.name})
        marks = module_marks | class_marks | _marks(ast.Module(body=fn.decorator_list, type_ignores=[]))
        if uses and not marks & ENGINE_MARKS:
            out[fn.name] = sorted(uses)
    return out


def test_every_engine_running_test_of_the_fast_tier_carries_a_marker():
    """``-m "not engine and not slow"`` gives the unit tests alone; FULL files need no marker."""
    found = {}
    for name in sorted(FAST - {"test_tiers.py"}):  # this file only reads sources
        for test, uses in unmarked_engine_tests((TESTS / name).read_text(encoding="utf-8")).items():
            if (name, test) not in NO_SANDBOX:
                found[f"{name}::{test}"] = uses
    assert found == {}, f"engine-running tests without an engine/slow/bwrap/docker marker: {found}"


def test_the_marker_check_catches_an_unmarked_engine_test():
    source = """
import pytest
from biocoder_metric.execution import EvalOptions, evaluate_samples

def _run(rows):
    return evaluate_samples(rows, [], EvalOptions(sandbox="bwrap"))

@pytest.fixture
def box():
    from biocoder_metric.sandbox import make_sandbox
    return make_sandbox("none", allow_unsafe=True)

def test_through_a_helper(): _run([])
def test_through_a_fixture(box): box.run(None)
@pytest.mark.engine
def test_marked(): _run([])
def test_pure(): assert 1 + 1 == 2
class TestGroup:
    def test_cli(self): run(["biocoder", "evaluate", "--sandbox", "bwrap"])
"""
    assert unmarked_engine_tests(source) == {
        "test_through_a_helper": ["evaluate_samples", "sandbox=bwrap"],
        "test_through_a_fixture": ["make_sandbox"],
        "test_cli": ["--sandbox"],
    }
    assert unmarked_engine_tests("import pytest\npytestmark = pytest.mark.bwrap\n" + source) == {}
