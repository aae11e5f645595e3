# ruff: noqa: B905  (zip(strict=) does not exist on Python 3.9, which this file must run on)
"""The in-sandbox worker: runs candidate programs case by case, enforcing the limits itself.

Every backend (``none``, ``bwrap``, ``docker``) starts this one script and talks to it in
JSON lines, so the behaviour a candidate sees does not depend on the backend. It must run
on the image's Python (3.9) as well as the host's (3.11) and uses the standard library only.

Protocol (one JSON object per line):

* worker -> host, once at start: ``{"ready": true, "pid": ..., "python": ...}``
* host -> worker: ``{"id": N, "job": {Job fields}, "options": {"warm": true}}``
* worker -> host: ``{"id": N, "index": i, "outcome": {CaseOutcome fields}}`` as each case
  finishes (streamed, so that a host-side backstop knows which case hung), then
  ``{"id": N, "done": true}``; or ``{"id": N, "error": "..."}`` for a malformed request.
* host -> worker ``{"id": N, "info": true}`` -> ``{"id": N, "info": {...}}`` (environment facts).

Why the fast path: interpreter start-up plus ``import numpy, scipy, pandas`` costs far more
than a typical fuzz case. The worker imports a job's top-level imports once, then forks one
child per case; the child gets a fresh ``__main__``, its own session, work dir and rlimits.
Java compiles in a long-lived compile-only JVM (``Runner.java``, javax.tools) and runs each
job's cases in a fresh runner JVM, one class loader per case.
"""

from __future__ import annotations

import os

# Before anything can import numpy/BLAS: one thread, so forking is safe and results do not
# depend on thread scheduling. Cold-path children inherit the same settings.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import ast  # noqa: E402
import builtins  # noqa: E402
import collections  # noqa: E402
import errno  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402

RUN_OK = "ok"
RUN_TIMEOUT = "timeout"
RUN_MEMORY = "memory_exceeded"
RUN_OUTPUT_LIMIT = "output_limit"
RUN_COMPILE_ERROR = "compile_error"
RUN_SANDBOX_ERROR = "sandbox_error"

STDERR_TAIL = 4096
#: Files a case may write (RLIMIT_FSIZE). Larger than the output limit so that programs that
#: write scratch files still work; stdout above the output limit is detected by its size.
MIN_FSIZE = 64 << 20
#: Modules never preloaded: they act on import (print, open a browser, need a display).
NO_PRELOAD = {"this", "antigravity", "__hello__", "__phello__", "tkinter", "turtle", "idlelib", "__main__"}
#: Scratch dirs a contained worker sweeps after every case (private tmpfs there).
TMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
#: The stdio error handlers a fresh interpreter gets in this environment (locale dependent),
#: recorded at start-up so that warm children match cold ones.
STDIO_ERRORS = [
    getattr(sys.stdin, "errors", None) or "strict",
    getattr(sys.stdout, "errors", None) or "strict",
]
WORKER_DIR = os.path.dirname(os.path.abspath(__file__))
RUNNER_REPLY = b"@@biocoder@@ "
#: Zygotes a worker keeps (one per set of preloaded modules); each holds its libraries in memory.
MAX_ZYGOTES = 2
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


#: Upstream's Java harnesses compile and run with these three libraries on the classpath
#: (commons-math3, htsjdk, jregex). Debian's packages put them at these fixed paths, in the
#: image (docker/Dockerfile) and on a host set up by scripts/install.sh; absent ones are skipped.
JAVA_LIBS = (
    "/usr/share/java/commons-math3.jar",
    "/usr/share/java/htsjdk.jar",
    "/usr/share/java/jregex.jar",
)


# --------------------------------------------------------------------------- process helpers


