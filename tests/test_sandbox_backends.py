"""Sandbox backends against real processes: none (host), bwrap (host rootfs and image rootfs), docker.

Every behaviour the engine relies on is checked in every backend that works here: identical
output, timeouts, memory and output limits, compile errors, Java, leftover processes, no
network. Backends that cannot run here are skipped with the reason.
"""

from __future__ import annotations

import os
import textwrap

import pytest

from biocoder_metric.sandbox import SandboxError, make_sandbox
from biocoder_metric.types import Job, RunStatus

BACKENDS = ["none", "bwrap", "bwrap-image", "docker"]


def _open(kind: str, warm: bool = True):
    if kind == "none":
        return make_sandbox("none", allow_unsafe=True, warm=warm)
    if kind == "bwrap":
        from biocoder_metric.sandbox.bubblewrap import bwrap_works

        if not bwrap_works():
            pytest.skip("bubblewrap is not installed or user namespaces are disabled")
        return make_sandbox("bwrap", warm=warm)
    from biocoder_metric.sandbox.docker import docker_ready
    from biocoder_metric.sandbox.image import DEFAULT_IMAGE

    if not docker_ready(DEFAULT_IMAGE):
        pytest.skip(f"no Docker engine or no image {DEFAULT_IMAGE} (build it with scripts/setup_docker.sh)")
    if kind == "docker":
        return make_sandbox("docker", image=DEFAULT_IMAGE, warm=warm)
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap is not installed or user namespaces are disabled")
    return make_sandbox("bwrap", image=DEFAULT_IMAGE, warm=warm)


@pytest.fixture(scope="module")
def boxes():
    opened: dict[tuple[str, bool], object] = {}

    def get(kind: str, warm: bool = True):
        key = (kind, warm)
        if key not in opened:
            opened[key] = _open(kind, warm)
        return opened[key]

    yield get
    for box in opened.values():
        box.close()


FUZZ = textwrap.dedent(
    """
    import math, random, sys
    def gc_content(seq):
        return sum(c in "GC" for c in seq) / len(seq)
    seq = {seq!r}
    rng = random.Random({seed})
    print(round(gc_content(seq), 6), math.sqrt({seed}), sorted({{"b", "a", "c"}}))
    print([rng.randint(0, 100) for _ in range(5)])
    print(sys.argv, __name__)
    """
)


def _fuzz_job() -> Job:
    programs = tuple(FUZZ.format(seq=s, seed=i) for i, s in enumerate(["ACGT", "GGGCA", "TTTTAG"]))
    return Job(language="python", programs=programs, timeout_s=10)


def _leftovers_probe(marker: str) -> str:
    """A program printing the processes whose command line contains ``marker`` (not itself)."""
    return textwrap.dedent(
        f"""
        import os
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    cmd = open("/proc/%s/cmdline" % pid, "rb").read()
                except OSError:
                    continue
                if {marker!r}.encode() in cmd:
                    found.append(pid)
        print("LEFT", found)
        """
    )


@pytest.mark.parametrize("kind", BACKENDS)
def test_same_output_everywhere_warm_and_cold(boxes, kind):
    job = _fuzz_job()
    warm = boxes(kind, True).run(job)
    cold = boxes(kind, False).run(job)
    assert [o.status for o in warm] == [RunStatus.OK] * 3, warm
    assert [(o.stdout, o.returncode) for o in warm] == [(o.stdout, o.returncode) for o in cold]
    assert warm[0].stdout.splitlines()[-1] == "['main.py'] __main__"
    # and the same as the host sandbox (stdlib-only program, deterministic hash seed)
    ref = boxes("none", True).run(job)
    assert [o.stdout for o in warm] == [o.stdout for o in ref]


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("warm", [True, False])
def test_timeouts_and_nothing_left_running(boxes, kind, warm):
    marker = f"biocoder-leftover-{kind}-{warm}"
    busy = "while True:\n    pass\n"
    sleeper = textwrap.dedent(
        f"""
        import os, subprocess, time
        subprocess.Popen(["sleep", "300", {marker!r}])           # a child in the case's group
        if os.fork() == 0:                                         # a double-forked daemon in its own session
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "301", {marker!r}])
            os._exit(0)
        time.sleep(300)
        """
    )
    box = boxes(kind, warm)
    out = box.run(Job(language="python", programs=(busy, sleeper, _leftovers_probe(marker)), timeout_s=1.5))
    assert [o.status for o in out[:2]] == [RunStatus.TIMEOUT, RunStatus.TIMEOUT], out
    assert 1.4 < out[0].duration_s < 5
    assert out[2].status == RunStatus.OK and out[2].stdout.strip() == "LEFT []", out[2]


@pytest.mark.parametrize("kind", BACKENDS)
def test_orphan_of_a_finished_case_is_killed(boxes, kind):
    marker = f"biocoder-orphan-{kind}"
    daemon = textwrap.dedent(
        f"""
        import os
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "302", {marker!r}])
            os._exit(0)
        print("parent done")
        """
    )
    out = boxes(kind).run(Job(language="python", programs=(daemon, _leftovers_probe(marker)), timeout_s=5))
    assert out[0].status == RunStatus.OK and out[0].stdout == "parent done\n"
    assert out[1].stdout.strip() == "LEFT []"


