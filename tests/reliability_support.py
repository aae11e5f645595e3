"""Shared machinery of the reliability suite (hostile programs, faults, bad input, determinism).

Why a separate module: the four test files check very different things but need the same
few real-world probes (is a marker process still alive on the host? did a canary file
change? did anything connect to our listener?) and the same way of running the evaluator
as a *separate process*, so that a candidate that escapes and kills its evaluator shows up
as a failed check instead of taking pytest down with it. Every check reads the real system
(``/proc``, the file system, sockets); nothing here is mocked.

The report script (``scripts/reliability_report.py``) collects the JSON lines that
:func:`record` appends to ``$BIOCODER_RELIABILITY_LOG``; without that variable nothing is
written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
HOSTILE_DIR = Path(__file__).resolve().parent / "hostile"
IMAGE = os.environ.get("BIOCODER_IMAGE", "biocoder-eval:latest")

#: Every marker starts with this, so one /proc scan finds the leftovers of any run.
MARKER_PREFIX = "bchx"


# --------------------------------------------------------------------------- report log


def record(kind: str, **fields: Any) -> None:
    """Append one observation for the report script (no-op unless it asked for them)."""
    path = os.environ.get("BIOCODER_RELIABILITY_LOG")
    if not path:
        return
    line = json.dumps({"kind": kind, **fields}, sort_keys=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


# --------------------------------------------------------------------------- sandboxes


def bwrap_reason() -> str | None:
    """Why the bwrap sandbox cannot be tested here, or None when it can."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        proc = subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "true"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap cannot run: {exc}"
    if proc.returncode != 0:
        return f"bwrap cannot create namespaces here: {proc.stderr.decode(errors='replace').strip()}"
    return None


