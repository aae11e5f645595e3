"""Per-sample results on disk: an append-only log for resume, a sorted final file.

The engine writes them as samples finish (so this module sits in ``execution/``); scoring,
merge and reporting read them back (``read_results``).

Files in the output directory (formats in docs/formats.md):

* ``run.json`` -- the run's fingerprint (options that change verdicts, sandbox and its
  environment id, hashes of the problems and of the samples). A rerun with a different
  fingerprint stops with an error naming what differs, unless ``--overwrite``.
* ``results.partial.jsonl`` -- one :class:`SampleResult` per line, appended, flushed and
  fsync'd as each sample finishes (any order, with durations). This is the resume log:
  a rerun skips every sample found here. A torn last line (process killed mid-write) is
  detected and cut off; a bad line elsewhere is an error naming file and line.
* ``results.jsonl`` -- written at the end: the same records sorted by (task_id,
  sample_index), keys sorted, *without* ``duration_s``, so the file is byte-identical
  across reruns, resumes and worker counts (timings stay in the partial log).
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from biocoder_metric.errors import ResultsMismatchError, ResultsWriteError
from biocoder_metric.io import write_error, write_json_atomic
from biocoder_metric.types import RESULTS_SCHEMA_VERSION, SampleResult

MANIFEST_NAME = "run.json"
PARTIAL_NAME = "results.partial.jsonl"
FINAL_NAME = "results.jsonl"
SUMMARY_NAME = "summary.json"
#: Fields left out of the byte-compared final file (they vary between identical runs).
VOLATILE_FIELDS = ("duration_s",)


def result_from_json(d: dict[str, Any]) -> SampleResult:
    """Inverse of ``SampleResult.to_json`` (unknown keys such as ``schema`` are ignored)."""
    names = {f.name for f in fields(SampleResult)}
    return SampleResult(**{k: v for k, v in d.items() if k in names})


def final_line(result: SampleResult) -> str:
    """The deterministic JSON line of ``results.jsonl``."""
    d = result.to_json()
    for k in VOLATILE_FIELDS:
        d.pop(k, None)
    return json.dumps(d, sort_keys=True, ensure_ascii=False) + "\n"


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return out


class ResultsStore:
    """The output directory of one evaluation: manifest check, resume log, final file."""

    def __init__(self, out_dir: str | os.PathLike, fingerprint: dict[str, Any], overwrite: bool = False):
        self.dir = Path(out_dir)
        if self.dir.exists() and not self.dir.is_dir():
            raise ResultsWriteError(f"output directory {self.dir} exists and is not a directory")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsWriteError(
                f"cannot create output directory {self.dir}: {exc.strerror or exc}"
            ) from None
        self.fingerprint = {"schema": RESULTS_SCHEMA_VERSION, **fingerprint}
        manifest = self.dir / MANIFEST_NAME
        partial = self.dir / PARTIAL_NAME
        if overwrite:
            for name in (MANIFEST_NAME, PARTIAL_NAME, FINAL_NAME, SUMMARY_NAME):
                (self.dir / name).unlink(missing_ok=True)
        elif manifest.is_file():
            try:
                old = json.loads(manifest.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ResultsMismatchError(
                    f"{manifest}: unreadable ({exc}); use --overwrite to start over"
                ) from exc
            if old != self.fingerprint:
                diff = "; ".join(_differences(old, self.fingerprint)[:6])
                raise ResultsMismatchError(
                    f"{self.dir} holds results of a different run ({diff}); "
                    "use --overwrite to replace them or choose another --out directory"
                )
        elif partial.exists() or (self.dir / FINAL_NAME).exists():
            raise ResultsMismatchError(
                f"{self.dir} has results but no {MANIFEST_NAME}, so they cannot be checked against this run; "
                "use --overwrite or another --out directory"
            )
        if not manifest.is_file():
            write_json_atomic(manifest, self.fingerprint)
        self.done: dict[tuple[str, int], SampleResult] = self._load(partial)
        self._fh = open(partial, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    @staticmethod
    def _load(path: Path) -> dict[tuple[str, int], SampleResult]:
        """Finished results from the resume log.

        Every record is written as one line ending in a newline, so a last line without
        its newline is a write torn by a kill: it is cut off the file (that sample simply
        runs again). A complete line that does not parse is corruption: an error.
        """
        if not path.is_file():
            return {}
        data = path.read_bytes()
        good_end = data.rfind(b"\n") + 1
        if good_end < len(data):
            with open(path, "r+b") as fh:
                fh.truncate(good_end)
        done: dict[tuple[str, int], SampleResult] = {}
        for number, raw in enumerate(data[:good_end].split(b"\n")[:-1], start=1):
            if not raw.strip():
                continue
            try:
                result = result_from_json(json.loads(raw.decode("utf-8")))
            except (ValueError, TypeError) as exc:
                raise ResultsMismatchError(
                    f"{path}:{number}: corrupt result line ({exc}); use --overwrite to start over"
                ) from exc
            done[(result.task_id, result.sample_index)] = result
        return done

    def append(self, result: SampleResult) -> None:
        """Record one finished sample durably (flush + fsync) before moving on."""
        line = json.dumps(result.to_json(), sort_keys=True, ensure_ascii=False) + "\n"
        try:
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError as exc:
            # A partly written line has no newline: the next run's _load cuts it off.
            self._broken = True
            raise write_error(
                self.dir / PARTIAL_NAME, exc, kept=len(self.done), kept_in=self.dir / PARTIAL_NAME
            ) from None
        self.done[(result.task_id, result.sample_index)] = result

    def finalize(self, results: list[SampleResult]) -> Path:
        """Write ``results.jsonl`` sorted by (task_id, sample_index), atomically."""
        path = self.dir / FINAL_NAME
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                for r in sorted(results, key=lambda r: (r.task_id, r.sample_index)):
                    fh.write(final_line(r))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise write_error(path, exc, kept=len(results), kept_in=self.dir / PARTIAL_NAME) from None
        return path

    def close(self) -> None:
        if self._fh.closed:
            return
        try:
            self._fh.close()
        except OSError:
            # Only after a failed append (disk full): the buffered tail is the torn line the
            # next run cuts off; complete lines were fsync'd already.
            if not getattr(self, "_broken", False):
                raise


def read_results(path: str | os.PathLike) -> list[SampleResult]:
    """Load a results JSONL file (final or partial); errors name file and line."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                out.append(result_from_json(json.loads(line)))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a result line ({exc})") from exc
    return out
