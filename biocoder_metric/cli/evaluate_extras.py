"""What ``biocoder evaluate`` gains from the reporting package, kept out of ``evaluate``'s own flow.

``--samples-dir`` (upstream's ``outputs/<problem>/<n>.txt`` layout instead of a JSONL),
``--upstream-results FILE`` (upstream's three-column ``results.json`` as well) and
``--metrics codebleu,bleu`` (CodeFuseEval's similarity metrics in ``summary.json``). The flags
are parsed here; the files themselves are written by :func:`biocoder_metric.evaluation.evaluate_run`.
Every helper takes the values it needs, never the parsed namespace.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from biocoder_metric.cli.errors import UsageError


def add_evaluate_flags(p: argparse.ArgumentParser) -> None:
    """The reporting flags of ``biocoder evaluate``."""
    p.add_argument(
        "--samples-dir",
        default=None,
        help="instead of --samples: upstream BioCoder's folder layout DIR/<problem>/<n>.txt "
        "(problem = task id or Rosalind id such as ba1a; n = generation number, from 1)",
    )
    p.add_argument(
        "--upstream-results",
        default=None,
        metavar="FILE",
        help="also write upstream's results.json: pandas columns Problem, Generation, Passed (DataFrame.to_json)",
    )
    p.add_argument(
        "--metrics",
        default=None,
        help="extra similarity metrics against the golden, comma-separated: codebleu,bleu (needs the 'metrics' extra)",
    )


def requested_metrics(text: str | None) -> tuple[str, ...]:
    """The ``--metrics`` names, validated before any sample runs (bad names fail fast)."""
    from biocoder_metric.reporting.text_metrics import parse_metrics

    try:
        return tuple(parse_metrics(text))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def load_samples(
    samples_file: str | None,
    samples_dir: str | None,
    problems: list[dict[str, Any]],
    read_jsonl: Callable[[str], list[dict[str, Any]]],
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], tuple[str, int]] | None]:
    """Samples from ``--samples`` (JSONL) or ``--samples-dir`` (upstream layout); exactly one is required."""
    if bool(samples_file) == bool(samples_dir):
        raise UsageError("give exactly one of --samples FILE.jsonl and --samples-dir DIR")
    if samples_file:
        return read_jsonl(samples_file), None
    from biocoder_metric.reporting.upstream import UpstreamFormatError, read_outputs_dir

    try:
        got = read_outputs_dir(samples_dir, [r["task_id"] for r in problems])
    except UpstreamFormatError as exc:
        raise UsageError(str(exc)) from None
    return got.samples, got.origin


def samples_identity(samples_file: str | None, samples: list[dict[str, Any]]) -> dict[str, str]:
    """The run-info entry naming the samples: the file's sha256, or one over the folder's samples."""
    from biocoder_metric.digests import sha256

    if samples_file:
        return {"samples_file_sha256": sha256(Path(samples_file).read_text(encoding="utf-8"))}
    digest = hashlib.sha256(
        json.dumps([[s["task_id"], s["where"].rsplit("/", 1)[-1], s["completion"]] for s in samples]).encode(
            "utf-8"
        )
    ).hexdigest()
    return {"samples_dir_sha256": digest}


def render_text_metrics(summary: dict[str, Any]) -> str:
    """One line per text metric for the evaluate output ('' when none were asked for)."""
    block = summary.get("text_metrics")
    if not block:
        return ""
    lines = []
    if "codebleu" in block:
        per = ", ".join(
            f"{lang} {v['codebleu']:.4f}" for lang, v in block["codebleu"]["per_language"].items()
        )
        overall = block["codebleu"]["overall"]
        lines.append(f"CodeBLEU: {'n/a' if overall is None else f'{overall:.4f}'} ({per})")
    if "bleu" in block:
        per = ", ".join(f"{lang} {v:.2f}" for lang, v in block["bleu"]["per_language"].items())
        overall = block["bleu"]["overall"]
        lines.append(f"BLEU: {'n/a' if overall is None else f'{overall:.2f}'} ({per})")
    return "\n".join(lines)
