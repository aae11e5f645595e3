"""All fuzz cases of one sample in one clean case process (``sandbox/runtime/python_batch.py``).

What must hold (docs/security.md, "One process per sample"):

* the cases of one job share a process, and a case that crashes, exits early or times out ends
  only itself: the next case runs in a fresh process;
* a case that forges the control protocol changes only its own outcomes, never into an
  infrastructure status, and later cases still run;
* files, processes and kernel objects are reset between cases of one process (the persistence
  probe in test_clean_state.py covers every writable place; here: a leftover daemon process);
* nothing of one sample's process reaches the next sample: a fresh process per job;
* with ``batch=False`` every case gets its own process (the engine's "optimisations off" path).
"""

from __future__ import annotations

import pytest

from reliability_support import sandbox_reason

pytestmark = [pytest.mark.slow]

SANDBOXES = ["bwrap", "docker"]


def _box(name: str, **kw):
    reason = sandbox_reason(name)
    if reason:
        pytest.skip(f"{name} sandbox not available here: {reason}")
    from biocoder_metric.sandbox import make_sandbox

    return make_sandbox(name, **kw)


def _job(*programs: str, timeout_s: float = 20.0, stdin: str = ""):
    from biocoder_metric.types import Job

    return Job(language="python", programs=tuple(programs), timeout_s=timeout_s, stdin=stdin)


PID = "import os\nprint(os.getpid(), flush=True)\n"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_crash_or_timeout_ends_only_its_case_and_the_next_case_gets_a_fresh_process(sandbox):
    with _box(sandbox) as box:
        out = box.run(
            _job(
                PID,
                PID + "os._exit(3)\n",
                PID,
                "import os\nprint(os.getpid(), flush=True)\nwhile True:\n    pass\n",
                PID,
                PID + "raise SystemExit(4)\n",
                PID,
                timeout_s=3.0,
            )
        )
    status = [(o.status, o.returncode) for o in out]
    assert status == [("ok", 0), ("ok", 3), ("ok", 0), ("timeout", None), ("ok", 0), ("ok", 4), ("ok", 0)], (
        status
    )
    pids = [int(o.stdout.split()[0]) for o in out]
    assert pids[0] == pids[1], "cases of one job share their process"
    assert pids[2] != pids[1], "after os._exit the next case starts in a fresh process"
    assert pids[4] != pids[3], "after a timeout the next case starts in a fresh process"
    assert pids[5] == pids[4] == pids[6], "SystemExit ends the case, not the process"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_without_batching_every_case_has_its_own_process(sandbox):
    with _box(sandbox, batch=False) as box:
        out = box.run(_job(PID, PID, PID))
    pids = [int(o.stdout.split()[0]) for o in out]
    assert len(set(pids)) == 3, pids