def _prctl(option, value):
    """Best-effort prctl via ctypes (no third-party module in the image)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except Exception:
        return False


def _wait_deadline(pid, deadline):
    """Wait for ``pid`` until ``deadline`` (monotonic). Returns the wait status or None on timeout."""
    pidfd = -1
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = -1
    try:
        delay = 0.0005
        while True:
            try:
                got, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                return 0
            if got == pid:
                return status
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if pidfd >= 0:
                select.select([pidfd], [], [], left)
            else:
                time.sleep(min(delay, left))
                delay = min(delay * 2, 0.02)
    finally:
        if pidfd >= 0:
            os.close(pidfd)


def _children_map():
    """ppid -> [pid] for every process visible in /proc."""
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
            ppid = int(data[data.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    return kids


def _children_of(pid):
    """Direct children from /proc/PID/task/*/children (cheap); None if the kernel lacks that file."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(x) for x in fh.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue
            return None
        except (OSError, ValueError):
            continue
    return out


def _descendants(root, keep):
    """All descendants of ``root``; the processes in ``keep`` are spared but their children are not."""
    if _children_of(root) is not None:
        out, stack = [], [root]
        while stack:
            for child in _children_of(stack.pop()) or ():
                stack.append(child)
                if child not in keep:
                    out.append(child)
        return out
    kids = _children_map()
    out, stack = [], [root]
    while stack:
        for child in kids.get(stack.pop(), ()):
            stack.append(child)
            if child not in keep:
                out.append(child)
    return out


def _reap(keep):
    """Collect exited orphans (we are their subreaper) without stealing the status of ``keep``."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_pid in keep:
            return
        try:
            os.waitpid(info.si_pid, 0)
        except ChildProcessError:
            return


def kill_leftovers(contained, keep=()):
    """Kill every process a case left behind (double forks, setsid daemons), then reap them.

    Inside a container/bwrap pid namespace the worker runs as its own uid, so ``kill(-1)`` hits
    exactly the case's leftovers; on the host (``none``) it would hit the user's processes, so
    there only our own descendants are killed (the worker is their subreaper, so escaping the
    session does not hide them).
    """
    keep = set(keep)
    if contained and not keep:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    me = os.getpid()
    for _ in range(50):
        pids = _descendants(me, keep)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap(keep)
    _reap(keep)


def _rmtree(path):
    """Delete a tree even if the case removed permissions from its dirs."""

    def onerror(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p) or ".", 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o700)
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass

    if os.path.lexists(path):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=onerror)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def _remove_entries(path, keep):
    """Delete every entry of the directory ``path`` whose name is not in ``keep``."""
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        if name not in keep:
            _rmtree(os.path.join(path, name))


def _set_limits(memory_mb, fsize, nproc, address_space):
    def lim(kind, value):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass

    lim(resource.RLIMIT_CORE, 0)
    lim(resource.RLIMIT_FSIZE, fsize)
    if nproc:
        lim(resource.RLIMIT_NPROC, nproc)
    if address_space and memory_mb:
        lim(resource.RLIMIT_AS, memory_mb << 20)


def _read_head(path, limit):
    try:
        with open(path, "rb") as fh:
            return fh.read(limit)
    except OSError:
        return b""


def _read_tail(path, limit=STDERR_TAIL):
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _vm_size_mb():
    """This process's address-space size (VmSize) in MiB, or 0 if unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _oom_kills():
    """The cgroup's oom_kill counter (docker), or None where it cannot be read."""
    for path in ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"):
        try:
            with open(path) as fh:
                for line in fh:
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == "oom_kill":
                        return int(parts[1])
        except (OSError, ValueError):
            continue
    return None


def _exit_code(status):
    """Shell convention: exit status, or 128+signal for a killed process (what ``java Main`` reports too)."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return -1


# --------------------------------------------------------------------------- python cases


def top_level_imports(tree):
    """Absolute module names imported at module level (also inside top-level if/try blocks)."""
    names = []

    def visit(body):
        for node in body:
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.module and not node.level:
                    names.append(node.module)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for handler in getattr(node, "handlers", ()):
                    visit(handler.body)
                visit(getattr(node, "finalbody", ()))

    visit(tree.body)
    return names


def preload(names, failed):
    """Import modules in the warm worker; failures are remembered and left for the case to hit."""
    import importlib

    for name in names:
        root = name.split(".")[0]
        if name in sys.modules or name in failed or root in NO_PRELOAD or name.startswith("_"):
            continue
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: B036 - any import failure is the program's problem, later
            failed.add(name)


class Case:
    """Files and limits of one case run."""

    def __init__(self, workroot, index, job):
        self.dir = os.path.join(workroot, f"case-{index}")
        self.work = os.path.join(self.dir, "work")
        os.makedirs(self.work, mode=0o700)
        self.stdin = os.path.join(self.dir, "stdin")
        self.stdout = os.path.join(self.dir, "stdout")
        self.stderr = os.path.join(self.dir, "stderr")
        with open(self.stdin, "w", encoding="utf-8") as fh:
            fh.write(job.get("stdin") or "")
        self.limit = int(job.get("output_limit_bytes") or (1 << 20))
        self.fsize = max(MIN_FSIZE, self.limit + 1)

    def outcome(self, status, returncode, duration, stderr_extra=""):
        out = _read_head(self.stdout, self.limit + 1)
        if status in (RUN_OK, RUN_TIMEOUT) and (len(out) > self.limit or _size(self.stderr) > self.fsize - 1):
            status = RUN_OUTPUT_LIMIT
        err = _read_tail(self.stderr)
        if stderr_extra:
            err = (err + stderr_extra)[-STDERR_TAIL:]
        return {
            "status": status,
            "returncode": returncode,
            "stdout": out[: self.limit].decode("utf-8", "replace"),
            "stderr": err,
            "duration_s": round(duration, 6),
        }


def _close_other_fds():
    """Close every fd above 2. Listing /proc/self/fd is far cheaper than closing 65k numbers one
    syscall at a time (Python 3.9 has no close_range; under Docker's seccomp each call costs)."""
    try:
        fds = [int(x) for x in os.listdir("/proc/self/fd")]
    except OSError:
        os.closerange(3, 65536)
        return
    for fd in fds:
        if fd > 2:
            try:
                os.close(fd)
            except OSError:
                pass


def _child_io(case, tmpdir):
    """Point fds 0-2 at the case's files and close every other fd (notably the protocol pipe)."""
    fd_in = os.open(case.stdin, os.O_RDONLY)
    fd_out = os.open(case.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    fd_err = os.open(case.stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd_in, 0)
    os.dup2(fd_out, 1)
    os.dup2(fd_err, 2)
    _close_other_fds()
    os.chdir(case.work)
    if tmpdir:
        os.environ["TMPDIR"] = tmpdir


def _python_exit_code(exc):
    """What the interpreter would exit with for an escaping SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def _run_main_in_child(code_obj, case):
    """Runs in the forked child: execute the program as ``__main__``, then exit like python would."""
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8", errors=STDIO_ERRORS[0]
    )
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8", errors=STDIO_ERRORS[1]
    )
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )
    sys.argv = ["main.py"]
    # a script's own dir comes first on sys.path; the worker's dir is not there at all
    sys.path[:] = [os.getcwd()] + [p for p in sys.path if p and os.path.abspath(p) != WORKER_DIR]
    main = types.ModuleType("__main__")
    main.__dict__.update(
        {"__file__": os.path.join(os.getcwd(), "main.py"), "__builtins__": builtins, "__cached__": None}
    )
    sys.modules["__main__"] = main
    np_random = sys.modules.get("numpy.random")
    if np_random is not None:  # a fresh process would have a fresh unseeded global state
        try:
            np_random.seed()
        except Exception:
            pass
    rc = 0
    try:
        exec(code_obj, main.__dict__)
    except SystemExit as exc:
        rc = _python_exit_code(exc)
    except BaseException:  # noqa: B036 - uncaught exception: traceback and status 1, like python
        etype, value, tb = sys.exc_info()
        try:  # skip this function's frame: the traceback starts at main.py, as in a fresh python
            tb = tb.tb_next if tb is not None else tb
            if value is not None:
                value.__traceback__ = tb
            sys.excepthook(etype, value, tb)
        except BaseException:  # noqa: B036
            pass
        rc = 1
    try:
        import threading

        shutdown = getattr(threading, "_shutdown", None)
        if shutdown is not None:
            shutdown()  # wait for non-daemon threads, as interpreter exit does
    except BaseException:  # noqa: B036
        pass
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:  # noqa: B036
        pass
    try:
        sys.stdout.flush()
    except BaseException:  # noqa: B036 - python exits 120 when flushing stdout fails at exit
        rc = rc or 120
    try:
        sys.stderr.flush()
    except BaseException:  # noqa: B036
        pass
    os._exit(rc)


def _looks_like_memory_error(case):
    """Python's MemoryError (last traceback line) or the JVM's OutOfMemoryError in main."""
    tail = _read_tail(case.stderr, 2048)
    lines = tail.rstrip().splitlines()
    if lines and lines[-1].startswith("MemoryError"):
        return True
    return 'Exception in thread "main" java.lang.OutOfMemoryError' in tail



# --------------------------------------------------------------------------- the zygote
#
# Why: a case child that is forked from a process which once held another program's text
# (a golden, an earlier sample) or its output can read all of it back from its own address
# space (/proc/self/mem). So Python case children are forked from a *zygote*: a fresh
# interpreter started with exec (clean memory), which only ever receives module names to
# preload and file paths. It never reads a program, an input or an output. It forks each
# case child, waits for it until its deadline and reports the wait status; the worker (a
# child subreaper) kills the leftovers and classifies the outcome. The zygote is
# non-dumpable, so no case can read or trace it; if a case kills it, the worker waits for the
# orphaned child itself and starts a new zygote (again with exec, never by forking itself).


def _zygote_child(spec, base_vm_mb):
    """In the case child: files, limits, then run ``main.py`` warm (exec'd code) or exec python."""
    os.setsid()
    case = types.SimpleNamespace(
        stdin=spec["stdin"], stdout=spec["stdout"], stderr=spec["stderr"], work=spec["work"]
    )
    _child_io(case, spec.get("tmpdir"))
    memory_mb = int(spec["memory_mb"])
    if spec["mode"] == "warm":
        # Modules preloaded in the zygote sit in this address space; they must not eat the
        # program's memory budget.
        memory_mb += max(0, _vm_size_mb() - base_vm_mb)
    _set_limits(memory_mb, int(spec["fsize"]), int(spec["nproc"]), bool(spec["address_space"]))
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if spec["mode"] != "warm":
        exe = spec["python"]
        os.execv(exe, [exe, "main.py"])
    with open("main.py", encoding="utf-8") as fh:
        src = fh.read()
    try:
        code_obj = compile(src, "main.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        del src
        os.write(2, "".join(traceback.format_exception_only(type(exc), exc)).encode("utf-8", "replace"))
        os._exit(1)
    del src
    _run_main_in_child(code_obj, case)


def _zygote_run(spec, base_vm_mb, send):
    """Fork the case child, report its pid, wait for it until its deadline, report how it ended.

    One fork (not a double fork): a second fork of a process holding numpy, scipy and
    friends, and the teardown of its address space, cost tens of milliseconds per case.
    The zygote waits for its own child; if a case kills the zygote, the child is re-parented
    to the worker (a child subreaper), which then waits for it itself.
    """
    deadline_s = float(spec["timeout_s"])
    pid = os.fork()
    if pid == 0:
        try:
            _zygote_child(spec, base_vm_mb)
        except BaseException:  # noqa: B036
            try:
                os.write(2, traceback.format_exc().encode("utf-8", "replace"))
            except Exception:
                pass
        os._exit(127)
    send({"pid": pid})
    status = _wait_deadline(pid, time.monotonic() + deadline_s)
    timed_out = status is None
    if timed_out:
        for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 0
    return {"status": status, "timed_out": timed_out}


def zygote_main(fd):
    """The zygote's loop: JSON lines on the socket ``fd``; see :class:`Zygote`."""
    import socket

    _prctl(PR_SET_DUMPABLE, 0)  # exec made us dumpable again
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.chdir("/")
    sock = socket.socket(fileno=fd)
    stream = sock.makefile("rw", encoding="utf-8", buffering=1)
    base_vm_mb = _vm_size_mb()
    failed = set()

    def send(obj):
        stream.write(json.dumps(obj) + "\n")
        stream.flush()

    for line in stream:
        req = json.loads(line)
        op = req.get("op")
        try:
            if op == "preload":
                preload(req.get("names") or [], failed)
                # Move everything loaded so far out of the collector's reach: a case child's
                # garbage collection would otherwise walk (and so copy-on-write) every preloaded
                # object, which costs tens of milliseconds per case with numpy, scipy & co loaded.
                gc.freeze()
                reply = {"ok": True}
            elif op == "run":
                reply = _zygote_run(req["spec"], base_vm_mb, send)
            else:
                reply = {"error": f"unknown op {op!r}"}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        send(reply)
    return 0


class Zygote:
    """The worker's handle on its zygote process (started with exec, never forked from us)."""

    REPLY_TIMEOUT_S = 120.0

    def __init__(self, python_exe):
        import socket

        ours, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [python_exe, "-s", os.path.abspath(__file__), "--zygote-fd", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=2,
            stderr=2,
            close_fds=True,
            cwd="/",
        )
        theirs.close()
        self.sock = ours
        self.stream = ours.makefile("rw", encoding="utf-8", buffering=1)
        self.preloaded = []

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def call(self, obj):
        """Send one request and read its (first) reply line."""
        self.stream.write(json.dumps(obj) + "\n")
        self.stream.flush()
        return self.reply(self.REPLY_TIMEOUT_S)

    def reply(self, timeout_s):
        """The next reply line; OSError if the zygote died, hung past ``timeout_s`` or failed."""
        self.sock.settimeout(timeout_s)
        line = self.stream.readline()
        if not line:
            raise OSError("zygote exited")
        reply = json.loads(line)
        if "error" in reply:
            raise OSError("zygote: " + reply["error"])
        return reply

    def kill(self):
        try:
            self.proc.kill()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except Exception:
            pass
        try:
            self.stream.close()
            self.sock.close()
        except OSError:
            pass


class Worker:
    def __init__(self, workroot, contained, runtime_dir, python_exe, max_procs=256):
        self.workroot = workroot
        self.contained = contained
        self.max_procs = max_procs
        self.runtime_dir = runtime_dir
        self.python_exe = python_exe or sys.executable
        self.failed_imports = set()
        self.job_counter = 0
        self.is_root = os.geteuid() == 0
        self.base_vm_mb = _vm_size_mb()
        #: The long-lived Java compiler (``JavaCompiler``), started by the first warm Java job.
        self.javac = None
        #: Clean interpreters Python cases fork from: pid -> (:class:`Zygote`, names it preloaded),
        #: most recently used last; ``zygote`` is the one the current job uses.
        self.zygotes = collections.OrderedDict()
        self.zygote = None

    def _keep(self, extra=()):
        """Processes ``kill_leftovers`` must spare: ``extra`` plus the live Java compiler."""
        pids = [self.javac.pid() if self.javac is not None else None]
        pids.extend(z.pid for z, _ in self.zygotes.values() if z.alive())
        return tuple(extra) + tuple(p for p in pids if p)

    def _zygote_for(self, names):
        """A live zygote that has preloaded ``names``: the one that shares most of them (asked to
        preload the rest when it already has at least half), else a new one (and the least
        recently used ended beyond :data:`MAX_ZYGOTES`).

        Why several: forking costs in proportion to the parent's address space, so one zygote that
        accumulated every task's libraries would make every case pay for all of them. Samples of
        one task share the harness's imports and come in a row, so switches are rare, and a
        sample's own extra imports only grow the zygote of its task.
        """
        wanted = set(names)
        for key in [k for k, (z, _) in self.zygotes.items() if not z.alive()]:
            self.zygotes.pop(key)[0].kill()
        best = max(self.zygotes.items(), key=lambda kv: (len(kv[1][1] & wanted), list(self.zygotes).index(kv[0])),
                   default=None)
        if best is not None and (wanted <= best[1][1] or 2 * len(best[1][1] & wanted) >= len(wanted)):
            key, (zyg, loaded) = best
            self.zygotes.move_to_end(key)
            missing = [n for n in names if n not in loaded]
            if missing:
                zyg.call({"op": "preload", "names": missing})
                loaded.update(missing)
        else:
            zyg = Zygote(sys.executable)
            if names:
                zyg.call({"op": "preload", "names": list(names)})
            self.zygotes[zyg.pid] = (zyg, set(names))
            while len(self.zygotes) > MAX_ZYGOTES:
                self.zygotes.popitem(last=False)[1][0].kill()
        self.zygote = zyg
        return zyg

    def _zygote_call(self, request, names):
        """Send ``request`` to the zygote for ``names`` (restarted, preloads redone, if a case killed it)."""
        for attempt in range(2):
            zyg = None
            try:
                zyg = self._zygote_for(names)
                return zyg.call(request)
            except (OSError, ValueError):
                if zyg is not None:
                    zyg.kill()
                if attempt:
                    raise
        raise OSError("zygote unavailable")

    def close_zygotes(self):
        for zyg, _ in self.zygotes.values():
            zyg.kill()
        self.zygotes.clear()
        self.zygote = None

    # -- shared per-case machinery

    def _job_dir(self):
        self.job_counter += 1
        path = os.path.join(self.workroot, f"job-{os.getpid()}-{self.job_counter}")
        _rmtree(path)
        os.makedirs(path, mode=0o700)
        return path

    def _tmp_snapshot(self):
        if not self.contained:
            return None
        snap = {}
        for d in TMP_DIRS:
            try:
                snap[d] = set(os.listdir(d))
            except OSError:
                pass
        return snap

    def _tmp_cleanup(self, snap):
        if not snap:
            return
        for d, before in snap.items():
            _remove_entries(d, before)

    def _spawn(self, case, memory_mb, nproc, address_space, target):
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
                _child_io(case, tmpdir)
                _set_limits(memory_mb, case.fsize, nproc, address_space)
                for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD):
                    signal.signal(sig, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                target()
            except BaseException:  # noqa: B036
                try:
                    os.write(2, traceback.format_exc().encode("utf-8", "replace"))
                except Exception:
                    pass
            os._exit(127)
        return pid

    @staticmethod
    def _kill_case(pid):
        """SIGKILL a case child (and its process group) that ran past its deadline; its wait status."""
        for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return 0

    def _finish(self, pid, case, start, timeout_s, snap, keep=()):
        """Wait for the case child until its deadline, kill what is left, classify."""
        oom_before = _oom_kills()
        status = _wait_deadline(pid, start + timeout_s)
        timed_out = status is None
        if timed_out:
            status = self._kill_case(pid)
        return self._settle(pid, case, start, status, timed_out, snap, oom_before, keep)

    def _settle(self, pid, case, start, status, timed_out, snap, oom_before, keep=()):
        """After the case child ended: kill its leftovers, sweep scratch dirs, classify the outcome."""
        duration = time.monotonic() - start
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        kill_leftovers(self.contained, self._keep(keep))
        self._tmp_cleanup(snap)
        rc = _exit_code(status)
        oom_after = _oom_kills()
        if timed_out:
            return case.outcome(RUN_TIMEOUT, None, duration)
        if oom_before is not None and oom_after is not None and oom_after > oom_before:
            return case.outcome(RUN_MEMORY, rc, duration)
        if rc == -signal.SIGXFSZ:
            return case.outcome(RUN_OUTPUT_LIMIT, rc, duration)
        if rc != 0 and _looks_like_memory_error(case):
            return case.outcome(RUN_MEMORY, rc, duration)
        return case.outcome(RUN_OK, rc, duration)

    # -- python

    def run_python(self, job, warm, emit):
        programs = job["programs"]
        timeout_s = float(job.get("timeout_s") or 10.0)
        memory_mb = int(job.get("memory_mb") or 2048)
        jobdir = self._job_dir()
        compiled = []
        for src in programs:
            try:
                code_obj = compile(src, "main.py", "exec", dont_inherit=True)
                compiled.append((code_obj, None))
            except (SyntaxError, ValueError) as exc:
                compiled.append((None, "".join(traceback.format_exception_only(type(exc), exc))))
            except (MemoryError, RecursionError, OverflowError) as exc:
                compiled.append((None, f"{type(exc).__name__}: {exc}\n"))
        names = []
        if warm:
            for src, (code_obj, _) in zip(programs, compiled):
                if code_obj is not None:
                    try:
                        names.extend(top_level_imports(ast.parse(src)))
                    except Exception:
                        pass
            names = [n for n in dict.fromkeys(names) if n.split(".")[0] not in NO_PRELOAD]
        compiled = [(code_obj is not None, err) for code_obj, err in compiled]  # drop the code objects
        try:
            if warm and names:
                try:
                    self._zygote_for(names)
                except (OSError, ValueError):
                    pass  # every case below then reports the sandbox error
            for index, (src, (ok, err)) in enumerate(zip(programs, compiled)):
                if not ok:
                    emit(
                        index,
                        {
                            "status": RUN_COMPILE_ERROR,
                            "returncode": 1,
                            "stdout": "",
                            "stderr": err[-STDERR_TAIL:],
                            "duration_s": 0.0,
                        },
                    )
                    continue
                case = Case(jobdir, index, job)
                main_path = os.path.join(case.work, "main.py")
                with open(main_path, "w", encoding="utf-8") as fh:
                    fh.write(src)
                tmpdir = None if self.contained else os.path.join(case.work, ".tmp")
                if tmpdir:
                    os.makedirs(tmpdir, exist_ok=True)
                spec = {
                    "stdin": case.stdin,
                    "stdout": case.stdout,
                    "stderr": case.stderr,
                    "work": case.work,
                    "tmpdir": tmpdir,
                    "memory_mb": memory_mb,
                    "fsize": case.fsize,
                    "nproc": self.max_procs,
                    "address_space": True,
                    "mode": "warm" if warm else "exec",
                    "python": self.python_exe,
                    "timeout_s": timeout_s,
                }
                snap = self._tmp_snapshot()
                oom_before = _oom_kills()
                start = time.monotonic()
                try:
                    pid = self._zygote_call({"op": "run", "spec": spec}, names)["pid"]
                except (OSError, ValueError, KeyError) as exc:
                    emit(index, case.outcome(RUN_SANDBOX_ERROR, None, 0.0, f"zygote: {exc}\n"))
                    kill_leftovers(self.contained, self._keep())
                    self._tmp_cleanup(snap)
                    _rmtree(case.dir)
                    continue
                try:
                    end = self.zygote.reply(timeout_s + 30.0)
                    status, timed_out = end["status"], bool(end["timed_out"])
                except (OSError, ValueError, KeyError):
                    # The case killed or stopped the zygote: its child is ours now (subreaper).
                    self.zygote.kill()  # _zygote_for starts a new one for the next case
                    status = _wait_deadline(pid, start + timeout_s)
                    timed_out = status is None
                    if timed_out:
                        status = self._kill_case(pid)
                emit(index, self._settle(pid, case, start, status, timed_out, snap, oom_before))
                _rmtree(case.dir)
                self._sweep_workroot(jobdir)
        finally:
            _rmtree(jobdir)

    def _sweep_workroot(self, jobdir):
        """Remove whatever a case left in the workroot outside its own dir (e.g. a disk filler
        in ``/work``): the next case's files must always fit, so a candidate cannot turn its
        own later cases, or later samples, into infrastructure errors."""
        _remove_entries(jobdir, ())
        _remove_entries(self.workroot, (os.path.basename(jobdir), "compiler"))

    # -- java

    def _java_libs(self):
        """Upstream's Java libraries present here (JAVA_LIBS), for the compile and run classpath."""
        return [path for path in JAVA_LIBS if os.path.isfile(path)]

    def _java_flags(self, memory_mb):
        heap = max(64, int(memory_mb * 3 // 4))
        return [
            f"-Xmx{heap}m",
            "-Xss8m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
            "-Xshare:auto",
            "-XX:ActiveProcessorCount=1",
            "-Dfile.encoding=UTF-8",
            "-Dbiocoder.libs=" + os.pathsep.join(self._java_libs()),  # Runner's classpath (Runner.java)
        ]

    def run_java(self, job, warm, emit):
        programs = job["programs"]
        class_name = job.get("class_name") or "Main"
        timeout_s = float(job.get("timeout_s") or 10.0)
        memory_mb = int(job.get("memory_mb") or 2048)
        jobdir = self._job_dir()
        cases = []
        try:
            for index, src in enumerate(programs):
                case = Case(jobdir, index, job)
                src_dir = os.path.join(case.dir, "src")
                os.makedirs(os.path.join(case.dir, "classes"))
                os.makedirs(src_dir)
                with open(os.path.join(src_dir, class_name + ".java"), "w", encoding="utf-8") as fh:
                    fh.write(src)
                cases.append(case)
            if warm and self.runtime_dir and os.path.isfile(os.path.join(self.runtime_dir, "Runner.class")):
                JavaRunner(self, cases, job, class_name, timeout_s, memory_mb, emit).run_all()
            else:
                self._java_cold(cases, class_name, timeout_s, memory_mb, emit)
        finally:
            kill_leftovers(self.contained, self._keep())
            _rmtree(jobdir)

    def _java_cold(self, cases, class_name, timeout_s, memory_mb, emit):
        """Reference path: ``javac`` then ``java`` per case, exactly as a user would run them."""
        flags = self._java_flags(memory_mb)
        for index, case in enumerate(cases):
            src = os.path.join(case.dir, "src", class_name + ".java")
            classes = os.path.join(case.dir, "classes")
            snap = self._tmp_snapshot()
            start = time.monotonic()
            argv = [
                "javac",
                "-J-XX:-UsePerfData",
                "-J-XX:TieredStopAtLevel=1",
                "-encoding",
                "UTF-8",
                "-nowarn",
                "-cp",
                os.pathsep.join([classes] + self._java_libs()),
                "-d",
                classes,
                src,
            ]
            pid = self._spawn(case, memory_mb, 0, False, lambda argv=argv: os.execvp(argv[0], argv))
            res = self._finish(pid, case, start, max(60.0, timeout_s * 3), snap)
            if res["status"] != RUN_OK or res["returncode"] != 0:
                err = _read_tail(case.stdout) + _read_tail(case.stderr)
                emit(
                    index,
                    {
                        "status": RUN_COMPILE_ERROR,
                        "returncode": res["returncode"],
                        "stdout": "",
                        "stderr": err[-STDERR_TAIL:],
                        "duration_s": res["duration_s"],
                    },
                )
                continue
            snap = self._tmp_snapshot()
            argv = ["java"] + flags + ["-cp", os.pathsep.join([classes] + self._java_libs()), class_name]
            start = time.monotonic()
            pid = self._spawn(case, memory_mb, 0, False, lambda argv=argv: os.execvp(argv[0], argv))
            emit(index, self._finish(pid, case, start, timeout_s, snap))

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
        facts["java_libs"] = {p: os.path.getsize(p) for p in self._java_libs()}
        return facts


class _Jvm:
    """One ``Runner`` JVM driven over its stdin/stdout (one reply line per command)."""

    def __init__(self, worker, control, memory_mb, output_limit, extra_flags=(), java="java"):
        self.w = worker
        self.control = control
        self.memory_mb = memory_mb
        self.output_limit = output_limit
        self.extra_flags = list(extra_flags)
        self.java = java
        self.proc = None
        self.buf = b""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self):
        os.makedirs(self.control, exist_ok=True)
        err_path = os.path.join(self.control, "stderr")
        argv = [self.java] + self.w._java_flags(self.memory_mb) + self.extra_flags
        argv += [
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "--add-opens",
            "java.base/java.lang=ALL-UNNAMED",
        ]
        argv += ["-cp", self.w.runtime_dir, "Runner"]
        limit = max(MIN_FSIZE, self.output_limit + 1)
        memory_mb = self.memory_mb

        def pre():
            os.setsid()
            _set_limits(memory_mb, limit, 0, False)

        with open(err_path, "wb") as err:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=self.control,
                preexec_fn=pre,
                close_fds=True,
            )
        self.buf = b""

    def kill(self):
        """Kill this JVM (its whole session) and reap it; returns its wait status, or None."""
        if self.proc is None:
            return None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.kill()
        except OSError:
            pass
        status = self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.proc = None
        kill_leftovers(self.w.contained, self.w._keep())
        return status

    def command(self, line, timeout):
        """Send one command; returns the reply line, or None if the JVM died / ran out of time."""
        try:
            self.proc.stdin.write((line + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except OSError:
            return None
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" not in self.buf:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                ready, _, _ = select.select([fd], [], [], left)
                if not ready:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buf += chunk
            line_out, self.buf = self.buf.split(b"\n", 1)
            if line_out.startswith(RUNNER_REPLY):  # the JVM may print its own warnings here
                return line_out[len(RUNNER_REPLY) :].decode("utf-8", "replace")


def _nondumpable_java(parent, probe=True):
    """A ``java`` launcher whose JVM is not dumpable, or None where that cannot be had.

    Why: the compiler outlives the cases, which run as the same uid; a dumpable JVM could be
    written through ``/proc/PID/mem`` (or ptraced) by a case and made to miscompile later
    samples. The kernel makes a process non-dumpable when it executes a file it may not read,
    so this builds a private JAVA_HOME whose ``bin/java`` is a fresh execute-only (0111) copy
    of the real launcher, everything else symlinked to the real JDK. It is rebuilt at every
    compiler start (no case process is alive then), so a case cannot plant its own launcher.
    """
    real = shutil.which("java")
    if not real:
        return "java"
    real = os.path.realpath(real)
    home = os.path.dirname(os.path.dirname(real))
    try:
        os.makedirs(parent, mode=0o700, exist_ok=True)
        import tempfile

        fake = tempfile.mkdtemp(prefix="jdk-", dir=parent)
        for old in os.listdir(parent):  # earlier copies
            if old.startswith("jdk-") and os.path.join(parent, old) != fake:
                _rmtree(os.path.join(parent, old))
        for name in os.listdir(home):
            if name != "bin":
                os.symlink(os.path.join(home, name), os.path.join(fake, name))
        os.mkdir(os.path.join(fake, "bin"), 0o700)
        launcher = os.path.join(fake, "bin", "java")
        shutil.copyfile(real, launcher)
        os.chmod(launcher, 0o111)
        if not probe:
            return launcher
        check = subprocess.run(
            [launcher, "-XX:-UsePerfData", "-Xshare:auto", "-version"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
        if check.returncode == 0:
            return launcher
    except (OSError, subprocess.SubprocessError):  # e.g. a noexec workroot (Docker's tmpfs)
        pass
    return None


class JavaCompiler:
    """A long-lived ``Runner`` JVM that only compiles (javax.tools), reused across jobs.

    Why: the first in-process javac compile in a fresh JVM costs ~0.8 s (class loading, cold
    code); later ones 50-250 ms. Compiling does not execute the candidate's code
    (``-proc:none``: no annotation processors), and the classes go to the job's own dir, so
    reusing the compiler does not let samples share state the way reusing the JVM that *runs*
    them would: every job still runs in a fresh JVM. The compiler is restarted after any fault
    (timeout, crash, a kill by a case) or when the job's memory limit differs, and a compile
    that fails on a reused compiler for lack of a reply is retried once on a fresh one, so a
    case that killed or stopped the compiler cannot turn a later sample into a compile error.
    A case could otherwise tamper with the idle compiler, so it runs only where it can be made
    non-dumpable (``_nondumpable_java``: no ``/proc/PID/mem`` or ptrace by the same uid) and
    with its attach mechanism off (no agents); elsewhere (a noexec workroot, as under Docker)
    each job compiles in its own JVM as before.
    """

    def __init__(self, worker):
        self.w = worker
        self.jvm = None
        self.used = 0
        #: None until the first start: whether a non-dumpable launcher works in this sandbox.
        self.protected = None

    def pid(self):
        return self.jvm.proc.pid if self.jvm is not None and self.jvm.alive() else None

    def close(self):
        if self.jvm is not None:
            jvm, self.jvm = self.jvm, None
            jvm.kill()

    def _ensure(self, memory_mb, output_limit):
        jvm = self.jvm
        if (
            jvm is not None
            and jvm.alive()
            and jvm.memory_mb == memory_mb
            and jvm.output_limit == output_limit
        ):
            return True
        self.close()
        control = os.path.join(self.w.workroot, "compiler")
        launcher = _nondumpable_java(control, probe=self.protected is None)
        self.protected = launcher is not None
        if launcher is None:
            return False
        self.jvm = _Jvm(self.w, control, memory_mb, output_limit, ["-XX:+DisableAttachMechanism"], launcher)
        self.jvm.start()
        self.used = 0
        return True

    def compile(self, src_dir, classes_dir, timeout, memory_mb, output_limit):
        """True if it compiled, None where no protected compiler can run here (the caller then
        compiles in its own per-job JVM); diagnostics are in ``src_dir/../compile.txt``."""
        if self.protected is False:
            return None
        for _attempt in range(2):
            if not self._ensure(memory_mb, output_limit):
                return None
            reused = self.used > 0
            self.used += 1
            reply = self.jvm.command(f"C\t{src_dir}\t{classes_dir}", timeout)
            if reply is not None:
                return reply.split("\t")[1:2] == ["0"]
            self.close()
            if not reused:
                break
        with open(os.path.join(os.path.dirname(src_dir), "compile.txt"), "a", encoding="utf-8") as fh:
            fh.write("compiler did not finish (timeout or crash)\n")
        return False


class JavaRunner:
    """Runs a job's Java cases: compiled by the worker's ``JavaCompiler``, run one after another
    in a fresh ``Runner`` JVM per job (one class loader per case).

    If a case ends the run JVM (``System.exit``, a crash, our timeout kill) that case is
    recorded from the JVM's exit and the remaining cases continue in a new JVM.
    """

    def __init__(self, worker, cases, job, class_name, timeout_s, memory_mb, emit):
        self.w = worker
        self.cases = cases
        self.job = job
        self.class_name = class_name
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.emit = emit
        self.output_limit = int(job.get("output_limit_bytes") or (1 << 20))
        self.jvm = _Jvm(
            worker, os.path.join(os.path.dirname(cases[0].dir), "runner"), memory_mb, self.output_limit
        )

    def run_all(self):
        if self.w.javac is None:
            self.w.javac = JavaCompiler(self.w)
        # The run JVM boots while the cases compile.
        self.jvm.start()
        compiled = []
        for index, case in enumerate(self.cases):
            src, classes = os.path.join(case.dir, "src"), os.path.join(case.dir, "classes")
            timeout = max(60.0, self.timeout_s * 3)
            ok = self.w.javac.compile(src, classes, timeout, self.memory_mb, self.output_limit)
            if ok is None:  # no protected long-lived compiler here: compile in this job's JVM
                ok = self._compile_here(src, classes, timeout)
            compiled.append(ok)
            if not ok:
                msg = _read_tail(os.path.join(case.dir, "compile.txt"))
                self.emit(
                    index,
                    {
                        "status": RUN_COMPILE_ERROR,
                        "returncode": 1,
                        "stdout": "",
                        "stderr": msg,
                        "duration_s": 0.0,
                    },
                )
        try:
            self._run_compiled(compiled)
        finally:
            if self.jvm.proc is not None:
                try:
                    self.jvm.proc.stdin.close()
                except OSError:
                    pass
                self.jvm.kill()

    def _compile_here(self, src, classes, timeout):
        if not self.jvm.alive():
            self.jvm.kill()
            self.jvm.start()
        reply = self.jvm.command(f"C\t{src}\t{classes}", timeout)
        if reply is None:
            self.jvm.kill()
            self.jvm.start()
            with open(os.path.join(os.path.dirname(src), "compile.txt"), "a", encoding="utf-8") as fh:
                fh.write("compiler did not finish (timeout or crash)\n")
            return False
        return reply.split("\t")[1:2] == ["0"]

    def _run_compiled(self, compiled):
        jvm = self.jvm
        for index, case in enumerate(self.cases):
            if not compiled[index]:
                continue
            if not jvm.alive():
                jvm.kill()
                jvm.start()
            snap = self.w._tmp_snapshot()
            start = time.monotonic()
            cmd = "R\t{}\t{}\t{}\t{}\t{}\t{}".format(
                os.path.join(case.dir, "classes"),
                self.class_name,
                case.work,
                case.stdin,
                case.stdout,
                case.stderr,
            )
            reply = jvm.command(cmd, self.timeout_s)
            duration = time.monotonic() - start
            if reply is None:
                timed_out = jvm.proc.poll() is None and duration >= self.timeout_s
                status = jvm.kill()
                self.w._tmp_cleanup(snap)
                if timed_out:
                    self.emit(index, case.outcome(RUN_TIMEOUT, None, duration))
                else:  # the case ended the JVM: System.exit, halt, crash
                    rc = status  # negative: killed by that signal, as for the other paths
                    res = case.outcome(RUN_OK, rc, duration)
                    if rc != 0 and _looks_like_memory_error(case):
                        res["status"] = RUN_MEMORY
                    self.emit(index, res)
                continue
            parts = reply.split("\t")
            rc = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else 1
            flags = parts[2] if len(parts) > 2 else ""
            kill_leftovers(self.w.contained, self.w._keep((jvm.proc.pid,)))
            self.w._tmp_cleanup(snap)
            res = case.outcome(RUN_OK, rc, duration)
            if "M" in flags and res["status"] == RUN_OK:
                res["status"] = RUN_MEMORY
            self.emit(index, res)
            if "T" in flags or "M" in flags:  # threads still running or heap exhausted: fresh JVM
                jvm.kill()


# --------------------------------------------------------------------------- main loop


def main(argv=None):
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
    args = parser.parse_args(argv)
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

    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.umask(0o077)

    workroot = args.workroot
    if not workroot:
        import tempfile

        workroot = tempfile.mkdtemp(prefix="biocoder-worker-")
    os.makedirs(workroot, mode=0o700, exist_ok=True)
    worker = Worker(os.path.abspath(workroot), args.contained, args.runtime_dir, args.python, args.max_procs)

    def send(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    send({"ready": True, "pid": os.getpid(), "python": sys.version.split()[0], "contained": args.contained})
    for line in requests:
        line = line.strip()
        if not line:
            continue
        req_id = None
        try:
            req = json.loads(line)
            req_id = req.get("id")
            if req.get("info"):
                send({"id": req_id, "info": worker.info()})
                continue
            job = req["job"]
            options = req.get("options") or {}
            warm = bool(options.get("warm", True))
            language = job.get("language")
            if not isinstance(job.get("programs"), list):
                raise ValueError("job.programs must be a list of program texts")

            def emit(index, outcome, req_id=req_id):
                send({"id": req_id, "index": index, "outcome": outcome})

            os.makedirs(worker.workroot, mode=0o700, exist_ok=True)
            if language == "python":
                worker.run_python(job, warm, emit)
            elif language == "java":
                worker.run_java(job, warm, emit)
            else:
                raise ValueError(f"unknown job.language {language!r} (expected 'python' or 'java')")
            send({"id": req_id, "done": True})
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
                return 1
            send(
                {
                    "id": req_id,
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc()[-STDERR_TAIL:],
                }
            )
    if worker.javac is not None:
        worker.javac.close()
    worker.close_zygotes()
    return 0


if __name__ == "__main__":
    sys.exit(main())
