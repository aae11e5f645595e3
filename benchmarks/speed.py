"""The evaluation speed benchmark: the engine versus the naive runner, side by side.

Run it as ``python -m benchmarks speed ...`` (see :mod:`benchmarks.__main__` and
docs/performance.md). One :func:`bench_sandbox` call evaluates the same tasks and samples with

* (a) the naive runner (:mod:`benchmarks.naive`: a fresh process per fuzz case, under Docker
  in long-lived containers of the same image; golden re-run for every sample), and
* (b) the engine (:func:`biocoder_metric.execution.run_evaluation`: warm forking worker,
  compile-once Java runner, reused sandboxes, golden outputs computed once per task),

under each requested sandbox, ``repeats`` times with the order of (a) and (b) alternating
(so slow drift of a shared machine hits both equally), and reports medians, the ratio
b/a, and every verdict on which the two disagree.

Samples are the task's golden plus mutants of it (:mod:`biocoder_metric.validity.mutation`:
arithmetic, comparison, boundary, constant, return and statement-deletion operators), so
that passing and failing paths are both exercised. Mutants are deterministic per task.

Why ratios and medians only: this machine is shared, so absolute times say little;
both paths run in the same minute on the same inputs, which makes the ratio meaningful.
"""

from __future__ import annotations

import ast
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from benchmarks.naive import BASELINES, evaluate_naive, make_naive_backend
from biocoder_metric import pyast
from biocoder_metric.execution import EvalOptions, harness, run_evaluation
from biocoder_metric.types import Job
from biocoder_metric.validity.mutation import java_mutants, python_mutants

# ---------------------------------------------------------------------------- mutants


def mutants(code: str, limit: int, seed: str = "") -> list[tuple[str, str]]:
    """Up to ``limit`` Python mutants of ``code`` labelled ``"mutant: <operator>"``.

    Kept for the benchmark's callers; the operators live in :mod:`biocoder_metric.validity.mutation`
    (shared with the harness audit) and are deterministic per ``seed`` (the task id).
    """
    return [(f"mutant: {op}", text) for op, text in python_mutants(code, limit, seed=seed)]


