"""Process control for the worker: limits, deadlines, leftovers, scratch files.

Why a module of its own: every way a case runs (a Python child forked from the zygote, a
``javac``/``java`` process, a Runner JVM) needs the same few guarantees, and they are where
containment is won or lost: rlimits set before the program starts, a deadline enforced by
waiting (never by trusting the program), every process the case left behind killed and reaped
(the worker is their subreaper), the case's scratch files removed. These are the operating
system mechanics only; what a case *is* lives in ``cases.py`` and the language modules.
"""

from __future__ import annotations

import os
import resource
import select
import shutil
import signal
import time
import traceback

from .protocol import STDERR_TAIL

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
#: Scratch dirs a contained worker sweeps after every case (private tmpfs there).
TMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")


def die_with_traceback(code=127):
    """In a forked child whose work raised: write the traceback to stderr and exit at once.

    ``os._exit`` skips the parent's atexit handlers and buffered streams, which a forked child
    must never run; writing the traceback must not itself raise.
    """
    try:
        os.write(2, traceback.format_exc().encode("utf-8", "replace"))
    except Exception:
        pass
    os._exit(code)


#: Signals no process can catch or ignore, and SIGCHLD, whose default the waits below rely on.
_UNTOUCHABLE = {signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD}


def catchable_signals():
    """Every signal number a handler can be set for here, SIGCHLD excluded."""
    valid = getattr(signal, "valid_signals", None)
    numbers = valid() if valid else range(1, signal.NSIG)
    return sorted(int(s) for s in numbers if int(s) not in _UNTOUCHABLE and 0 < int(s) < signal.NSIG)


def guard_signals(ignore):
    """Make this process deaf to every signal a case can send it.

    ``ignore=False`` is for the worker as pid 1 of its pid namespace: the kernel drops every
    signal sent from inside the namespace to an init whose disposition is the default, so no
    handler at all is the protection (SIGKILL and SIGSTOP from inside are dropped too). Python
    installs a SIGINT handler at start-up, which is exactly what let a case ``kill(1, SIGINT)``
    the worker; it is removed here. ``ignore=True`` is for the zygote (not an init): every
    catchable signal is ignored, so only SIGKILL and SIGSTOP reach it, and the worker handles
    both (restart; a stopped zygote is killed). Children reset with :func:`reset_signals`.
    """
    for sig in catchable_signals():
        try:
            signal.signal(sig, signal.SIG_IGN if ignore else signal.SIG_DFL)
        except (OSError, ValueError, RuntimeError):
            pass


def reset_signals():
    """In a case child: the dispositions a fresh ``python main.py`` starts with.

    Everything default, except SIGXFSZ ignored and SIGINT raising KeyboardInterrupt, as the
    interpreter sets them at start-up (SIGPIPE stays default: a case writing to a closed pipe
    ends, as before). An ignored signal survives ``exec``, so this runs before cold paths too.
    """
    for sig in catchable_signals():
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError, RuntimeError):
            pass
    try:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except (OSError, ValueError, RuntimeError):
        pass


def expendable():
    """Mark this process (a case) as the first the kernel's OOM killer takes.

    A case that exhausts the sandbox's memory (many processes under their own limits) then dies
    before the worker does, so the sandbox keeps the headroom to report the case. Raising one's
    own ``oom_score_adj`` needs no privilege; children inherit it.
    """
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")
    except OSError:
        pass


def process_state(pid):
    """The one-letter state of ``pid`` from /proc (``T`` stopped, ``Z`` zombie...), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        return data[data.rindex(b")") + 2 :].split()[0].decode("ascii", "replace")
    except (OSError, ValueError, IndexError):
        return None


#: Every resource limit ``prlimit(2)`` can set in another process of the same uid.
_RLIMITS = tuple(sorted(getattr(resource, n) for n in dir(resource) if n.startswith("RLIMIT_")))
#: ``ioprio_get`` by machine (no libc wrapper); elsewhere the I/O priority is not compared.
_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}
_IOPRIO = []


def _ioprio(pid):
    if not _IOPRIO:
        import ctypes
        import platform

        number = _IOPRIO_GET.get(platform.machine())
        _IOPRIO.append((ctypes.CDLL(None, use_errno=True).syscall, number) if number else None)
    if _IOPRIO[0] is None:
        return None
    syscall, number = _IOPRIO[0]
    return syscall(number, 1, pid)  # IOPRIO_WHO_PROCESS


def process_controls(pid):
    """What any process of the same uid can change about process ``pid`` from outside it,
    without ptrace (which non-dumpable processes refuse): its resource limits (``prlimit``), nice
    value, CPU affinity, scheduling policy and priority, and I/O priority. None if it is gone.

    Why: the worker, its zygotes, a zygote's spare case process and the Java compiler outlive
    the case that runs beside them, and what they pass on (a limit, a priority) reaches the
    *next* sample. A case lowering a zygote's CPU limit or stopping the spare would turn another
    sample's verdict into a timeout. So the worker compares these with what they started with
    before every job, and replaces a process that differs (``Worker.check_shared``). Read for the
    main thread: the one that forks.
    """
    try:
        return (
            tuple(resource.prlimit(pid, r) for r in _RLIMITS),
            os.getpriority(os.PRIO_PROCESS, pid),
            tuple(sorted(os.sched_getaffinity(pid))),
            os.sched_getscheduler(pid),
            os.sched_getparam(pid).sched_priority,
            _ioprio(pid),
        )
    except (OSError, ValueError):
        return None


def untouched(pid, expected):
    """Whether process ``pid`` runs (not stopped, not gone) with the controls ``expected``."""
    return process_state(pid) not in ("T", "t", "Z", "X", None) and process_controls(pid) == expected


def prctl(option, value):
    """Best-effort prctl via ctypes (no third-party module in the image)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except Exception:
        return False


