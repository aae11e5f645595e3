"""Java cases: compile in a long-lived compile-only JVM, run each job in a fresh Runner JVM.

Why: starting ``javac`` and a JVM per case costs far more than a typical BioCoder case. The
warm path (``Runner.java``, needs ``--runtime-dir`` with ``Runner.class``) compiles in a
long-lived compile-only JVM (javax.tools) and runs each job's cases in a fresh runner JVM,
one class loader per case. The cold path runs ``javac`` then ``java`` per case, exactly as a
user would; it is the reference the warm path must match.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import time

from .cases import Case, compile_error, looks_like_memory_error
from .processes import (
    expendable,
    kill_leftovers,
    process_controls,
    read_tail,
    rmtree,
    set_limits,
    untouched,
)
from .protocol import (
    DEFAULT_CLASS_NAME,
    DEFAULT_MEMORY_MB,
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DEFAULT_TIMEOUT_S,
    STDERR_TAIL,
    RunStatus,
    file_size_limit,
    java_flags,
    java_libs,
)

#: Prefix of every reply line of ``Runner`` (Runner.REPLY): anything else on its stdout (JVM
#: warnings) is not a reply.
RUNNER_REPLY = b"@@biocoder@@ "


class _Jvm:
    """One ``Runner`` JVM driven over its stdin/stdout (one reply line per command)."""

    def __init__(
        self, worker, control, memory_mb, output_limit, extra_flags=(), java="java", runs_cases=True
    ):
        self.w = worker
        #: A JVM that runs cases is the first the OOM killer takes; the compiler is not.
        self.runs_cases = runs_cases
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
        argv = [self.java] + java_flags(self.memory_mb, java_libs()) + self.extra_flags
        argv += [
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            "--add-opens",
            "java.base/java.lang=ALL-UNNAMED",
        ]
        argv += ["-cp", self.w.runtime_dir, "Runner"]
        limit = file_size_limit(self.output_limit)
        memory_mb = self.memory_mb
        runs_cases = self.runs_cases

        def pre():
            os.setsid()
            set_limits(memory_mb, limit, 0, False)
            if runs_cases:
                expendable()

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
        if not runs_cases:
            # The compiler outlives cases: its files are fingerprinted after every case, and a
            # log that grows would look like tampering. The JVM keeps writing to the open file.
            try:
                os.unlink(err_path)
            except OSError:
                pass
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
        kill_leftovers(self.w.contained, self.w.keep())
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
                rmtree(os.path.join(parent, old))
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
        #: ``process_controls`` of the running compiler, read after its first reply.
        self.controls = None

    def pid(self):
        return self.jvm.proc.pid if self.jvm is not None and self.jvm.alive() else None

    def check(self):
        """Before a job (``Worker.check_shared``): a compiler that an earlier case stopped, or whose
        limits or priority it changed, is replaced (the next compile starts a fresh one)."""
        pid = self.pid()
        if pid is not None and not untouched(pid, self.controls):
            self.close()

    def close(self):
        if self.jvm is not None:
            jvm, self.jvm = self.jvm, None
            jvm.kill()

    def discard(self):
        """A case changed the compiler's files: stop it and remove them (the next compile rebuilds)."""
        self.close()
        control = os.path.join(self.w.workroot, "compiler")
        self.w.state.forget(control)
        rmtree(control)

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
        self.jvm = _Jvm(
            self.w,
            control,
            memory_mb,
            output_limit,
            ["-XX:+DisableAttachMechanism"],
            launcher,
            runs_cases=False,
        )
        self.jvm.start()
        self.w.state.forget(control)
        self.w.state.register(control)  # kept across cases, exactly as it is now
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
                if not reused:  # as it runs once started (the JVM sets some limits itself)
                    self.controls = process_controls(self.jvm.proc.pid)
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
        self.output_limit = int(job.get("output_limit_bytes") or DEFAULT_OUTPUT_LIMIT_BYTES)
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
                self.emit(index, compile_error(read_tail(os.path.join(case.dir, "compile.txt"))))
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
            snap = self.w.tmp_snapshot()
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
                self.w.tmp_cleanup(snap)
                if timed_out:
                    self.emit(index, case.outcome(RunStatus.TIMEOUT, None, duration))
                else:  # the case ended the JVM: System.exit, halt, crash
                    rc = status  # negative: killed by that signal, as for the other paths
                    res = case.outcome(RunStatus.OK, rc, duration)
                    if rc != 0 and looks_like_memory_error(case):
                        res["status"] = RunStatus.MEMORY_EXCEEDED
                    self.emit(index, res)
                continue
            parts = reply.split("\t")
            rc = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else 1
            flags = parts[2] if len(parts) > 2 else ""
            kill_leftovers(self.w.contained, self.w.keep((jvm.proc.pid,)))
            self.w.tmp_cleanup(snap)
            res = case.outcome(RunStatus.OK, rc, duration)
            if "M" in flags and res["status"] == RunStatus.OK:
                res["status"] = RunStatus.MEMORY_EXCEEDED
            self.emit(index, res)
            if "T" in flags or "M" in flags:  # threads still running or heap exhausted: fresh JVM
                jvm.kill()


# --------------------------------------------------------------------------- a Java job


def run_java(worker, job, warm, emit):
    """Write each case's source, then run them warm (``JavaRunner``) or cold (:func:`_run_cold`)."""
    programs = job["programs"]
    class_name = job.get("class_name") or DEFAULT_CLASS_NAME
    timeout_s = float(job.get("timeout_s") or DEFAULT_TIMEOUT_S)
    memory_mb = int(job.get("memory_mb") or DEFAULT_MEMORY_MB)
    jobdir = worker.job_dir()
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
        if warm and worker.runtime_dir and os.path.isfile(os.path.join(worker.runtime_dir, "Runner.class")):
            JavaRunner(worker, cases, job, class_name, timeout_s, memory_mb, emit).run_all()
        else:
            _run_cold(worker, cases, class_name, timeout_s, memory_mb, emit)
    finally:
        kill_leftovers(worker.contained, worker.keep())
        rmtree(jobdir)


def _run_cold(worker, cases, class_name, timeout_s, memory_mb, emit):
    """Reference path: ``javac`` then ``java`` per case, exactly as a user would run them."""
    flags = java_flags(memory_mb, java_libs())
    for index, case in enumerate(cases):
        src = os.path.join(case.dir, "src", class_name + ".java")
        classes = os.path.join(case.dir, "classes")
        snap = worker.tmp_snapshot()
        start = time.monotonic()
        argv = [
            "javac",
            "-J-XX:-UsePerfData",
            "-J-XX:TieredStopAtLevel=1",
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-cp",
            os.pathsep.join([classes] + java_libs()),
            "-d",
            classes,
            src,
        ]
        pid = worker.spawn(case, memory_mb, 0, False, lambda argv=argv: os.execvp(argv[0], argv))
        res = worker.finish(pid, case, start, max(60.0, timeout_s * 3), snap)
        if res["status"] != RunStatus.OK or res["returncode"] != 0:
            err = read_tail(case.stdout) + read_tail(case.stderr)
            emit(index, compile_error(err[-STDERR_TAIL:], res["returncode"], res["duration_s"]))
            continue
        snap = worker.tmp_snapshot()
        argv = ["java"] + flags + ["-cp", os.pathsep.join([classes] + java_libs()), class_name]
        start = time.monotonic()
        pid = worker.spawn(case, memory_mb, 0, False, lambda argv=argv: os.execvp(argv[0], argv))
        emit(index, worker.finish(pid, case, start, timeout_s, snap))
