"""The sandbox interface and the host side of the worker protocol.

Every backend runs the same in-sandbox worker (``runtime/``) and differs only in
how that worker process is started (host subprocess, inside bubblewrap, ``docker exec``).
So the protocol client, the host-side backstop deadline and the restart-after-fault logic
live here once; a backend implements :meth:`WorkerSandbox._open_channel`.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.errors import SandboxError
from biocoder_metric.languages import runner
from biocoder_metric.sandbox.interface import Sandbox
from biocoder_metric.sandbox.runtime import protocol
from biocoder_metric.types import CaseOutcome, Job, RunStatus

__all__ = ["BASE_ENV", "RUNTIME_SRC", "Sandbox", "SandboxError", "WorkerSandbox", "clean_env"]

#: The runtime folder: the worker's modules (entry ``worker.py``) and ``Runner.java``.
RUNTIME_SRC = Path(__file__).resolve().parent / "runtime"
#: Environment every worker starts with: nothing from the caller's shell (no tokens, no HOME).
#: PYTHONHASHSEED is fixed so that set/dict-of-str ordering is the same in warm (forked) and
#: cold (fresh interpreter) runs, and between golden and candidate.
BASE_ENV = {
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
BASE_ENV = {k: v for k, v in BASE_ENV.items() if v}
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: Slack on top of the job's own limits before the host gives up on a silent worker.
STARTUP_SLACK_S = 60.0
CASE_SLACK_S = 20.0
MAX_RESTARTS_PER_RUN = 2


# --------------------------------------------------------------------------- runtime files


def _javac() -> str | None:
    return shutil.which("javac")


_runtime_lock = threading.Lock()


def runtime_files() -> dict[str, bytes]:
    """The runtime folder's sources by name: every module (``*.py``) and ``Runner.java``.

    What a sandbox gets (:func:`prepared_runtime_dir`) and the image bakes in (docker/Dockerfile;
    ``tests/test_image.py`` compares them); never ``__pycache__`` or a compiled ``Runner.class``.
    """
    return {
        p.name: p.read_bytes()
        for p in sorted(RUNTIME_SRC.iterdir())
        if p.is_file() and (p.suffix == ".py" or p.name == "Runner.java")
    }


def prepared_runtime_dir() -> Path:
    """A world-readable dir with the runtime's modules (:func:`runtime_files`) and (if a JDK is
    here) a compiled ``Runner.class``.

    Backends mount it read-only, so a case cannot tamper with the runner that later jobs use.
    It is content-addressed (hash of the sources), so concurrent sandboxes share one copy.
    ``Runner`` is compiled for Java 11 so it also loads in an image with an older JDK.
    """
    modules = runtime_files()
    runner = modules.pop("Runner.java", b"")
    blob = b"".join(name.encode("utf-8") + b"\0" + data + b"\0" for name, data in modules.items())
    digest = hashlib.sha256(blob + runner).hexdigest()[:16]
    cache = settings.cache_dir("runtime")
    target = cache / digest
    with _runtime_lock:
        if (target / "worker.py").is_file():
            return target
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=cache))
        for name, data in modules.items():
            (tmp / name).write_bytes(data)
        javac = _javac()
        if runner and javac:
            (tmp / "Runner.java").write_bytes(runner)
            proc = subprocess.run(
                [javac, "--release", "11", "-nowarn", "-d", str(tmp), str(tmp / "Runner.java")],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if proc.returncode != 0:
                raise SandboxError(
                    f"could not compile the Java runner {RUNTIME_SRC / 'Runner.java'}: {proc.stderr[-2000:]}"
                )
        for p in [tmp, *tmp.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        try:
            tmp.rename(target)
        except OSError:  # another thread/process won the race: use theirs
            shutil.rmtree(tmp, ignore_errors=True)
        return target


# --------------------------------------------------------------------------- channels


class Channel(ABC):
    """A byte pipe to one worker process (the transport differs per backend)."""

    @abstractmethod
    def send(self, data: bytes) -> None: ...

    @abstractmethod
    def recv(self, timeout: float) -> bytes | None:
        """Some bytes of worker stdout; ``b""`` at end of stream; ``None`` if nothing came in time."""

    @abstractmethod
    def kill(self) -> None:
        """Stop the worker (and everything it started) for good."""

    def stderr_tail(self) -> str:
        return ""

    @property
    def pid(self) -> int | None:
        """Host pid of the process (tree) holding the worker, where there is one."""
        return None


class ProcessChannel(Channel):
    """A worker that is a host subprocess (``none``) or a bwrap process tree."""

    def __init__(
        self, argv: list[str], env: dict[str, str], cwd: str | None = None, pass_fds: tuple[int, ...] = ()
    ):
        self._err = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._err,
                env=env,
                cwd=cwd,
                start_new_session=True,
                pass_fds=pass_fds,
            )
        except OSError as exc:
            self._err.close()
            raise SandboxError(f"cannot start the sandbox worker {argv[0]!r}: {exc}") from exc
        self._fd = self.proc.stdout.fileno()  # type: ignore[union-attr]

    @property
    def pid(self) -> int | None:
        return self.proc.pid

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def recv(self, timeout: float) -> bytes | None:
        ready, _, _ = select.select([self._fd], [], [], max(0.0, timeout))
        if not ready:
            return None
        return os.read(self._fd, 1 << 20)

    def kill(self) -> None:
        import signal

        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def stderr_tail(self) -> str:
        try:
            self._err.seek(0, os.SEEK_END)
            size = self._err.tell()
            self._err.seek(max(0, size - 4000))
            return self._err.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""


class _WorkerLost(Exception):
    def __init__(self, timed_out: bool):
        super().__init__("timed out" if timed_out else "worker exited")
        self.timed_out = timed_out


class _Connection:
    """JSON lines over a :class:`Channel`, with deadlines."""

    def __init__(self, channel: Channel):
        self.channel = channel
        self.buf = b""

    def send(self, obj: dict[str, Any]) -> None:
        try:
            self.channel.send(protocol.encode_line(obj).encode("utf-8"))
        except (OSError, ValueError) as exc:
            raise _WorkerLost(False) from exc

    def recv(self, deadline: float) -> dict[str, Any]:
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _WorkerLost(True)
            try:
                chunk = self.channel.recv(left)
            except OSError as exc:
                raise _WorkerLost(False) from exc
            if chunk is None:
                continue
            if chunk == b"":
                raise _WorkerLost(False)
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            return protocol.decode_line(line)
        except ValueError as exc:  # the worker never prints anything else on this stream
            raise _WorkerLost(False) from exc


# --------------------------------------------------------------------------- the client


class WorkerSandbox(Sandbox):
    """A sandbox that runs jobs by talking to a long-lived worker; restarts it after faults."""

    def __init__(self, *, warm: bool = True, batch: bool = True):
        self.warm = warm
        #: All fuzz cases of a warm Python job in one clean case process (``runtime/python_batch.py``).
        self.batch = batch
        self._conn: _Connection | None = None
        self._next_id = 0
        self._env_id: str | None = None
        self._closed = False
        self._workers_started = 0
        self._jobs_run = 0

    # -- what a backend provides

    @abstractmethod
    def _open_channel(self) -> Channel:
        """Start a fresh worker; its first line must be the worker's ``ready`` message."""

    def _after_loss(self) -> str | None:
        """Called after a worker was lost mid-job (before the restart). Backends that can tell
        an out-of-memory kill return ``RunStatus.MEMORY_EXCEEDED`` for the case that was running."""
        return None

    def _describe(self) -> str:
        return self.name

    # -- lifecycle

    def _ensure(self) -> _Connection:
        if self._closed:
            raise SandboxError(f"{self._describe()} sandbox is closed")
        if self._conn is None:
            last = ""
            for _attempt in range(2):
                channel = self._open_channel()
                conn = _Connection(channel)
                try:
                    hello = conn.recv(time.monotonic() + STARTUP_SLACK_S)
                except _WorkerLost as exc:
                    last = f"{exc}; worker stderr: {channel.stderr_tail()[-1500:]}"
                    channel.kill()
                    continue
                if hello.get("ready"):
                    self._conn = conn
                    self._workers_started += 1
                    break
                channel.kill()
                last = f"unexpected first message {hello!r}"
            else:
                raise SandboxError(f"the {self._describe()} sandbox worker did not start: {last}")
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.channel.kill()
            finally:
                self._conn = None

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        self._drop()

    # -- protocol

    def _request(self, make: Callable[[int], dict[str, Any]], deadline: float) -> dict[str, Any]:
        """Send the request ``make(request_id)`` and return the first reply."""
        conn = self._ensure()
        self._next_id += 1
        try:
            conn.send(make(self._next_id))
            msg = conn.recv(deadline)
        except _WorkerLost as exc:
            self._drop()
            raise SandboxError(f"the {self._describe()} sandbox worker failed: {exc}") from exc
        return msg

    def stats(self) -> dict[str, Any]:
        """:meth:`Sandbox.stats` plus ``warm``, ``closed``, ``worker_running``, ``worker_pid`` (host
        pid of the running worker's process tree; None when none runs or it has no host pid, as
        under Docker), ``workers_started`` (restarts after faults included) and ``jobs`` (``run`` calls).
        """
        conn = self._conn
        return {
            **super().stats(),
            "warm": self.warm,
            "batch": self.batch,
            "closed": self._closed,
            "worker_running": conn is not None,
            "worker_pid": conn.channel.pid if conn is not None else None,
            "workers_started": self._workers_started,
            "jobs": self._jobs_run,
        }

    def info(self) -> dict[str, Any]:
        """Facts about the software inside the sandbox (Python, distributions, Java)."""
        msg = self._request(protocol.info_request, time.monotonic() + STARTUP_SLACK_S)
        return dict(msg.get("info") or {})

    @property
    def environment_id(self) -> str:
        if self._env_id is None:
            facts = self.info()
            facts.pop("executable", None)
            blob = json.dumps(facts, sort_keys=True).encode("utf-8")
            self._env_id = f"host:{hashlib.sha256(blob).hexdigest()[:20]}"
        return self._env_id

    def run(self, job: Job) -> list[CaseOutcome]:
        if not isinstance(job, Job):
            raise TypeError(f"Sandbox.run needs a biocoder_metric.types.Job, got {type(job).__name__}")
        self._jobs_run += 1
        n = len(job.programs)
        results: list[CaseOutcome | None] = [None] * n
        pending = list(range(n))
        restarts = 0
        while pending:
            sub = job.__class__(**{**asdict(job), "programs": tuple(job.programs[i] for i in pending)})
            got, lost = self._run_once(sub)
            for local, outcome in got.items():
                results[pending[local]] = outcome
            if lost is None:
                break
            # The worker stopped answering or died while running the first unanswered case:
            # that case is blamed (timeout / memory / sandbox_error), the rest are retried.
            missing = [i for i in range(len(pending)) if i not in got]
            if not missing:
                break
            blamed = pending[missing[0]]
            results[blamed] = lost
            pending = [pending[i] for i in missing[1:]]
            if lost.status == RunStatus.SANDBOX_ERROR:
                # The worker died: whoever caused it, the rest of this job is not run here. The
                # pool retries the job on a fresh sandbox and, for candidates, attributes the
                # failure with a canary (execution/executors/local.py); restarting here for every case
                # would only let a candidate buy minutes of retries.
                break
            restarts += 1
            if restarts > MAX_RESTARTS_PER_RUN:
                break
        return [
            r
            if r is not None
            else CaseOutcome(
                status=RunStatus.SANDBOX_ERROR, stderr="sandbox worker kept failing; case not run"
            )
            for r in results
        ]

    def profile(self, job: Job) -> list[dict[str, Any]]:
        """Run ``job`` with the worker's per-stage clock on: one dict of stage -> ``time.monotonic()``
        per case (the worker's and the host's clocks are the same kernel clock), plus the host's
        ``host_sent`` and ``host_received``. A developer tool (``benchmarks/case_profile.py``);
        verdicts never depend on it."""
        conn = self._ensure()
        self._next_id += 1
        req_id = self._next_id
        request = protocol.job_request(
            req_id, {**asdict(job), "programs": list(job.programs)}, self.warm, self.batch
        )
        request["options"]["profile"] = True
        sent = time.monotonic()
        conn.send(request)
        out: list[dict[str, Any]] = []
        deadline = sent + STARTUP_SLACK_S + job.timeout_s * max(1, len(job.programs))
        while True:
            msg = conn.recv(deadline)
            if msg.get("id") != req_id:
                continue
            if msg.get("done") or "error" in msg:
                return out
            marks = dict(msg.get("profile") or {})
            marks.update(host_sent=sent, host_received=time.monotonic(), status=msg["outcome"]["status"])
            out.append(marks)
            sent = marks["host_received"]

    def _run_once(self, job: Job) -> tuple[dict[int, CaseOutcome], CaseOutcome | None]:
        conn = self._ensure()
        self._next_id += 1
        req_id = self._next_id
        got: dict[int, CaseOutcome] = {}
        first_slack = STARTUP_SLACK_S
        first_slack += runner(job.language).compile_slack_per_case_s * len(job.programs)
        started = time.monotonic()
        deadline = started + first_slack + job.timeout_s
        try:
            conn.send(
                protocol.job_request(
                    req_id, {**asdict(job), "programs": list(job.programs)}, self.warm, self.batch
                )
            )
            while True:
                msg = conn.recv(deadline)
                if msg.get("id") != req_id:
                    continue  # a stale answer from an earlier, abandoned request
                if "error" in msg:  # a fault of the worker, not of a case: report, never hide
                    why = f"sandbox worker error: {msg['error']}\n{msg.get('traceback', '')}"[-4000:]
                    for i in range(len(job.programs)):
                        got.setdefault(i, CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr=why))
                    if msg.get("fatal"):  # the worker stops: the next job gets a fresh one
                        self._drop()
                    return got, None
                if msg.get("done"):
                    return got, None
                got[int(msg["index"])] = CaseOutcome.from_dict(msg["outcome"])
                deadline = time.monotonic() + job.timeout_s + CASE_SLACK_S
        except _WorkerLost as exc:
            tail = self._conn.channel.stderr_tail() if self._conn else ""
            verdict = self._after_loss()  # before the worker (and its container) is gone
            self._drop()
            elapsed = time.monotonic() - started
            if verdict == RunStatus.MEMORY_EXCEEDED:
                lost = CaseOutcome(
                    status=RunStatus.MEMORY_EXCEEDED,
                    stderr="the sandbox was killed for exceeding its memory limit",
                )
            elif exc.timed_out:
                lost = CaseOutcome(
                    status=RunStatus.TIMEOUT,
                    stderr="the sandbox worker stopped answering; killed by the host-side deadline",
                    duration_s=elapsed,
                )
            else:
                lost = CaseOutcome(
                    status=RunStatus.SANDBOX_ERROR, stderr=f"the sandbox worker died: {tail[-2000:]}"
                )
            return got, lost


def clean_env(extra: dict[str, str] | None = None, path: str = CONTAINER_PATH) -> dict[str, str]:
    """The worker's whole environment: :data:`BASE_ENV` plus ``PATH`` and ``extra``."""
    env = dict(BASE_ENV)
    env["PATH"] = path
    if extra:
        env.update(extra)
    return env
