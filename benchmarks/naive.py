"""The baseline runner: upstream's tester, one fresh process per fuzz case.

This is the baseline the speed benchmark (``python -m benchmarks speed``) compares the engine with.
It does what upstream's tester does: for every case it writes ``main.py`` (Java:
``Main.java``), starts a fresh ``python3 main.py`` (Java: ``javac`` then ``java``) in a
sandbox of the same kind (under Docker: in a long-lived container of the same image, as
upstream's workers keep theirs), and waits. Nothing else is reused: no warm interpreter,
no preloaded imports, no compile-once, and no golden cache (every sample re-runs the
golden program for every case). It runs ``workers`` cases at a time, as the engine does.

It shares only *pure* code with the engine (harness program texts, ``extract_code``,
:func:`~biocoder_metric.execution.judging.judge`), so that when both give the same verdict the
engine's fast paths are checked against an independent, obviously-correct execution.
It uses only the package's public API (the sandbox's mount layout comes from
:meth:`BwrapSandbox.bwrap_argv`, the container settings from :mod:`biocoder_metric.sandbox.docker`'s
constants).

Isolation per backend (kept comparable with the engine's, not identical):

* ``none``: a host subprocess with the worker's rlimits and a clean environment.
* ``bwrap``: the engine's bubblewrap command line (same mounts, uid, no network), with the
  case directory bound at ``/work/case`` and ``sh -c 'python3 main.py'`` instead of the worker.
* ``docker``: upstream's way: long-lived containers of the same image (one per worker, the
  engine's parallelism, the engine's locked-down flags) and a fresh interpreter / JVM per
  case via ``docker exec``; case directories bound at ``/cases``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from biocoder_metric.execution import EvalOptions, harness
from biocoder_metric.execution.judging import case_error, judge, stripped_equal
from biocoder_metric.execution.tasks import index_problems, static_task_status
from biocoder_metric.generation.postprocess import extract_code
from biocoder_metric.languages import runner
from biocoder_metric.samples import normalize_samples
from biocoder_metric.sandbox.base import SandboxError, clean_env
from biocoder_metric.sandbox.runtime.protocol import MIN_FSIZE, STDERR_TAIL, java_flags
from biocoder_metric.types import CaseOutcome, RunStatus, TaskStatus

#: Host-side slack on top of the case time limit (process/container start-up).
START_SLACK_S = 60.0
#: The exit status the Java script uses to say "javac failed" (checked together with the class file).
JAVAC_FAILED = 222


def case_script(
    language: str,
    class_name: str,
    memory_mb: int,
    output_limit_bytes: int,
    timeout_s: float | None = None,
    python: str = "python3",
) -> str:
    """The ``sh -c`` script that runs one case in its directory: limits, redirections, exec.

    ``timeout_s`` wraps the program in coreutils ``timeout`` (Docker, where the host-side
    clock also counts container start-up); elsewhere the host enforces it.
    """
    fsize_kb = max(MIN_FSIZE, output_limit_bytes + 1) // 1024
    lines = [f"ulimit -c 0; ulimit -f {fsize_kb}"]
    guard = f"timeout -s KILL {timeout_s:g} " if timeout_s else ""
    if language == "python":
        lines.append(f"ulimit -v {memory_mb * 1024}")
        lines.append(f"exec {guard}{shlex.quote(python)} main.py <stdin >stdout 2>stderr")
    else:
        lines.append(
            "javac -J-XX:-UsePerfData -J-XX:TieredStopAtLevel=1 -encoding UTF-8 -nowarn -d classes "
            f"{shlex.quote(class_name)}.java >compile.txt 2>&1 || exit {JAVAC_FAILED}"
        )
        flags = " ".join(java_flags(memory_mb, []))  # the engine's JVM flags: same verdicts
        lines.append(
            f"exec {guard}java {flags} -cp classes {shlex.quote(class_name)} <stdin >stdout 2>stderr"
        )
    return "\n".join(lines)


def _read(path: str, limit: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit)
    except OSError:
        return b""


def _tail(path: str, limit: int = STDERR_TAIL) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


class NaiveBackend(ABC):
    """Runs one program in a fresh process (and fresh sandbox); thread-safe."""

    name = "?"

    def __init__(self, *, timeout_s: float, memory_mb: int, output_limit_bytes: int = 1 << 20):
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.output_limit = output_limit_bytes
        # tmpfs when there is one: on a disk mounted with ``discard`` every rmdir costs
        # milliseconds, which would penalise the baseline for a quirk of this host.
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self._root = tempfile.mkdtemp(prefix=f"biocoder-naive-{self.name}-", dir=shm)
        os.chmod(self._root, 0o755)
        self._counter = 0
        self._lock = threading.Lock()

    def _case_dir(self, language: str, program: str, class_name: str, stdin: str) -> str:
        with self._lock:
            self._counter += 1
            n = self._counter
        d = os.path.join(self._root, f"case-{n}")
        os.makedirs(d)
        os.chmod(d, 0o777)  # the sandbox user (nobody / uid 10001) writes its outputs here
        name = "main.py" if language == "python" else f"{class_name}.java"
        for fname, text in ((name, program), ("stdin", stdin)):
            with open(os.path.join(d, fname), "w", encoding="utf-8") as fh:
                fh.write(text)
        if language == "java":
            os.makedirs(os.path.join(d, "classes"))
            os.chmod(os.path.join(d, "classes"), 0o777)
        return d

    def run_case(
        self, language: str, program: str, *, class_name: str = "Main", stdin: str = ""
    ) -> CaseOutcome:
        """One case, start to finish, in a new process/sandbox; never raises for the program's faults."""
        d = self._case_dir(language, program, class_name, stdin)
        try:
            start = time.monotonic()
            status, rc, note = self._execute(d, language, class_name)
            duration = time.monotonic() - start
            if language == "java" and not os.path.isfile(os.path.join(d, "classes", f"{class_name}.class")):
                if status == RunStatus.OK and rc == JAVAC_FAILED:
                    return CaseOutcome(
                        status=RunStatus.COMPILE_ERROR,
                        returncode=1,
                        stderr=_tail(os.path.join(d, "compile.txt")),
                    )
            out = _read(os.path.join(d, "stdout"), self.output_limit + 1)
            if status == RunStatus.OK and len(out) > self.output_limit:
                status = RunStatus.OUTPUT_LIMIT
            err = _tail(os.path.join(d, "stderr"))
            if note:
                err = (err + note)[-STDERR_TAIL:]
            return CaseOutcome(
                status=status,
                returncode=None if status == RunStatus.TIMEOUT else rc,
                stdout=out[: self.output_limit].decode("utf-8", "replace"),
                stderr=err,
                duration_s=round(duration, 6),
            )
        finally:
            shutil.rmtree(d, ignore_errors=True)

    @abstractmethod
    def _execute(self, case_dir: str, language: str, class_name: str) -> tuple[str, int | None, str]:
        """Run the case script in ``case_dir``: (RunStatus, exit code, extra stderr note)."""

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)


