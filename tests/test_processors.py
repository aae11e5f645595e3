"""Model registry and processors: settings merge, prompt building, raw text -> candidate.

process_before/process_after are checked on the real prompt shapes of the 79 executable
upstream Python tasks (functions and class methods, decorators, long docstrings) and on
chat answers with prose and fences; generation runs on a tiny random model built here.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
import yaml

from biocoder_dataset.configs import load_problems
from biocoder_dataset.prompts import build_prompt
from biocoder_metric.generation.processors import PROCESSORS, Processor, make_processor, processor_class
from biocoder_metric.generation.processors.base import (
    STOP_SEQUENCES,
    ModelSpec,
    assemble_candidate,
    target_head,
    truncate_at_stops,
)
from biocoder_metric.generation.processors.registry import DEFAULT_MODELS_FILE, list_models, resolve_model

from tiny_model import build_tiny_model, golden_continuation, write_models_file


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def models_file(tiny, tmp_path_factory) -> Path:
    return write_models_file(tmp_path_factory.mktemp("models") / "models.yaml", tiny)


def _function(code: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(code))
    found = [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
    ]
    assert found, f"no def {name} in:\n{code}"
    return found[0]


def _statements(fn: ast.FunctionDef) -> list[str]:
    """The body without leading docstrings (the prompt's docstring is put back in front)."""
    body = list(fn.body)
    while (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body.pop(0)
    return [ast.dump(s) for s in body]


# ----------------------------------------------------------------------------------- registry
def test_packaged_registry_resolves_every_entry_and_mode():
    names = list_models()
    assert names, "the packaged models.yaml lists no model"
    for name in names:
        spec = resolve_model(name)
        assert spec.path and spec.processor in PROCESSORS
        assert spec.decode_mode == "greedy" and spec.generation["do_sample"] is False
        assert spec.generation["max_new_tokens"] > 0
        processor_class(spec.processor)  # importable without loading any model


def test_merge_order_defaults_model_version_then_overrides(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "defaults": {
                    "batch_size": 3,
                    "generation_config": {
                        "defaults": {"max_new_tokens": 100},
                        "hot": {"do_sample": True, "temperature": 1.5},
                    },
                },
                "models": {
                    "m": {
                        "prompt_style": "summary_only",
                        "generation_config": {"sampling": {"temperature": 0.5}},
                        "versions": {
                            "a": {"path": "org/a"},
                            "b": {"path": "org/b", "batch_size": 9, "processor": "chat"},
                        },
                    }
                },
            }
        ),
        encoding="utf-8",
    )
    a = resolve_model("m", path)
    assert (a.version, a.path, a.batch_size, a.prompt_style, a.processor) == (
        "a",
        "org/a",
        3,
        "summary_only",
        "causal_lm",
    )
    b = resolve_model(
        "m@b",
        path,
        decode_mode="sampling",
        overrides={"n_samples": 7, "max_new_tokens": 33, "batch_size": None},
    )
    assert (b.path, b.batch_size, b.processor, b.n_samples) == ("org/b", 9, "chat", 7)
    # packaged sampling mode (top_p 0.95) + this model's temperature + the max_new_tokens override
    assert b.generation == {"max_new_tokens": 33, "do_sample": True, "temperature": 0.5, "top_p": 0.95}
    assert resolve_model("m", path, decode_mode="hot").generation == {
        "max_new_tokens": 100,
        "do_sample": True,
        "temperature": 1.5,
    }


def test_registry_errors_name_file_and_choices(tmp_path):
    with pytest.raises(ValueError, match=r"no model named 'nope'.*starcoder2-3b"):
        resolve_model("nope")
    with pytest.raises(ValueError, match=r"unknown decode mode 'wild'.*greedy"):
        resolve_model("starcoder2-3b", decode_mode="wild")
    with pytest.raises(ValueError, match=r"has no version 'zz'"):
        resolve_model("starcoder2-3b@zz")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "models:\n  m:\n    versions:\n      v:\n        path: x\n        temprature: 3\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=rf"{bad}.*unknown key 'temprature'"):
        resolve_model("m", bad)
    assert DEFAULT_MODELS_FILE.is_file()


def test_processor_lookup_accepts_user_subclasses_and_rejects_others():
    assert processor_class("biocoder_metric.generation.processors.chat:ChatProcessor") is processor_class(
        "chat"
    )
    with pytest.raises(ValueError, match="unknown processor"):
        processor_class("gpt9")
    with pytest.raises(ValueError, match="not a subclass"):
        processor_class("biocoder_metric.generation.processors.base:ModelSpec")
    assert issubclass(processor_class("vllm"), Processor)  # defined even where vllm is not installed


# ----------------------------------------------------------------------------------- process_after
def test_stop_truncation_and_head_lookup():
    assert (
        truncate_at_stops("    return 1\n\ndef other():\n    pass", STOP_SEQUENCES["python"])
        == "    return 1\n"
    )
    prompt = 'import x\n\n@deco(1)\ndef f(a):\n    """Doc."""\n'
    assert target_head(prompt, "f", "python") == '@deco(1)\ndef f(a):\n    """Doc."""\n'
    assert target_head(prompt, "g", "python") == ""


