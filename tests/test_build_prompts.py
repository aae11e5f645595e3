"""``biocoder build prompts`` on real cnvkit functions: docstrings, a registry model, an HTTP endpoint.

The model is the tiny random GPT-2 of ``tests/tiny_model.py``, built at test time. The HTTP
path runs against ``biocoder_metric.build.serve``, a real OpenAI-compatible server generating
with that model on 127.0.0.1; the test checks the prompts carry exactly what the model says
(asked directly, greedy decoding is deterministic), that requests were batched, and that a
rerun is served from the cache.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from biocoder_metric.build.summarize import SPEC, SUMMARY, Request

from _build_helpers import REPOS, biocoder, need, read_jsonl
from tiny_model import build_tiny_model, write_models_file

pytestmark = [pytest.mark.upstream, pytest.mark.slow]

FILES = ("cnvlib/importers.py", "cnvlib/vary.py")  # top-level functions, and a class with methods
SECTIONS = (
    "Here are the imports:",
    "Here are the global variables:",
    "Here are the class declarations:",
    "Here are the additional function declarations:",
    "Here are the comments and the specs:",
)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> tuple[Path, Path]:
    """(all cnvkit functions, the selected ones of FILES) as written by the real CLI."""
    repo = need(REPOS / "cnvkit", "the cnvkit snapshot")
    d = tmp_path_factory.mktemp("extract")
    biocoder(
        "build",
        "extract",
        "--repo",
        str(repo),
        "--repo-name",
        "etal/cnvkit",
        "--language",
        "python",
        "--out",
        str(d / "functions.jsonl"),
        "--no-progress",
    )
    biocoder(
        "build",
        "select",
        "--functions",
        str(d / "functions.jsonl"),
        "--out",
        str(d / "all_selected.jsonl"),
        "--no-relevance",
    )
    chosen = [r for r in read_jsonl(d / "all_selected.jsonl") if r["filePath"] in FILES]
    assert {r["filePath"] for r in chosen} == set(FILES)
    (d / "selected.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
    return d / "functions.jsonl", d / "selected.jsonl"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> tuple[Path, Path]:
    model = build_tiny_model(tmp_path_factory.mktemp("tiny"))
    return model, write_models_file(
        tmp_path_factory.mktemp("models") / "models.yaml", model, max_new_tokens=8
    )


def _prompts(extracted, out: Path, *extra: str, env: dict | None = None, check: bool = True):
    functions, selected = extracted
    return biocoder(
        "build",
        "prompts",
        "--functions",
        str(selected),
        "--extracted",
        str(functions),
        "--out",
        str(out),
        "--no-progress",
        *extra,
        env=env,
        check=check,
    )


def test_docstring_prompts_have_upstream_sections(extracted, tmp_path):
    out = tmp_path / "prompted.jsonl"
    stats = json.loads(_prompts(extracted, out).stdout)
    recs = read_jsonl(out)
    assert stats["prompt_source"] == "docstring" and len(recs) == len(read_jsonl(extracted[1]))
    for rec in recs:
        full, short = rec["prompt_full_context"], rec["prompt_summary_only"]
        assert rec["prompt_source"] == "docstring" and rec["spec"] == rec["comment"].strip()
        assert all(line.startswith("#") for line in full.splitlines())
        positions = [full.index("#" + s) for s in SECTIONS]
        assert positions == sorted(positions), "sections out of upstream's order"
        header = "".join(f"#{ln}\n" for ln in (rec["signature"] + ":").splitlines())
        assert full.endswith(header) and short.endswith(header) and short.startswith("#This is in python\n")
        assert "#import numpy as np\n" in full or "#import logging\n" in full
        assert rec["content"] not in full  # the golden body is never in a prompt
    method = next(r for r in recs if r["parentClass"] == "VariantArray")
    assert "#The function is located in the class VariantArray\n" in method["prompt_full_context"]
    assert "#class VariantArray(GenomicArray):\n" in method["prompt_full_context"]
    assert (
        "#\tmethods:\n" in method["prompt_full_context"] and "#\t\tsummary: " in method["prompt_full_context"]
    )
    func = next(r for r in recs if r["filePath"] == "cnvlib/importers.py")
    other = [r for r in recs if r["filePath"] == "cnvlib/importers.py" and r is not func]
    if other:  # the other functions of the file are declared with their summaries, the target is not
        assert f"#{other[0]['signature'].splitlines()[-1]}:\n#\tsummary: " in func["prompt_full_context"]


def test_registry_model_summaries_are_cached_and_resumable(extracted, tiny, tmp_path):
    model_dir, models_file = tiny
    env = {"BIOCODER_CACHE_DIR": str(tmp_path / "cache")}
    out = tmp_path / "prompted.jsonl"
    first = json.loads(
        _prompts(extracted, out, "--model", "tiny", "--models-file", str(models_file), env=env).stdout
    )
    assert (
        first["prompt_source"] == "model"
        and first["generated"] == first["requests"] > 5
        and first["cached"] == 0
    )
    recs = read_jsonl(out)
    assert all(r["prompt_source"] == "model" and r["prompt_model"]["model"] == "tiny" for r in recs)

    # the spec is exactly what the model generates for the spec request (greedy decoding)
    from biocoder_metric.build.summarize import RegistryBackend

    backend = RegistryBackend("tiny", str(models_file))
    rec = recs[0]
    (direct,) = backend.answer([Request(SPEC, rec["functionName"], "python", rec["content"]).prompt()])
    assert rec["spec"] == direct
    assert rec["spec"] in rec["prompt_full_context"].replace("\n#", "\n") or rec["spec"] == ""

    # a rerun costs nothing; losing half the cache regenerates exactly that half (in-process, same
    # stage function as the CLI, so the model is loaded once)
    from biocoder_metric.build.pipeline import prompts_stage

    functions, selected = extracted
    cache = tmp_path / "cache" / "build" / "summaries"
    again = prompts_stage(selected, out, functions, backend, progress=False, cache_dir=cache)
    assert again["generated"] == 0 and again["cached"] == first["requests"]
    assert read_jsonl(out) == recs
    (cache_file,) = cache.glob("*.jsonl")
    lines = cache_file.read_text().splitlines()
    cache_file.write_text(
        "\n".join(lines[: len(lines) // 2]) + "\n" + lines[len(lines) // 2][:10]
    )  # + a torn line
    resumed = prompts_stage(selected, out, functions, backend, progress=False, cache_dir=cache)
    assert (
        resumed["cached"] == len(lines) // 2 and resumed["generated"] == first["requests"] - len(lines) // 2
    )
    assert read_jsonl(out) == recs


def test_http_endpoint_against_a_local_server(extracted, tiny, tmp_path):
    from biocoder_metric.build.serve import serve

    model_dir, _ = tiny
    server = serve(str(model_dir), "127.0.0.1", 0, max_batch=4)
    try:
        host, port = server.server_address[:2]
        base = f"http://{host}:{port}/v1"
        env = {"BIOCODER_CACHE_DIR": str(tmp_path / "cache")}
        out = tmp_path / "prompted.jsonl"
        stats = json.loads(
            _prompts(
                extracted,
                out,
                "--api-base",
                base,
                "--api-model",
                "tiny",
                "--batch-size",
                "4",
                "--max-new-tokens",
                "8",
                env=env,
            ).stdout
        )
        assert stats["prompt_source"] == "model" and stats["generated"] == stats["requests"]
        assert max(server.generator.batches) > 1, (
            "concurrent requests of a batch were not batched on the model"
        )
        recs = read_jsonl(out)
        rec = next(r for r in recs if r["parentClass"] == "VariantArray")
        assert (
            rec["prompt_model"]["backend"] == "openai"
            and rec["prompt_model"]["url"] == base + "/chat/completions"
        )

        def ask(prompt: str) -> str:
            body = json.dumps(
                {
                    "model": "tiny",
                    "messages": [{"role": "user", "content": prompt}],
                    "max_tokens": 8,
                    "temperature": 0,
                }
            ).encode()
            req = urllib.request.Request(
                base + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=120) as resp:
                return json.loads(resp.read())["choices"][0]["message"]["content"].strip()

        assert rec["spec"] == ask(Request(SPEC, rec["functionName"], "python", rec["content"]).prompt())
        sibling = next(
            r
            for r in read_jsonl(extracted[0])
            if r["parentClass"] == "VariantArray" and r["function_id"] != rec["function_id"]
        )
        summary = ask(Request(SUMMARY, sibling["functionName"], "python", sibling["content"]).prompt())
        expected = "".join(f"#\t\t{ln.strip()}\n" for ln in summary.splitlines() if ln.strip())
        assert expected in rec["prompt_full_context"]
    finally:
        server.shutdown()
        server.server_close()
    # the endpoint is gone: a clear usage error, not a traceback
    proc = _prompts(
        extracted,
        tmp_path / "x.jsonl",
        "--api-base",
        base,
        "--api-model",
        "tiny",
        env={"BIOCODER_CACHE_DIR": str(tmp_path / "other-cache")},
        check=False,
    )
    assert proc.returncode == 2 and "cannot reach the endpoint" in proc.stderr