def _signal_rc(rc: int) -> int:
    """Shell convention 128+N (sh, bwrap, docker) -> -N, as the worker reports signal deaths."""
    return -(rc - 128) if 128 < rc < 160 else rc


class _SubprocessBackend(NaiveBackend):
    """Shared by ``none`` and ``bwrap``: one ``Popen`` per case, host-side deadline."""

    def _argv(self, case_dir: str, script: str) -> tuple[list[str], str | None]:
        raise NotImplementedError

    def _env(self) -> dict[str, str]:
        raise NotImplementedError

    def _execute(self, case_dir: str, language: str, class_name: str) -> tuple[str, int | None, str]:
        script = case_script(language, class_name, self.memory_mb, self.output_limit, python=self._python())
        argv, cwd = self._argv(case_dir, script)
        proc = subprocess.Popen(
            argv, cwd=cwd, env=self._env(), stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            # Java: javac runs inside the same deadline budget plus slack (as the engine allows).
            limit = self.timeout_s + (max(60.0, self.timeout_s * 3) if language == "java" else 0.0)
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self._kill(proc)
            return RunStatus.TIMEOUT, None, ""
        self._kill(proc)  # leftovers of the case (double forks) die with its session
        return RunStatus.OK, _signal_rc(rc), ""

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        import signal

        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()

    def _python(self) -> str:
        return "python3"


class NaiveHost(_SubprocessBackend):
    """``none``: ``sh -c 'python3 main.py'`` on the host (explicit opt-in, like the engine's)."""

    name = "none"

    def __init__(self, *, python: str | None = None, **kw: Any):
        import sys

        self.python = python or sys.executable
        super().__init__(**kw)

    def _python(self) -> str:
        return self.python

    def _argv(self, case_dir: str, script: str) -> tuple[list[str], str | None]:
        return ["sh", "-c", script], case_dir

    def _env(self) -> dict[str, str]:
        return clean_env(
            {"HOME": self._root, "TMPDIR": self._root}, path=os.environ.get("PATH", "/usr/bin:/bin")
        )


class NaiveBwrap(_SubprocessBackend):
    """``bwrap``: a new bubblewrap sandbox per case, with the engine's mount layout."""

    name = "bwrap"

    def __init__(self, *, image: str | None = None, **kw: Any):
        from biocoder_metric.sandbox import make_sandbox
        from biocoder_metric.sandbox.bubblewrap import BwrapSandbox

        # Only for its command line (never started); chosen as the engine's is (same root filesystem).
        box = make_sandbox("bwrap", image=image)
        assert isinstance(box, BwrapSandbox)
        self._box = box
        argv = self._box.bwrap_argv()
        prefix = argv[: argv.index("--")]
        for i in range(len(prefix) - 1, -1, -1):  # our own --chdir replaces the worker's
            if prefix[i] == "--chdir":
                del prefix[i : i + 2]
        self._prefix = prefix
        self._python_exe = self._box.python
        super().__init__(**kw)

    def _python(self) -> str:
        return self._python_exe

    def _argv(self, case_dir: str, script: str) -> tuple[list[str], str | None]:
        return [
            *self._prefix,
            "--bind",
            case_dir,
            "/work/case",
            "--chdir",
            "/work/case",
            "--",
            "sh",
            "-c",
            script,
        ], None

    def _env(self) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def close(self) -> None:
        super().close()
        self._box.close()


def _docker_client() -> Any:
    """A Docker SDK client that answers, or :class:`SandboxError` saying why not."""
    try:
        import docker
    except ImportError as exc:
        raise SandboxError(
            "the docker baseline needs the Docker SDK: pip install 'biocoder-eval[docker]'"
        ) from exc
    try:
        client = docker.from_env(timeout=60)
        client.ping()
    except Exception as exc:
        raise SandboxError(f"no Docker engine is reachable ({exc})") from exc
    return client


class NaiveDocker(NaiveBackend):
    """``docker``, the way upstream's tester runs: long-lived containers of the same image
    (one per worker thread, the engine's parallelism), and in them a fresh ``python3 main.py``
    (``javac`` + ``java``) started with ``docker exec`` for every case, golden and candidate.

    The case directories live on the host under one folder bound into every container at
    :data:`CASES_MOUNT`; the containers carry the engine's locked-down flags.
    """

    name = "docker"
    CASES_MOUNT = "/cases"

    def __init__(
        self, *, image: str | None = None, container_memory_mb: int = 4096, workers: int = 1, **kw: Any
    ):
        import queue

        from biocoder_metric.sandbox import docker as dk
        from biocoder_metric.sandbox.image import DEFAULT_IMAGE

        self._dk = dk
        self.client = _docker_client()
        self.image = image or DEFAULT_IMAGE
        try:
            self.image_id = self.client.images.get(self.image).id
        except Exception as exc:
            raise SandboxError(f"Docker image {self.image!r} not found ({exc})") from exc
        self.container_memory_mb = container_memory_mb
        self.workers = max(1, workers)
        self._free: queue.Queue = queue.Queue()
        self._containers: list[Any] = []
        super().__init__(**kw)

    def _start_container(self) -> Any:
        dk = self._dk
        tmpfs = "rw,nosuid,nodev,size=1024m"
        return self.client.containers.run(
            self.image_id,
            command=["sleep", "infinity"],
            detach=True,
            network_mode="none",
            mem_limit=f"{self.container_memory_mb}m",
            memswap_limit=f"{self.container_memory_mb}m",
            pids_limit=256,
            nano_cpus=int(1e9),
            read_only=True,
            tmpfs={"/tmp": f"{tmpfs},mode=1777", "/var/tmp": f"{tmpfs},mode=1777"},
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            user=dk.SANDBOX_USER,
            working_dir=self.CASES_MOUNT,
            environment=clean_env({"HOME": "/tmp"}, path=dk.CONTAINER_PATH),
            volumes={self._root: {"bind": self.CASES_MOUNT, "mode": "rw"}},
            labels={
                dk.LABEL: "1",
                f"{dk.LABEL}.pid": str(os.getpid()),
                f"{dk.LABEL}.host": os.uname().nodename,
            },
            ipc_mode="private",
        )

    @property
    def containers_started(self) -> int:
        """How many long-lived containers this runner started (at most ``workers``)."""
        return len(self._containers)

    def _borrow(self) -> Any:
        import queue

        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            grow = len(self._containers) < self.workers
            if grow:
                container = self._start_container()
                self._containers.append(container)
                return container
        return self._free.get()

    def _execute(self, case_dir: str, language: str, class_name: str) -> tuple[str, int | None, str]:
        script = case_script(
            language, class_name, self.memory_mb, self.output_limit, timeout_s=self.timeout_s
        )
        try:
            container = self._borrow()
        except Exception as exc:
            return RunStatus.SANDBOX_ERROR, None, f"cannot start a container: {exc}"
        started = time.monotonic()
        try:
            res = container.exec_run(
                ["sh", "-c", script],
                workdir=f"{self.CASES_MOUNT}/{os.path.basename(case_dir)}",
                user=self._dk.SANDBOX_USER,
                environment=clean_env({"HOME": "/tmp"}, path=self._dk.CONTAINER_PATH),
            )
            rc = int(res.exit_code if res.exit_code is not None else -1)
        except Exception as exc:
            return RunStatus.SANDBOX_ERROR, None, f"docker exec failed: {exc}"
        finally:
            self._free.put(container)
        # coreutils ``timeout`` exits 137 (KILL) when the limit hit; a program exiting so by
        # itself would also need the whole limit to look the same.
        if rc in (124, 137) and time.monotonic() - started >= self.timeout_s:
            return RunStatus.TIMEOUT, None, ""
        return RunStatus.OK, _signal_rc(rc), ""

    def close(self) -> None:
        for container in self._containers:
            try:
                container.remove(force=True)
            except Exception:
                pass
        self._containers.clear()
        super().close()
        try:
            self.client.close()
        except Exception:
            pass


#: The small driver a careful user runs once per sample with one ``docker exec``: for every fuzz
#: case a fresh ``python3`` for the golden and one for the candidate, each with the engine's
#: limits (address space, file size, no core dumps), its own working dir and a timeout, outputs
#: to files that the host then judges (the judging rules are the engine's, so verdicts compare).
#: Standard library only: it runs on the image's Python.
DRIVER = r"""
import os, resource, signal, subprocess, sys
root, n, timeout_s, memory_mb, fsize = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])

def limits():
    os.setsid()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))

def run(d):
    with open(os.path.join(d, "stdin"), "rb") as fin, open(os.path.join(d, "stdout"), "wb") as fout, \
            open(os.path.join(d, "stderr"), "wb") as ferr:
        proc = subprocess.Popen(["python3", "main.py"], cwd=d, stdin=fin, stdout=fout, stderr=ferr,
                                preexec_fn=limits)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            rc = "timeout"
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    with open(os.path.join(d, "rc"), "w") as fh:
        fh.write(str(rc))

for i in range(n):
    for who in ("golden", "candidate"):
        run(os.path.join(root, f"{who}-{i}"))
"""

#: What the baseline is, per sandbox: recorded in every benchmark report, so that a figure
#: always says what it was measured against.
BASELINES = {
    "docker-driver": "upstream-style, as a careful user writes it: one long-lived container per worker (the "
    "engine's image and locked-down flags), one docker exec per sample running a small driver that starts a "
    "fresh python3 per fuzz case for the golden and for the candidate (the golden re-run for every sample)",
    "docker": "upstream-style: long-lived containers of the same image (one per worker), a fresh "
    "python3 (javac + java) per case via docker exec, the golden re-run for every sample",
    "bwrap": "a fresh bubblewrap sandbox and python3 (javac + java) per case, the golden re-run for every sample",
    "none": "a fresh python3 (javac + java) host process per case, the golden re-run for every sample",
}


class NaiveDockerDriver(NaiveDocker):
    """The careful upstream-style runner: one ``docker exec`` per *sample*, running :data:`DRIVER`
    (a fresh interpreter per case for the golden and for the candidate) in a long-lived container
    per worker. Python only; Java samples go through :class:`NaiveDocker`'s per-case path."""

    name = "docker-driver"

    def __init__(self, **kw: Any):
        super().__init__(**kw)
        with open(os.path.join(self._root, "driver.py"), "w", encoding="utf-8") as fh:
            fh.write(DRIVER)

    def run_sample_cases(
        self, goldens: list[str], candidates: list[str], stdin: str = ""
    ) -> tuple[list[CaseOutcome], list[CaseOutcome]]:
        """Golden and candidate outcomes of every case, from one ``docker exec`` of the driver."""
        with self._lock:
            self._counter += 1
            n = self._counter
        root = os.path.join(self._root, f"sample-{n}")
        os.makedirs(root)
        os.chmod(root, 0o777)
        for who, programs in (("golden", goldens), ("candidate", candidates)):
            for i, program in enumerate(programs):
                d = os.path.join(root, f"{who}-{i}")
                os.makedirs(d)
                os.chmod(d, 0o777)
                for fname, text in (("main.py", program), ("stdin", stdin)):
                    with open(os.path.join(d, fname), "w", encoding="utf-8") as fh:
                        fh.write(text)
        fsize = max(MIN_FSIZE, self.output_limit + 1)
        try:
            container = self._borrow()
        except Exception as exc:
            err = CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr=f"cannot start a container: {exc}")
            return [err] * len(goldens), [err] * len(candidates)
        try:
            mount = f"{self.CASES_MOUNT}/{os.path.basename(root)}"
            container.exec_run(
                [
                    "python3",
                    f"{self.CASES_MOUNT}/driver.py",
                    mount,
                    str(len(goldens)),
                    f"{self.timeout_s:g}",
                    str(self.memory_mb),
                    str(fsize),
                ],
                workdir=mount,
                user=self._dk.SANDBOX_USER,
                environment=clean_env({"HOME": "/tmp"}, path=self._dk.CONTAINER_PATH),
            )
        finally:
            self._free.put(container)
        try:
            return (
                [self._read_outcome(os.path.join(root, f"golden-{i}")) for i in range(len(goldens))],
                [self._read_outcome(os.path.join(root, f"candidate-{i}")) for i in range(len(candidates))],
            )
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def _read_outcome(self, d: str) -> CaseOutcome:
        try:
            with open(os.path.join(d, "rc"), encoding="utf-8") as fh:
                rc_text = fh.read().strip()
        except OSError:
            return CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr="the driver did not run this case")
        out = _read(os.path.join(d, "stdout"), self.output_limit + 1)
        err = _tail(os.path.join(d, "stderr"))
        if rc_text == "timeout":
            return CaseOutcome(
                status=RunStatus.TIMEOUT,
                stdout=out[: self.output_limit].decode("utf-8", "replace"),
                stderr=err,
            )
        rc = int(rc_text)
        status = RunStatus.OUTPUT_LIMIT if len(out) > self.output_limit else RunStatus.OK
        return CaseOutcome(
            status=status,
            returncode=rc,
            stdout=out[: self.output_limit].decode("utf-8", "replace"),
            stderr=err,
        )


