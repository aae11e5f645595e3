# ruff: noqa: B905  (zip(strict=) does not exist on Python 3.9, which this folder must run on)
"""All fuzz cases of one sample in one clean case process: the cheap path for Python jobs.

Why: a forked case child of a zygote holding numpy, scipy, pandas and scikit-learn costs
milliseconds to fork, to set up (copy-on-write faults as it first touches the libraries) and to
tear down (its address space). Paid once per case, that is most of a case's overhead
(``python -m benchmarks case_profile``). Here one child, forked from the clean zygote exactly as
before, runs the job's cases one after another, each with a fresh ``__main__``, its own work dir,
stdin/stdout/stderr files and deadline; the worker resets every writable place and IPC object
and kills every other process between two cases, as it does between cases of separate children.

Why it is safe (docs/security.md, "One process per sample"): the process holds only the
*sample's own* programs and outputs. What a case can learn from an earlier case of the same
sample is what that sample itself computed; expected outputs are never in the sandbox (outputs
are compared on the host). A case that crashes, is killed, times out, breaks the case protocol
or kills its process ends *that* case only: the next case starts in a fresh child. Anything the
process says about itself (``done <index> <rc> keep|retire``) can set only its own exit code, which a
program sets anyway; no message of a case process can produce an infrastructure status.

Protocol, on a socketpair the zygote creates (its worker end is handed over with SCM_RIGHTS):

* worker -> child: one JSON line per case: ``{"index", "stdin", "stdout", "stderr", "work",
  "tmpdir", "code"}`` (``code``: a file with the program's code objects, its top-level chunks
  in order, marshalled by the worker, which compiled them anyway to find syntax errors:
  ``python_compile``);
* child -> worker: ``ready`` once, after its limits are set and before any program runs (see
  :func:`batch_child`), then ``done <index> <rc> keep|retire`` when each case's program ended
  (``retire``: a thread of the case still runs, so the process must not be reused).

EOF from the worker ends the child.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import time

from .cases import Case
from .processes import (
    close_other_fds,
    die_with_traceback,
    expendable,
    kill_case,
    kill_leftovers,
    oom_kills,
    open_pidfd,
    process_controls,
    process_state,
    reset_signals,
    rmtree,
    set_limits,
    untouched,
    vm_size_mb,
    wait_deadline,
)
from .protocol import RunStatus, encode_line
from .python_compile import load_program

#: Longest control line a case process may send (``done <index> <rc> keep``); more breaks the protocol.
MAX_LINE = 64


# --------------------------------------------------------------------------- in the case process


def _case_io(msg, ctl_fd):
    """fds 0-2 on this case's files, every other fd but the control socket closed, cwd, TMPDIR."""
    fd_in = os.open(msg["stdin"], os.O_RDONLY)
    fd_out = os.open(msg["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    fd_err = os.open(msg["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd_in, 0)
    os.dup2(fd_out, 1)
    os.dup2(fd_err, 2)
    close_other_fds(ctl_fd)
    os.chdir(msg["work"])
    if msg.get("tmpdir"):
        os.environ["TMPDIR"] = msg["tmpdir"]


def _read_line(fd, buf):
    """The next line from ``fd`` (bytes, without newline) and the rest; None at EOF."""
    while b"\n" not in buf:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None, buf
        buf += chunk
    line, _, rest = buf.partition(b"\n")
    return line, rest


_LIBC = []


def _sysv_segments_exist():
    """Whether any SysV shared-memory segment exists in this IPC namespace (cheap: a short file)."""
    try:
        with open("/proc/sysvipc/shm") as fh:
            next(fh, None)  # header
            return next(fh, None) is not None
    except OSError:
        return True  # cannot tell: look at our own mappings


def _detach_sysv_shm():
    """Detach every SysV shared-memory segment this process has attached, so that the worker's
    reset after the case (``IPC_RMID``) really removes it: a segment lives while attached.
    Reading our own mappings costs milliseconds in a process holding numpy & co, so it is done
    only when a segment exists at all."""
    if not _sysv_segments_exist():
        return
    try:
        import ctypes

        if not _LIBC:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.shmdt.argtypes = [ctypes.c_void_p]
            _LIBC.append(libc)
        with open("/proc/self/maps") as fh:
            starts = [int(line.split("-", 1)[0], 16) for line in fh if "/SYSV" in line]
    except Exception:
        return
    for start in starts:
        _LIBC[0].shmdt(ctypes.c_void_p(start))


class _ProcessState:
    """What a fresh interpreter starts with and a case can change for the rest of its process
    (timers, signal dispositions, environment, umask, tracing, recursion limit): recorded once,
    put back after every case, so that the next case starts as a per-case process would.

    What cannot be put back is reported: a thread still running after its case (a daemon
    thread) would run on into the next one, so the process retires and the next case gets a
    fresh one.
    """

    def __init__(self):
        self.environ = dict(os.environ)
        self.umask = os.umask(0o077)
        os.umask(self.umask)
        import sys

        self.recursion_limit = sys.getrecursionlimit()

    def restore(self):
        """Put the process back; True if it must retire (threads left running)."""
        import sys
        import threading

        try:
            signal.alarm(0)
            for timer in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
                signal.setitimer(timer, 0)
        except (OSError, ValueError):
            return True
        reset_signals()
        if os.environ != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        os.umask(self.umask)
        sys.settrace(None)
        sys.setprofile(None)
        try:
            sys.setrecursionlimit(self.recursion_limit)
        except (RecursionError, ValueError):
            return True
        main = threading.main_thread()
        return any(t is not main and t.is_alive() for t in threading.enumerate())


def batch_child(ctl_fd, base_vm_mb, run_program, mark, warm_up=None):
    """The case process: as a spare, gets ready for a case (all it can do without one, deaf to
    signals as the zygote is), waits for its setup line, sets its limits, says ``ready``, then runs
    one program per control message until EOF.

    ``ready`` is written before any program runs: a spare that an earlier sample killed or
    stopped can never write it (a pending SIGKILL or SIGSTOP takes effect before the process
    runs again), so the worker can tell a spare that was broken before it got its case from a
    case that broke it, and gives the case a fresh process instead of a verdict."""
    os.setsid()
    extra_mb = max(0, vm_size_mb() - base_vm_mb)
    expendable()
    fresh = _ProcessState()
    if warm_up is not None:
        warm_up()
    buf = b""
    line, buf = _read_line(ctl_fd, buf)
    if line is None:
        os._exit(0)
    spec = json.loads(line.decode("utf-8"))
    set_limits(
        int(spec["memory_mb"]) + extra_mb, int(spec["fsize"]), int(spec["nproc"]), bool(spec["address_space"])
    )
    reset_signals()
    os.write(ctl_fd, b"ready\n")
    while True:
        line, buf = _read_line(ctl_fd, buf)
        if line is None:
            os._exit(0)
        msg = json.loads(line.decode("utf-8"))
        mark(msg, "child_start")
        _case_io(msg, ctl_fd)
        mark(msg, "child_limits")
        with open(msg["code"], "rb") as fh:
            code_obj = load_program(fh)
        mark(msg, "child_compiled")
        rc = run_program(code_obj, msg, batch=True)
        mark(msg, "child_exit")
        _detach_sysv_shm()
        retire = fresh.restore()
        mark(msg, "child_restored")
        del code_obj
        word = b"retire" if retire else b"keep"
        os.write(ctl_fd, b"done %d %d %s\n" % (int(msg["index"]), int(rc), word))
        if retire:
            os._exit(0)


# --------------------------------------------------------------------------- in the zygote


class BatchChildren:
    """The zygote's case processes of whole jobs: the running ones (with the zygote's backstop
    deadline) and one spare, forked ahead so that the next job does not wait for a fork.

    The zygote never holds a program: a spare is forked from the zygote's clean state and gets
    everything (limits, cases) from the worker over its control socket. A spare forked before
    the zygote preloaded more modules is stale (it lacks them) and is replaced.
    """

    def __init__(self, base_vm_mb, run_program, mark, warm_up=None):
        self.base_vm_mb = base_vm_mb
        self.run_program = run_program
        self.mark = mark
        self.warm_up = warm_up
        #: pid -> [deadline, pidfd or -1]
        self.running = {}
        #: (pid, the worker's end of its control socket, pidfd or -1), or None.
        self.spare = None
        self.enabled = False

    def _fork(self):
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                batch_child(theirs.fileno(), self.base_vm_mb, self.run_program, self.mark, self.warm_up)
            except BaseException:  # noqa: B036
                die_with_traceback()
            os._exit(127)
        theirs.close()
        return pid, ours, open_pidfd(pid)

    def start(self, timeout_s):
        """A case process for a job: the spare if there is one, else a fresh fork.
        Returns its pid, the fd of the worker's end of its control socket (the caller closes
        it once handed over) and profiling marks."""
        self.enabled = True
        marks = {"zygote_fork_start": time.monotonic()}
        if self.spare is not None and os.waitpid(self.spare[0], os.WNOHANG)[0] == 0 and self._untouched():
            pid, ours, pidfd = self.spare
            marks["zygote_spare"] = 1.0
        else:
            self._drop_spare()
            pid, ours, pidfd = self._fork()
        self.spare = None
        marks["zygote_forked"] = time.monotonic()
        self.running[pid] = [time.monotonic() + timeout_s, pidfd]
        passed = os.dup(ours.fileno())
        ours.close()
        return pid, passed, marks

    def _untouched(self):
        """Whether the spare runs as it was forked: a case of an earlier job could stop it, or lower
        its limits or priority, from outside (the same uid may); it would pass that on to another
        sample. The zygote's own are the reference: the worker checks them before every job."""
        return untouched(self.spare[0], process_controls(os.getpid()))

    def fork_spare(self):
        """Fork a spare if none is ready; its pid (to announce), or None."""
        if self.enabled and self.spare is None:
            self.spare = self._fork()
            return self.spare[0]
        return None

    def stale(self):
        """Modules were preloaded since the spare was forked: replace it (on the next job)."""
        self._drop_spare()

    def _drop_spare(self):
        if self.spare is not None:
            pid, ours, pidfd = self.spare
            self.spare = None
            ours.close()  # EOF: the spare exits by itself
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            if pidfd >= 0:
                os.close(pidfd)

    def known(self):
        pids = set(self.running)
        if self.spare is not None:
            pids.add(self.spare[0])
        return pids

    def sweep(self):
        """Kill every direct child of the zygote that it did not fork (``clone(CLONE_PARENT)`` from
        a case makes one): the worker spares the zygote's children, so only those it knows may live."""
        me = os.getpid()
        known = self.known()
        try:
            tids = os.listdir(f"/proc/{me}/task")
        except OSError:
            return
        for tid in tids:
            try:
                with open(f"/proc/{me}/task/{tid}/children") as fh:
                    kids = [int(x) for x in fh.read().split()]
            except (OSError, ValueError):
                continue
            for kid in kids:
                if kid not in known:
                    try:
                        os.kill(kid, signal.SIGKILL)
                        os.waitpid(kid, 0)  # gone, not a zombie, before the next case starts
                    except (OSError, ChildProcessError):
                        pass

    def waitables(self):
        return [fd for _, fd in self.running.values() if fd >= 0]

    def wait_timeout(self):
        """How long the zygote may block: until the nearest backstop deadline (polling where
        there is no pidfd), or indefinitely when nothing runs."""
        if not self.running:
            return None
        left = max(0.0, min(d for d, _ in self.running.values()) - time.monotonic())
        if any(fd < 0 for _, fd in self.running.values()):
            left = min(left, 0.005)
        return left

    def reap(self):
        """Events for the running case processes that ended (killed at the backstop if due)."""
        events = []
        now = time.monotonic()
        for pid in list(self.running):
            deadline, pidfd = self.running[pid]
            try:
                got, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                got, status = pid, 0
            timed_out = False
            if got == 0 and now >= deadline:
                status, timed_out, got = kill_case(pid), True, pid
            if got == pid:
                del self.running[pid]
                if pidfd >= 0:
                    os.close(pidfd)
                events.append({"event": "exited", "pid": pid, "status": status, "timed_out": timed_out})
        if self.spare is not None:
            try:
                if os.waitpid(self.spare[0], os.WNOHANG)[0] != 0:
                    self.spare[1].close()
                    if self.spare[2] >= 0:
                        os.close(self.spare[2])
                    self.spare = None
            except ChildProcessError:
                self.spare = None
        return events


# --------------------------------------------------------------------------- in the worker


class _Child:
    """The worker's handle on one case process: pid, control socket, the zygote that reports its end."""

    def __init__(self, pid, ctl, zygote, marks):
        self.pid = pid
        self.ctl = ctl
        self.zygote = zygote
        self.marks = marks
        self.buf = b""
        #: Whether it said ``ready`` (before that, no program of ours has run in it).
        self.ready = False

    def send(self, msg):
        self.ctl.sendall(encode_line(msg).encode("utf-8"))

    def _line(self, deadline):
        """The next control line, or how waiting for it ended: "broken", "timeout", "died", or
        "lost" (before ``ready``: stopped or gone before any program ran)."""
        while b"\n" not in self.buf:
            if len(self.buf) > MAX_LINE:
                return "broken"
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout" if self.ready else "lost"
            # before ``ready`` only our code runs in it: a stopped process is a spare that an
            # earlier sample stopped (polled, so it does not cost this case its deadline)
            ready, _, _ = select.select([self.ctl], [], [], left if self.ready else min(left, 0.05))
            if not ready:
                if not self.ready and process_state(self.pid) in ("T", "t", "Z", "X", None):
                    return "lost"
                continue
            try:
                chunk = self.ctl.recv(256)
            except OSError:
                chunk = b""
            if not chunk:
                return "died" if self.ready else "lost"
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def wait_done(self, index, deadline):
        """``("done", rc)``, ``("retire", rc)`` (done, and the process must not be reused),
        ``("died", None)``, ``("timeout", None)``, ``("broken", None)`` or ``("lost", None)``
        (the process never ran the case: give the case another one)."""
        if not self.ready:
            line = self._line(deadline)
            if isinstance(line, str):
                return line, None
            if line != b"ready":
                return "broken", None
            self.ready = True
        line = self._line(deadline)
        if isinstance(line, str):
            return line, None
        parts = line.split()
        if (
            len(parts) != 4
            or parts[0] != b"done"
            or parts[1] != str(index).encode()
            or parts[3] not in (b"keep", b"retire")
            or self.buf
        ):
            return "broken", None
        try:
            rc = int(parts[2]) & 0xFF
        except ValueError:
            return "broken", None
        return ("done" if parts[3] == b"keep" else "retire"), rc

    def exited_by_itself(self, within_s=1.0):
        """After EOF on the control socket: True if the process ends by itself within ``within_s``
        (it exited, or is exiting: its files close before it is a zombie); False if it lives on
        (it closed its control socket and runs on: the case is then run alone)."""
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            if process_state(self.pid) in ("Z", "X", None):
                return True
            time.sleep(0.002)
        return False

    def end(self, timeout_s, wait=True):
        """Close the control socket (the process then exits by itself); with ``wait``, its wait
        status as the zygote reports it (the worker, its subreaper, waits itself if the zygote
        is gone). Without ``wait`` the end is collected later (``Zygote.events``)."""
        try:
            self.ctl.close()
        except OSError:
            pass
        if not wait:
            return None
        try:
            return self.zygote.wait_exit(self.pid, timeout_s)["status"]
        except (OSError, ValueError, KeyError):
            self.zygote.kill()
            status = wait_deadline(self.pid, time.monotonic() + 0.5)
            return kill_case(self.pid) if status is None else status

    def kill(self):
        for target in (
            lambda: os.killpg(self.pid, signal.SIGKILL),
            lambda: os.kill(self.pid, signal.SIGKILL),
        ):
            try:
                target()
            except OSError:
                pass


def _start_child(worker, setup, names, timeout_s, profile):
    """A case process from the zygote for ``names``, its limits sent; None if none could start."""
    zygotes = worker.zygotes
    try:
        request = {"op": "batch", "timeout_s": timeout_s, "profile": profile}
        reply = zygotes.call(request, names)
        fd = zygotes.current.take_fd()
    except (OSError, ValueError, KeyError):
        return None
    if fd is None:
        return None
    child = _Child(int(reply["pid"]), socket.socket(fileno=fd), zygotes.current, reply.get("marks") or {})
    try:
        child.send(setup)
    except OSError:
        pass  # the process is gone: the first case finds out
    return child


def run_python_batched(worker, job, programs, codes, limits, emit, run_case_alone):
    """Run the job's cases (``codes[i]``: the compiled program, or None if it did not compile:
    those are emitted by the caller) in as few case processes as their outcomes allow.

    A case that breaks the control protocol is run again in a process of its own
    (``run_case_alone``, the per-case path), so that its outcome is the one the per-case path
    gives: writing to a socket it found changes nothing about how it is judged."""
    names, timeout_s, memory_mb = limits
    jobdir = worker.job_dir()
    child = None
    setup = {
        "memory_mb": memory_mb,
        "fsize": Case.fsize_for(job),
        "nproc": worker.max_procs,
        "address_space": True,
    }
    # The zygote's own backstop; the worker enforces each case's deadline itself.
    backstop_s = timeout_s * max(1, len(programs)) + 60.0
    try:
        for index, (src, code_obj) in enumerate(zip(programs, codes)):
            if code_obj is None:
                continue
            marks = {"case_start": time.monotonic()} if worker.profile else None
            if marks is not None and worker.job_marks:
                marks.update(worker.job_marks)  # the job's once-per-job stages, on its first case
                worker.job_marks = None
            case = Case(jobdir, index, job)
            with open(os.path.join(case.work, "main.py"), "w", encoding="utf-8") as fh:
                fh.write(src)  # for tracebacks' source lines, as a script run would show them
            code_path = os.path.join(case.dir, "code")
            with open(code_path, "wb") as fh:
                fh.write(code_obj.marshalled)
            tmpdir = None if worker.contained else os.path.join(case.work, ".tmp")
            if tmpdir:
                os.makedirs(tmpdir, exist_ok=True)
            msg = {
                "index": index,
                "stdin": case.stdin,
                "stdout": case.stdout,
                "stderr": case.stderr,
                "work": case.work,
                "tmpdir": tmpdir,
                "code": code_path,
            }
            if marks is not None:
                msg["profile"] = os.path.join(case.dir, "marks")
                marks["files_written"] = time.monotonic()
            if child is None:
                child = _start_child(worker, setup, names, backstop_s, marks is not None)
                if marks is not None and child is not None:
                    marks.update(child.marks)
                    marks["zygote_started"] = time.monotonic()
            if child is None:
                emit(index, case.outcome(RunStatus.SANDBOX_ERROR, None, 0.0, "zygote: no case process\n"))
                kill_leftovers(worker.contained, worker.keep())
                worker.reset_state()
                rmtree(case.dir)
                continue
            oom_before = oom_kills()
            start = time.monotonic()
            try:
                child.send(msg)
                how, rc = child.wait_done(index, start + timeout_s)
            except OSError:
                how, rc = ("died" if child.ready else "lost"), None
            if marks is not None:
                marks["end_received"] = time.monotonic()
            if how == "died" and not child.exited_by_itself():
                how = "broken"
            if how == "lost":
                # A spare broken before it had this case (killed or stopped by an earlier
                # sample): not this case's doing, so the case runs alone, as a broken protocol does.
                how = "broken"
            if how in ("done", "retire"):
                result = worker.settle_rc(case, start, rc, False, oom_before, keep=(child.pid,), marks=marks)
                if how == "retire":  # threads of this case still run: the next case gets a fresh process
                    child.kill()
                    child.end(5.0, wait=False)
                    worker.pending.append(child)
                    child = None
            else:
                # This case ended its process (crash, os._exit, signal), ran past its deadline,
                # or broke the protocol: its process is gone, and the next case starts in a
                # fresh one.
                child.kill()  # it ended, or it must: a kill after its exit changes no status
                status = child.end(5.0 if how == "died" else 30.0)
                pid, child = child.pid, None
                result = worker.settle(
                    pid, case, start, status, how == "timeout", None, oom_before, marks=marks
                )
                if how == "broken":
                    rmtree(case.dir)
                    result, marks = run_case_alone(worker, job, jobdir, index, src, limits)
                    emit(index, result, marks)
                    continue
            if marks is not None:
                marks["outcome_read"] = time.monotonic()
                marks.update(worker.read_marks(os.path.join(case.dir, "marks")))
            rmtree(case.dir)
            worker.sweep_workroot(jobdir)
            if marks is not None:
                marks["swept"] = time.monotonic()
            emit(index, result, marks)
    finally:
        if child is not None:
            # Killed, not asked: the process ran the sample's code and may ignore EOF. Its end
            # (the address space's teardown) is not waited for here, while the host reads the last
            # outcome; the worker collects it before the next job starts (``Worker.collect``).
            child.kill()
            child.end(5.0, wait=False)
            worker.pending.append(child)
        rmtree(jobdir)