@pytest.mark.parametrize("kind", BACKENDS)
def test_limits_and_errors(boxes, kind):
    bomb = "x = []\nwhile True:\n    x.append(bytearray(64 << 20))\n"
    flood = "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"
    syntax = "def f(:\n    pass\n"
    exit3 = "import sys\nprint('partial')\nsys.exit(3)\n"
    raises = "raise ValueError('bad input')\n"
    stdin = "import sys\nprint(sys.stdin.read().upper())\n"
    job = Job(
        language="python",
        programs=(bomb, flood, syntax, exit3, raises, stdin),
        timeout_s=10,
        memory_mb=512,
        output_limit_bytes=100_000,
        stdin="acgt\n",
    )
    out = boxes(kind).run(job)
    assert out[0].status == RunStatus.MEMORY_EXCEEDED, out[0]
    assert out[1].status == RunStatus.OUTPUT_LIMIT, out[1]
    assert len(out[1].stdout) == 100_000
    assert out[2].status == RunStatus.COMPILE_ERROR and "SyntaxError" in out[2].stderr
    assert (out[3].status, out[3].returncode, out[3].stdout) == (RunStatus.OK, 3, "partial\n")
    assert out[4].status == RunStatus.OK and out[4].returncode == 1
    assert out[4].stderr.strip().splitlines()[-1] == "ValueError: bad input"
    assert 'File "main.py", line 1' in out[4].stderr
    assert (out[5].status, out[5].stdout) == (RunStatus.OK, "ACGT\n\n")


@pytest.mark.parametrize("kind", ["bwrap", "bwrap-image", "docker"])
def test_no_network_and_no_host_secrets(boxes, kind, monkeypatch):
    probe = textwrap.dedent(
        """
        import os, socket
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=3)
            print("NET yes")
        except OSError as exc:
            print("NET no", exc.errno)
        print("IFACES", sorted(n for _, n in socket.if_nameindex()))
        print("TOKEN", os.environ.get("HF_TOKEN"))
        print("UID", os.getuid())
        """
    )
    monkeypatch.setenv("HF_TOKEN", "hf_secret_for_test")
    out = boxes(kind).run(Job(language="python", programs=(probe,), timeout_s=10))[0]
    assert out.status == RunStatus.OK, out
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert lines["NET"].startswith("no")
    assert lines["IFACES"] == "['lo']"
    assert lines["TOKEN"] == "None"
    assert lines["UID"] != "0"


JAVA_OK = 'public class Main { public static void main(String[] a) { System.out.println("n=" + %d); System.out.print("tail"); } }'
JAVA_EXIT = 'public class Main { public static void main(String[] a) { System.out.println("before"); System.exit(4); } }'
JAVA_THROW = (
    'public class Main { public static void main(String[] a) { throw new IllegalStateException("nope"); } }'
)
JAVA_LOOP = "public class Main { public static void main(String[] a) { while (true) {} } }"
JAVA_STDIN = (
    "import java.util.Scanner; public class Main { public static void main(String[] a) "
    "{ Scanner s = new Scanner(System.in); System.out.println(s.next().toUpperCase()); } }"
)
JAVA_HOOK = (
    "public class Main { public static void main(String[] a) { Runtime.getRuntime().addShutdownHook("
    'new Thread(() -> System.out.println("hook ran"))); System.out.println("main"); } }'
)
JAVA_BAD = 'public class Main { public static void main(String[] a) { int x = "s"; } }'


@pytest.mark.parametrize("kind", BACKENDS)
def test_java_cases(boxes, kind):
    programs = (JAVA_OK % 1, JAVA_EXIT, JAVA_THROW, JAVA_LOOP, JAVA_OK % 2, JAVA_STDIN)
    job = Job(language="java", programs=programs, timeout_s=3, memory_mb=512, stdin="acgt\n")
    warm = boxes(kind, True).run(job)
    assert [o.status for o in warm] == [
        RunStatus.OK,
        RunStatus.OK,
        RunStatus.OK,
        RunStatus.TIMEOUT,
        RunStatus.OK,
        RunStatus.OK,
    ], warm
    assert (warm[0].stdout, warm[0].returncode) == ("n=1\ntail", 0)
    assert (warm[1].stdout, warm[1].returncode) == ("before\n", 4)
    assert warm[2].returncode == 1
    assert warm[2].stderr.startswith('Exception in thread "main" java.lang.IllegalStateException: nope')
    assert (warm[4].stdout, warm[5].stdout) == ("n=2\ntail", "ACGT\n")