def make_naive_backend(
    name: str,
    *,
    allow_unsafe: bool = False,
    image: str | None = None,
    timeout_s: float = 10.0,
    memory_mb: int = 2048,
    workers: int = 1,
    driver: bool = False,
) -> NaiveBackend:
    """The naive runner for sandbox kind ``name`` (``none`` needs the same opt-in as the engine's).

    ``driver`` (docker): one ``docker exec`` per sample running :data:`DRIVER`, the careful
    upstream-style runner; otherwise one ``docker exec`` per program run."""
    kw: dict[str, Any] = {"timeout_s": timeout_s, "memory_mb": memory_mb}
    if name == "none":
        from biocoder_metric.sandbox.none import unsafe_allowed

        if not unsafe_allowed(allow_unsafe):
            raise SandboxError(
                "the naive 'none' runner runs code unsandboxed: pass allow_unsafe / --allow-unsafe"
            )
        return NaiveHost(**kw)
    if name == "bwrap":
        return NaiveBwrap(image=image, **kw)
    if name == "docker":
        if driver:
            return NaiveDockerDriver(image=image, workers=workers, **kw)
        return NaiveDocker(image=image, workers=workers, **kw)
    raise ValueError(f"unknown sandbox {name!r} for the naive runner (docker, bwrap, none)")