def open_pidfd(pid):
    """A pidfd of ``pid`` (readable once it has ended), or -1 where the kernel or Python has none."""
    if hasattr(os, "pidfd_open"):
        try:
            return os.pidfd_open(pid)
        except OSError:
            pass
    return -1


def wait_deadline(pid, deadline):
    """Wait for ``pid`` until ``deadline`` (monotonic). Returns the wait status or None on timeout."""
    pidfd = open_pidfd(pid)
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


def kill_case(pid):
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


def children_of(pid):
    """Direct children of ``pid`` (empty if unknown)."""
    kids = _children_of(pid)
    if kids is None:
        kids = _children_map().get(pid, [])
    return kids


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
    # A SIGKILLed process is still listed until the kernel has torn it down, which on a loaded
    # machine outlasts a tight loop: wait for the leftovers to be gone (briefly, growing waits,
    # at most 5 s), so the next case of this process never sees them (tests/test_case_batching.py).
    delay, deadline = 0.0005, time.monotonic() + 5.0
    while True:
        pids = _descendants(me, keep)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap(keep)
        if time.monotonic() > deadline:
            break
        if not _running(_descendants(me, keep)):
            break  # zombies only: reaped below, or left to a kept process's own wait
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    _reap(keep)


def _running(pids):
    """The processes among ``pids`` that are not zombies (a zombie runs nothing and lists no command)."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z":
            out.append(pid)
    return out


def set_limits(memory_mb, fsize, nproc, address_space):
    """rlimits of a case process: no core dumps, file size, processes, address space."""

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


def close_other_fds(keep=-1):
    """Close every fd above 2 but ``keep``. Listing /proc/self/fd is far cheaper than closing 65k
    numbers one syscall at a time (Python 3.9 has no close_range; under Docker's seccomp each call costs)."""
    try:
        fds = [int(x) for x in os.listdir("/proc/self/fd")]
    except OSError:
        fds = range(3, 65536)
    for fd in fds:
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def child_io(case, tmpdir):
    """Point fds 0-2 at the case's files and close every other fd (notably the protocol pipe)."""
    fd_in = os.open(case.stdin, os.O_RDONLY)
    fd_out = os.open(case.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    fd_err = os.open(case.stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd_in, 0)
    os.dup2(fd_out, 1)
    os.dup2(fd_err, 2)
    close_other_fds()
    os.chdir(case.work)
    if tmpdir:
        os.environ["TMPDIR"] = tmpdir


def exit_code(status):
    """Shell convention: exit status, or 128+signal for a killed process (what ``java Main`` reports too)."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return -1


# --------------------------------------------------------------------------- measurements


def vm_size_mb():
    """This process's address-space size (VmSize) in MiB, or 0 if unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def oom_kills():
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


# --------------------------------------------------------------------------- files


def read_head(path, limit):
    try:
        with open(path, "rb") as fh:
            return fh.read(limit)
    except OSError:
        return b""


def read_tail(path, limit=STDERR_TAIL):
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def file_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def rmtree(path):
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


def remove_entries(path, keep):
    """Delete every entry of the directory ``path`` whose name is not in ``keep``."""
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        if name not in keep:
            rmtree(os.path.join(path, name))


def tmp_snapshot(contained):
    """The entries of the scratch dirs before a case (None where they are not ours to sweep)."""
    if not contained:
        return None
    snap = {}
    for d in TMP_DIRS:
        try:
            snap[d] = set(os.listdir(d))
        except OSError:
            pass
    return snap


def tmp_cleanup(snap):
    """Remove what a case added to the scratch dirs since :func:`tmp_snapshot`."""
    if not snap:
        return
    for d, before in snap.items():
        remove_entries(d, before)
