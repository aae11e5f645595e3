"""javac kept warm: the compiles of Java harness synthesis run in long-lived JVMs.

Why: completing a Java harness (:func:`biocoder_metric.synth.java_stubs.complete`) compiles the
harness with the golden once per round of repairs, several times per task, and the Java tests
do the same for their made-up goldens. Each ``javac`` process spent most of its time starting a
JVM and loading and warming up the compiler (about 3 s for a harness here, of which the compile
itself is a fraction). This module keeps a few JVMs running javac's own command-line entry
point (``com.sun.tools.javac.Main.compile``, the same code and the same messages as the ``javac``
command) and hands them compiles over a pipe: a warm compile takes a few hundred
milliseconds. ``python -m benchmarks javac_server`` measures both side by side.

Not the sandbox runtime's compiler (``sandbox/runtime/java_cases.JavaCompiler``): that one lives
inside a sandbox, with the protections a JVM near candidates' code needs and the options the
runner compiles candidates with; construction runs on the host on our own text and parses
javac's command-line messages (``-Xmaxerrs 200``, the platform encoding), so it runs exactly
javac's command line. Only the host's harness *construction* uses it: the golden and the candidates are still
compiled inside the sandbox by the language runner. A server that fails (it died, it did not
answer in time) is dropped and that compile falls back to a ``javac`` process, so a broken
server changes timing, never a result. Setting ``settings.ENV_JAVAC_SERVER`` to ``0`` turns it off.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from biocoder_dataset import settings

#: Compiles a server runs before it is replaced (javac's in-process state is rebuilt per compile,
#: but a long-lived JVM's heap is not worth trusting forever).
MAX_COMPILES = 300
#: Seconds one compile may take before the server is given up (as the ``javac`` process's limit).
TIMEOUT_S = 120.0

_SOURCE = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;

public class BcJavacServer {
    public static void main(String[] a) throws Exception {
        String marker = a[0];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] args = line.split("\u0001");
            StringWriter w = new StringWriter();
            int rc;
            try {
                rc = com.sun.tools.javac.Main.compile(args, new PrintWriter(w, true));
            } catch (Throwable t) {
                w.write("javac crashed: " + t);
                rc = 4;
            }
            out.print(w.toString());
            out.print("\n" + marker + rc + "\n");
            out.flush();
        }
    }
}
"""


class _Server:
    """One JVM running javac's entry point for each line of arguments it reads."""

    def __init__(self, java: str) -> None:
        self.marker = "\x02bc-javac-" + secrets.token_hex(8) + ":"
        self.folder = tempfile.mkdtemp(prefix="bc-javac-server-")
        src = Path(self.folder) / "BcJavacServer.java"
        src.write_text(_SOURCE, encoding="utf-8")
        # source-file mode: the launcher compiles the server itself in memory, once per JVM
        self.proc = subprocess.Popen(
            [java, str(src), self.marker],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.compiles = 0
        self.owner = os.getpid()  # a forked child must not share the parent's pipes

    def compile(self, args: list[str]) -> tuple[int, str]:
        """(javac's exit code, what it printed) for ``args``; raises OSError when the server fails."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if any("\n" in a or "\x01" in a for a in args):
            raise OSError("an argument the line protocol cannot carry")
        self.proc.stdin.write(("\x01".join(args) + "\n").encode("utf-8"))
        self.proc.stdin.flush()
        self.compiles += 1
        out: list[bytes] = []
        timer = threading.Timer(TIMEOUT_S, self.close)
        timer.start()
        try:
            marker = self.marker.encode("utf-8")
            while True:
                line = self.proc.stdout.readline()
                if not line:
                    raise OSError("the javac server ended")
                if line.startswith(marker):
                    rc = int(line[len(marker) :].strip())
                    break
                out.append(line)
        finally:
            timer.cancel()
        text = b"".join(out).decode("utf-8", errors="replace")
        return rc, text[:-1] if text.endswith("\n") else text  # the newline before the marker

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        shutil.rmtree(self.folder, ignore_errors=True)


_lock = threading.Lock()
_idle: list[_Server] = []
_all: list[_Server] = []


def enabled() -> bool:
    """Whether compiles go to warm servers (``settings.ENV_JAVAC_SERVER``, on by default; a JVM is needed)."""
    return settings.env_flag(settings.ENV_JAVAC_SERVER, True) and bool(shutil.which("java"))


def compile_java(args: list[str]) -> tuple[int, str] | None:
    """(exit code, javac's output) of ``javac ARGS`` on a warm server, or None when no server
    could do it (the caller runs ``javac`` itself). Thread-safe: each caller holds its own server."""
    java = shutil.which("java")
    if not enabled() or java is None:
        return None
    with _lock:
        if any(s.owner != os.getpid() for s in _all):  # forked: the parent's servers are the parent's
            _idle.clear()
            _all.clear()
        server = _idle.pop() if _idle else None
    try:
        if server is None:
            server = _Server(java)
            with _lock:
                _all.append(server)
        result = server.compile(args)
    except (OSError, ValueError):
        if server is not None:
            _retire(server)
        return None
    if server.compiles >= MAX_COMPILES:
        _retire(server)
    else:
        with _lock:
            _idle.append(server)
    return result


def javac(args: list[str], timeout: float = TIMEOUT_S) -> tuple[int, str]:
    """``javac ARGS``: (exit code, what it printed), on a warm server when one can run, else as a
    process (paths in ``args`` are absolute or relative to this process's folder)."""
    served = compile_java(args)
    if served is not None:
        return served
    exe = shutil.which("javac")
    if exe is None:
        return 2, "javac is not installed"
    try:
        done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 1, "javac timed out"
    return done.returncode, done.stderr or done.stdout


def _retire(server: _Server) -> None:
    server.close()
    with _lock:
        if server in _all:
            _all.remove(server)


@atexit.register
def shutdown() -> None:
    """Stop every server (at exit; tests may call it to start afresh)."""
    with _lock:
        servers = [s for s in _all if s.owner == os.getpid()]  # a forked child leaves its parent's alone
        _all.clear()
        _idle.clear()
    for s in servers:
        s.close()