def docker_reason() -> str | None:
    """Why the docker sandbox cannot be tested here (no engine, no image), or None."""
    if shutil.which("docker") is None:
        return "the docker CLI is not installed"
    try:
        proc = subprocess.run(
            ["docker", "image", "inspect", "--format", "{{.Id}}", IMAGE], capture_output=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no Docker engine answers: {exc}"
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        if "No such image" in err or "No such object" in err:
            return f"Docker image {IMAGE} is not built (run scripts/setup_docker.sh)"
        return f"no Docker engine answers: {err[:200]}"
    return None


def sandbox_reason(name: str) -> str | None:
    return {"bwrap": bwrap_reason, "docker": docker_reason}[name]()


# --------------------------------------------------------------------------- hostile corpus


@dataclass(frozen=True)
class HostileProgram:
    """One program of tests/hostile/: its source (with @@TOKENS@@) and what it promises."""

    name: str
    language: str
    source: str
    expect: str
    description: str
    contained: str

    def render(self, tokens: dict[str, str]) -> str:
        """The code without its header, every ``@@TOKEN@@`` replaced (an unknown one is a corpus
        bug). ``@@EVALUATOR_PID@@`` stays: only the evaluator process knows its pid and fills it."""
        comment = "#" if self.language == "python" else "//"
        lines = self.source.splitlines(keepends=True)
        while lines and lines[0].startswith(comment):
            lines.pop(0)
        text = "".join(lines)
        for key, value in tokens.items():
            text = text.replace(f"@@{key}@@", value)
        left = set(re.findall(r"@@[A-Z_]+@@", text)) - {"@@EVALUATOR_PID@@"}
        if left:
            raise AssertionError(f"{self.name}: unreplaced tokens {sorted(left)}")
        return text


_HEADER_KEYS = ("hostile", "expect", "contained")


def _parse_header(path: Path, comment: str) -> dict[str, str]:
    """Read the ``# key: text`` header (continuation lines start with ``#   ``)."""
    fields: dict[str, str] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith(comment):
            break
        body = line[len(comment) :]
        m = re.match(r" (\w+): (.*)", body)
        if m and m.group(1) in _HEADER_KEYS:
            current = m.group(1)
            fields[current] = m.group(2).strip()
        elif current and body.startswith("   "):
            fields[current] += " " + body.strip()
    missing = [k for k in _HEADER_KEYS if k not in fields]
    if missing:
        raise AssertionError(f"{path}: header lacks {missing}")
    return fields


def load_corpus() -> list[HostileProgram]:
    """Every program of tests/hostile/ (``*.py`` and ``*.java``), sorted by name."""
    from biocoder_metric.types import Status

    programs = []
    for path in sorted(HOSTILE_DIR.iterdir()):
        if path.suffix == ".py":
            language, comment = "python", "#"
        elif path.suffix == ".java":
            language, comment = "java", "//"
        else:
            continue
        hdr = _parse_header(path, comment)
        if hdr["expect"] not in tuple(Status):
            raise AssertionError(f"{path}: expect {hdr['expect']!r} is not a sample status")
        programs.append(
            HostileProgram(
                name=path.stem,
                language=language,
                source=path.read_text(encoding="utf-8"),
                expect=hdr["expect"],
                description=hdr["hostile"],
                contained=hdr["contained"],
            )
        )
    return programs


# --------------------------------------------------------------------------- harness rows

PY_CONTEXT = """import sys

<<insert solution here>>


def main():
    x = <|int;range=1,9|>
    print(f(x))


if __name__ == "__main__":
    main()
"""
PY_GOLDEN = "def f(x):\n    return x * 2\n"
#: A wrong answer run after every hostile sample: it must still be judged `failed`, which
#: shows the golden outputs were not tampered with and the sandbox still works.
PY_WRONG = "def f(x):\n    return x * 3\n"

JAVA_CONTEXT = """public class Main {
    <<insert solution here>>

    public static void main(String[] args) {
        int x = <|int;range=1,9|>;
        System.out.println(f(x));
    }
}
"""
JAVA_GOLDEN = "public static int f(int x) {\n    return x * 2;\n}\n"
JAVA_WRONG = "public static int f(int x) {\n    return x * 3;\n}\n"


def tiny_task(task_id: str, language: str) -> dict[str, Any]:
    """A minimal executable harness row (schema.empty_row) whose golden doubles its input."""
    from biocoder_dataset.schema import empty_row, validate_row

    row = empty_row()
    py = language == "python"
    row.update(
        task_id=task_id,
        config="demo",
        language=language,
        kind="harness",
        executable=True,
        function_name="f",
        signature="def f(x):" if py else "public static int f(int x)",
        comment="Return twice the input.",
        context=PY_CONTEXT if py else JAVA_CONTEXT,
        golden_code=PY_GOLDEN if py else JAVA_GOLDEN,
    )
    validate_row(row, f"reliability task {task_id}")
    return row


# --------------------------------------------------------------------------- host probes


def marker_processes(prefix: str = MARKER_PREFIX) -> list[tuple[int, str]]:
    """Host processes whose name or command line contains ``prefix`` (pid, cmdline)."""
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_bytes().decode(errors="replace").strip()
            cmd = (
                Path(f"/proc/{entry}/cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
                .strip()
            )
        except OSError:
            continue
        if prefix in comm or prefix in cmd:
            # A zombie that nobody reaped yet is already dead; it holds no resources but a pid.
            try:
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                found.append((int(entry), f"{comm}: {cmd}"[:200]))
    return found


class ProcessWatch:
    """Polls the host for marker processes while a run goes on.

    For every marker it remembers which samples were already finished (read from the
    results log) while a process carrying it was alive: a process still alive after the
    sample *following* its own was judged has outlived its case, even if something killed
    it later (e.g. only when the sandbox closed).
    """

    def __init__(self, prefix: str, done_file: Path | None = None, period: float = 0.15) -> None:
        self.prefix = prefix
        self.done_file = done_file
        self.period = period
        self.alive_while_done: dict[str, set[tuple[str, int]]] = {}
        self.sightings: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _done(self) -> set[tuple[str, int]]:
        done: set[tuple[str, int]] = set()
        if self.done_file is None or not self.done_file.exists():
            return done
        with contextlib.suppress(OSError):
            for line in self.done_file.read_text(encoding="utf-8", errors="replace").splitlines():
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    d = json.loads(line)
                    done.add((d["task_id"], int(d["sample_index"])))
        return done

    def _loop(self) -> None:
        pattern = re.compile(re.escape(self.prefix) + r"\d{3}")
        while not self._stop.is_set():
            done = self._done()  # read BEFORE scanning: a later sighting is certainly after these
            for _pid, text in marker_processes(self.prefix):
                for m in set(pattern.findall(text)):
                    self.sightings[m] = self.sightings.get(m, 0) + 1
                    self.alive_while_done.setdefault(m, set()).update(done)
            self._stop.wait(self.period)

    def __enter__(self) -> ProcessWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class HostListener:
    """A TCP listener on every host address; counts connections (any is an escape)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.append(f"{addr[0]}:{addr[1]}")
            conn.close()

    def __enter__(self) -> HostListener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def host_ipv4_addresses() -> list[str]:
    """Loopback, every address of this host (``hostname -I``) and the Docker bridge gateway."""
    ips = ["127.0.0.1"]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout
        ips += [ip for ip in out.split() if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", ip)]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(
            [
                "docker",
                "network",
                "inspect",
                "bridge",
                "--format",
                "{{range .IPAM.Config}}{{.Gateway}} {{end}}",
            ],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout
        ips += [ip for ip in out.split() if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", ip)]
    return list(dict.fromkeys(ips))


def egress_ipv4_addresses() -> list[str]:
    """Internet addresses this host itself can reach (resolved now; empty without DNS)."""
    ips: list[str] = []
    for name in ("pypi.org", "deb.debian.org"):
        with contextlib.suppress(OSError):
            ips += [info[4][0] for info in socket.getaddrinfo(name, 443, socket.AF_INET, socket.SOCK_STREAM)][
                :1
            ]
    return list(dict.fromkeys(ips))


def shared_runtime_cache() -> Path:
    """An XDG cache dir shared by the suite's evaluator runs: it only holds the worker runtime
    (content-addressed, the compiled Java runner), so sharing it saves a javac run per evaluator.
    Golden outputs never go there: each run gets its own ``BIOCODER_CACHE_DIR``."""
    import tempfile

    path = Path(tempfile.gettempdir()) / f"biocoder-reliability-xdg-{os.getuid()}"
    path.mkdir(exist_ok=True)
    return path


def evaluator_env(golden_cache: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for an evaluator subprocess: private golden cache, shared runtime cache."""
    env = dict(base if base is not None else os.environ)
    env["XDG_CACHE_HOME"] = str(shared_runtime_cache())
    env["BIOCODER_CACHE_DIR"] = str(golden_cache)
    return env


def descendants(root: int) -> dict[int, str]:
    """pid -> comm of every live descendant of ``root`` (read from /proc)."""
    kids: dict[int, list[int]] = {}
    comm: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(entry))
            comm[int(entry)] = stat[stat.index("(") + 1 : stat.rindex(")")]
    out: dict[int, str] = {}
    stack = [root]
    while stack:
        for child in kids.get(stack.pop(), ()):
            out[child] = comm.get(child, "?")
            stack.append(child)
    return out


def pid_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_snapshot(root: Path) -> dict[str, str]:
    """relative path -> sha256 (or 'dir') of everything under ``root``."""
    snap = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        snap[rel] = "dir" if p.is_dir() and not p.is_symlink() else file_digest(p)
    return snap


@dataclass
class Canaries:
    """Planted secrets: a fake HOME with ~/.ssh, the HF token cache and a secret file, an
    environment canary, and a canary in the output dir and an earlier run's output dir."""

    root: Path
    value: str = field(default_factory=lambda: f"CANARY-{secrets.token_hex(12)}")

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.prior = self.root / "prior-run"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".cache" / "huggingface").mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY----- {self.value} ssh\n")
        (self.home / ".ssh" / "id_rsa").chmod(0o600)
        (self.home / ".cache" / "huggingface" / "token").write_text(f"hf_{self.value}\n")
        (self.home / "secret.txt").write_text(f"secret {self.value}\n")
        self.prior.mkdir()
        (self.prior / "results.jsonl").write_text(json.dumps({"task_id": "x", "note": self.value}) + "\n")
        self.home_snapshot = tree_snapshot(self.home)
        self.prior_snapshot = tree_snapshot(self.prior)

    def env(self) -> dict[str, str]:
        """Evaluator environment carrying the canary where real secrets would be."""
        env = dict(os.environ)
        env.update(
            HOME=str(self.home),
            HF_TOKEN=f"hf_{self.value}",
            HUGGING_FACE_HUB_TOKEN=f"hf_{self.value}",
            OPENAI_API_KEY=f"sk-{self.value}",
            AWS_SECRET_ACCESS_KEY=self.value,
            BIOCODER_RELIABILITY_CANARY=self.value,
        )
        return env

    def changes(self) -> list[str]:
        """What differs from the planted state (empty when contained)."""
        out = []
        for name, before, root in (
            ("home", self.home_snapshot, self.home),
            ("prior", self.prior_snapshot, self.prior),
        ):
            now = tree_snapshot(root) if root.exists() else {}
            for rel in sorted(set(before) | set(now)):
                if before.get(rel) != now.get(rel):
                    out.append(f"{name}/{rel}: {before.get(rel, 'absent')} -> {now.get(rel, 'absent')}")
        return out


