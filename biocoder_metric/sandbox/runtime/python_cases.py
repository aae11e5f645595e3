# ruff: noqa: B905  (zip(strict=) does not exist on Python 3.9, which this folder must run on)
"""Python cases: preloading a job's imports in a clean zygote, forking one child per case.

Why the fast path: interpreter start-up plus ``import numpy, scipy, pandas`` costs far more
than a typical fuzz case. So a job's top-level imports are imported once, and each case is a
forked child that gets a fresh ``__main__``, its own session, work dir and rlimits, and exits
the way ``python main.py`` would. The cold path (``warm=False``) execs ``python main.py``.

Why a zygote: a case child that is forked from a process which once held another program's
text (a golden, an earlier sample) or its output can read all of it back from its own address
space (/proc/self/mem). So Python case children are forked from a *zygote*: a fresh
interpreter started with exec (clean memory), which only ever receives module names to
preload and file paths. It never reads a program, an input or an output. It forks each case
child, waits for it until its deadline and reports the wait status; the worker (a child
subreaper) kills the leftovers and classifies the outcome. The zygote is non-dumpable, so no
case can read or trace it; if a case kills it, the worker waits for the orphaned child itself
and starts a new zygote (again with exec, never by forking itself).
"""

from __future__ import annotations

import ast
import builtins
import collections
import gc
import io
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import types

from .cases import Case, compile_error, read_marks
from .processes import (
    PR_SET_DUMPABLE,
    child_io,
    children_of,
    die_with_traceback,
    expendable,
    guard_signals,
    kill_case,
    kill_leftovers,
    oom_kills,
    prctl,
    process_state,
    reset_signals,
    rmtree,
    set_limits,
    vm_size_mb,
    wait_deadline,
)
from .protocol import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT_S,
    STDERR_TAIL,
    RunStatus,
    decode_line,
    encode_line,
)
from .python_batch import BatchChildren, run_python_batched
from .python_compile import compile_program

#: The runtime folder. It is never on a case's ``sys.path`` and nothing loaded from it can be
#: imported by a case (``worker.py`` takes it off the path, :func:`_run_main_in_child` forgets
#: our modules), so a candidate can neither import nor shadow the worker's modules.
RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
#: The entry script the zygote is started from (with exec, as a fresh interpreter).
ENTRY = os.path.join(RUNTIME_DIR, "worker.py")
#: Modules never preloaded: they act on import (print, open a browser, need a display).
NO_PRELOAD = {"this", "antigravity", "__hello__", "__phello__", "tkinter", "turtle", "idlelib", "__main__"}
#: The stdio error handlers a fresh interpreter gets in this environment (locale dependent),
#: recorded at start-up so that warm children match cold ones.
STDIO_ERRORS = [
    getattr(sys.stdin, "errors", None) or "strict",
    getattr(sys.stdout, "errors", None) or "strict",
]
#: Zygotes a worker keeps (one per set of preloaded modules); each holds its libraries in memory.
MAX_ZYGOTES = 2


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