@pytest.mark.upstream
@pytest.mark.parametrize("style", ["full_context", "summary_only"])
def test_completion_route_on_real_upstream_prompts(upstream_dir, style):
    """Golden bodies continuing the real prompts come back as the golden function, every time."""
    rows = [
        r
        for r in load_problems("python_public", source_dir=upstream_dir)
        if r["harness_source"] == "upstream"
    ]
    assert len(rows) == 79
    spec = ModelSpec(name="t", version="v", path="unused", prompt_style=style)
    proc = make_processor(spec)
    methods = 0
    for row in rows:
        prompt = proc.process_before(row)
        assert prompt == build_prompt(row, style)
        raw = golden_continuation(row, prompt) + "\n\ndef main():\n    print(1)\n"  # the model rambles on
        raw = truncate_at_stops(raw, proc.stop_sequences(row))  # what the stop strings leave
        candidate = proc.process_after(raw, row, prompt)
        got = _function(candidate, row["function_name"])
        want = _function(row["golden_code"], row["function_name"])
        assert _statements(got) == _statements(want), f"{row['task_id']} ({style}):\n{candidate}"
        assert [ast.dump(d) for d in got.decorator_list] == [ast.dump(d) for d in want.decorator_list], row[
            "task_id"
        ]
        assert "def main" not in candidate
        methods += candidate.startswith((" ", "\t"))
    if style == "full_context":
        assert methods >= 10, (
            "the upstream set has class methods; their candidates keep the class indentation"
        )


def test_chat_answers_with_fences_and_prose():
    rows = {r["task_id"]: r for r in load_problems("demo")}
    row = rows["demo_py_gc_content"]
    golden = row["golden_code"]
    answer = (
        "Sure! Here is an implementation:\n\n```python\n" + golden + "\n\nprint(gc_content('GC'))\n```\n\n"
        "It counts G and C. Example:\n```\n>>> gc_content('GGCA')\n0.75\n```\n"
    )
    got = assemble_candidate("", answer, row, chat=True)
    assert _statements(_function(got, "gc_content")) == _statements(_function(golden, "gc_content"))
    assert "print(" not in got and "Sure" not in got
    java = rows["demo_java_gc_content"]
    answer = "```java\npublic class Main {\n" + textwrap.indent(java["golden_code"], "    ") + "}\n```"
    got = assemble_candidate("", answer, java, chat=True)
    assert "class Main" not in got and "gcContent(String seq)" in got
    assert got.count("{") == got.count("}")


def test_java_body_cut_by_stop_gets_its_closing_brace_back():
    rows = {r["task_id"]: r for r in load_problems("demo")}
    row = rows["demo_java_gc_content"]
    prompt = build_prompt(row, "full_context")
    raw = golden_continuation(row, prompt) + "\n    static int extra() { return 1; }\n}\n"
    cut = truncate_at_stops(raw, STOP_SEQUENCES["java"])
    got = make_processor(ModelSpec(name="t", version="v", path="unused")).process_after(cut, row, prompt)
    assert got.count("{") == got.count("}") and "extra" not in got
    assert got.lstrip().startswith("public static double gcContent(String seq) {")


# ----------------------------------------------------------------------------------- generation
def test_causal_lm_generates_n_samples_and_counts_tokens(models_file):
    rows = [r for r in load_problems("demo") if r["kind"] == "harness"][:3]
    greedy = make_processor(resolve_model("tiny", models_file))
    greedy.load_model_tokenizer()
    prompts = [greedy.process_before(r) for r in rows]
    outs = greedy.generate(prompts, 2, greedy.stop_sequences(rows[0]))
    assert [len(o) for o in outs] == [2, 2, 2]
    assert all(o[0].text == o[1].text for o in outs), "greedy decoding is deterministic"
    assert all(0 < o[0].n_tokens <= 12 and o[1].n_tokens == 0 for o in outs), (
        "copies of a greedy answer cost nothing"
    )
    sampler = make_processor(resolve_model("tiny", models_file, decode_mode="sampling"))
    outs = sampler.generate(prompts[:1], 3)
    assert len(outs[0]) == 3 and all(0 < g.n_tokens <= 12 for g in outs[0])
    for row, prompt, out in zip(rows, prompts, outs, strict=False):
        candidate = sampler.process_after(out[0].text, row, prompt)
        assert row["function_name"] in candidate  # the head went back in front of the noise


def test_chat_processor_uses_the_chat_template(models_file):
    row = next(r for r in load_problems("demo") if r["task_id"] == "demo_py_gc_content")
    proc = make_processor(resolve_model("tiny-chat", models_file))
    text = proc.process_before(row)
    assert text.startswith("<|user|>\n") and text.endswith("<|assistant|>\n")
    assert build_prompt(row, "instruct") in text
    assert proc.stop_sequences(row) == ()
