"""The architecture rules that a file tree alone cannot enforce, checked on the real sources.

* ``biocoder_dataset`` never imports ``biocoder_metric`` (data is the lower layer).
* Nothing installed imports the developer ``benchmarks``.
* The stages never import ``biocoder_metric.evaluation`` (the one call that owns a run sits above
  them; only the adapters call it).
* One cache root: with ``BIOCODER_CACHE_DIR`` set, a real ``biocoder evaluate`` writes caches
  there and nowhere under ``HOME``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from biocoder_dataset import settings

REPO = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _offenders(package: str, forbidden: str) -> dict[str, list[str]]:
    found = {}
    for path in (REPO / package).rglob("*.py"):
        if "demo" in path.relative_to(REPO).parts:  # harness templates, not modules
            continue
        bad = sorted(m for m in _imports(path) if m == forbidden or m.startswith(forbidden + "."))
        if bad:
            found[str(path.relative_to(REPO))] = bad
    return found


def test_the_dataset_package_does_not_import_the_metric_package():
    assert _offenders("biocoder_dataset", "biocoder_metric") == {}


def test_no_installed_module_imports_the_benchmarks():
    assert (
        _offenders("biocoder_metric", "benchmarks") == {}
        and _offenders("biocoder_dataset", "benchmarks") == {}
    )


def test_no_stage_imports_the_run_owner_above_it():
    stages = ("generation", "execution", "sandbox", "scoring", "validity", "reporting")
    found = {}
    for stage in stages:
        found.update(_offenders(f"biocoder_metric/{stage}", "biocoder_metric.evaluation"))
    for shared in ("types.py", "samples.py", "digests.py"):
        bad = sorted(
            m
            for m in _imports(REPO / "biocoder_metric" / shared)
            if m.startswith("biocoder_metric.evaluation")
        )
        if bad:
            found[shared] = bad
    assert found == {}, f"upward imports of biocoder_metric.evaluation: {found}"


def test_each_cli_command_is_a_module_of_its_own():
    from biocoder_metric import cli

    for name in cli.COMMANDS:
        assert (REPO / "biocoder_metric" / "cli" / f"{name}.py").is_file(), name
    assert not list((REPO / "biocoder_metric").glob("cli_*.py")), (
        "command modules live in biocoder_metric/cli/"
    )


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.bwrap
def test_caches_go_only_under_the_cache_root(tmp_path):
    if not shutil.which("bwrap"):
        pytest.skip("bubblewrap is not installed")
    cache, home = tmp_path / "x", tmp_path / "h"
    home.mkdir()
    samples = tmp_path / "samples.jsonl"
    tasks = ["demo_py_gc_content", "demo_java_hamming"]
    from biocoder_dataset.configs import load_problems

    rows = {r["task_id"]: r for r in load_problems("demo")}
    samples.write_text(
        "".join(json.dumps({"task_id": t, "completion": rows[t]["golden_code"]}) + "\n" for t in tasks)
    )
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", settings.ENV_CACHE_DIR)}
    env.update({settings.ENV_CACHE_DIR: str(cache), "HOME": str(home), settings.ENV_BWRAP_ROOTFS: "host"})
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "biocoder_metric",
            "evaluate",
            "--config",
            "demo",
            "--samples",
            str(samples),
            "--task-ids",
            ",".join(tasks),
            "--sandbox",
            "bwrap",
            "--workers",
            "1",
            "--fuzz-cases",
            "2",
            "--out",
            str(tmp_path / "run"),
            "--no-progress",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _files(home) == [], f"written under HOME: {_files(home)}"
    made = {p.name for p in cache.iterdir()}
    assert made <= set(settings.CACHE_SUBDIRS.values()), made
    assert {"golden", "runtime"} <= made
    assert any((cache / "golden").iterdir()) and (cache / "runtime").is_dir()


# ------------------------------------------------------------------------ layers and cycles
#: The layer block of docs/ARCHITECTURE.md (lowest first): the stage order, as data.
ARCHITECTURE = REPO / "docs" / "ARCHITECTURE.md"
PACKAGES = ("biocoder_dataset", "biocoder_metric")


def read_layers(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """``[(layer, module prefixes)]``, lowest first, from the block between the layer markers."""
    block = text.split("<!-- layers: begin -->", 1)[1].split("<!-- layers: end -->", 1)[0]
    out = []
    for line in block.splitlines():
        words = line.split()
        if words and not line.startswith("```"):
            out.append((words[0], tuple(words[1:])))
    return out


def layer_of(module: str, layers: list[tuple[str, tuple[str, ...]]]) -> int | None:
    """Index of ``module``'s layer: the one with its longest matching prefix (None: no layer).

    A prefix written ``=name`` matches the module ``name`` only (a package's ``__init__``).
    """
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            exact = prefix.startswith("=")
            prefix = prefix.lstrip("=")
            matches = module == prefix or (not exact and module.startswith(prefix + "."))
            if matches and len(prefix) > best_len:
                best, best_len = i, len(prefix)
    return best


def module_graph(root: Path = REPO) -> dict[str, set[str]]:
    """Module -> the project modules it imports (every import, lazy ones in functions included).

    Relative imports are resolved; ``from pkg import mod`` names the module ``pkg.mod``.
    """
    files = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            if "demo" in path.relative_to(root).parts:  # harness templates, not modules
                continue
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            files[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.add(target)
                found.update(f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in files)
        graph[name] = {m for m in found if m.split(".")[0] in PACKAGES and m != name}
    return graph


def upward_imports(graph: dict[str, set[str]], layers) -> list[str]:
    """Every import of a module from a later (higher) layer, and every module in no layer."""
    bad = []
    for module, targets in sorted(graph.items()):
        own = layer_of(module, layers)
        if own is None:
            bad.append(f"{module}: in no layer of docs/ARCHITECTURE.md")
            continue
        for target in sorted(targets):
            theirs = layer_of(target, layers)
            if theirs is not None and theirs > own:
                bad.append(f"{module} ({layers[own][0]}) imports {target} ({layers[theirs][0]})")
    return bad


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_layers_follow_the_stage_order_of_the_data_flow():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    names = [name for name, _ in layers]
    # The data flow line of docs/ARCHITECTURE.md, in the same order.
    flow = ["base", "generation", "sandbox", "execution", "scoring", "reporting", "evaluation", "cli"]
    assert [n for n in names if n in flow] == flow, names
    assert len(set(names)) == len(names), names


def test_no_module_imports_a_layer_above_its_own():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert upward_imports(module_graph(), layers) == []


def test_the_import_graph_has_no_cycle():
    assert import_cycles(module_graph()) == []


def _write(root: Path, modules: dict[str, str]) -> None:
    for name, source in modules.items():
        path = root.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            if str(parent) != ".":
                (root / parent / "__init__.py").touch()
        path.write_text(source)


def test_the_layer_check_fails_on_a_synthetic_upward_import_and_a_cycle(tmp_path):
    """The checks can fail: a bad module graph on disk is caught (upward import, stray module, cycle)."""
    _write(
        tmp_path,
        {
            "biocoder_dataset.schema": "",
            "biocoder_metric.types": "from biocoder_dataset import schema\n",
            "biocoder_metric.execution.engine": "from biocoder_metric.types import Job\n"
            "def later():\n    from biocoder_metric.cli import common\n",
            "biocoder_metric.cli.common": "from biocoder_metric.execution import engine\n",
            "biocoder_metric.stray": "",
        },
    )
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    graph = module_graph(tmp_path)
    assert graph["biocoder_metric.execution.engine"] == {
        "biocoder_metric.types",
        "biocoder_metric.cli",
        "biocoder_metric.cli.common",
    }
    assert upward_imports(graph, layers) == [
        "biocoder_metric.execution.engine (execution) imports biocoder_metric.cli (cli)",
        "biocoder_metric.execution.engine (execution) imports biocoder_metric.cli.common (cli)",
        "biocoder_metric.stray: in no layer of docs/ARCHITECTURE.md",
    ]
    assert import_cycles(graph) == [["biocoder_metric.cli.common", "biocoder_metric.execution.engine"]]
    # and a relative import is resolved to the module it names
    _write(
        tmp_path,
        {
            "biocoder_metric.scoring.summary": "from ..reporting import html\n",
            "biocoder_metric.reporting.html": "",
        },
    )
    assert "biocoder_metric.reporting.html" in module_graph(tmp_path)["biocoder_metric.scoring.summary"]
    assert any(
        "scoring.summary (scoring) imports biocoder_metric.reporting" in b
        for b in upward_imports(module_graph(tmp_path), layers)
    )


def test_importing_the_value_types_loads_no_sandbox_backend_and_the_samples_reader_no_engine():
    code = (
        "import sys; import biocoder_metric.types, biocoder_metric.samples; "
        "print(sorted(m for m in sys.modules if m.startswith('biocoder_metric')))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    loaded = set(ast.literal_eval(out))
    assert loaded <= {
        "biocoder_metric",
        "biocoder_metric.errors",
        "biocoder_metric.samples",
        "biocoder_metric.types",
        "biocoder_metric.sandbox",
        "biocoder_metric.sandbox.interface",
        "biocoder_metric.sandbox.runtime",
        "biocoder_metric.sandbox.runtime.protocol",
    }, loaded
    import biocoder_metric.sandbox as sandbox

    assert not hasattr(sandbox, "__getattr__"), "sandbox/__init__ needs no lazy-import dodge"


def test_the_sample_and_task_statuses_live_in_types_only():
    """``Status`` and ``TaskStatus`` are the host's words (``types.py``); the worker protocol speaks
    only ``RunStatus`` (how one program run ended), which ``types`` re-exports unchanged."""
    from biocoder_metric import types
    from biocoder_metric.sandbox.runtime import protocol

    for name in ("Status", "TaskStatus"):
        assert not hasattr(protocol, name), f"protocol.py still defines {name}"
        assert hasattr(types, name)
    assert types.RunStatus is protocol.RunStatus


def test_host_modules_build_asts_through_the_locked_parser():
    """Threads build ASTs at once in the host (one per sandbox), which CPython 3.11 can turn into
    ``SystemError: AST constructor recursion depth mismatch``: every host module parses through
    ``biocoder_metric.pyast`` (the in-sandbox runtime is single-threaded and exempt)."""
    bare = re.compile(r"\bast\.(parse|literal_eval)\(")
    offenders = []
    for root in ("biocoder_metric", "benchmarks"):
        for path in sorted((REPO / root).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel.startswith("biocoder_metric/sandbox/runtime/") or rel == "biocoder_metric/pyast.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if bare.search(line):
                    offenders.append(f"{rel}:{n}")
    assert offenders == [], offenders


def test_the_locked_parser_serialises_threads():
    """Two threads never build an AST at the same time through ``pyast.parse``."""
    import threading

    from biocoder_metric import pyast

    inside, most, lock = [0], [0], threading.Lock()
    real = pyast.ast.parse

    def probe(*args, **kwargs):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    src = "\n".join(f"def f{i}(x):\n    return [y * {i} for y in range(x) if y % 3]" for i in range(300))
    pyast.ast.parse = probe
    try:
        threads = [threading.Thread(target=lambda: [pyast.parse(src) for _ in range(5)]) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        pyast.ast.parse = real
    assert most[0] == 1
