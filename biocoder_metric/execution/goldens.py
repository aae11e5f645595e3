"""Reference outputs: each harness task's golden run twice per fuzz case, in a golden-only pool.

Why a separate pool: a candidate must never run in a worker that held a golden's program
text or outputs (docs/security.md). The golden pool is created on first need and closed
as soon as the golden phase ends. Reference outputs are cached on disk per (task, case,
seed, harness hash, golden hash, environment, limits); failures are never cached.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biocoder_dataset.schema import TaskRow
from biocoder_metric.digests import sha256
from biocoder_metric.execution import harness
from biocoder_metric.execution.executors.base import Pool
from biocoder_metric.execution.jobs import programs_job
from biocoder_metric.execution.judging import case_error, clean_stderr, last_line
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.execution.pool import make_pool
from biocoder_metric.io import write_text_atomic
from biocoder_metric.types import CaseOutcome, RunStatus

#: Version of the golden cache entries; bump when their meaning changes.
CACHE_VERSION = 2


@dataclass
class Golden:
    """Reference outputs of one harness task (or why there are none)."""

    ok: bool
    outputs: list[str]
    reason: str | None = None


def golden_entry(case: int, a: CaseOutcome, b: CaseOutcome, language: str) -> dict[str, Any]:
    """One case's reference from two runs of the golden: its stdout, or why it cannot be one."""
    for o in (a, b):
        error = case_error(o, language)
        if error is not None:
            detail = last_line(clean_stderr(o.stderr))[:300]
            how = f"exit code {o.returncode}" if o.status == RunStatus.OK else o.status
            return {
                "ok": False,
                "reason": f"golden case {case}: {error} ({how}){': ' + detail if detail else ''}",
            }
    if a.stdout != b.stdout:
        return {
            "ok": False,
            "reason": f"golden case {case}: output differs between two runs (nondeterministic)",
        }
    return {"ok": True, "stdout": a.stdout}


class GoldenStore:
    """Golden outputs of one evaluation session: in memory, on disk, and the golden pool.

    ``environment_id`` is the candidates' environment; a golden pool in any other
    environment is refused, since its outputs would not be comparable.
    """

    def __init__(self, options: EvalOptions, environment_id: str):
        self.options = options
        self.environment_id = environment_id
        self._pool: Pool | None = None
        self._pool_lock = threading.Lock()
        self._golden: dict[str, Golden] = {}
        self._plus: dict[str, list[tuple[int, str]]] = {}

    # -- the golden pool

    def pool(self) -> Pool:
        """The pool golden programs run in (created on first use; never lent to a candidate)."""
        with self._pool_lock:
            if self._pool is None:
                from biocoder_metric.errors import SandboxError

                pool = make_pool(self.options, "golden")
                if pool.environment_id != self.environment_id:
                    pool.close()
                    raise SandboxError(
                        f"the golden sandbox's environment ({pool.environment_id}) differs from the "
                        f"candidates' ({self.environment_id}); outputs would not be comparable"
                    )
                self._pool = pool
            return self._pool

    def close(self) -> None:
        """End the golden workers: nothing that ran a golden outlives the golden phase."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    # -- reference outputs

    def cache_path(self, row: TaskRow) -> Path:
        """The cache file of ``row``'s golden outputs under these options and this environment."""
        key = sha256(
            json.dumps(
                [
                    CACHE_VERSION,
                    row["task_id"],
                    self.options.seed,
                    sha256(row["context"]),
                    sha256(row["golden_code"]),
                    self.environment_id,
                    self.options.timeout_s,
                    self.options.memory_mb,
                    self.options.case_batching,
                ]
            )
        )
        safe = re.sub(r"[^\w.-]", "_", row["task_id"])[:80]
        return self.options.cache_dir() / f"{safe}-{key[:24]}.json"

    def golden(self, row: TaskRow) -> Golden:
        """Reference stdout per fuzz case: cached on disk per case; computed twice to catch nondeterminism."""
        task_id = row["task_id"]
        if task_id in self._golden:
            return self._golden[task_id]
        path = self.cache_path(row)
        # Built once: the count decides whether the cache covers every case, the same programs run.
        programs = harness.build_harness_programs(
            row, row["golden_code"], fuzz_cases=self.options.fuzz_cases, seed=self.options.seed
        )
        n = len(programs)
        cached: dict[str, Any] = {}
        if self.options.use_golden_cache and path.is_file():
            try:
                cached = json.loads(path.read_text(encoding="utf-8")).get("cases", {})
            except (OSError, ValueError):
                cached = {}
        if all(cached.get(str(i), {}).get("ok") for i in range(n)):
            entries = [cached[str(i)] for i in range(n)]
        else:
            outcomes = self.pool().run(programs_job(self.options, row, programs * 2))
            entries = [golden_entry(i, outcomes[i], outcomes[i + n], row["language"]) for i in range(n)]
            if self.options.use_golden_cache:
                # Only reference outputs are cached. Failures are recomputed on every run: even a
                # non-zero exit can be load-dependent (fork EAGAIN under a shared process limit).
                keep = {str(i): e for i, e in enumerate(entries) if e["ok"]}
                if keep:
                    cached.update(keep)
                    write_text_atomic(
                        path, json.dumps({"task_id": task_id, "cases": cached}, sort_keys=True), durable=False
                    )
        failures = [e for e in entries if not e["ok"]]
        if failures:
            result = Golden(ok=False, outputs=[], reason=failures[0]["reason"])
        else:
            result = Golden(ok=True, outputs=[e["stdout"] for e in entries])
        self._golden[task_id] = result
        return result

    def plus(self, row: TaskRow) -> list[tuple[int, str]]:
        """(plus case index, golden stdout) for the plus cases on which the golden runs cleanly, twice alike.

        Plus cases the golden itself fails on are dropped (see :mod:`biocoder_metric.execution.rules.plus`).
        Kept in memory only: plus mode is an occasional, explicit run.
        """
        from biocoder_metric.execution.rules.plus import plus_programs

        key = row["task_id"]
        if key not in self._plus:
            programs = plus_programs(
                row, row["golden_code"], fuzz_cases=self.options.fuzz_cases, seed=self.options.seed
            )
            kept: list[tuple[int, str]] = []
            if programs:
                outcomes = self.pool().run(programs_job(self.options, row, programs * 2))
                n = len(programs)
                for i in range(n):
                    entry = golden_entry(i, outcomes[i], outcomes[i + n], row["language"])
                    if entry["ok"]:
                        kept.append((i, entry["stdout"]))
            self._plus[key] = kept
        return self._plus[key]
