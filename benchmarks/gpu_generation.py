"""Generation throughput of the transformers (``causal_lm``) path on one GPU, batch sizes side by side.

Everything runs offline in one process, through the project's own generation path:

1. a byte-level BPE tokenizer is trained on the project's own text and a randomly initialised
   Qwen2-architecture model shaped like Qwen2.5-Coder-0.5B (hidden 896, 24 layers, 14 heads,
   2 KV heads, intermediate 4864, tied embeddings; vocabulary = the tokenizer's) is saved to a
   temporary folder, like a user's local checkpoint;
2. a models file registers that folder (``processor: causal_lm``, greedy); the model is loaded
   by ``resolve_model`` + ``make_processor`` + ``load_model_tokenizer``, as ``biocoder generate``
   does (bf16 on CUDA, fp32 on CPU);
3. the demo config's Python tasks, repeated under new task ids until each batch size has whole
   batches, go through ``generate_samples`` once per batch size (after one short warm-up batch
   per size); every sample is forced to ``--max-new-tokens`` tokens (``min_new_tokens`` equal to
   it, every token that could complete one of the language's stop strings suppressed, so none fires), so all batch sizes
   do the same work per sample;
4. per batch size: wall seconds, generated tokens, tokens/s, samples/s, the ratio to batch size
   1, the project's own ``samples.meta.json`` figures, peak GPU memory; and a check that the
   ``samples.jsonl`` written is well formed (one row per prompt, each of the full length).

    python -m benchmarks gpu_generation [--batch-sizes 1,8,32,64] [--max-new-tokens 128]
        [--out docs/bench-results/gpu_generation.json]
    python -m benchmarks gpu_generation --tiny     # a tiny model and a few prompts: CPU smoke test

The JSON is rewritten after every batch size, so a run cut short keeps what it measured.
Exit status 1 when a samples file is not what was asked for.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
#: The committed raw output ``scripts/figures.py`` renders (block ``gpu_generation`` in docs/generation.md).
RESULTS_FILE = "gpu_generation.json"

#: Qwen2.5-Coder-0.5B's shape (vocabulary aside: the model gets the locally trained tokenizer's).
SHAPES: dict[str, dict[str, int]] = {
    "qwen2.5-0.5b": {
        "hidden_size": 896,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "intermediate_size": 4864,
        "max_position_embeddings": 32768,
    },
    "tiny": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 128,
        "max_position_embeddings": 2048,
    },
}

#: What ``--tiny`` changes (explicit flags still win).
TINY = {
    "shape": "tiny",
    "batch_sizes": "1,4,8",
    "max_new_tokens": 16,
    "vocab_size": 1000,
    "batches": 2,
    "min_prompts": 4,
    "warmup_tokens": 4,
}
DEFAULTS = {
    "shape": "qwen2.5-0.5b",
    "batch_sizes": "1,8,32,64",
    "max_new_tokens": 128,
    "vocab_size": 32768,
    "batches": 4,
    "min_prompts": 16,
    "warmup_tokens": 16,
}


def _log(msg: str, t0: float) -> None:
    print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------ model
def _train_tokenizer(vocab_size: int) -> Any:
    """The tests' offline tokenizer builder (``tests/tiny_model.py``), loaded by path: a byte-level
    BPE trained on the project's own text."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_bc_tiny_model", REPO / "tests" / "tiny_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.train_tokenizer(vocab_size)