def make_samples(
    rows: Sequence[dict[str, Any]], per_task: int, golden_every: int = 4
) -> list[dict[str, Any]]:
    """``per_task`` samples per task: the golden at every ``golden_every``-th index, mutants elsewhere.

    Java goldens get no AST mutants (Python's ``ast`` cannot parse them); they get textual
    ones (a flipped ``<``, ``+`` made ``-``, an integer constant + 1) and one deliberately
    non-compiling variant, so compile errors are exercised too.
    """
    out: list[dict[str, Any]] = []
    for row in rows:
        golden = row["golden_code"]
        if row["language"] == "python":
            pool = mutants(golden, per_task, seed=row["task_id"])
        else:
            pool = _java_mutants(golden)
        for i in range(per_task):
            if i % golden_every == 0 or not pool:
                label, text = "golden", golden
            else:
                label, text = pool[(i - 1 - i // golden_every) % len(pool)]
            out.append({"task_id": row["task_id"], "completion": text, "label": label})
    return out


def _java_mutants(code: str) -> list[tuple[str, str]]:
    """Three textual Java mutants (:func:`biocoder_metric.validity.mutation.java_mutants`) and a syntax error."""
    out = [(f"mutant: {op}", text) for op, text in java_mutants(code, limit=3)]
    out.append(("mutant: compile error", code.rstrip().rstrip("}") + "\n"))
    return out


# ---------------------------------------------------------------------------- timing


@dataclass
class Measurement:
    """One timed run of one runner on the whole workload."""

    runner: str  # "naive" | "engine"
    sandbox: str
    wall_s: float
    samples: int
    cases: int  # candidate fuzz cases judged
    process_runs: int = 0  # naive only: program runs including the golden re-runs


@dataclass
class SandboxReport:
    sandbox: str
    naive: list[Measurement] = field(default_factory=list)
    engine: list[Measurement] = field(default_factory=list)
    #: The engine with this round's optimisations off (``case_batching=False``: a forked process
    #: per case, top-level imports preloaded only): the previous design, side by side.
    engine_off: list[Measurement] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, int] = field(default_factory=dict)
    baseline: str = ""

    def summary(self) -> dict[str, Any]:
        def med(ms: list[Measurement]) -> float | None:
            return statistics.median(m.wall_s for m in ms) if ms else None

        n, e, off = med(self.naive), med(self.engine), med(self.engine_off)
        ref = (self.engine or self.naive)[0]
        out: dict[str, Any] = {
            "sandbox": self.sandbox,
            "samples": ref.samples,
            "cases": ref.cases,
            "repeats": max(len(self.naive), len(self.engine)),
            "verdicts": self.verdicts,
            "disagreements": len(self.disagreements),
            "baseline": self.baseline or BASELINES.get(self.sandbox, "?"),
        }
        for key, wall in (("naive", n), ("engine", e), ("engine_off", off)):
            if wall:
                out[key] = {
                    "wall_s_median": round(wall, 3),
                    "wall_s_all": [round(m.wall_s, 3) for m in getattr(self, key)],
                    "samples_per_s": round(ref.samples / wall, 3),
                    "cases_per_s": round(ref.cases / wall, 3),
                    "ms_per_case": round(1000 * wall / max(ref.cases, 1), 2),
                }
        if n and e:
            # The headline is the ratio of the median times (not a median of per-pair ratios).
            out["speedup_engine_over_naive"] = round(n / e, 2)
            # Same pairing as the run order: the ratio of each interleaved pair, then the median.
            pairs = [a.wall_s / b.wall_s for a, b in zip(self.naive, self.engine, strict=False)]
            out["speedup_pairs"] = [round(p, 2) for p in pairs]
        if n and off:
            out["speedup_engine_off_over_naive"] = round(n / off, 2)
        if e and off:
            out["speedup_engine_over_engine_off"] = round(off / e, 2)
        return out


def _engine_verdicts(run) -> dict[tuple[str, int], tuple[str, int]]:
    return {(r.task_id, r.sample_index): (r.status, r.cases_passed) for r in run.results}


def _naive_verdicts(rows: list[dict[str, Any]]) -> dict[tuple[str, int], tuple[str, int]]:
    return {(r["task_id"], r["sample_index"]): (r["status"], r["cases_passed"]) for r in rows}


def compare_verdicts(
    engine: dict[tuple[str, int], tuple[str, int]],
    naive: dict[tuple[str, int], tuple[str, int]],
    labels: dict[tuple[str, int], str],
) -> list[dict[str, Any]]:
    """Every sample whose (status, cases passed) differs between the two runners."""
    out = []
    for key in sorted(set(engine) | set(naive)):
        if engine.get(key) != naive.get(key):
            out.append(
                {
                    "task_id": key[0],
                    "sample_index": key[1],
                    "sample": labels.get(key, "?"),
                    "engine": engine.get(key),
                    "naive": naive.get(key),
                }
            )
    return out


def bench_sandbox(
    sandbox: str,
    rows: list[dict[str, Any]],
    samples: list[dict[str, Any]],
    options: EvalOptions,
    repeats: int,
    run_naive: bool = True,
    log: Callable[[str], None] = print,
    engine_off: bool = True,
    exec_per_case: bool = False,
) -> SandboxReport:
    """The baseline, the engine and (``engine_off``) the engine with this round's optimisations
    off, ``repeats`` times each, interleaved; every engine's verdicts compared with the baseline's
    on every repeat. Under docker the baseline is the careful upstream-style driver (one
    ``docker exec`` per sample), or with ``exec_per_case`` one ``docker exec`` per program run."""
    report = SandboxReport(sandbox=sandbox)
    labels: dict[tuple[str, int], str] = {}
    counters: dict[str, int] = {}
    for s in samples:
        i = counters.get(s["task_id"], 0)
        counters[s["task_id"]] = i + 1
        labels[(s["task_id"], i)] = s.get("label", "?")
    driver = sandbox == "docker" and not exec_per_case
    report.baseline = BASELINES["docker-driver"] if driver else BASELINES.get(sandbox, "?")
    runners = ["naive", "engine"] + (["engine_off"] if engine_off else [])
    for rep in range(repeats):
        # rotate the order every repeat, so slow drift of a shared machine hits every runner alike
        order = runners[rep % len(runners) :] + runners[: rep % len(runners)]
        verdicts: dict[str, dict[tuple[str, int], tuple[str, int]]] = {}
        for runner in order:
            if runner == "naive" and not run_naive:
                continue
            if runner in ("engine", "engine_off"):
                with tempfile.TemporaryDirectory(prefix="biocoder-bench-golden-") as cache:
                    opts = EvalOptions(
                        **{
                            **asdict(options),
                            "sandbox": sandbox,
                            "golden_cache_dir": cache,
                            "case_batching": runner == "engine",
                        }
                    )
                    t0 = time.perf_counter()
                    run = run_evaluation(rows, samples, opts, progress=False)
                    wall = time.perf_counter() - t0
                verdicts[runner] = _engine_verdicts(run)
                cases = sum(r.cases_total for r in run.results)
                getattr(report, runner).append(Measurement(runner, sandbox, wall, len(run.results), cases))
                if runner == "engine":
                    report.verdicts = dict(sorted(_count(r.status for r in run.results).items()))
            else:
                opts = EvalOptions(**{**asdict(options), "sandbox": sandbox})
                t0 = time.perf_counter()
                res = evaluate_naive(rows, samples, opts, progress=False, driver=driver)
                wall = time.perf_counter() - t0
                verdicts["naive"] = _naive_verdicts(res)
                cases = sum(r["cases"] for r in res)
                report.naive.append(
                    Measurement("naive", sandbox, wall, len(res), cases, sum(r["runs"] for r in res))
                )
            log(f"  [{sandbox}] repeat {rep + 1}/{repeats} {runner}: {wall:.2f} s")
        if "naive" in verdicts:
            for runner in ("engine", "engine_off"):
                if runner in verdicts:
                    for d in compare_verdicts(verdicts[runner], verdicts["naive"], labels):
                        d.update(repeat=rep, runner=runner)
                        report.disagreements.append(d)
    return report


def _count(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


# ---------------------------------------------------------------------------- per-case overhead

PROBE_TAG = "__BIOCODER_BENCH_COMPUTE_S__="
_PROBE = (
    "import atexit as _bq_atexit, sys as _bq_sys, time as _bq_time; "
    "_bq_t0 = (_bq_time.perf_counter(), _bq_time.process_time()); "
    "_bq_atexit.register(lambda: _bq_sys.stderr.write('\\n" + PROBE_TAG + "%r,%r\\n' % "
    "(_bq_time.perf_counter() - _bq_t0[0], _bq_time.process_time() - _bq_t0[1])))\n"
)


def with_probe(program: str) -> str:
    """``program`` with a timer inserted after its leading import block, reporting on stderr at exit.

    What it measures is the program's own compute: everything after its top-level imports
    up to interpreter exit (``atexit``), inside the case process. Imports are left out on
    purpose: loading numpy once per case is exactly the overhead the engine removes.
    """
    tree = pyast.parse(program)
    line = len(program.splitlines()) + 1
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # module docstring
        decorators = getattr(node, "decorator_list", [])
        line = min([node.lineno] + [d.lineno for d in decorators])
        break
    lines = program.splitlines(keepends=True)
    return "".join(lines[: line - 1]) + _PROBE + "".join(lines[line - 1 :])


def probe_compute(stderr: str) -> float | None:
    """The program's own compute (wall seconds) reported by :func:`with_probe`, or None."""
    got = probe_values(stderr)
    return got[0] if got else None


def probe_values(stderr: str) -> tuple[float, float] | None:
    """(wall, CPU) seconds of the program's own compute reported by :func:`with_probe`."""
    m = re.search(re.escape(PROBE_TAG) + r"([0-9.e+-]+),([0-9.e+-]+)", stderr)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _tree_cpu_s(pid: int) -> float | None:
    """CPU seconds (user+sys, including reaped children) of ``pid`` and all its descendants."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    total, stack, seen = 0.0, [pid], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as fh:
                    stack.extend(int(x) for x in fh.read().split())
        except (OSError, ValueError, IndexError):
            if p == pid:
                return None
    return total


def _container_cpu_s(container_id: str) -> float | None:
    """CPU seconds used so far by a Docker container, from its cgroup (v1 or v2)."""
    for path, scale in (
        (f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage", 1e-9),
        (f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope/cpu.stat", 1e-6),
        (f"/sys/fs/cgroup/docker/{container_id}/cpu.stat", 1e-6),
    ):
        try:
            with open(path) as fh:
                text = fh.read()
        except OSError:
            continue
        if path.endswith("cpu.stat"):
            for line in text.splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) * scale
            continue
        return int(text.strip()) * scale
    return None


def sandbox_cpu_s(sb: Any) -> float | None:
    """CPU seconds used so far by everything inside sandbox ``sb`` (worker and its cases), or None.

    From the sandbox's public :meth:`~biocoder_metric.sandbox.base.Sandbox.stats`: the Docker
    container's cgroup, else the worker's host process tree. Best effort: None (no worker
    running, cgroup not readable) just means the CPU column stays empty.
    """
    stats = sb.stats()
    if stats.get("container_id"):
        return _container_cpu_s(stats["container_id"])
    pid = stats.get("worker_pid")
    return _tree_cpu_s(pid) if pid else None


@dataclass
class OverheadReport:
    path: str  # "engine warm" | "engine per-case" | "engine cold" | "naive"
    sandbox: str
    cases: int
    wall_ms_per_case: float
    compute_ms_per_case: float
    overhead_ms_per_case: float
    overhead_ms_median: float | None = None
    #: The distribution of the per-case overhead: p10, p25, p50, p75, p90 (ms).
    overhead_ms_quantiles: dict[str, float] | None = None
    #: CPU time of everything in the sandbox per case minus the program's own CPU time
    #: (engine paths only; None where the sandbox's CPU cannot be read).
    cpu_ms_per_case: float | None = None
    compute_cpu_ms_per_case: float | None = None
    overhead_cpu_ms_per_case: float | None = None


def _quantiles(xs: Sequence[float]) -> dict[str, float]:
    """p10, p25, p50, p75 and p90 of ``xs`` in milliseconds (nearest rank)."""
    ys = sorted(xs)
    return {
        f"p{q}": round(1000 * ys[min(len(ys) - 1, (q * len(ys)) // 100)], 2) for q in (10, 25, 50, 75, 90)
    }


def measure_overhead(
    sandbox: str,
    rows: list[dict[str, Any]],
    options: EvalOptions,
    paths: Sequence[str] = ("engine warm", "engine per-case", "engine cold", "naive"),
    log: Callable[[str], None] = print,
) -> list[OverheadReport]:
    """Per-case overhead = host-observed wall time per case minus the program's own compute.

    Runs every task's golden programs (with :func:`with_probe`) through one sandbox,
    sequentially, after one untimed warm-up job per task (so the engine's one-off start-up
    and import preloading are not counted: they are paid once per worker, not per case).
    ``engine cold`` is the engine's worker with ``warm=False`` (a fresh interpreter per
    case inside the reused sandbox); it separates the gain of sandbox reuse from the gain of
    the warm interpreter.
    """
    from biocoder_metric.sandbox import make_sandbox

    py_rows = [r for r in rows if r["language"] == "python" and r["kind"] == "harness"]
    made = [0]

    def sample_programs(row: dict[str, Any]) -> tuple[str, ...]:
        """The golden's case programs as a new sample's: its code made unique (a comment), so
        that no job finds its candidate's code compiled already (the engine remembers compiled
        top-level chunks by their text), as a real sample's would not be."""
        made[0] += 1
        golden = row["golden_code"].rstrip("\n") + f"\n# sample {made[0]}\n"
        progs = harness.build_harness_programs(row, golden, fuzz_cases=options.fuzz_cases, seed=options.seed)
        return tuple(with_probe(p) for p in progs)

    jobs = [sample_programs(row) for row in py_rows]
    reports = []
    for path in paths:
        walls: list[float] = []
        computes: list[float] = []
        per_case: list[float] = []
        cpu_total: float | None = 0.0
        compute_cpu = 0.0
        if path == "naive":
            backend = make_naive_backend(
                sandbox,
                allow_unsafe=options.allow_unsafe,
                image=options.image,
                timeout_s=options.timeout_s,
                memory_mb=options.memory_mb,
            )
            try:
                for progs in jobs:
                    for p in progs:
                        t0 = time.perf_counter()
                        o = backend.run_case("python", p)
                        w = time.perf_counter() - t0
                        c = probe_compute(o.stderr)
                        if c is not None:
                            walls.append(w)
                            computes.append(c)
                            per_case.append(w - c)
            finally:
                backend.close()
        else:
            warm = path in ("engine warm", "engine per-case")
            sb = make_sandbox(
                sandbox,
                allow_unsafe=options.allow_unsafe,
                image=options.image,
                warm=warm,
                batch=path == "engine warm",
            )
            try:
                for row in py_rows:  # warm-up: worker start, imports preloaded (paid once per worker)
                    sb.run(
                        Job(
                            language="python",
                            programs=sample_programs(row)[:1],
                            timeout_s=options.timeout_s,
                            memory_mb=options.memory_mb,
                        )
                    )
                for row in py_rows:
                    job = Job(
                        language="python",
                        programs=sample_programs(row),
                        timeout_s=options.timeout_s,
                        memory_mb=options.memory_mb,
                    )
                    c0 = sandbox_cpu_s(sb)
                    t0 = time.perf_counter()
                    outs = sb.run(job)
                    w = time.perf_counter() - t0
                    c1 = sandbox_cpu_s(sb)
                    vals = [probe_values(o.stderr) for o in outs]
                    if all(v is not None for v in vals):
                        walls.append(w)
                        computes.append(sum(v[0] for v in vals))  # type: ignore[index]
                        per_case.extend((w / len(vals)) - v[0] for v in vals)  # type: ignore[index]
                        compute_cpu += sum(v[1] for v in vals)  # type: ignore[index]
                        if cpu_total is not None and c0 is not None and c1 is not None:
                            cpu_total += c1 - c0
                        else:
                            cpu_total = None
            finally:
                sb.close()
        n = len(per_case)
        if not n:
            log(f"  [{sandbox}] {path}: no case reported its compute time (probe missing)")
            continue
        wall, comp = sum(walls), sum(computes)
        rep = OverheadReport(
            path=path,
            sandbox=sandbox,
            cases=n,
            wall_ms_per_case=round(1000 * wall / n, 2),
            compute_ms_per_case=round(1000 * comp / n, 2),
            overhead_ms_per_case=round(1000 * (wall - comp) / n, 2),
            overhead_ms_median=round(1000 * statistics.median(per_case), 2),
            overhead_ms_quantiles=_quantiles(per_case),
        )
        # zero is a reading (no clock tick went by: /proc counts in 10 ms ticks), None is none
        if path != "naive" and cpu_total is not None:
            rep.cpu_ms_per_case = round(1000 * cpu_total / n, 2)
            rep.compute_cpu_ms_per_case = round(1000 * compute_cpu / n, 2)
            rep.overhead_cpu_ms_per_case = round(1000 * (cpu_total - compute_cpu) / n, 2)
        log(
            f"  [{sandbox}] {path}: {rep.wall_ms_per_case} ms/case wall, {rep.compute_ms_per_case} compute, "
            f"{rep.overhead_ms_per_case} overhead; CPU {rep.cpu_ms_per_case} ms/case, "
            f"{rep.overhead_cpu_ms_per_case} above the program's"
        )
        reports.append(rep)
    return reports


