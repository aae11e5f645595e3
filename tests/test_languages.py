"""The runner table: one object per language, and every stage dispatches through it.

* the table (``biocoder_metric/languages/``) is the one place that lists the languages, and the
  engine, the post-processing and the tools above it compare no language names;
* a toy language registered at run time reaches every dispatch point: post-processing,
  harness insertion, jobs, judging, the canary, the sandbox host's compile slack, mutants,
  null candidates and the synthesis entry (adding a language = one module + its runtime).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from biocoder_metric import languages
from biocoder_metric.execution import harness
from biocoder_metric.execution.executors.local import canary_job
from biocoder_metric.execution.jobs import programs_job
from biocoder_metric.execution.judging import case_error
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.execution.strength import null_candidates
from biocoder_metric.generation.postprocess import defines_function, extract_code
from biocoder_metric.languages.base import HOOKS, LanguageRunner
from biocoder_metric.types import CaseOutcome, Job, RunStatus, Status
from biocoder_metric.validity.audit import golden_mutants

REPO = Path(__file__).resolve().parents[1]
COMPARISON = re.compile(r"""[!=]= ["'](python|java)["']""")
#: Modules that still compare language names: only the in-sandbox worker, which keeps its own
#: switch by design (it runs in the sandbox, apart from the host's table). The list may only shrink.
STILL_BRANCHING = {
    "biocoder_metric/sandbox/runtime/loop.py",
}


def test_the_table_lists_python_and_java_and_unknown_languages_are_refused():
    assert languages.names() == ("python", "java")
    assert languages.runner("java").class_name("public class Foo {}") == "Foo"
    assert languages.runner("python").class_name("anything") == "Main"
    with pytest.raises(languages.UnknownLanguageError, match="expected python or java"):
        languages.runner("cobol")
    with pytest.raises(ValueError, match="unknown language 'cobol'"):
        extract_code("x", "cobol")


def test_every_hook_of_the_builtin_runners_resolves():
    """Each hook names a function that exists (read from the source: the extractor's module needs
    tree-sitter, an optional dependency, to import)."""
    for name in languages.names():
        lang = languages.runner(name)
        for hook in lang.hooks:
            assert hook in HOOKS, (name, hook)
            module, _, attr = lang.hooks[hook].partition(":")
            spec = importlib.util.find_spec(module)
            assert spec and spec.origin, (name, hook)
            defined = rf"^(def {attr}\(|{attr} = )"  # a function, or a module-level object (rules)
            assert re.search(defined, Path(spec.origin).read_text(encoding="utf-8"), re.M), (name, hook)
        assert callable(lang.hook("mutants")), name
        assert {
            "mutants",
            "heldout_mutants",
            "null_candidates",
            "synthesize",
            "extract",
            "scaffolding",
        } <= set(lang.hooks), name


def test_no_module_outside_the_table_compares_language_names():
    found = {}
    for path in sorted((REPO / "biocoder_metric").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        if rel.startswith("biocoder_metric/languages/"):
            continue
        hits = [
            n
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if COMPARISON.search(line)
        ]
        if hits:
            found[rel] = hits
    assert set(found) <= STILL_BRANCHING, {k: v for k, v in found.items() if k not in STILL_BRANCHING}
    # the engine, sandbox host, scoring, post-processing and validity tools compare none
    for stage in ("execution", "sandbox/base.py", "scoring", "generation", "validity", "evaluation.py"):
        assert not [f for f in found if f.startswith(f"biocoder_metric/{stage}")], stage


# -------------------------------------------------------------------------- a toy language
CALLS: list[tuple[str, tuple]] = []


def toy_mutants(code, limit, seed=""):
    CALLS.append(("mutants", (code, limit, seed)))
    return [("toy op", code.replace("+", "-"))]


def toy_nulls(golden, function_name):
    CALLS.append(("null_candidates", (golden, function_name)))
    return [("toy null", f"fn {function_name} = nothing")]


def toy_synthesize(row, opts, repo, siblings, probe=None):
    CALLS.append(("synthesize", (row["task_id"], repo)))
    return [("toy plan", {}, "<<insert solution here>>\n")], None, "golden"


class ToyRunner(LanguageRunner):
    name = "toy"
    fence_tags = frozenset({"toy"})
    task_prefix = "toy"
    comment = ";;"
    block_open = " =>"
    empty_body = "nothing"
    compile_error_re = re.compile(r"ToyParseError\b")
    oom_marker = "ToyHeapExhausted"
    compiled = True
    compile_slack_per_case_s = 7.0
    canary_source = "toy-print {cls} biocoder canary ok\n"
    literal_escapes = "$"
    control_escape = "\\t{:d}"
    hooks = {
        "mutants": f"{__name__}:toy_mutants",
        "null_candidates": f"{__name__}:toy_nulls",
        "synthesize": f"{__name__}:toy_synthesize",
    }

    def defines_function(self, code, function_name):
        return re.search(rf"^fn {re.escape(function_name)}\b", code, re.M) is not None

    def definition_header(self, function_name):
        return re.compile(rf"^fn {re.escape(function_name)}\b", re.M)

    def strip_prose(self, text):
        return "\n".join(ln for ln in text.splitlines() if not ln.startswith("Here"))

    def clean(self, code, function_name):
        return "\n".join(ln for ln in code.split("\n") if ln != "debug!")

    def split_imports(self, solution):
        lines = solution.splitlines()
        return "\n".join(ln for ln in lines if not ln.startswith("use ")), [
            ln for ln in lines if ln.startswith("use ")
        ]

    def class_name(self, program):
        return "ToyMain"


@pytest.fixture
def toy():
    CALLS.clear()
    lang = languages.register(ToyRunner())
    yield lang
    languages.unregister("toy")


def test_a_registered_toy_language_is_dispatched_by_every_stage(toy, monkeypatch):
    assert languages.names() == ("python", "java", "toy")
    # post-processing: prose, fences, clean-up, definitions
    assert extract_code("Here is my answer\nfn add => a + b\ndebug!\n", "toy") == "fn add => a + b\n"
    assert (
        extract_code("```java\nclass X {}\n```\n```toy\nfn add => 1\n```\n", "toy", "add") == "fn add => 1\n"
    )
    assert defines_function("fn add => 1", "add", "toy")
    # harness insertion: a body-only completion gets the signature, imports go to the top
    row = {
        "task_id": "toy_1",
        "language": "toy",
        "kind": "harness",
        "function_name": "add",
        "signature": "fn add",
        "context": "main\n<<insert solution here>>\nprint <|string;length=3|>\n",
        "golden_code": "fn add => a + b",
    }
    (program,) = harness.build_harness_programs(row, "use maths\na + b", fuzz_cases=1, seed=0)
    assert program.startswith("use maths\nmain\nfn add =>\na + b\nprint ")
    assert harness._quote("a$b\x01", "double", "toy") == '"a\\$b\\t1"'
    # jobs, judging, the canary, the sandbox host
    job = programs_job(EvalOptions(), row, [program])
    assert (job.language, job.class_name) == ("toy", "ToyMain")
    failed = CaseOutcome(status=RunStatus.OK, returncode=1, stderr="ToyParseError: line 1")
    assert case_error(failed, "toy") == Status.COMPILE_ERROR
    oom = CaseOutcome(status=RunStatus.OK, returncode=1, stderr="ToyHeapExhausted\nat line 3")
    assert case_error(oom, "toy") == Status.MEMORY_EXCEEDED
    assert canary_job(Job(language="toy", programs=("x",), class_name="K")).programs == (
        "toy-print K biocoder canary ok\n",
    )
    assert languages.runner("toy").compile_slack_per_case_s == 7.0
    # the tools above the engine: mutants (audit), null candidates (strength), synthesis
    assert golden_mutants(row, 5) == [("toy op", "fn add => a - b")]
    assert null_candidates(row) == [("toy null", "fn add = nothing")]
    from biocoder_metric.synth import pipeline

    plans, reason, origin = pipeline.candidates(row, pipeline.SynthOptions(), None)
    assert (plans[0][0], reason, origin) == ("toy plan", None, "golden")
    assert [c[0] for c in CALLS] == ["mutants", "null_candidates", "synthesize"]
    assert CALLS[0][1] == ("fn add => a + b", 5, "toy_1")
