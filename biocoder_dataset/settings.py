"""Every default and every ``BIOCODER_*`` environment variable, in one place.

Why one module: a default written twice drifts (the CLI said one timeout, the metric
another), and a cache root computed in several places ends up in several folders. Every
other module reads its defaults and environment variables from here; docs/ARCHITECTURE.md
("Settings") is printed from :data:`ENV_VARS`.

It lives in ``biocoder_dataset`` (the lower layer, which imports nothing of
``biocoder_metric``) so that both packages and the lm-eval adapter can import it without a
cycle. It is stdlib-only on purpose: reading a setting must not import ``datasets``.

The one cache root (``cache_root()``) has fixed subfolders (``CACHE_SUBDIRS``): downloaded
upstream files, golden outputs, the bubblewrap root filesystem exported from the image, the
prepared worker runtime, and ``biocoder build``'s model-summary cache. ``scripts/setup_docker.sh``
follows the same rule for the image root filesystem.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# ------------------------------------------------------------------------------ evaluation defaults
#: Sandbox backend: ``auto`` picks docker, then bubblewrap (never ``none``).
SANDBOX = "auto"
#: Parallel sandboxes (engine threads) on one machine.
WORKERS = 2
#: Fuzz cases per harness task (each is one run of golden and candidate).
FUZZ_CASES = 10
#: Fuzz seed: values come from ``Random(f"{seed}:{task}:{case}")``.
SEED = 0
#: Mutants of the golden per task, for the harness audit and harness synthesis.
MUTANTS = 10
#: Seconds per case when a mutant runs (mutants that loop are cut short sooner than goldens).
MUTANT_TIMEOUT_S = 5.0
#: Bootstrap resamples for the confidence intervals of summary.json and the report.
N_BOOT = 20_000
#: Bootstrap resamples for paired comparisons of two runs (``biocoder compare``, the report).
COMPARE_N_BOOT = 10_000
#: Seed of every bootstrap (results are reproducible).
BOOTSTRAP_SEED = 0
#: Confidence level of every interval.
CI_LEVEL = 0.95
# The per-case limits (time, memory, output) are not here: the in-sandbox worker must agree on
# them, so their defaults live in the worker protocol (biocoder_metric/sandbox/runtime/protocol.py),
# which runs inside the sandbox on the standard library alone and cannot import this package.
#: The reference Docker image built by ``scripts/setup_docker.sh``.
IMAGE = "biocoder-eval:latest"
#: Retries of a job whose sandbox failed, each on a fresh sandbox (never the candidate's fault).
SANDBOX_RETRIES = 2
#: Characters of expected / actual output / stderr kept in a result's ``first_failure``.
TAIL_CHARS = 2000

# ------------------------------------------------------------------------------ cache layout
#: Subfolders of the cache root, one per kind of cached thing.
CACHE_SUBDIRS = {
    "sources": "sources",  # downloaded upstream files (biocoder_dataset.sources)
    "golden": "golden",  # golden outputs per (task, case, seed, environment)
    "rootfs": "rootfs",  # the image's root filesystem for --sandbox bwrap (scripts/setup_docker.sh)
    "runtime": "runtime",  # the worker runtime copied for the sandboxes, Runner.class compiled
    "build": "build",  # biocoder build: cached model summaries
}


@dataclass(frozen=True)
class EnvVar:
    """One environment variable the project reads: its name, default, reader and meaning."""

    name: str
    default: str
    meaning: str
    read_by: str = "the packages"


ENV_CACHE_DIR = "BIOCODER_CACHE_DIR"
ENV_SOURCE_DIR = "BIOCODER_SOURCE_DIR"
ENV_SKIP_CHECKSUM = "BIOCODER_SKIP_CHECKSUM"
ENV_PARQUET_DIR = "BIOCODER_PARQUET_DIR"
ENV_SANDBOX = "BIOCODER_SANDBOX"
ENV_IMAGE = "BIOCODER_IMAGE"
ENV_BWRAP_ROOTFS = "BIOCODER_BWRAP_ROOTFS"
ENV_ALLOW_UNSAFE = "BIOCODER_ALLOW_UNSAFE"
#: ``evaluate``'s own opt-in for running model code (its ``code_eval`` metric reads it); accepted too.
ENV_HF_ALLOW_CODE_EVAL = "HF_ALLOW_CODE_EVAL"
ENV_WORKERS = "BIOCODER_WORKERS"
ENV_FUZZ_CASES = "BIOCODER_FUZZ_CASES"
ENV_TIMEOUT = "BIOCODER_TIMEOUT"
ENV_SEED = "BIOCODER_SEED"
ENV_RESULTS_DIR = "BIOCODER_RESULTS_DIR"
ENV_ALLOW_PARTIAL = "BIOCODER_ALLOW_PARTIAL"
ENV_SYNTH_HARNESSES = "BIOCODER_SYNTH_HARNESSES"
ENV_SERVER_URL = "BIOCODER_SERVER_URL"
ENV_SERVER_TOKEN = "BIOCODER_SERVER_TOKEN"
ENV_CONFIG = "BIOCODER_CONFIG"
ENV_JAVAC_SERVER = "BIOCODER_JAVAC_SERVER"

#: The documented table (docs/ARCHITECTURE.md "Settings"); ``tests/test_settings.py`` checks
#: that the docs show exactly these and that no other module spells a ``BIOCODER_*`` name.
ENV_VARS: tuple[EnvVar, ...] = (
    EnvVar(
        ENV_CACHE_DIR,
        "`$XDG_CACHE_HOME/biocoder` or `~/.cache/biocoder`",
        "the one cache root; subfolders " + ", ".join(f"`{v}/`" for v in CACHE_SUBDIRS.values()),
    ),
    EnvVar(ENV_SOURCE_DIR, "unset (download and cache)", "read upstream files from this folder, offline"),
    EnvVar(
        ENV_SKIP_CHECKSUM, "`0`", "`1`: do not verify the sha256 pins of upstream files (development only)"
    ),
    EnvVar(ENV_PARQUET_DIR, "unset", "lm-eval: read rows from `biocoder data export` Parquet files"),
    EnvVar(ENV_SANDBOX, f"`{SANDBOX}`", "lm-eval: sandbox backend (auto, docker, bwrap, none)"),
    EnvVar(ENV_IMAGE, f"`{IMAGE}`", "the reference Docker image (docker sandbox; rootfs source for bwrap)"),
    EnvVar(ENV_BWRAP_ROOTFS, "the image's exported rootfs", "bwrap: a root filesystem folder, or `host`"),
    EnvVar(ENV_ALLOW_UNSAFE, "`0`", "`1`: permit `--sandbox none` (runs model code on the host)"),
    EnvVar(
        ENV_HF_ALLOW_CODE_EVAL, "`0`", f"same as {ENV_ALLOW_UNSAFE}, as `evaluate`'s `code_eval` users set it"
    ),
    EnvVar(ENV_WORKERS, f"`{WORKERS}`", "lm-eval: parallel sandboxes"),
    EnvVar(ENV_FUZZ_CASES, f"`{FUZZ_CASES}`", "lm-eval: fuzz cases per harness task"),
    EnvVar(ENV_TIMEOUT, "the engine's", "lm-eval: seconds per case"),
    EnvVar(ENV_SEED, f"`{SEED}`", "lm-eval: fuzz seed"),
    EnvVar(
        ENV_RESULTS_DIR,
        "unset",
        "lm-eval: also write each filter batch's run folder here (`batchN-pidP/`: results.jsonl, summary.json, timing.json, as `biocoder evaluate` writes them)",
    ),
    EnvVar(ENV_ALLOW_PARTIAL, "`0`", "lm-eval: `1` scores the other tasks when goldens fail here"),
    EnvVar(
        ENV_SYNTH_HARNESSES, "`1`", "`0`: load golden-only rows without the shipped synthesised harnesses"
    ),
    EnvVar(
        ENV_JAVAC_SERVER,
        "`1`",
        "`0`: Java harness synthesis compiles with a `javac` process each time instead of warm javac servers",
    ),
    # Read by the scripts, the Slurm template and the tests, not by the packages (listed so the
    # table is complete; tests/test_settings.py checks that no BIOCODER_* name is undocumented).
    EnvVar(
        "BIOCODER_BASE_IMAGE",
        "`biocoder-base:bullseye`",
        "base image (a registry name, or built with debootstrap)",
        "scripts/setup_docker.sh",
    ),
    EnvVar(
        "BIOCODER_REBUILD", "`0`", "`1`: rebuild base image and image from scratch", "scripts/setup_docker.sh"
    ),
    EnvVar(
        "BIOCODER_SKIP_DOCKER",
        "`0`",
        "`1`: install without Docker (tests then use bwrap only)",
        "scripts/install.sh, tests",
    ),
    EnvVar(
        "BIOCODER_TEST_WORKERS",
        "`2`",
        "test processes (pytest-xdist); `1`: every test in one process, in order",
        "scripts/test.sh",
    ),
    EnvVar(
        ENV_CONFIG,
        "`python_public` (Slurm), `demo` (rewards)",
        "dataset config of the array job; of the in-process reward verifier",
        "scripts/slurm, rewards",
    ),
    EnvVar(
        ENV_SERVER_URL,
        "unset (judge in process)",
        "`biocoder serve` URL the reward functions call",
        "rewards",
    ),
    EnvVar(
        ENV_SERVER_TOKEN, "unset", "bearer token of `biocoder serve` (and of its clients)", "serve, rewards"
    ),
    EnvVar(
        "BIOCODER_SHARD_COUNT",
        "the array's size",
        "shards of a Slurm array (re-running one element)",
        "scripts/slurm",
    ),
    EnvVar(
        "BIOCODER_ARRAY_MIN", "`0`", "first array index when BIOCODER_SHARD_COUNT is set", "scripts/slurm"
    ),
    EnvVar("BIOCODER_ARRAY_STEP", "`1`", "array step when BIOCODER_SHARD_COUNT is set", "scripts/slurm"),
    EnvVar(
        "BIOCODER_ROOTFS_FROM",
        "unset",
        "build the bwrap root filesystem from this image with Apptainer",
        "scripts/slurm",
    ),
    EnvVar(
        "BIOCODER_UPSTREAM_DIR",
        "`../shared/biocoder-upstream`",
        "the real upstream files tests read",
        "tests",
    ),
    EnvVar(
        "BIOCODER_REPOS_DIR",
        "`../shared/repos`",
        "repository snapshots for `biocoder build` tests and benchmarks",
        "tests, benchmarks",
    ),
    EnvVar(
        "BIOCODER_RELIABILITY_LOG",
        "unset",
        "file the reliability tests append their records to",
        "tests, scripts/reliability_report.py",
    ),
    EnvVar(
        "BIOCODER_RELIABILITY_CANARY",
        "unset",
        "a secret a hostile test plants in the evaluator's environment",
        "tests",
    ),
)

_TRUE = ("1", "true", "yes", "on")


def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value, or ``default`` when it is unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_flag(name: str, default: bool = False) -> bool:
    """A yes/no variable: ``1``/``true``/``yes``/``on`` is yes, ``0``/``false``/``no``/``off`` no."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value in _TRUE