FORGE = """
import os, socket, stat
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, {payload!r})
    except OSError:
        pass
print("forger")
"""


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize(
    "payload",
    [b"done 0 0\ndone 1 0\n", b"done 7 0\n", b"x" * 200, b"done 0 0\n"],
    ids=["two-dones", "wrong-index", "garbage", "early-done"],
)
def test_a_forged_control_message_changes_only_its_own_sample_and_never_the_accounting(sandbox, payload):
    forger = FORGE.format(payload=payload) + "import time\ntime.sleep(0.5)\nprint('late')\n"
    with _box(sandbox) as box:
        out = box.run(_job(forger, "print('one')\n", "print('two')\n", "print('three')\n"))
        after = box.run(_job("print('next sample')\n"))
    assert all(o.status not in ("sandbox_error", "sandbox_killed") for o in out), [o.status for o in out]
    # the forger may spoil its own sample's next case (it still runs case 0 while case 1 waits),
    # but never beyond: a fresh process takes over and the remaining cases print their own output
    assert out[-1].status == "ok" and out[-1].stdout == "three\n", out[-1]
    assert after[0].status == "ok" and after[0].stdout == "next sample\n", after[0]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_processes_left_by_a_case_are_gone_before_the_next_case_of_the_same_process(sandbox):
    spawn = (
        "import subprocess, os\n"
        "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "print(os.getpid())\n"
    )
    look = (
        "import os\n"
        "found = []\n"
        "for p in os.listdir('/proc'):\n"
        "    try:\n"
        "        if p.isdigit() and open(f'/proc/{p}/cmdline', 'rb').read().startswith(b'sleep'):\n"
        "            found.append(p)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(os.getpid(), len(found))\n"
    )
    with _box(sandbox) as box:
        out = box.run(_job(spawn, look))
    assert [o.status for o in out] == ["ok", "ok"], out
    pid0 = int(out[0].stdout.split()[0])
    pid1, leftovers = map(int, out[1].stdout.split())
    assert pid0 == pid1 and leftovers == 0, out[1].stdout


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_module_state_is_shared_within_a_sample_only(sandbox):
    plant = "import json\njson.planted = 'x'\nprint('planted')\n"
    look = "import json\nprint(hasattr(json, 'planted'))\n"
    with _box(sandbox) as box:
        same = box.run(_job(plant, look))
        other = box.run(_job(look))
    assert same[1].stdout == "True\n", "documented: a sample's cases share its process"
    assert other[0].stdout == "False\n", "a later sample never sees an earlier sample's process"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_each_case_gets_its_own_stdin_stdout_threads_and_exit_hooks(sandbox):
    prog = (
        "import sys, threading, time, atexit\n"
        "atexit.register(lambda: print('bye', flush=True))\n"
        "def late():\n"
        "    time.sleep(0.2)\n"
        "    print('thread', flush=True)\n"
        "threading.Thread(target=late).start()\n"
        "print(sys.stdin.read().strip())\n"
    )
    with _box(sandbox) as box:
        out = box.run(_job(prog, prog, stdin="in"))
    assert [o.stdout for o in out] == ["in\nthread\nbye\n"] * 2, [o.stdout for o in out]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_an_output_flood_is_charged_to_its_case_only(sandbox):
    from biocoder_metric.types import Job

    flood = "import sys\nsys.stdout.write('x' * 5000)\n"
    with _box(sandbox) as box:
        out = box.run(
            Job(
                language="python",
                programs=(flood, "print('fine')\n"),
                timeout_s=20.0,
                output_limit_bytes=1000,
            )
        )
    assert out[0].status == "output_limit", out[0]
    assert (out[1].status, out[1].stdout) == ("ok", "fine\n"), out[1]


CLONE_PARENT = """
import ctypes, os, platform, time
libc = ctypes.CDLL(None, use_errno=True)
number = {"x86_64": 56, "aarch64": 220}[platform.machine()]
pid = libc.syscall(number, 0x00008000 | 17, 0, 0, 0, 0)  # clone(CLONE_PARENT | SIGCHLD)
if pid == 0:
    time.sleep(120)
    os._exit(0)
print(pid, os.getppid(), flush=True)
"""

