"""What decides how samples are run (:class:`EvalOptions`). The engine's input errors live in
:mod:`biocoder_metric.errors` (the samples reader raises them too).

Every default comes from :mod:`biocoder_dataset.settings` (per-case limits: from the worker
protocol, which the in-sandbox worker shares); the CLI builds its flags from
these fields (their ``metadata``), so a default is written once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.sandbox.runtime import protocol


@dataclass
class EvalOptions:
    """Everything that decides how samples are run. Only some fields change results (see :meth:`fingerprint`)."""

    sandbox: str = field(
        default=settings.SANDBOX,
        metadata={
            "help": "execution backend: auto = the safest available (docker, then bwrap; never none)",
            "choices": ("auto", "docker", "bwrap", "none"),
        },
    )
    allow_unsafe: bool = field(
        default=False,
        metadata={"help": "permit --sandbox none: run generated code on this machine unisolated"},
    )
    image: str | None = field(
        default=None,
        metadata={
            "help": f"Docker image for --sandbox docker (default: ${settings.ENV_IMAGE} or {settings.IMAGE})"
        },
    )
    workers: int = field(default=settings.WORKERS, metadata={"help": "parallel sandboxes"})
    fuzz_cases: int = field(default=settings.FUZZ_CASES, metadata={"help": "fuzz cases per harness task"})
    timeout_s: float = field(
        default=protocol.DEFAULT_TIMEOUT_S, metadata={"help": "seconds per case", "flag": "--timeout"}
    )
    memory_mb: int = field(
        default=protocol.DEFAULT_MEMORY_MB, metadata={"help": "memory limit per case in MiB"}
    )
    seed: int = field(
        default=settings.SEED,
        metadata={"help": "fuzz seed: values come from Random(f'{seed}:{task}:{case}')"},
    )
    golden_cache_dir: str | None = field(
        default=None,
        metadata={
            "help": "golden output cache folder (default: the cache root's golden/, see docs/ARCHITECTURE.md)",
            "flag": "--golden-cache",
        },
    )
    use_golden_cache: bool = field(
        default=True, metadata={"help": "neither read nor write the golden output cache"}
    )
    executor: str = field(
        default="local",
        metadata={
            "help": "local, or ray: one sandbox pool per node of a Ray cluster (pip install 'biocoder-eval[ray]')",
            "choices": ("local", "ray"),
        },
    )
    ray_address: str | None = field(
        default=None,
        metadata={
            "help": "Ray cluster to join: auto | HOST:PORT | ray://HOST:10001 (default: RAY_ADDRESS or a new local cluster)"
        },
    )
    workers_per_node: int | None = field(
        default=None, metadata={"help": "--executor ray: sandboxes per node (default: the node's CPUs)"}
    )
    rosalind_check: str = field(
        default="rosalind",
        metadata={
            "help": "rosalind: judge Rosalind answers by the problem's own rules (tolerance, any valid answer, "
            "any order); exact: upstream's stripped text equality",
            "choices": ("rosalind", "exact"),
        },
    )
    case_batching: bool = field(
        default=True,
        metadata={
            "help": "a forked process per Python fuzz case, instead of one clean process per sample that runs "
            "its cases one after another (a fresh one after a case that crashes or times out; docs/security.md)",
        },
    )
    plus: bool = field(
        default=False,
        metadata={
            "help": "also judge edge-value and extra fuzz cases; reported as a separate headline pass@k (plus)"
        },
    )
    include_weak: bool = field(
        default=False,
        metadata={
            "help": "score tasks whose harness the audit found weak (excluded from the headline by default)"
        },
    )

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.fuzz_cases < 1:
            raise ValueError(f"fuzz_cases must be >= 1, got {self.fuzz_cases}")
        if not math.isfinite(self.timeout_s) or self.timeout_s <= 0:  # nan compares False with everything
            raise ValueError(f"timeout_s must be a finite number > 0, got {self.timeout_s}")
        if self.memory_mb < 16:
            raise ValueError(f"memory_mb must be >= 16, got {self.memory_mb}")
        if self.executor not in ("local", "ray"):
            raise ValueError(f"executor must be 'local' or 'ray', got {self.executor!r}")
        if self.workers_per_node is not None and self.workers_per_node < 1:
            raise ValueError(f"workers_per_node must be >= 1, got {self.workers_per_node}")
        if self.rosalind_check not in ("rosalind", "exact"):
            raise ValueError(f"rosalind_check must be 'rosalind' or 'exact', got {self.rosalind_check!r}")

    def fingerprint(self) -> dict[str, Any]:
        """The fields that can change a verdict (workers and cache location cannot)."""
        return {
            k: getattr(self, k)
            for k in (
                "fuzz_cases",
                "timeout_s",
                "memory_mb",
                "seed",
                "rosalind_check",
                "plus",
                "include_weak",
                "case_batching",
            )
        }

    def cache_dir(self) -> Path:
        """Where golden outputs are cached: ``golden_cache_dir``, else the settings' ``golden`` folder."""
        return Path(self.golden_cache_dir) if self.golden_cache_dir else settings.cache_dir("golden")