def env_number(name: str, default: float | None, kind: type = int) -> float | None:
    """A numeric variable; a value that is not a number is an error naming the variable."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"environment variable {name}={value!r} is not a valid {kind.__name__}") from None


def allow_unsafe_from_env() -> bool:
    """Whether the environment opts in to running model code unsandboxed."""
    return env_flag(ENV_ALLOW_UNSAFE) or env_flag(ENV_HF_ALLOW_CODE_EVAL)


def cache_root() -> Path:
    """``$BIOCODER_CACHE_DIR``, else ``$XDG_CACHE_HOME/biocoder``, else ``~/.cache/biocoder``."""
    explicit = env_str(ENV_CACHE_DIR)
    if explicit:
        return Path(explicit).expanduser()
    xdg = env_str("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "biocoder"


def cache_dir(kind: str) -> Path:
    """The cache folder for ``kind`` (a key of :data:`CACHE_SUBDIRS`), under :func:`cache_root`."""
    if kind not in CACHE_SUBDIRS:
        raise KeyError(f"unknown cache kind {kind!r}; one of {', '.join(CACHE_SUBDIRS)}")
    return cache_root() / CACHE_SUBDIRS[kind]


def env_table_markdown() -> str:
    """The settings table as markdown (docs/ARCHITECTURE.md is checked against it)."""
    lines = ["| variable | default | read by | meaning |", "|---|---|---|---|"]
    lines += [f"| `{v.name}` | {v.default} | {v.read_by} | {v.meaning} |" for v in ENV_VARS]
    return "\n".join(lines)
