"""The in-sandbox runtime folder stays a stdlib-only, Python 3.9 program.

Why: the folder is copied into every sandbox and run by the image's Python (3.9), where no
third-party package and no newer syntax exists; a slip shows up only inside the sandbox, as
every case failing. So each module is checked here on the host: it imports only the standard
library and its siblings, it parses with the 3.9 grammar (and, where a Python 3.9 is
installed, the whole folder imports under it), it says in a docstring why it exists, and the
host imports nothing of the folder but ``protocol``.
"""

from __future__ import annotations

import ast
import fnmatch
import json
import subprocess
import sys
from pathlib import Path

import pytest

from biocoder_metric.sandbox.base import RUNTIME_SRC, runtime_files

from _python39 import python39

REPO_ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(p for p in RUNTIME_SRC.glob("*.py"))
#: Standard library modules that Python 3.9 does not have yet.
NEWER_THAN_39 = {"tomllib", "_tokenize"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))


def test_the_folder_has_the_expected_modules():
    names = {p.name for p in MODULES}
    assert {"__init__.py", "worker.py", "protocol.py", "loop.py"} <= names, names
    assert (RUNTIME_SRC / "Runner.java").is_file()
    # what sandboxes get and the image bakes: every module and Runner.java, nothing else
    assert set(runtime_files()) == names | {"Runner.java"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_imports_only_the_standard_library_and_siblings(path: Path):
    siblings = {p.stem for p in MODULES}
    bad = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots = [(node.module or "").split(".")[0]]
        elif isinstance(node, ast.ImportFrom):
            # relative: only this folder itself (level 1), and only modules that exist in it
            if node.level != 1:
                bad.append(f"line {node.lineno}: relative import above the runtime folder")
            wanted = [node.module] if node.module else [alias.name for alias in node.names]
            bad += [
                f"line {node.lineno}: no sibling {m!r}" for m in wanted if m.split(".")[0] not in siblings
            ]
            continue
        else:
            continue
        for root in roots:
            if root == "__future__":
                continue
            if root not in sys.stdlib_module_names or root in NEWER_THAN_39:
                bad.append(f"line {node.lineno}: {root} is not in Python 3.9's standard library")
    assert not bad, f"{path.name}: " + "; ".join(bad)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_python39_syntax_and_no_newer_runtime_features(path: Path):
    tree = _tree(path)  # SyntaxError on 3.10+ grammar (match, parenthesised context managers...)
    lazy_annotations = any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    bad = []
    for node in ast.walk(tree):
        # X | Y between types is evaluated at run time (3.10+) in isinstance/issubclass, and in
        # annotations unless they are lazy
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
                if isinstance(node.args[1], ast.BinOp) and isinstance(node.args[1].op, ast.BitOr):
                    bad.append(f"line {node.lineno}: {node.func.id}(x, A | B)")
            if node.func.id == "zip" and any(k.arg == "strict" for k in node.keywords):
                bad.append(f"line {node.lineno}: zip(strict=) is 3.10+")
        if not lazy_annotations:
            annotations = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
                annotations += [a.annotation for a in every if a is not None and a.annotation is not None]
                annotations.append(node.returns)
            elif isinstance(node, ast.AnnAssign):
                annotations.append(node.annotation)
            for ann in annotations:
                if ann is not None and any(
                    isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) for n in ast.walk(ann)
                ):
                    bad.append(f"line {ann.lineno}: X | Y annotation evaluated at run time")
    assert not bad, f"{path.name}: " + "; ".join(bad)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_every_module_says_why_it_exists(path: Path):
    doc = ast.get_docstring(_tree(path)) or ""
    assert len(doc.split()) >= 20, f"{path.name} needs a module docstring saying what it is for and why"


def test_no_module_name_shadows_the_standard_library():
    """Inside the sandbox the modules are a private package, but a name that is also a stdlib
    module would still be one slip (a plain ``import``) away from shadowing it."""
    clash = [p.stem for p in MODULES if p.stem in sys.stdlib_module_names]
    assert not clash, clash


def test_whole_folder_compiles_and_imports_under_python39(tmp_path: Path):
    exe = python39()
    if exe is None:
        pytest.skip(
            "no Python 3.9 interpreter here (the image's Python); the 3.9 grammar check above still ran"
        )
    for path in MODULES:
        proc = subprocess.run(
            [
                exe,
                "-c",
                "import sys; compile(open(sys.argv[1], encoding='utf-8').read(), sys.argv[1], 'exec')",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, f"{path.name} does not compile on Python 3.9: {proc.stderr}"
    # --help imports every module of the folder (as the private package) before it prints
    proc = subprocess.run(
        [exe, "-s", str(RUNTIME_SRC / "worker.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0 and "--contained" in proc.stdout, proc.stderr


@pytest.mark.parametrize("warm", [True, False])
def test_cases_can_neither_import_nor_see_the_runtime(warm: bool):
    """Run as a script, the worker takes its folder off ``sys.path`` and loads the siblings as a
    private package that the case child forgets: a case cannot import the worker's modules
    under any name (warm or cold alike), and the folder is not on its path."""
    names = [p.stem for p in MODULES if p.stem != "__init__"] + ["_biocoder_runtime", "Runner"]
    programs = [f"import {name}\n" for name in names]
    programs.append(f"import sys\nprint(any('{RUNTIME_SRC}' in p for p in sys.path))\n")
    request = {
        "id": 1,
        "job": {"language": "python", "programs": programs, "timeout_s": 20},
        "options": {"warm": warm},
    }
    proc = subprocess.run(
        [sys.executable, "-s", str(RUNTIME_SRC / "worker.py")],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    outcomes = {m["index"]: m["outcome"] for m in map(json.loads, proc.stdout.splitlines()) if "outcome" in m}
    for index, name in enumerate(names):
        assert f"No module named '{name}'" in outcomes[index]["stderr"], (name, outcomes[index])
    assert outcomes[len(names)]["stdout"] == "False\n", outcomes[len(names)]


def test_the_host_imports_only_protocol_from_the_runtime():
    """Everything the host needs of the runtime is in ``protocol``; the other modules are the
    in-sandbox program and are never imported on the host (they would run there, not in a sandbox)."""
    package = "biocoder_metric.sandbox.runtime"
    offenders = []
    for folder in ("biocoder_metric", "biocoder_dataset", "lm_eval_tasks", "benchmarks", "scripts", "tests"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            if RUNTIME_SRC in path.parents:
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
            except SyntaxError:  # fixtures with placeholders, hostile programs
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    used = [
                        a.name for a in node.names if a.name == package or a.name.startswith(package + ".")
                    ]
                elif isinstance(node, ast.ImportFrom) and node.module == package:
                    used = [f"{package}.{a.name}" for a in node.names]
                elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + "."):
                    used = [node.module]
                else:
                    continue
                offenders += [
                    f"{path.relative_to(REPO_ROOT)}:{node.lineno} {name}"
                    for name in used
                    if name != f"{package}.protocol"
                ]
    assert not offenders, offenders


def test_package_data_ships_the_whole_folder():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["biocoder_metric"]
    package = REPO_ROOT / "biocoder_metric"
    for name in runtime_files():
        rel = (RUNTIME_SRC / name).relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(rel, pat) for pat in patterns), f"{rel} is not in package-data {patterns}"
