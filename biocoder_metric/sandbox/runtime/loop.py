"""The worker's loop: read a request, run its job case by case, stream the outcomes back.

Why a module of its own: everything a backend sees of the worker is here, its command line
and its conversation (``protocol.py``) on stdin/stdout. Every backend (``none``, ``bwrap``,
``docker``) starts the same worker, so the behaviour a candidate sees does not depend on the
backend. The :class:`Worker` holds what outlives a job (the zygotes, the Java compiler) and
the per-case steps both languages share (job dirs, starting a case with limits, waiting for
it, killing its leftovers, classifying how it ended); the languages' own steps live in
``python_cases.py`` and ``java_cases.py``.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import subprocess
import sys
import time
import traceback

from .cases import looks_like_memory_error, read_marks
from .java_cases import run_java
from .processes import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    child_io,
    die_with_traceback,
    exit_code,
    expendable,
    guard_signals,
    kill_case,
    kill_leftovers,
    oom_kills,
    prctl,
    process_controls,
    remove_entries,
    reset_signals,
    rmtree,
    set_limits,
    untouched,
    wait_deadline,
)
from .protocol import (
    STDERR_TAIL,
    RunStatus,
    decode_line,
    done_message,
    encode_line,
    error_message,
    info_message,
    java_libs,
    outcome_message,
    ready_message,
)
from .python_cases import Zygotes, run_python, zygote_main
from .state import CleanState


class Tampered(RuntimeError):
    """The worker itself was changed from outside by a case; it reports this job and stops."""


class Worker:
    def __init__(self, workroot, contained, runtime_dir, python_exe, max_procs=256):
        self.workroot = workroot
        self.contained = contained
        self.max_procs = max_procs
        self.runtime_dir = runtime_dir
        self.python_exe = python_exe or sys.executable
        self.job_counter = 0
        #: The long-lived Java compiler (``JavaCompiler``), started by the first warm Java job.
        self.javac = None
        #: Clean interpreters Python cases fork from (``python_cases.Zygotes``).
        self.zygotes = Zygotes()
        #: Every writable place and kernel object, reset after each case (``state.py``).
        self.state = CleanState(contained)
        #: The job dir of the job running now (kept by the per-case reset), or None.
        self.current_jobdir = None
        #: Case processes of finished jobs, killed but not yet reported gone (``python_batch.py``).
        self.pending = []
        #: Profiling (a request's ``options.profile``): each outcome carries per-stage times.
        self.profile = False
        #: A request's ``options.batch``: a warm Python job's cases share one case process
        #: (``python_batch.py``); off, each case gets its own.
        self.batch = True
        #: Profiling only: once-per-job stage times, handed to the job's first case (``mark_job``).
        self.job_marks = None
        #: What a process of ours starts with that a case could change from outside
        #: (``processes.process_controls``): the zygotes inherit it, checked before every job.
        self.controls = process_controls(os.getpid())

    def run(self, job, warm, emit):
        """Run one job; ``emit(index, outcome)`` is called as each case ends."""
        language = job.get("language")
        if not isinstance(job.get("programs"), list):
            raise ValueError("job.programs must be a list of program texts")
        os.makedirs(self.workroot, mode=0o700, exist_ok=True)
        self.job_marks = {"job_start": time.monotonic()} if self.profile else None
        self.collect()
        self.mark_job("job_checked")
        try:
            if language == "python":
                run_python(self, job, warm, emit)
            elif language == "java":
                run_java(self, job, warm, emit)
            else:
                raise ValueError(f"unknown job.language {language!r} (expected 'python' or 'java')")
        finally:
            # Between samples: nothing of this job may remain for the next one to see.
            self.current_jobdir = None
            kill_leftovers(self.contained, self.keep())
            self.reset_state()
            # After the job, not before the next: a change is then this job's fault, and nothing
            # of it runs any more (its processes are killed), so nothing can change them until then.
            self.check_shared()
            zygote = self.zygotes.current
            if language == "python" and zygote is not None and zygote.batch:
                zygote.notify({"op": "spare"})  # the next job's process, forked while nothing runs

    def collect(self):
        """Before a job: every case process of earlier jobs gone (waited for), then their
        leftovers killed and the writable state reset once more, so the job starts clean.

        Why wait for the whole exit, not just for the kernel's exiting flag: a sandbox has one
        CPU's quota, so a teardown left to run beside the next job only slows that job down
        (measured: the per-case overhead rose from 4.9 to 6.3 ms)."""
        if not self.pending:
            return
        pending, self.pending = self.pending, []
        for child in pending:
            child.end(10.0)  # the zygote reports its end; if it cannot, the worker waits itself
        kill_leftovers(self.contained, self.keep())
        self.reset_state()

    def mark_job(self, name):
        """Profiling only: a once-per-job stage, reported with the job's first case."""
        if self.job_marks is not None:
            self.job_marks[name] = time.monotonic()

    def check_shared(self):
        """After every job: every process that outlives a job runs as it started, so that nothing an
        earlier sample did to it from outside (stop it, lower a limit, its priority or its CPU
        set: ``processes.process_controls``) reaches this one. A zygote or compiler that differs
        is replaced (a zygote checks its spare itself, when it hands it over); the worker cannot
        undo a change to itself, so it stops (``Tampered``), and the host starts a fresh sandbox."""
        if process_controls(os.getpid()) != self.controls:
            raise Tampered("a case changed the worker's limits or scheduling; this sandbox stops")
        self.zygotes.keep_only(lambda pid: untouched(pid, self.controls))
        if self.javac is not None:
            self.javac.check()

    def close(self):
        if self.javac is not None:
            self.javac.close()
        self.zygotes.close()

    def keep(self, extra=()):
        """Processes ``kill_leftovers`` must spare: ``extra`` plus the live Java compiler, the
        zygotes and their own children (a spare case process, a running or dying one; a child a
        case slipped in with ``clone(CLONE_PARENT)`` is killed by the zygote's sweep)."""
        pids = [self.javac.pid() if self.javac is not None else None]
        pids.extend(self.zygotes.pids())
        pids.extend(self.zygotes.children(set(extra) | {c.pid for c in self.pending}))
        return tuple(extra) + tuple(p for p in pids if p)

    # -- shared per-case machinery

    def job_dir(self):
        self.job_counter += 1
        path = os.path.join(self.workroot, f"job-{os.getpid()}-{self.job_counter}")
        rmtree(path)
        os.makedirs(path, mode=0o700)
        self.current_jobdir = path
        return path

    @staticmethod
    def read_marks(path):
        return read_marks(path)

    def tmp_snapshot(self):
        """Kept for the call sites' shape: the reset after a case needs no snapshot (``state.py``)."""
        return None

    def tmp_cleanup(self, snap=None):
        """After a case: every writable place and kernel object back to the worker's own state."""
        self.reset_state()

    def reset_state(self):
        keep = (self.current_jobdir,) if self.current_jobdir else ()
        tampered = self.state.reset(keep)
        if tampered and self.javac is not None:
            # A case changed the compiler's own files: throw the compiler away with its files.
            self.javac.discard()

    def sweep_workroot(self, jobdir):
        """Remove whatever a case left in the workroot outside its own dir (e.g. a disk filler
        in ``/work``): the next case's files must always fit, so a candidate cannot turn its
        own later cases, or later samples, into infrastructure errors. (A contained worker's
        reset after each case already covers every writable place; this is the host's path.)"""
        remove_entries(jobdir, ())
        remove_entries(self.workroot, (os.path.basename(jobdir), "compiler"))

    def spawn(self, case, memory_mb, nproc, address_space, target):
        """Fork a case child in its own session with rlimits; ``target()`` never returns."""
        tmpdir = None if self.contained else os.path.join(case.work, ".tmp")
        if tmpdir:
            os.makedirs(tmpdir, exist_ok=True)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                child_io(case, tmpdir)
                set_limits(memory_mb, case.fsize, nproc, address_space)
                expendable()
                reset_signals()
                target()
            except BaseException:  # noqa: B036
                die_with_traceback()
            os._exit(127)
        return pid

    def finish(self, pid, case, start, timeout_s, snap, keep=()):
        """Wait for the case child until its deadline, kill what is left, classify."""
        oom_before = oom_kills()
        status = wait_deadline(pid, start + timeout_s)
        timed_out = status is None
        if timed_out:
            status = kill_case(pid)
        return self.settle(pid, case, start, status, timed_out, snap, oom_before, keep)

    def settle(self, pid, case, start, status, timed_out, snap, oom_before, keep=(), marks=None):
        """After the case child ended: kill its leftovers, sweep scratch dirs, classify the outcome."""
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        return self.settle_rc(case, start, exit_code(status), timed_out, oom_before, keep, marks)

    def settle_rc(self, case, start, rc, timed_out, oom_before, keep=(), marks=None):
        """After a case ended with exit code ``rc`` (its process may live on: ``keep`` spares it):
        kill every other process of the case, reset the writable state, classify the outcome."""
        duration = time.monotonic() - start
        kill_leftovers(self.contained, self.keep(keep))
        if marks is not None:
            marks["leftovers_killed"] = time.monotonic()
        self.reset_state()
        if marks is not None:
            marks["state_reset"] = time.monotonic()
        oom_after = oom_kills()
        if timed_out:
            return case.outcome(RunStatus.TIMEOUT, None, duration)
        if oom_before is not None and oom_after is not None and oom_after > oom_before:
            return case.outcome(RunStatus.MEMORY_EXCEEDED, rc, duration)
        if rc == -signal.SIGXFSZ:
            return case.outcome(RunStatus.OUTPUT_LIMIT, rc, duration)
        if rc != 0 and looks_like_memory_error(case):
            return case.outcome(RunStatus.MEMORY_EXCEEDED, rc, duration)
        return case.outcome(RunStatus.OK, rc, duration)

    # -- info

    def info(self):
        facts = {"python": sys.version, "platform": sys.platform, "executable": self.python_exe}
        try:
            from importlib import metadata

            dists = sorted("{}=={}".format(d.metadata["Name"], d.version) for d in metadata.distributions())
            facts["distributions"] = dists
        except Exception as exc:
            facts["distributions_error"] = repr(exc)
        try:
            proc = subprocess.run(
                ["java", "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60
            )
            facts["java"] = proc.stdout.decode("utf-8", "replace").strip()
        except (OSError, subprocess.SubprocessError) as exc:
            facts["java"] = f"unavailable: {exc!r}"
        facts["java_libs"] = {p: os.path.getsize(p) for p in java_libs()}
        return facts


def _parser():
    parser = argparse.ArgumentParser(
        description="biocoder-eval in-sandbox worker (JSON lines on stdin/stdout)"
    )
    parser.add_argument(
        "--workroot", default=None, help="where case dirs go (default: a private dir under $TMPDIR or /tmp)"
    )
    parser.add_argument(
        "--contained",
        action="store_true",
        help="running alone in a pid namespace: kill(-1) after each case and sweep /tmp",
    )
    parser.add_argument(
        "--runtime-dir", default=None, help="read-only dir holding Runner.class for the warm Java path"
    )
    parser.add_argument("--python", default=None, help="interpreter for cold-path cases (default: this one)")
    parser.add_argument(
        "--max-procs",
        type=int,
        default=256,
        help="RLIMIT_NPROC for Python cases; 0 = rely on the sandbox's pids cgroup. RLIMIT_NPROC counts "
        "every process of the uid on the kernel, so sandboxes sharing a uid (docker containers) would "
        "starve each other under load: there the per-container pids cgroup is the limit instead",
    )
    parser.add_argument("--zygote-fd", type=int, default=None, help=argparse.SUPPRESS)
    # Tests only: keep Python's default signal handlers in pid 1, so that a case can still kill
    # the worker and the host's attribution of that failure (the canary) can be exercised.
    parser.add_argument("--unguarded", action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.zygote_fd is not None:
        return zygote_main(args.zygote_fd)

    # The protocol gets a private copy of stdout; fd 1 goes to stderr so that a module printing
    # on import cannot corrupt the stream.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    prctl(PR_SET_DUMPABLE, 0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if args.contained and os.getpid() == 1 and not args.unguarded:
        # pid 1 of its namespace: no handler at all, so the kernel drops every signal a case sends.
        guard_signals(ignore=False)
    elif args.unguarded:
        # tests only: SIGINT raises KeyboardInterrupt whatever the disposition the worker inherited
        # (a test run started in the background inherits SIGINT ignored, and the case's SIGINT to
        # pid 1 was then dropped: the attribution path the flag exists for was not exercised)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    os.umask(0o077)

    workroot = args.workroot
    if not workroot:
        import tempfile

        workroot = tempfile.mkdtemp(prefix="biocoder-worker-")
    os.makedirs(workroot, mode=0o700, exist_ok=True)
    worker = Worker(os.path.abspath(workroot), args.contained, args.runtime_dir, args.python, args.max_procs)

    def send(obj):
        proto.write(encode_line(obj))
        proto.flush()

    send(ready_message(os.getpid(), sys.version.split()[0], args.contained))
    for line in requests:
        line = line.strip()
        if not line:
            continue
        req_id = None
        try:
            req = decode_line(line)
            req_id = req.get("id")
            if req.get("info"):
                send(info_message(req_id, worker.info()))
                continue
            job = req["job"]
            options = req.get("options") or {}
            warm = bool(options.get("warm", True))
            worker.profile = bool(options.get("profile"))
            worker.batch = bool(options.get("batch", True))

            def emit(index, outcome, marks=None, req_id=req_id):
                msg = outcome_message(req_id, index, outcome)
                if marks:
                    msg["profile"] = marks
                send(msg)

            worker.run(job, warm, emit)
            send(done_message(req_id))
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                return 1
            fatal = isinstance(exc, Tampered)
            send(
                error_message(
                    req_id, f"{type(exc).__name__}: {exc}", traceback.format_exc()[-STDERR_TAIL:], fatal
                )
            )
            if fatal:
                worker.close()
                return 3
    worker.close()
    return 0