def program_imports(tree):
    """Absolute module names a program imports: at module level first, then inside functions
    and classes (imported when called; preloading them saves every case the import, and a
    module that fails to import is left for the case to hit)."""
    names = top_level_imports(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return list(dict.fromkeys(names))


#: A line that starts an import statement (``import x``, ``from x import y``), at any indentation.
_IMPORT_LINE = re.compile(r"^[ \t]*(?:import[ \t]|from[ \t]+[\w.]+[ \t]+import[ \t(])")
#: Module names of earlier programs, by their import lines (the cases of one harness share them).
_IMPORTS_SEEN = collections.OrderedDict()


def import_lines(src):
    """The import statements of ``src`` as dedented source lines (continued lines included)."""
    lines = src.splitlines()
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not _IMPORT_LINE.match(line):
            continue
        stmt = [line.strip()]
        depth = line.count("(") - line.count(")")
        while (depth > 0 or stmt[-1].endswith("\\")) and i < len(lines):
            stmt.append(lines[i].strip())
            depth += lines[i].count("(") - lines[i].count(")")
            i += 1
        out.append("\n".join(stmt))
    return tuple(out)


def preload_names(src):
    """What to preload for ``src``: the modules its import statements name, at module level or
    inside functions (imported when called; preloading saves every case the import, and a module
    that fails to import is left for the case to hit).

    Why not ``ast.parse`` of the whole program: parsing a 12 kB harness costs milliseconds, five
    times per sample. The import statements alone are parsed (once per distinct set, remembered),
    falling back to the whole program when they do not parse alone. A line that only looks like
    an import (inside a string) can add a name; preloading is never seen by a case's verdict.
    """
    key = import_lines(src)
    names = _IMPORTS_SEEN.get(key)
    if names is None:
        try:
            tree = ast.parse("\n".join(key))
        except SyntaxError:
            tree = ast.parse(src)
        names = program_imports(tree)
        _IMPORTS_SEEN[key] = names
        while len(_IMPORTS_SEEN) > 256:
            _IMPORTS_SEEN.popitem(last=False)
    else:
        _IMPORTS_SEEN.move_to_end(key)
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


# --------------------------------------------------------------------------- in the case child


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


#: Names in ``sys.modules`` this process has already looked at (``_forget_runtime_modules``).
_MODULES_SEEN = set()


def _forget_runtime_modules():
    """Drop the worker's own modules from ``sys.modules``: ``import`` of them fails, as in a fresh
    interpreter (the code running here keeps its references).

    Only names not looked at before are tested (a set difference, in C): a later case of the same
    process would otherwise test every one of the thousands of preloaded modules again."""
    own = __package__
    if own:
        new = sys.modules.keys() - _MODULES_SEEN
        gone = [n for n in new if n == own or n.startswith(own + ".")]
        for name in gone:
            del sys.modules[name]
        _MODULES_SEEN.update(new)
        _MODULES_SEEN.difference_update(gone)  # imported again later, it is dropped again


def _fresh_numpy_random():
    """numpy's global generator as a fresh process has it: seeded from the OS's entropy (a full
    Mersenne Twister state's worth, 624 words, set directly: numpy's own ``seed()`` derives the
    same from fewer bytes at seven times the cost)."""
    np_random = sys.modules.get("numpy.random")
    if np_random is None:
        return
    try:
        np_random.seed(sys.modules["numpy"].frombuffer(os.urandom(2496), dtype="uint32"))
    except Exception:
        try:
            np_random.seed()
        except Exception:
            pass


def warm_up():
    """In a spare case process, before it has a case: touch what every case's set-up touches
    (``run_program``: stdio objects, ``sys.modules``, ``sys.path``, numpy's global generator, the
    eval loop), so that its copy-on-write page faults are paid while the spare waits, not on
    the first case's critical path. Nothing of it is kept: each case sets all of it up again."""
    try:
        for fd, mode in ((0, "r"), (1, "w"), (2, "w")):
            raw = io.FileIO(fd, mode, closefd=False)
            buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
            io.TextIOWrapper(buffered, encoding="utf-8").detach()
        _forget_runtime_modules()
        [p for p in sys.path if p and os.path.abspath(p) != RUNTIME_DIR]
        _fresh_numpy_random()
        exec(compile("x = [i for i in range(3)]\n", "<warm-up>", "exec"), {"__builtins__": builtins})
    except Exception:
        pass


def _run_main_in_child(code_obj, case, spec=None):
    """Runs in the forked child: execute the program as ``__main__``, then exit like python would."""
    os._exit(run_program(code_obj, spec))


def _join_threads():
    """Wait for the program's non-daemon threads, as interpreter exit does (threading's own
    ``_shutdown`` marks the main thread stopped, so it can run only once per process)."""
    import threading

    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and not thread.daemon:
            try:
                thread.join()
            except BaseException:  # noqa: B036
                pass


def run_program(code_obj, spec=None, batch=False):
    """Execute ``code_obj`` (a code object, or a program's chunks in order: ``python_compile``) as
    a fresh ``__main__`` in this process; the exit code python would give.

    ``batch``: more programs follow in this process (``python_batch``), so exit hooks run and
    are cleared, threads are joined, but the interpreter's one-time shutdown is left alone.
    """
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
    # a script's own dir comes first on sys.path; the runtime's dir is not there at all
    sys.path[:] = [os.getcwd()] + [p for p in sys.path if p and os.path.abspath(p) != RUNTIME_DIR]
    _forget_runtime_modules()
    main = types.ModuleType("__main__")
    main.__dict__.update(
        {"__file__": os.path.join(os.getcwd(), "main.py"), "__builtins__": builtins, "__cached__": None}
    )
    sys.modules["__main__"] = main
    _fresh_numpy_random()
    rc = 0
    if spec is not None:
        _child_mark(spec, "program_start")
    try:
        for part in code_obj if isinstance(code_obj, tuple) else (code_obj,):
            exec(part, main.__dict__)
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
        if batch:
            _join_threads()
        else:
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
    if spec is not None and not batch:
        _child_mark(spec, "child_exit")
    return rc


def _child_mark(spec, name):
    """Profiling only (``spec["profile"]``): append ``name monotonic-time`` to the case's marks file."""
    path = spec.get("profile")
    if path:
        try:
            with open(path, "a") as fh:
                fh.write(f"{name} {time.monotonic():.9f}\n")
        except OSError:
            pass


def _zygote_child(spec, base_vm_mb):
    """In the case child: files, limits, then run ``main.py`` warm (exec'd code) or exec python."""
    _child_mark(spec, "child_start")
    os.setsid()
    case = types.SimpleNamespace(
        stdin=spec["stdin"], stdout=spec["stdout"], stderr=spec["stderr"], work=spec["work"]
    )
    child_io(case, spec.get("tmpdir"))
    memory_mb = int(spec["memory_mb"])
    if spec["mode"] == "warm":
        # Modules preloaded in the zygote sit in this address space; they must not eat the
        # program's memory budget.
        memory_mb += max(0, vm_size_mb() - base_vm_mb)
    set_limits(memory_mb, int(spec["fsize"]), int(spec["nproc"]), bool(spec["address_space"]))
    expendable()
    reset_signals()  # the zygote ignores every signal; a case starts as a fresh interpreter does
    if spec["mode"] != "warm":
        exe = spec["python"]
        os.execv(exe, [exe, "main.py"])
    _child_mark(spec, "child_limits")
    with open("main.py", encoding="utf-8") as fh:
        src = fh.read()
    try:
        code_obj = compile(src, "main.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        del src
        os.write(2, "".join(traceback.format_exception_only(type(exc), exc)).encode("utf-8", "replace"))
        os._exit(1)
    del src
    _child_mark(spec, "child_compiled")
    _run_main_in_child(code_obj, case, spec)


# --------------------------------------------------------------------------- the zygote


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
            die_with_traceback()
        os._exit(127)
    forked = time.monotonic()
    send({"pid": pid})
    status = wait_deadline(pid, time.monotonic() + deadline_s)
    timed_out = status is None
    if timed_out:
        status = kill_case(pid)
    reply = {"status": status, "timed_out": timed_out}
    if spec.get("profile"):
        reply["marks"] = {"zygote_forked": forked, "zygote_reaped": time.monotonic()}
    return reply


def zygote_main(fd):
    """The zygote's loop: JSON lines on the socket ``fd``; see :class:`Zygote`.

    Requests are answered in order. Case processes of whole jobs (``python_batch``) run while
    the zygote serves further requests; their ends are reported as events
    (``{"event": "exited", ...}``), and a spare one is kept forked, so that no job waits for a fork.
    """
    import select
    import socket

    prctl(PR_SET_DUMPABLE, 0)  # exec made us dumpable again
    # Deaf to every signal a case can send but SIGKILL and SIGSTOP (the worker handles both).
    guard_signals(ignore=True)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.chdir("/")
    sock = socket.socket(fileno=fd)
    base_vm_mb = vm_size_mb()
    failed = set()
    jobs = BatchChildren(base_vm_mb, run_program, _child_mark, warm_up)

    def send(obj, passed=None):
        data = encode_line(obj).encode("utf-8")
        if passed is None:
            sock.sendall(data)
        else:
            socket.send_fds(sock, [data], [passed])

    buf = b""
    while True:
        for event in jobs.reap():
            send(event)
        ready, _, _ = select.select([sock] + jobs.waitables(), [], [], jobs.wait_timeout())
        if sock not in ready:
            continue
        chunk = sock.recv(1 << 16)
        if not chunk:
            return 0
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            req = decode_line(line.decode("utf-8"))
            op = req.get("op")
            try:
                # Before anything else: no child the zygote did not fork (a case's
                # ``clone(CLONE_PARENT)``) lives on, not even as a zombie.
                jobs.sweep()
                if op == "preload":
                    before = len(sys.modules)
                    preload(req.get("names") or [], failed)
                    # Move everything loaded so far out of the collector's reach: a case child's
                    # garbage collection would otherwise walk (and so copy-on-write) every preloaded
                    # object, which costs tens of milliseconds per case with numpy, scipy & co loaded.
                    gc.freeze()
                    if len(sys.modules) != before:
                        jobs.stale()  # a spare forked before these imports lacks them
                    reply = {"ok": True}
                elif op == "run":
                    reply = _zygote_run(req["spec"], base_vm_mb, send)
                elif op == "batch":
                    pid, passed, marks = jobs.start(float(req.get("timeout_s") or DEFAULT_TIMEOUT_S))
                    reply = {"pid": pid}
                    if req.get("profile"):
                        reply["marks"] = marks
                    send(reply, passed)
                    os.close(passed)
                    continue
                elif op == "spare":
                    # Sent when a job ends, while the worker waits for the next: the fork and the
                    # spare's warm-up then use the sandbox's CPU while nothing else does (forked
                    # while a job runs, they would slow that job down: one CPU's quota).
                    spare = jobs.fork_spare()
                    if spare:
                        send({"event": "spare", "pid": spare})
                    continue
                elif op == "sweep":
                    jobs.sweep()
                    reply = {"ok": True}
                else:
                    reply = {"error": f"unknown op {op!r}"}
            except Exception as exc:
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            send(reply)


class Zygote:
    """The worker's handle on its zygote process (started with exec, never forked from us)."""

    REPLY_TIMEOUT_S = 120.0

    def __init__(self, python_exe):
        import socket

        ours, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [python_exe, "-s", ENTRY, "--zygote-fd", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=2,
            stderr=2,
            close_fds=True,
            cwd="/",
        )
        theirs.close()
        self.sock = ours
        self.buf = b""
        self.fds = []
        self.preloaded = []
        #: pid -> the zygote's ``exited`` event for a case process of a whole job.
        self.events = {}
        #: Whether this zygote has forked case processes of whole jobs (then it keeps a spare).
        self.batch = False
        #: The pid of its spare case process, as last announced (an ``spare`` event).
        self.spare = None

    def notify(self, obj):
        """Send a request that gets no reply (``spare``); a zygote that is gone is found later."""
        try:
            self.sock.sendall(encode_line(obj).encode("utf-8"))
        except OSError:
            pass

    def take_fd(self):
        """The fd the zygote handed over with its last reply (``batch``), or None."""
        self.batch = True
        return self.fds.pop(0) if self.fds else None

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def call(self, obj):
        """Send one request and read its (first) reply line."""
        self.sock.sendall(encode_line(obj).encode("utf-8"))
        return self.reply(self.REPLY_TIMEOUT_S)

    def reply(self, timeout_s, stop_at_event=False):
        """The next reply line; OSError if the zygote died, was stopped, hung past ``timeout_s`` or failed.

        Events (a case process of a whole job ended) are kept in :attr:`events` on the way;
        ``stop_at_event`` returns at the first one instead (:meth:`wait_exit`, :meth:`drain_events`).

        A case can SIGSTOP the zygote (no process can ignore that): its state is polled while we
        wait, so a stopped zygote costs a fraction of a second, not the whole reply timeout.
        """
        import select
        import socket

        deadline = time.monotonic() + timeout_s
        while True:
            while b"\n" not in self.buf:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise OSError("zygote did not answer in time")
                ready, _, _ = select.select([self.sock], [], [], min(0.25, left))
                if not ready:
                    if process_state(self.pid) in ("T", "t", "Z", "X", None):
                        raise OSError("zygote stopped or gone")
                    continue
                chunk, fds, _flags, _addr = socket.recv_fds(self.sock, 1 << 16, 4)
                self.fds.extend(fds)
                if not chunk:
                    raise OSError("zygote exited")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            reply = decode_line(line.decode("utf-8"))
            if reply.get("event") == "spare":
                self.spare = int(reply["pid"])
                if stop_at_event:
                    return reply
                continue
            if reply.get("event") == "exited":
                self.events[int(reply["pid"])] = reply
                if stop_at_event:
                    return reply
                continue
            if "error" in reply:
                raise OSError("zygote: " + reply["error"])
            return reply

    def drain_events(self):
        """Read the events the zygote has sent so far, without waiting."""
        import select

        try:
            while select.select([self.sock], [], [], 0)[0] or b"\n" in self.buf:
                self.reply(0.5, stop_at_event=True)
        except (OSError, ValueError):
            pass

    def wait_exit(self, pid, timeout_s):
        """The zygote's ``exited`` event for case process ``pid`` (OSError as :meth:`reply`)."""
        deadline = time.monotonic() + timeout_s
        while pid not in self.events:
            self.reply(max(0.0, deadline - time.monotonic()), stop_at_event=True)
        return self.events.pop(pid)

    def kill(self):
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []
        try:
            self.proc.kill()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except Exception:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


class Zygotes:
    """The clean interpreters Python cases fork from: pid -> (:class:`Zygote`, names it preloaded),
    most recently used last; ``current`` is the one the current job uses."""

    def __init__(self):
        self.live = collections.OrderedDict()
        self.current = None

    def pids(self):
        """The pids of the live zygotes (``kill_leftovers`` must spare them)."""
        return [z.pid for z, _ in self.live.values() if z.alive()]

    def children(self, known):
        """The children of the live zygotes that ``kill_leftovers`` must spare: those in ``known``
        (case processes of whole jobs the worker holds) and each zygote's spare.

        Any other child of a zygote was slipped in by a case (``clone(CLONE_PARENT)`` makes the
        zygote its parent): the zygote is asked to kill it (``BatchChildren.sweep``) before the
        caller kills the rest, so that its orphans are found too. A zygote that cannot answer is
        ended, and its children with it. A zygote that forks per case has no child between
        cases: whatever it has then is a leftover, killed by the caller.
        """
        out = []
        for zyg, _ in list(self.live.values()):
            if not (zyg.batch and zyg.alive()):
                continue
            kids = set(children_of(zyg.pid) or ())
            if kids - known - {zyg.spare}:
                zyg.drain_events()  # the spare it forked since may not be announced yet
            if kids - known - {zyg.spare}:
                try:
                    zyg.call({"op": "sweep"})
                except (OSError, ValueError):
                    zyg.kill()
                    continue
            out.extend(kids & (known | {zyg.spare}))
        return out

    def keep_only(self, sound):
        """End every zygote for whose pid ``sound`` is false (``Worker.check_shared``); a new one is
        started when a job needs it."""
        for key in [k for k, (z, _) in self.live.items() if not (z.alive() and sound(z.pid))]:
            zyg = self.live.pop(key)[0]
            zyg.kill()
            if self.current is zyg:
                self.current = None

    def get(self, names):
        """A live zygote that has preloaded ``names``: the one that shares most of them (asked to
        preload the rest when it already has at least half), else a new one (and the least
        recently used ended beyond :data:`MAX_ZYGOTES`).

        Why several: forking costs in proportion to the parent's address space, so one zygote that
        accumulated every task's libraries would make every case pay for all of them. Samples of
        one task share the harness's imports and come in a row, so switches are rare, and a
        sample's own extra imports only grow the zygote of its task.
        """
        wanted = set(names)
        for key in [k for k, (z, _) in self.live.items() if not z.alive()]:
            self.live.pop(key)[0].kill()
        best = max(
            self.live.items(),
            key=lambda kv: (len(kv[1][1] & wanted), list(self.live).index(kv[0])),
            default=None,
        )
        if best is not None and (wanted <= best[1][1] or 2 * len(best[1][1] & wanted) >= len(wanted)):
            key, (zyg, loaded) = best
            self.live.move_to_end(key)
            missing = [n for n in names if n not in loaded]
            if missing:
                zyg.call({"op": "preload", "names": missing})
                loaded.update(missing)
        else:
            zyg = Zygote(sys.executable)
            if names:
                zyg.call({"op": "preload", "names": list(names)})
            self.live[zyg.pid] = (zyg, set(names))
            while len(self.live) > MAX_ZYGOTES:
                self.live.popitem(last=False)[1][0].kill()
        self.current = zyg
        return zyg

    def call(self, request, names):
        """Send ``request`` to the zygote for ``names`` (restarted, preloads redone, if a case killed it)."""
        for attempt in range(2):
            zyg = None
            try:
                zyg = self.get(names)
                return zyg.call(request)
            except (OSError, ValueError):
                if zyg is not None:
                    zyg.kill()
                if attempt:
                    raise
        raise OSError("zygote unavailable")

    def close(self):
        for zyg, _ in self.live.values():
            zyg.kill()
        self.live.clear()
        self.current = None


# --------------------------------------------------------------------------- a Python job


def run_python(worker, job, warm, emit):
    """Run a Python job's cases one after another, each emitted as soon as it ends."""
    programs = job["programs"]
    timeout_s = float(job.get("timeout_s") or DEFAULT_TIMEOUT_S)
    memory_mb = int(job.get("memory_mb") or DEFAULT_MEMORY_MB)
    compiled = []
    batched = warm and worker.batch
    for src in programs:
        try:
            # the batched path compiles chunk by chunk, remembering chunks across programs
            # (``python_compile``); off, the previous design: each program whole
            code_obj = compile_program(src) if batched else compile(src, "main.py", "exec", dont_inherit=True)
            compiled.append((code_obj, None))
        except (SyntaxError, ValueError) as exc:
            compiled.append((None, "".join(traceback.format_exception_only(type(exc), exc))))
        except (MemoryError, RecursionError, OverflowError) as exc:
            compiled.append((None, f"{type(exc).__name__}: {exc}\n"))
    worker.mark_job("job_compiled")
    names = []
    if warm:
        for src, (code_obj, _) in zip(programs, compiled):
            if code_obj is not None:
                try:
                    # the batched path also preloads imports inside functions, read from the import
                    # statements alone (``preload_names``); off, the previous design: the whole
                    # program parsed, top-level imports only
                    names.extend(preload_names(src) if worker.batch else top_level_imports(ast.parse(src)))
                except Exception:
                    pass
        names = [n for n in dict.fromkeys(names) if n.split(".")[0] not in NO_PRELOAD]
    for index, (code_obj, err) in enumerate(compiled):
        if code_obj is None:
            emit(index, compile_error(err[-STDERR_TAIL:]))
    if warm and names:
        try:
            worker.zygotes.get(names)
        except (OSError, ValueError):
            pass  # every case below then reports the sandbox error
    worker.mark_job("job_zygote")
    limits = (names, timeout_s, memory_mb)
    if batched:
        run_python_batched(worker, job, programs, [c for c, _ in compiled], limits, emit, run_case_alone)
        return
    codes_ok = [code_obj is not None for code_obj, _ in compiled]
    del compiled  # the worker keeps no code objects it does not need
    jobdir = worker.job_dir()
    try:
        for index, (src, ok) in enumerate(zip(programs, codes_ok)):
            if ok:
                result, marks = run_case_alone(worker, job, jobdir, index, src, limits, warm)
                emit(index, result, marks)
    finally:
        rmtree(jobdir)


def run_case_alone(worker, job, jobdir, index, src, limits, warm=True):
    """One case in a process of its own (forked from the zygote, or exec'd cold): its outcome
    and its profiling marks (None unless profiling)."""
    names, timeout_s, memory_mb = limits
    zygotes = worker.zygotes
    marks = {"case_start": time.monotonic()} if worker.profile else None
    case = Case(jobdir, index, job)
    main_path = os.path.join(case.work, "main.py")
    with open(main_path, "w", encoding="utf-8") as fh:
        fh.write(src)
    tmpdir = None if worker.contained else os.path.join(case.work, ".tmp")
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
        "nproc": worker.max_procs,
        "address_space": True,
        "mode": "warm" if warm else "exec",
        "python": worker.python_exe,
        "timeout_s": timeout_s,
    }
    if marks is not None:
        spec["profile"] = os.path.join(case.dir, "marks")
        marks["files_written"] = time.monotonic()
    snap = worker.tmp_snapshot()
    oom_before = oom_kills()
    start = time.monotonic()
    try:
        pid = zygotes.call({"op": "run", "spec": spec}, names)["pid"]
    except (OSError, ValueError, KeyError) as exc:
        result = case.outcome(RunStatus.SANDBOX_ERROR, None, 0.0, f"zygote: {exc}\n")
        kill_leftovers(worker.contained, worker.keep())
        worker.tmp_cleanup(snap)
        rmtree(case.dir)
        return result, marks
    if marks is not None:
        marks["pid_received"] = time.monotonic()
    try:
        end = zygotes.current.reply(timeout_s + 30.0)
        status, timed_out = end["status"], bool(end["timed_out"])
        if marks is not None:
            marks["end_received"] = time.monotonic()
            marks.update(end.get("marks") or {})
    except (OSError, ValueError, KeyError):
        # The case killed or stopped the zygote: its child is ours now (subreaper).
        zygotes.current.kill()  # Zygotes.get starts a new one for the next case
        status = wait_deadline(pid, start + timeout_s)
        timed_out = status is None
        if timed_out:
            status = kill_case(pid)
    result = worker.settle(pid, case, start, status, timed_out, snap, oom_before, marks=marks)
    if marks is not None:
        marks["outcome_read"] = time.monotonic()
        marks.update(read_marks(os.path.join(case.dir, "marks")))
    rmtree(case.dir)
    worker.sweep_workroot(jobdir)
    if marks is not None:
        marks["swept"] = time.monotonic()
    return result, marks