# --------------------------------------------------------------------------- evaluator runs

DRIVER = Path(__file__).resolve().parent / "reliability_driver.py"


@dataclass
class EvalRun:
    returncode: int
    stdout: str
    stderr: str
    results: list[dict[str, Any]]
    wall_s: float


def read_results(out_dir: Path) -> list[dict[str, Any]]:
    """Every line of out_dir/results.jsonl (each must be complete JSON)."""
    path = out_dir / "results.jsonl"
    if not path.exists():
        return []
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise AssertionError(f"{path}:{n}: not complete JSON ({exc}): {line[:120]!r}") from None
    return rows


def run_evaluator(
    problems: list[dict[str, Any]],
    samples: list[dict[str, Any]],
    options: dict[str, Any],
    out_dir: Path,
    *,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    spec_dir: Path | None = None,
) -> EvalRun:
    """Run evaluate_samples in a child process (see module doc for why) and read its results."""
    spec_dir = spec_dir or out_dir.parent
    spec = spec_dir / f"spec-{out_dir.name}.json"
    spec.write_text(
        json.dumps({"problems": problems, "samples": samples, "options": options, "out_dir": str(out_dir)})
    )
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(DRIVER), str(spec)],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=str(REPO_ROOT),
    )
    return EvalRun(proc.returncode, proc.stdout, proc.stderr, read_results(out_dir), time.monotonic() - start)