@pytest.mark.slow
@pytest.mark.parametrize("kind", BACKENDS)
def test_java_warm_matches_plain_javac_java(boxes, kind):
    programs = (JAVA_OK % 7, JAVA_EXIT, JAVA_THROW, JAVA_STDIN, JAVA_HOOK)
    job = Job(language="java", programs=programs, timeout_s=10, memory_mb=512, stdin="acgt\n")
    warm = boxes(kind, True).run(job)
    cold = boxes(kind, False).run(job)
    assert [o.status for o in cold] == [RunStatus.OK] * 5, cold
    assert cold[4].stdout == "main\nhook ran\n"
    assert [(o.returncode, o.stdout) for o in cold] == [(o.returncode, o.stdout) for o in warm]
    assert cold[2].stderr.splitlines()[0] == warm[2].stderr.splitlines()[0]


@pytest.mark.parametrize("kind", BACKENDS)
def test_java_compile_error(boxes, kind):
    out = boxes(kind).run(Job(language="java", programs=(JAVA_BAD, JAVA_BAD), timeout_s=5))
    assert [o.status for o in out] == [RunStatus.COMPILE_ERROR] * 2
    assert "incompatible types" in out[0].stderr


@pytest.mark.parametrize("kind", ["none", "bwrap", "docker"])
def test_worker_lost_mid_job_is_restarted(boxes, kind):
    """A case's parent is the zygote it was forked from, not the worker: killing it ends the
    zygote, the worker waits for the orphaned case itself, judges it normally, and the next
    case forks from a new zygote."""
    killer = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('survived')\n"
    out = boxes(kind).run(Job(language="python", programs=("print(1)", killer, "print(3)"), timeout_s=5))
    assert [(o.status, o.stdout) for o in out] == [
        (RunStatus.OK, "1\n"),
        (RunStatus.OK, "survived\n"),
        (RunStatus.OK, "3\n"),
    ], out
    # and the sandbox keeps working
    assert boxes(kind).run(Job(language="python", programs=("print(4)",)))[0].stdout == "4\n"


def test_none_needs_opt_in(monkeypatch):
    monkeypatch.delenv("BIOCODER_ALLOW_UNSAFE", raising=False)
    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    with pytest.raises(SandboxError, match="--allow-unsafe.*BIOCODER_ALLOW_UNSAFE=1"):
        make_sandbox("none")
    monkeypatch.setenv("BIOCODER_ALLOW_UNSAFE", "1")
    with make_sandbox("none") as box:
        assert box.run(Job(language="python", programs=("print(2 + 2)",)))[0].stdout == "4\n"


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown sandbox 'chroot'"):
        make_sandbox("chroot")


def test_docker_oom_kill_is_memory_exceeded():
    from biocoder_metric.sandbox.docker import docker_ready
    from biocoder_metric.sandbox.image import DEFAULT_IMAGE

    if not docker_ready(DEFAULT_IMAGE):
        pytest.skip(f"no Docker engine or no image {DEFAULT_IMAGE}")
    # The container (cgroup) limit is below the job's rlimit: the kernel OOM killer acts.
    bomb = "x = []\nwhile True:\n    x.append(bytearray(16 << 20))\n"
    with make_sandbox("docker", image=DEFAULT_IMAGE, memory_mb=256) as box:
        out = box.run(Job(language="python", programs=(bomb, "print('alive')"), timeout_s=20, memory_mb=4096))
    assert out[0].status == RunStatus.MEMORY_EXCEEDED, out[0]
    assert out[1].stdout == "alive\n"


def test_environment_ids(boxes):
    none_id = boxes("none").environment_id
    assert none_id.startswith("host:") and none_id == boxes("none").environment_id
    if os.environ.get("BIOCODER_SKIP_DOCKER") != "1":
        try:
            docker_box = _open("docker")
        except pytest.skip.Exception:
            return
        with docker_box, _open("bwrap-image") as image_box:  # same image, same identity
            assert docker_box.environment_id.startswith("image:sha256:")
            assert image_box.environment_id == docker_box.environment_id


def test_docker_container_killed_from_outside_is_replaced():
    from biocoder_metric.sandbox.docker import docker_ready
    from biocoder_metric.sandbox.image import DEFAULT_IMAGE

    if not docker_ready(DEFAULT_IMAGE):
        pytest.skip(f"no Docker engine or no image {DEFAULT_IMAGE}")
    import threading

    with make_sandbox("docker", image=DEFAULT_IMAGE) as box:
        assert box.run(Job(language="python", programs=("print(0)",)))[0].stdout == "0\n"
        first = box._container.id
        killer = threading.Timer(1.0, lambda: box.client.api.kill(first))
        killer.start()
        out = box.run(
            Job(language="python", programs=("import time\ntime.sleep(8)", "print(2)"), timeout_s=10)
        )
        killer.join()
        # The worker died with the container: the rest of the job is not run there (the pool
        # retries the job and attributes the failure); the next job gets a new container.
        assert [o.status for o in out] == [RunStatus.SANDBOX_ERROR, RunStatus.SANDBOX_ERROR], out
        assert box.run(Job(language="python", programs=("print(2)",)))[0].stdout == "2\n"
        assert box._container.id != first
        assert not box.client.containers.list(all=True, filters={"id": first})  # removed, not left stopped