def build_model(out_dir: Path, shape: str, vocab_size: int, device: str, dtype: Any, seed: int) -> dict:
    """Tokenizer + random Qwen2 model saved to ``out_dir``; returns what was built."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = _train_tokenizer(vocab_size)
    tokenizer.save_pretrained(out_dir)

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        tie_word_embeddings=True,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.eos_token_id,
        **SHAPES[shape],
    )
    with torch.device(device):
        model = Qwen2ForCausalLM(config)
    model.to(dtype)
    params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(out_dir)
    del model
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return {"shape": shape, **SHAPES[shape], "vocab_size": len(tokenizer), "parameters": params}


def stop_blocking_token_ids(path: Path, stops: tuple[str, ...]) -> list[int]:
    """Ids of every token that could let a stop string match: suppressed, so samples run full length.

    A token holding a newline is one. So is a token that continues a stop string from a newline
    the prompt already ends with: ``transformers``' stop criterion matches ``"\\n```"`` on a
    prompt ending in a newline followed by ``"``"`` twice (the last token may overhang the end),
    so a token that is a prefix of what follows the stop's newline, or starts with all of it,
    is suppressed too.
    """
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(path))
    special = set(tok.all_special_ids)
    rests = [s.rsplit("\n", 1)[-1] for s in stops]
    blocked = []
    for i in range(len(tok)):
        if i in special:
            continue
        text = tok.decode([i])
        if "\n" in text or any(text and (r.startswith(text) or text.startswith(r)) for r in rests if r):
            blocked.append(i)
    return blocked


def write_models_file(path: Path, model_dir: Path, dtype_name: str, gen: dict[str, Any]) -> Path:
    """A user's models file registering the local checkpoint as ``bench`` (causal_lm, greedy)."""
    import yaml

    entry = {
        "path": str(model_dir),
        "processor": "causal_lm",
        "prompt_style": "full_context",
        "tokenizer": {"padding_side": "left"},
        "model_kwargs": {"dtype": dtype_name},
        "batch_size": 1,
        "n_samples": 1,
        "decode_mode": "greedy",
        "generation_config": {"greedy": gen},
    }
    path.write_text(yaml.safe_dump({"models": {"bench": {"versions": {"v1": entry}}}}), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------ prompts
def task_rows(config: str, source_dir: str | None, language: str) -> list[dict[str, Any]]:
    from biocoder_dataset.configs import load_problems

    rows = [r for r in load_problems(config, source_dir=source_dir) if r.get("executable")]
    if language != "all":
        rows = [r for r in rows if r["language"] == language]
    if not rows:
        raise SystemExit(f"config {config!r} has no executable {language} tasks")
    return rows


def repeated(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The first ``n`` of ``rows`` cycled, copies under new task ids (``ID~k``)."""
    out = []
    for i in range(n):
        row, k = rows[i % len(rows)], i // len(rows)
        out.append(row if k == 0 else {**row, "task_id": f"{row['task_id']}~{k}"})
    return out


def prompts_for(batch_size: int, batches: int, min_prompts: int) -> int:
    """Whole batches: at least ``batches`` of them and at least ``min_prompts`` prompts."""
    return math.ceil(max(batch_size * batches, min_prompts) / batch_size) * batch_size


# ------------------------------------------------------------------------------------ checks
def check_samples(
    out: Path, problems: list[dict[str, Any]], meta: dict[str, Any], tokens: int | None
) -> dict:
    """Is ``out`` what ``biocoder evaluate`` expects, one full-length row per prompt?"""
    from biocoder_metric.samples import read_generated, read_samples
    from biocoder_metric.types import SAMPLES_SCHEMA_VERSION

    records = read_generated(out)
    read_samples(out)  # the reader of `biocoder evaluate --samples` accepts the file
    want = [(p["task_id"], 0) for p in problems]
    got = [(r["task_id"], r["sample_index"]) for r in records]
    lengths = sorted({r.get("n_tokens") for r in records})
    problems_found = []
    if got != want:
        problems_found.append(f"rows {len(got)} != {len(want)} expected (or out of order)")
    if any(r.get("schema") != SAMPLES_SCHEMA_VERSION for r in records):
        problems_found.append("a row without the samples schema")
    if any(not isinstance(r.get("completion"), str) or not r.get("raw") for r in records):
        problems_found.append("a row with an empty raw generation or a non-text completion")
    if tokens is not None and lengths != [tokens]:
        problems_found.append(f"n_tokens per row {lengths}, expected all {tokens}")
    if not meta.get("complete") or meta.get("samples_in_file") != len(problems):
        problems_found.append(
            f"meta: complete={meta.get('complete')} samples_in_file={meta.get('samples_in_file')}"
        )
    return {
        "rows": len(records),
        "expected_rows": len(problems),
        "n_tokens_per_row": lengths,
        "ok": not problems_found,
        "problems": problems_found,
    }


# ------------------------------------------------------------------------------------ report
def _environment(device: str, dtype_name: str) -> dict[str, Any]:
    import torch
    import transformers

    env: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cuda": torch.version.cuda,
        "device": device,
        "dtype": dtype_name,
        "cpu_count": os.cpu_count(),
    }
    for name in ("accelerate", "tokenizers", "huggingface_hub"):
        try:
            env[name] = __import__(name).__version__
        except ImportError:
            env[name] = None
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        env.update(
            gpu=torch.cuda.get_device_name(0),
            gpu_memory_gib=round(props.total_memory / 2**30, 1),
            gpu_capability=f"{props.major}.{props.minor}",
        )
    return env


def _imported_packages() -> list[str]:
    """Third-party top-level packages imported so far (what the remote machine must have)."""
    std = set(getattr(sys, "stdlib_module_names", ()))
    mine = {"benchmarks", "biocoder_metric", "biocoder_dataset"}
    names = {m.split(".")[0] for m in list(sys.modules)}
    return sorted(n for n in names if n not in std and n not in mine and not n.startswith("_"))


def render_markdown(data: dict[str, Any]) -> str:
    """The side-by-side table of one report."""
    env, model = data["environment"], data["model"]
    lines = [
        f"{env.get('gpu') or env['device']}, {env['dtype']}, torch {env['torch']}, transformers "
        f"{env['transformers']}; random Qwen2 {model['shape']} ({model['parameters'] / 1e6:.1f}M parameters, "
        f"vocabulary {model['vocab_size']}); greedy, {data['max_new_tokens']} new tokens per sample.",
        "",
        "| batch size | prompts | wall s | tokens | tokens/s | samples/s | ms/step | vs batch 1 | "
        "peak GPU memory | rows ok |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in data["runs"]:
        ratio = r.get("speedup_vs_batch_1")
        memory = r.get("peak_gpu_memory_gib")
        lines.append(
            f"| {r['batch_size']} | {r['prompts']} | {r['wall_s']:.2f} | {r['generated_tokens']} | "
            f"{r['tokens_per_s']:.1f} | {r['samples_per_s']:.2f} | {r['ms_per_step']:.1f} | "
            f"{f'{ratio:.1f}x' if ratio else '-'} | {f'{memory:.1f} GiB' if memory is not None else '-'} | "
            f"{r['check']['ok']} |"
        )
    return "\n".join(lines)


def _write(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


# ------------------------------------------------------------------------------------ main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks gpu_generation",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--tiny", action="store_true", help="tiny model, few prompts: a CPU smoke test (< 1 min)")
    ap.add_argument(
        "--shape", choices=sorted(SHAPES), default=None, help="model shape (default qwen2.5-0.5b)"
    )
    ap.add_argument("--batch-sizes", default=None, help="comma-separated (default 1,8,32,64; --tiny 1,4,8)")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="tokens per sample (default 128)")
    ap.add_argument("--vocab-size", type=int, default=None, help="tokenizer training target (default 32768)")
    ap.add_argument("--batches", type=int, default=None, help="batches per batch size, at least (default 4)")
    ap.add_argument(
        "--min-prompts", type=int, default=None, help="prompts per batch size, at least (default 16)"
    )
    ap.add_argument("--warmup-tokens", type=int, default=None, help="new tokens of the warm-up batches (16)")
    ap.add_argument("--config", default="demo", help="dataset config (default demo: offline)")
    ap.add_argument("--source-dir", default=None, help="upstream files, for configs other than demo")
    ap.add_argument("--language", default="python", choices=("python", "java", "all"))
    ap.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    ap.add_argument(
        "--no-fixed-length",
        action="store_true",
        help="let EOS and the stop strings end samples, as in a real run (work then differs per size)",
    )
    ap.add_argument(
        "--time-budget",
        type=float,
        default=240.0,
        help="seconds after which the remaining batch sizes are skipped (default 240)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--keep", default=None, help="keep the model and samples in this folder (default: a temp dir)"
    )
    ap.add_argument("--out", default=str(REPO / "docs" / "bench-results" / "gpu_generation.json"))
    args = ap.parse_args(argv)
    for key, value in (TINY if args.tiny else DEFAULTS).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.sizes = [int(s) for s in str(args.batch_sizes).split(",") if s.strip()]
    if not args.sizes or min(args.sizes) < 1 or args.max_new_tokens < 1:
        ap.error("--batch-sizes and --max-new-tokens must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    import torch

    from biocoder_metric.generation.generate import generate_samples, meta_path, process_state
    from biocoder_metric.generation.processors import make_processor
    from biocoder_metric.generation.processors.base import STOP_SEQUENCES
    from biocoder_metric.generation.processors.registry import resolve_model

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype_name = "bfloat16" if device.startswith("cuda") else "float32"
    dtype = getattr(torch, dtype_name)
    on_gpu = device.startswith("cuda")
    out_json = Path(args.out)
    report: dict[str, Any] = {
        "benchmark": "gpu_generation",
        "command": "python -m benchmarks gpu_generation " + " ".join(argv or []),
        "environment": _environment(device, dtype_name),
        "config": args.config,
        "language": args.language,
        "max_new_tokens": args.max_new_tokens,
        "fixed_length": not args.no_fixed_length,
        "decode": "greedy",
        "runs": [],
        "skipped_batch_sizes": [],
    }
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gpu_generation-"))
    try:
        _log(f"building a random {args.shape} model on {device} ({dtype_name}) in {work}", t0)
        t = time.perf_counter()
        model_dir = work / "model"
        report["model"] = build_model(model_dir, args.shape, args.vocab_size, device, dtype, args.seed)
        report["build_s"] = round(time.perf_counter() - t, 2)
        _log(f"built: {report['model']} in {report['build_s']} s", t0)

        gen: dict[str, Any] = {"max_new_tokens": args.max_new_tokens}
        if not args.no_fixed_length:
            suppressed = stop_blocking_token_ids(model_dir, STOP_SEQUENCES.get(args.language, ()))
            gen.update(min_new_tokens=args.max_new_tokens, suppress_tokens=suppressed)
            report["suppressed_stop_tokens"] = len(suppressed)
        models_file = write_models_file(work / "models.yaml", model_dir, dtype_name, gen)

        t = time.perf_counter()
        spec = resolve_model("bench", models_file)
        state = process_state()
        processor = make_processor(spec, device=getattr(state, "device", None))
        processor.load_model_tokenizer()
        if on_gpu:
            torch.cuda.synchronize()
        report["load_s"] = round(time.perf_counter() - t, 2)
        model = processor.model
        report["model"].update(
            loaded_dtype=str(next(model.parameters()).dtype),
            loaded_device=str(next(model.parameters()).device),
            attn_implementation=getattr(model.config, "_attn_implementation", None),
            generation_kwargs={
                k: v for k, v in processor.generate_kwargs(1).items() if k != "suppress_tokens"
            },
        )
        _log(f"loaded through the causal_lm processor in {report['load_s']} s: {report['model']}", t0)

        rows = task_rows(args.config, args.source_dir, args.language)
        report["tasks"] = [r["task_id"] for r in rows]
        prompt_tokens = {
            r["task_id"]: len(processor.tokenizer(processor.process_before(r))["input_ids"]) for r in rows
        }
        report["prompt_tokens"] = {
            "min": min(prompt_tokens.values()),
            "mean": round(sum(prompt_tokens.values()) / len(rows), 1),
            "max": max(prompt_tokens.values()),
        }

        # Warm-up: one short batch per size (kernels, allocator, stop-string tables).
        t = time.perf_counter()
        saved = dict(spec.generation)
        spec.generation["max_new_tokens"] = args.warmup_tokens
        if "min_new_tokens" in spec.generation:
            spec.generation["min_new_tokens"] = args.warmup_tokens
        for bs in args.sizes:
            generate_samples(
                repeated(rows, bs),
                processor,
                work / "warmup" / f"bs{bs}.jsonl",
                n_samples=1,
                batch_size=bs,
                overwrite=True,
                state=state,
                progress=False,
            )
        spec.generation.clear()
        spec.generation.update(saved)
        report["warmup_s"] = round(time.perf_counter() - t, 2)
        _log(f"warm-up ({args.warmup_tokens} tokens, sizes {args.sizes}) in {report['warmup_s']} s", t0)

        failed = False
        base_tps = None
        for bs in args.sizes:
            if time.perf_counter() - t0 > args.time_budget:
                report["skipped_batch_sizes"].append(bs)
                _log(f"batch size {bs}: skipped, past the time budget of {args.time_budget} s", t0)
                continue
            n = prompts_for(bs, args.batches, args.min_prompts)
            problems = repeated(rows, n)
            out = work / "runs" / f"bs{bs}" / "samples.jsonl"
            if on_gpu:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            t = time.perf_counter()
            meta = generate_samples(
                problems,
                processor,
                out,
                n_samples=1,
                batch_size=bs,
                overwrite=True,
                run_info={"config": args.config, "model": spec.describe()},
                state=state,
                progress=False,
            )
            if on_gpu:
                torch.cuda.synchronize()
            wall = time.perf_counter() - t
            run = meta["runs"][-1]
            check = check_samples(out, problems, meta, None if args.no_fixed_length else args.max_new_tokens)
            failed |= not check["ok"]
            tokens = int(run["generated_tokens"])
            steps = (n // bs) * args.max_new_tokens
            entry = {
                "batch_size": bs,
                "prompts": n,
                "batches": n // bs,
                "wall_s": round(wall, 3),
                "generation_s": run["generation_s"],
                "generated_tokens": tokens,
                "tokens_per_s": round(tokens / wall, 2),
                "samples_per_s": round(n / wall, 3),
                "ms_per_step": round(1000 * run["generation_s"] / steps, 2),
                "mean_prompt_tokens": round(
                    sum(prompt_tokens[p["task_id"].split("~")[0]] for p in problems) / n, 1
                ),
                "project_tokens_per_s": run["tokens_per_s"],
                "project_meta_run": {k: v for k, v in run.items() if k != "per_process"},
                "peak_gpu_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2)
                if on_gpu
                else None,
                "meta_file": meta_path(out).name,
                "check": check,
            }
            if bs == 1:
                base_tps = entry["tokens_per_s"]
            entry["speedup_vs_batch_1"] = round(entry["tokens_per_s"] / base_tps, 2) if base_tps else None
            report["runs"].append(entry)
            report["elapsed_s"] = round(time.perf_counter() - t0, 1)
            report["imported_packages"] = _imported_packages()
            _write(out_json, report)
            _log(
                f"batch size {bs}: {n} prompts, {tokens} tokens in {wall:.2f} s = {entry['tokens_per_s']:.1f} "
                f"tokens/s, {entry['ms_per_step']:.1f} ms/step, rows ok: {check['ok']} {check['problems']}",
                t0,
            )
        processor.close()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report["elapsed_s"] = round(time.perf_counter() - t0, 1)
    report["imported_packages"] = _imported_packages()
    report["imports_datasets_evaluate_lm_eval"] = sorted(
        {"datasets", "evaluate", "lm_eval", "vllm"} & set(report["imported_packages"])
    )
    report["ok"] = bool(report["runs"]) and not failed
    _write(out_json, report)
    print(render_markdown(report))
    print(
        f"total {report['elapsed_s']} s (build {report['build_s']}, load {report['load_s']}, "
        f"warm-up {report['warmup_s']}); skipped sizes: {report['skipped_batch_sizes'] or 'none'}; "
        f"samples files ok: {report['ok']}; report: {out_json}"
    )
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
