"""``biocoder generate``: samples from a registered model, resumable and accelerate-aware.

Resolves a model entry of the registry (``models.yaml`` or ``--models-file``), builds its
processor and writes a samples JSONL that ``biocoder evaluate`` reads; rerunning resumes;
under ``accelerate launch -m biocoder_metric generate ...`` tasks are sharded over
processes and the main process writes the one file. ``biocoder run`` reuses its flags.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from biocoder_metric.cli.common import add_progress_flag
from biocoder_metric.cli.errors import UsageError


def add_generation_flags(p: argparse.ArgumentParser, *, with_data: bool) -> None:
    p.add_argument("--model", required=True, help="model name in the registry (NAME or NAME@VERSION)")
    p.add_argument(
        "--models-file",
        default=None,
        help="a models YAML (default: the packaged biocoder_metric/generation/models.yaml)",
    )
    p.add_argument(
        "--model-version",
        default=None,
        help="version of the model entry (default: its first / default_version)",
    )
    p.add_argument("--model-path", default=None, help="override the entry's path (a local folder or Hub id)")
    p.add_argument(
        "--decode-mode", default=None, help="named decode mode of the entry (greedy, beams, sampling, ...)"
    )
    p.add_argument(
        "--n-samples", type=int, default=None, help="samples per task (default: the entry's n_samples)"
    )
    p.add_argument(
        "--batch-size", type=int, default=None, help="prompts per generate call (default: the entry's)"
    )
    p.add_argument(
        "--max-new-tokens", type=int, default=None, help="override the decode mode's max_new_tokens"
    )
    p.add_argument(
        "--prompt-style",
        default=None,
        choices=("summary_only", "full_context", "instruct"),
        help="override the entry's prompt style",
    )
    p.add_argument("--task-ids", default=None, help="comma-separated task ids to generate for (default: all)")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks (after filtering)")
    p.add_argument(
        "--all-tasks",
        action="store_true",
        help="also generate for tasks that cannot be executed (no harness)",
    )
    _add_upstream_aliases(p)
    _add_backend_flags(p)
    if with_data:
        p.add_argument("--config", required=True, help="dataset config (e.g. python_public, rosalind, demo)")
        p.add_argument(
            "--source-dir", default=None, help="local folder with the upstream files (no download)"
        )


#: Upstream BioCoder's inference settings (inference/final_batch_run.py), where they have a meaning here.
UPSTREAM_TOLERANCE_TOKENS = 128


def _add_upstream_aliases(p: argparse.ArgumentParser) -> None:
    """Upstream inference's option names, mapped onto ours (docs/reports.md lists the mapping)."""
    g = p.add_argument_group("upstream BioCoder inference names (aliases)")
    g.add_argument(
        "--PROMPT_AMOUNT",
        dest="n_samples",
        type=int,
        help="= --n-samples (upstream: generations per prompt, 20)",
    )
    g.add_argument(
        "--max_generation", dest="max_new_tokens", type=int, help="= --max-new-tokens (upstream: 256)"
    )
    g.add_argument(
        "--use_summary_only",
        dest="prompt_style",
        action="store_const",
        const="summary_only",
        help="= --prompt-style summary_only (upstream: summary-only prompts, its Rosalind setting)",
    )
    g.add_argument(
        "--max_length",
        dest="max_length",
        type=int,
        default=None,
        help="total token budget (prompt + generation): the prompt keeps its last "
        f"max_length - max_new_tokens - {UPSTREAM_TOLERANCE_TOKENS} tokens, as upstream cut it "
        "(causal_lm processor; upstream: 8192)",
    )


def _add_backend_flags(p: argparse.ArgumentParser) -> None:
    """Generation backend and GPU parallelism (docs/scale.md "Generation at scale")."""
    g = p.add_argument_group("backend and parallelism")
    g.add_argument(
        "--backend",
        default=None,
        choices=("hf", "vllm"),
        help="hf (transformers) or vllm; default: the model entry's processor (chat entries stay chat)",
    )
    g.add_argument(
        "--tensor-parallel-size",
        type=int,
        default=None,
        help="vllm: GPUs per engine (vLLM tensor parallelism)",
    )
    g.add_argument(
        "--data-parallel-size",
        type=int,
        default=None,
        help="vllm: engines, one Ray actor each on --tensor-parallel-size GPUs; batches split between them",
    )