def iter_lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8") as fh:
        yield from fh


# --------------------------------------------------------------------------- fault injection


class FlakySandbox:
    """A real sandbox whose first ``fails[0]`` jobs end in a sandbox error (fault injection:
    what a lost worker or an engine hiccup reports), shared across instances."""

    def __init__(self, real, fails: list[int], lock: threading.Lock, made: list[int]):
        self._real, self._fails, self._lock = real, fails, lock
        self.name, self.environment_id = real.name, real.environment_id
        with lock:
            made[0] += 1

    def run(self, job):
        from biocoder_metric.types import CaseOutcome, RunStatus

        with self._lock:
            fail = self._fails[0] > 0
            self._fails[0] -= 1 if fail else 0
        if fail:
            return [CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr="injected: worker lost")] * len(
                job.programs
            )
        return self._real.run(job)

    def close(self):
        self._real.close()


def inject_sandbox_failures(monkeypatch: Any, fails: int) -> list[int]:
    """Make every sandbox :func:`make_sandbox` builds a :class:`FlakySandbox` sharing one budget of
    ``fails`` failing jobs; returns the one-element count of sandboxes made."""
    import biocoder_metric.sandbox as sandbox_mod

    real_make = sandbox_mod.make_sandbox
    state, lock, made = [fails], threading.Lock(), [0]
    monkeypatch.setattr(
        sandbox_mod, "make_sandbox", lambda *a, **kw: FlakySandbox(real_make(*a, **kw), state, lock, made)
    )
    return made