ALIVE = "import os, sys\npid = int(sys.stdin.read() or 0)\nprint(os.path.exists(f'/proc/{pid}'))\n"


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("batch", [True, False], ids=["batched", "per-case"])
def test_a_process_slipped_into_the_zygotes_family_does_not_outlive_its_case(sandbox, batch):
    """``clone(CLONE_PARENT)`` makes a sibling of the case process: a child of the zygote, whose
    own children the worker spares in batched mode. The zygote's sweep must kill it before the
    next case (of the same process) starts."""
    from biocoder_metric.types import Job

    with _box(sandbox, batch=batch) as box:
        first = box.run(_job(CLONE_PARENT))
        assert first[0].status == "ok", first[0]
        intruder = first[0].stdout.split()[0]
        if int(intruder) < 0:
            pytest.skip(f"clone(CLONE_PARENT) refused here: {first[0].stdout!r}")
        later = box.run(Job(language="python", programs=(ALIVE,), stdin=intruder, timeout_s=20.0))
        same = box.run(
            _job(
                CLONE_PARENT,
                ALIVE.replace("sys.stdin.read() or 0", "open('/proc/self/stat').read().split()[3]"),
            )
        )
    assert later[0].stdout == "False\n", "the intruder outlived its sample"
    assert same[1].status == "ok", same[1]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_what_a_case_leaves_in_its_process_does_not_reach_the_next_case(sandbox):
    """Timers, signal dispositions, environment, umask and tracing are put back after a case; a
    daemon thread that would run on retires the process (the next case gets a fresh one)."""
    setter = (
        "import os, signal, sys, threading, time\n"
        "signal.alarm(1)\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "os.environ['LEFT'] = 'x'\n"
        "os.umask(0o777)\n"
        "sys.settrace(lambda *a: None)\n"
        "print(os.getpid(), flush=True)\n"
    )
    looker = (
        "import os, signal, sys, time\n"
        "time.sleep(1.5)\n"  # past the alarm the previous case set
        "print(os.getpid(), 'LEFT' in os.environ, oct(os.umask(0o022)), sys.gettrace() is None,\n"
        "      signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, flush=True)\n"
    )
    daemon = (
        "import os, sys, threading, time\n"
        "def spam():\n"
        "    while True:\n"
        "        print('spam', flush=True)\n"
        "        time.sleep(0.01)\n"
        "threading.Thread(target=spam, daemon=True).start()\n"
        "time.sleep(0.05)\n"
        "print(os.getpid(), flush=True)\n"
    )
    clean = "import os, time\ntime.sleep(0.2)\nprint(os.getpid(), 'clean', flush=True)\n"
    with _box(sandbox) as box:
        out = box.run(_job(setter, looker, daemon, clean))
    assert [o.status for o in out] == ["ok"] * 4, [(o.status, o.stderr[-300:]) for o in out]
    pid_setter = int(out[0].stdout.split()[0])
    fields = out[1].stdout.split()
    assert int(fields[0]) == pid_setter, "the looker ran in the same process"
    assert fields[1:] == ["False", "0o77", "True", "True"], out[1].stdout
    daemon_pid = int([line for line in out[2].stdout.split() if line.isdigit()][-1])
    pid, word = out[3].stdout.split()
    assert word == "clean" and "spam" not in out[3].stdout
    assert int(pid) != daemon_pid, "a process whose daemon thread runs on is not reused"


OTHERS = """
import csv, decimal, fractions, glob, os, signal, statistics, time
# imports unlike the first job's: this job gets a zygote of its own, so the first one's spare
# (forked when the first job ended) and the first zygote itself live beside it
me, parent, hit = os.getpid(), os.getppid(), 0
for name in os.listdir("/proc"):
    if name.isdigit() and int(name) not in (me, parent, 1):
        try:
            os.kill(int(name), signal.SIG{sig})
            hit += 1
        except OSError:
            pass
print(hit)
"""


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("sig", ["STOP", "KILL"])
def test_a_spare_an_earlier_sample_stopped_or_killed_costs_the_next_sample_nothing(sandbox, sig):
    """A zygote's spare (forked for its next job) and the zygote itself live beside the cases of
    other jobs, which may signal them (SIGSTOP and SIGKILL cannot be ignored). The next sample
    must get a sound process: its cases pass, well within their deadline (a stopped spare or
    zygote would time it out)."""
    import time

    with _box(sandbox) as box:
        box.run(_job(PID))
        attack = box.run(_job(OTHERS.replace("{sig}", sig), timeout_s=10.0))
        assert attack[0].status == "ok" and int(attack[0].stdout) >= 1, attack[0]
        started = time.monotonic()
        out = box.run(_job(PID, PID, timeout_s=10.0))
        took = time.monotonic() - started
    assert [o.status for o in out] == ["ok", "ok"], out
    assert took < 5.0, took
