"""The warm javac of Java harness construction (biocoder_metric.synth.javac_server): the same
answers as a ``javac`` process, whatever happens to the servers."""

from __future__ import annotations

import re
import shutil
import threading

import pytest

from biocoder_metric.synth import java_stubs, javac_server

pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac and java)")

GOOD = """import java.util.*;
public class Main {
    static int twice(int x) { return 2 * x; }
    public static void main(String[] a) { System.out.println(twice(3)); }
}
"""
#: a type error and a missing symbol: what the stub repairs read, line, caret and all
BAD = """import java.util.*;
public class Main {
    static int twice(int x) { String s = x; return helper(x) * 2; }
    public static void main(String[] a) { System.out.println(twice(3)); }
}
"""


def _errors(source: str, monkeypatch: pytest.MonkeyPatch, server: bool) -> str:
    monkeypatch.setenv("BIOCODER_JAVAC_SERVER", "1" if server else "0")
    text = java_stubs.compile_errors(source, [])
    return re.sub(r"/tmp/bc-javastub-\w+", "DIR", text)  # each compile has its own folder


@pytest.fixture(autouse=True)
def _fresh_servers():
    javac_server.shutdown()
    yield
    javac_server.shutdown()


def test_a_warm_server_answers_as_a_javac_process_does(monkeypatch: pytest.MonkeyPatch):
    assert _errors(GOOD, monkeypatch, server=False) == "" == _errors(GOOD, monkeypatch, server=True)
    cold = _errors(BAD, monkeypatch, server=False)
    assert "incompatible types: int cannot be converted to String" in cold and "cannot find symbol" in cold
    assert "^" in cold and cold.rstrip().endswith("2 errors")
    assert _errors(BAD, monkeypatch, server=True) == cold
    assert len(javac_server._all) == 1  # one server, kept for the next compile
    assert _errors(BAD, monkeypatch, server=True) == cold and len(javac_server._all) == 1


def test_turned_off_no_server_starts(monkeypatch: pytest.MonkeyPatch):
    _errors(BAD, monkeypatch, server=False)
    assert javac_server._all == []


def test_a_server_that_dies_changes_nothing_but_time(monkeypatch: pytest.MonkeyPatch):
    cold = _errors(BAD, monkeypatch, server=False)
    assert _errors(BAD, monkeypatch, server=True) == cold
    dead = javac_server._all[0]
    dead.proc.kill()
    dead.proc.wait()
    # the compile that meets the dead server falls back to a javac process; the next starts anew
    assert _errors(BAD, monkeypatch, server=True) == cold
    assert dead not in javac_server._all
    assert _errors(GOOD, monkeypatch, server=True) == ""
    assert len(javac_server._all) == 1 and javac_server._all[0].proc.poll() is None


def test_concurrent_compiles_each_get_their_own_answer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BIOCODER_JAVAC_SERVER", "1")
    sources = {i: BAD.replace("helper(x)", f"helper{i}(x)") for i in range(6)}
    got: dict[int, str] = {}

    def work(i: int) -> None:
        got[i] = java_stubs.compile_errors(sources[i], [])

    threads = [threading.Thread(target=work, args=(i,)) for i in sources]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in sources:
        assert f"symbol:   method helper{i}(int)" in got[i]
        assert all(f"helper{j}(" not in got[i] for j in sources if j != i)
    assert 1 <= len(javac_server._all) <= len(sources)


def test_javac_compiles_to_the_folder_asked_either_way(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """``javac_server.javac`` (what the Java tests compile their harnesses with): the class file
    lands where ``-d`` says, and a failing compile's errors come back, warm or as a process."""
    for server in (False, True):
        monkeypatch.setenv("BIOCODER_JAVAC_SERVER", "1" if server else "0")
        out = tmp_path / f"out-{server}"
        (tmp_path / "Main.java").write_text(GOOD)
        rc, text = javac_server.javac(["-d", str(out), str(tmp_path / "Main.java")])
        assert rc == 0 and (out / "Main.class").is_file(), text
        (tmp_path / "Main.java").write_text(BAD)
        rc, text = javac_server.javac(["-d", str(out), str(tmp_path / "Main.java")])
        assert rc != 0 and "cannot find symbol" in text
    assert len(javac_server._all) == 1


def test_a_forked_child_starts_its_own_server(monkeypatch: pytest.MonkeyPatch):
    """A process forked after a server started (a worker pool) must not talk over the parent's
    pipes: the child starts its own, and the parent's keeps answering the parent."""
    import os

    cold = _errors(BAD, monkeypatch, server=False)
    assert _errors(BAD, monkeypatch, server=True) == cold
    parent = javac_server._all[0]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compile, report whether it used its own server, and leave at once
        ok = _errors(BAD, monkeypatch, server=True) == cold and parent not in javac_server._all
        os.write(write, b"1" if ok else b"0")
        for s in javac_server._all:
            s.close()
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    assert _errors(BAD, monkeypatch, server=True) == cold and javac_server._all == [parent]
