"""The in-sandbox worker on its own: Python 3.9 compatibility, protocol, warm-path fidelity."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from biocoder_metric.sandbox import make_sandbox
from biocoder_metric.sandbox.base import RUNTIME_SRC
from biocoder_metric.types import Job, RunStatus

from _python39 import python39

WORKER = RUNTIME_SRC / "worker.py"


def test_protocol_directly():
    """JSON lines in, streamed per-case outcomes out, errors reported for bad requests."""
    requests = [
        {"id": 1, "job": {"language": "python", "programs": ["print('a')", "print('b')"], "timeout_s": 5}},
        {"id": 2, "job": {"language": "cobol", "programs": ["x"]}},
    ]
    proc = subprocess.run(
        [sys.executable, str(WORKER)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
    )
    msgs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert msgs[0]["ready"] is True
    assert [(m["index"], m["outcome"]["stdout"]) for m in msgs[1:3]] == [(0, "a\n"), (1, "b\n")]
    assert msgs[3] == {"id": 1, "done": True}
    assert msgs[4]["id"] == 2 and "unknown job.language 'cobol'" in msgs[4]["error"]


@pytest.mark.engine
@pytest.mark.parametrize("warm", [True, False])
def test_worker_runs_on_python39(warm):
    exe = python39()
    if exe is None:
        pytest.skip("no Python 3.9 interpreter here (the image's Python); install one to run this check")
    program = "import sys, json\nprint(sys.version_info[:2], json.dumps({'b': 1, 'a': 2}))\n"
    bomb = "x = []\nwhile True:\n    x.append(bytearray(32 << 20))\n"
    with make_sandbox("none", allow_unsafe=True, python=exe, warm=warm) as box:
        out = box.run(Job(language="python", programs=(program, bomb, "def f(:"), memory_mb=400))
    assert out[0].stdout == '(3, 9) {"b": 1, "a": 2}\n'
    assert out[1].status == RunStatus.MEMORY_EXCEEDED
    assert out[2].status == "compile_error"


@pytest.mark.engine
def test_warm_child_looks_like_a_fresh_interpreter():
    """What a program can observe of its process is the same on the warm (fork) and cold path."""
    probe = textwrap.dedent(
        """
        import atexit, os, sys, threading, time
        print(__name__, __file__.endswith("main.py"), sys.argv, os.path.basename(os.getcwd()) == "work")
        print(sys.path[0] == os.getcwd(), os.environ.get("PYTHONHASHSEED"), os.environ.get("OPENBLAS_NUM_THREADS"))
        print(hash("biocoder"), sorted({"x", "y", "z"}) == ["x", "y", "z"])
        def late():
            time.sleep(0.2)
            print("thread done", flush=True)
        threading.Thread(target=late).start()            # non-daemon: exit waits for it
        atexit.register(lambda: print("atexit ran"))
        sys.stdout.write("no newline at end")
        """
    )
    with (
        make_sandbox("none", allow_unsafe=True, warm=True) as warm,
        make_sandbox("none", allow_unsafe=True, warm=False) as cold,
    ):
        w = warm.run(Job(language="python", programs=(probe,)))[0]
        c = cold.run(Job(language="python", programs=(probe,)))[0]
    assert w.status == c.status == RunStatus.OK
    assert w.stdout == c.stdout
    assert "thread done" in w.stdout and w.stdout.rstrip().endswith("atexit ran")
    assert w.stdout.splitlines()[1] == "True 0 1"