# ---------------------------------------------------------------------------- naive judging


def naive_sample(
    backend: NaiveBackend, row: dict[str, Any], sample: dict[str, Any], options: EvalOptions
) -> dict[str, Any]:
    """Verdict of one sample the naive way: golden and candidate re-run for every case."""
    status, reason = static_task_status(row)
    base = {"task_id": row["task_id"], "sample_index": sample["sample_index"], "cases": 0, "runs": 0}
    if status != TaskStatus.OK:
        return {**base, "status": status, "cases_passed": 0, "reason": reason}
    language = row["language"]
    code = extract_code(sample["completion"], language, row.get("function_name"))
    if row["kind"] == "rosalind":
        program = harness.build_rosalind_program(code, row.get("function_name") or "solve")
        outcome = backend.run_case("python", program, stdin=row["test_input"])
        st, passed, _ = judge([outcome], [row["expected_output"]], language, stripped_equal)
        return {**base, "status": st, "cases_passed": passed, "cases": 1, "runs": 1}
    class_name = runner(language).class_name(row["context"])
    goldens = harness.build_harness_programs(
        row, row["golden_code"], fuzz_cases=options.fuzz_cases, seed=options.seed
    )
    cands = harness.build_harness_programs(
        row, code, fuzz_cases=options.fuzz_cases, seed=options.seed, prompt=sample.get("prompt")
    )
    if language == "python" and isinstance(backend, NaiveDockerDriver):
        gold_out, outcomes = backend.run_sample_cases(goldens, cands)
        for g in gold_out:
            if case_error(g, language) is not None:
                return {
                    **base,
                    "status": TaskStatus.GOLDEN_FAILS,
                    "cases_passed": 0,
                    "runs": 2 * len(goldens),
                    "reason": f"golden: {g.status} rc={g.returncode}: {g.stderr[-300:]}",
                }
        st, passed, _ = judge(outcomes, [g.stdout for g in gold_out], language)
        return {
            **base,
            "status": st,
            "cases_passed": passed,
            "cases": len(outcomes),
            "runs": 2 * len(goldens),
        }
    expected: list[str] = []
    outcomes: list[CaseOutcome] = []
    runs = 0
    for gold, cand in zip(goldens, cands, strict=True):
        g = backend.run_case(language, gold, class_name=class_name)
        runs += 1
        if case_error(g, language) is not None:
            return {
                **base,
                "status": TaskStatus.GOLDEN_FAILS,
                "cases_passed": 0,
                "runs": runs,
                "reason": f"golden: {g.status} rc={g.returncode}: {g.stderr[-300:]}",
            }
        expected.append(g.stdout)
        outcomes.append(backend.run_case(language, cand, class_name=class_name))
        runs += 1
    st, passed, _ = judge(outcomes, expected, language)
    return {**base, "status": st, "cases_passed": passed, "cases": len(outcomes), "runs": runs}