def _apply_backend(args: argparse.Namespace, spec):
    """``--backend`` / parallel sizes onto the resolved entry (no vLLM import here)."""
    backend, tp, dp = args.backend, args.tensor_parallel_size, args.data_parallel_size
    if backend is None and tp is None and dp is None:
        return spec
    from biocoder_metric.generation.processors.vllm_backend import apply_backend

    try:
        return apply_backend(spec, backend, tp, dp)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def register(subparsers: argparse._SubParsersAction) -> None:
    gen = subparsers.add_parser(
        "generate",
        help="generate samples with a registered model (resumable, accelerate-aware)",
        description="Write samples JSONL ({task_id, sample_index, completion, raw}) for `biocoder evaluate`, "
        "plus <stem>.meta.json with the model entry and timings. Rerunning resumes. "
        "Multi-GPU: accelerate launch -m biocoder_metric generate ...",
    )
    add_generation_flags(gen, with_data=True)
    gen.add_argument("--out", required=True, help="samples JSONL file to write (appended to on resume)")
    gen.add_argument("--overwrite", action="store_true", help="discard existing samples instead of resuming")
    add_progress_flag(gen)
    gen.set_defaults(func=cmd_generate)


def _resolve(args: argparse.Namespace):
    from biocoder_metric.generation.processors.registry import resolve_model

    overrides = {
        "path": args.model_path,
        "n_samples": args.n_samples,
        "batch_size": args.batch_size,
        "prompt_style": args.prompt_style,
        "max_new_tokens": args.max_new_tokens,
    }
    try:
        spec = resolve_model(
            args.model,
            args.models_file,
            version=args.model_version,
            decode_mode=args.decode_mode,
            overrides=overrides,
        )
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    max_length = args.max_length
    if max_length is not None:
        budget = max_length - int(spec.generation.get("max_new_tokens", 512)) - UPSTREAM_TOLERANCE_TOKENS
        if budget < 1:
            raise UsageError(
                f"--max_length {max_length} leaves no room for a prompt after max_new_tokens "
                f"{spec.generation.get('max_new_tokens', 512)} and {UPSTREAM_TOLERANCE_TOKENS} tokens of tolerance"
            )
        spec.generation["max_input_tokens"] = (
            budget  # read by the causal_lm processor, not passed to generate()
        )
    return _apply_backend(args, spec)


def _problems(
    config: str, source_dir: str | None, limit: int | None, all_tasks: bool, task_ids: str | None = None
) -> list[dict[str, Any]]:
    from biocoder_dataset.configs import load_problems

    try:
        rows = load_problems(config, source_dir=source_dir)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        raise UsageError(f"cannot load config {config!r}: {exc}") from None
    if task_ids:
        wanted = [t.strip() for t in task_ids.split(",") if t.strip()]
        known = {r["task_id"] for r in rows}
        unknown = [t for t in wanted if t not in known]
        if unknown:
            raise UsageError(f"--task-ids: not in config {config!r}: {', '.join(unknown)}")
        rows = [r for r in rows if r["task_id"] in set(wanted)]
    if not all_tasks:
        rows = [r for r in rows if r["executable"]]
    if limit is not None:
        if limit < 1:
            raise UsageError(f"--limit must be >= 1, got {limit}")
        rows = rows[:limit]
    if not rows:
        raise UsageError(
            f"config {config!r} has no {'' if all_tasks else 'executable '}tasks to generate for"
        )
    return rows


def generate_into(args: argparse.Namespace, out: Path, config: str, source_dir: str | None) -> dict[str, Any]:
    from biocoder_metric.generation.generate import generate_samples, process_state
    from biocoder_metric.generation.processors import make_processor

    spec = _resolve(args)
    problems = _problems(config, source_dir, args.limit, args.all_tasks, args.task_ids)
    state = process_state()
    try:
        processor = make_processor(spec, device=getattr(state, "device", None))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if state.is_main_process:
        print(
            f"generate: {spec.name}@{spec.version} ({spec.path}), decode mode {spec.decode_mode}, "
            f"{len(problems)} tasks x {spec.n_samples} samples, {state.num_processes} process(es) -> {out}",
            file=sys.stderr,
        )
    run_info = {"config": config, "source_dir": source_dir, "limit": args.limit, "model": spec.describe()}
    try:
        return generate_samples(
            problems,
            processor,
            out,
            n_samples=spec.n_samples,
            batch_size=spec.batch_size,
            overwrite=args.overwrite,
            run_info=run_info,
            state=state,
            progress=not args.no_progress,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    finally:
        processor.close()


def print_meta(meta: dict[str, Any]) -> None:
    run = (meta.get("runs") or [{}])[-1]
    print(
        f"generated {run.get('samples', 0)} samples for {run.get('tasks', 0)} tasks in {run.get('wall_s', 0)} s "
        f"({run.get('generated_tokens', 0)} tokens, {run.get('tokens_per_s') or 'n/a'} tokens/s); "
        f"file holds {meta.get('samples_in_file')} samples, complete: {meta.get('complete')}",
        file=sys.stderr,
    )


def cmd_generate(args: argparse.Namespace) -> int:
    out = Path(args.out)
    meta = generate_into(args, out, args.config, args.source_dir)
    from biocoder_metric.generation.generate import process_state

    if process_state().is_main_process:
        print_meta(meta)
        print(str(out))
    return 0