# ---------------------------------------------------------------------------- scaling


def measure_scaling(
    sandbox: str,
    rows: list[dict[str, Any]],
    per_task: int,
    options: EvalOptions,
    max_workers: int,
    log: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Engine wall time as tasks, samples, fuzz cases and workers change one at a time.

    The base point is (all tasks, ``per_task`` samples, ``options.fuzz_cases``, ``max_workers``);
    each other point halves one factor (workers: 1, 2, ... up to ``max_workers``). Goldens are
    recomputed every run (fresh cache), as in the main comparison.
    """
    half_t = rows[: max(1, len(rows) // 2)]
    points = [
        ("base", rows, per_task, options.fuzz_cases, max_workers),
        ("tasks/2", half_t, per_task, options.fuzz_cases, max_workers),
        ("samples/2", rows, max(1, per_task // 2), options.fuzz_cases, max_workers),
        ("fuzz/2", rows, per_task, max(1, options.fuzz_cases // 2), max_workers),
    ]
    w = 1
    while w < max_workers:
        points.append((f"workers={w}", rows, per_task, options.fuzz_cases, w))
        w *= 2
    out = []
    for label, rs, s, f, workers in points:
        samples = make_samples(rs, s)
        with tempfile.TemporaryDirectory(prefix="biocoder-bench-golden-") as cache:
            opts = EvalOptions(
                **{
                    **asdict(options),
                    "sandbox": sandbox,
                    "fuzz_cases": f,
                    "workers": workers,
                    "golden_cache_dir": cache,
                }
            )
            t0 = time.perf_counter()
            run = run_evaluation(rs, samples, opts, progress=False)
            wall = time.perf_counter() - t0
        cases = sum(r.cases_total for r in run.results)
        point = {
            "point": label,
            "tasks": len(rs),
            "samples_per_task": s,
            "fuzz_cases": f,
            "workers": workers,
            "samples": len(run.results),
            "cases": cases,
            "wall_s": round(wall, 3),
            "cases_per_s": round(cases / wall, 2),
        }
        log(f"  [{sandbox}] scaling {label}: {point}")
        out.append(point)
    return out


def dumps(obj: Any) -> str:
    return json.dumps(
        obj, indent=2, default=lambda o: asdict(o) if hasattr(o, "__dataclass_fields__") else str(o)
    )