def evaluate_naive(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: EvalOptions,
    progress: bool = False,
    driver: bool = False,
) -> list[dict[str, Any]]:
    """Naive verdicts, one dict per sample (task_id, sample_index, status, cases_passed, cases, runs).

    ``options.workers`` threads each run one case at a time, like the engine's pool size,
    so that the benchmark compares the two at the same parallelism.
    """
    from tqdm.auto import tqdm

    by_id = index_problems(problems)
    norm = normalize_samples(samples, by_id)
    name = options.sandbox
    if name == "auto":
        from biocoder_metric.sandbox import default_sandbox_name

        name = default_sandbox_name(options.image)
    backend = make_naive_backend(
        name,
        allow_unsafe=options.allow_unsafe,
        image=options.image,
        timeout_s=options.timeout_s,
        memory_mb=options.memory_mb,
        workers=options.workers,
        driver=driver,
    )
    out: list[dict[str, Any]] = []
    try:
        with (
            ThreadPoolExecutor(max_workers=options.workers) as ex,
            tqdm(total=len(norm), desc=f"naive {name}", unit="sample", disable=not progress) as bar,
        ):
            futs = [ex.submit(naive_sample, backend, by_id[s["task_id"]], s, options) for s in norm]
            for fut in as_completed(futs):
                out.append(fut.result())
                bar.update(1)
    finally:
        backend.close()
    return sorted(out, key=lambda r: (r["task_id"], r["sample_index"]))


__all__ = [
    "BASELINES",
    "DRIVER",
    "NaiveBackend",
    "NaiveDockerDriver",
    "case_script",
    "evaluate_naive",
    "make_naive_backend",
    "naive_sample",
]
