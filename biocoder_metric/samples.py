"""Samples: the one reader and validator of candidate records, for every entry point.

The CLI (``--samples``), the ``evaluate`` metric, the lm-eval adapter and generation
(resuming its own output) all read and check samples here, so a bad record gets the same
error everywhere, naming the file and line (or the sample's position).

A sample is ``{"task_id": str, "completion" | "solution": str, "prompt"?: str}``; the
engine numbers samples per task in order of appearance (``sample_index``). See
docs/formats.md.

A checked sample is a :class:`Sample`, made once, by :func:`check_sample` (which the readers
call): :func:`normalize_samples` trusts a ``Sample`` and checks only records that are not one
yet (the ones the metric, lm-eval and the server pass in as plain dicts).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from biocoder_dataset.jsonl import iter_jsonl
from biocoder_metric.errors import EvalInputError, SamplesError

__all__ = ["Sample", "SamplesError", "check_sample", "normalize_samples", "read_generated", "read_samples"]


class Sample(dict):
    """A checked sample: ``task_id``, ``completion``, ``prompt`` (or None), ``where`` (file:line or
    position), and ``sample_index`` once numbered. Made only by :func:`check_sample`.

    A ``dict`` (the engine, the shard split and the digests read it by key, and the server adds its
    ``sample_id``), with typed attribute access for new code.
    """

    @property
    def task_id(self) -> str:
        return self["task_id"]

    @property
    def completion(self) -> str:
        return self["completion"]

    @property
    def prompt(self) -> str | None:
        return self["prompt"]

    @property
    def where(self) -> str:
        return self["where"]

    @property
    def sample_index(self) -> int | None:
        return self.get("sample_index")


def check_sample(obj: Any, where: str) -> Sample:
    """The sample's fields (``task_id``, ``completion``, ``prompt``, ``where``), or an error naming ``where``."""
    if not isinstance(obj, dict):
        raise SamplesError(
            f"{where}: expected an object with task_id and completion, got {type(obj).__name__}"
        )
    task_id = obj.get("task_id")
    if not isinstance(task_id, str):
        raise SamplesError(f"{where}: field 'task_id' missing or not a string")
    text = obj.get("completion", obj.get("solution"))
    if text is None:
        raise SamplesError(f"{where}: task {task_id}: needs a 'completion' or 'solution' field")
    if not isinstance(text, str):
        raise SamplesError(
            f"{where}: task {task_id}: 'completion'/'solution' must be a string, got {type(text).__name__}"
        )
    prompt = obj.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise SamplesError(f"{where}: task {task_id}: 'prompt' must be a string")
    for name, value in (("task_id", task_id), ("completion", text)):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise SamplesError(
                f"{where}: field {name!r} holds an unpaired surrogate escape (e.g. \\ud800), "
                "which is not text and cannot be run or written"
            ) from None
    return Sample(task_id=task_id, completion=text, prompt=prompt, where=where)


def read_samples(path: str | Path) -> list[Sample]:
    """Checked samples of a JSONL file (``--samples``); an empty or missing file is an error."""
    path = Path(path)
    if not path.is_file():
        raise SamplesError(f"samples file {path} does not exist")
    out = [check_sample(obj, where) for where, obj in iter_jsonl(path, error=SamplesError)]
    if not out:
        raise SamplesError(f"{path}: no samples")
    return out


def read_generated(path: str | Path) -> list[dict[str, Any]]:
    """Whole records of a file ``biocoder generate`` appends to (for its resume and merge).

    A missing file has no records; a last line cut short by a crash is skipped. Each record
    is a checked sample that also carries its ``sample_index``.
    """
    path = Path(path)
    if not path.is_file():
        return []
    out = []
    for where, obj in iter_jsonl(path, torn_tail_ok=True, error=SamplesError):
        check_sample(obj, where)
        if not isinstance(obj.get("sample_index"), int):
            raise SamplesError(f"{where}: a generated sample needs an integer 'sample_index'")
        out.append(obj)
    return out


def normalize_samples(samples: Iterable[Any], by_id: dict[str, Any]) -> list[Sample]:
    """Check samples against the loaded tasks and number them per task (``sample_index``).

    A :class:`Sample` (from a reader) is not checked again; any other record is, with its
    ``where`` key (e.g. ``"samples.jsonl:12"``) naming it in errors when present. The caller's
    records are never changed: each sample returned is a new one.
    """
    out: list[Sample] = []
    counters: dict[str, int] = {}
    for i, s in enumerate(samples):
        if isinstance(s, Sample):
            sample = Sample(s)
            where = sample.where
        else:
            where = s.get("where") if isinstance(s, dict) and s.get("where") else f"sample #{i}"
            sample = check_sample(s, where)
        task_id = sample["task_id"]
        if task_id not in by_id:
            raise EvalInputError(f"{where}: unknown task_id {task_id!r} (not in the loaded problems)")
        sample["sample_index"] = counters.get(task_id, 0)
        counters[task_id] = sample["sample_index"] + 1
        out.append(sample)
    return out
