"""One case run's files and limits, and how its outcome is read back from them.

Why a module of its own: Python and Java cases differ in how they are started, but not in
what a case is. Each gets its own dir (``work/`` as its cwd, ``stdin``, ``stdout``,
``stderr`` files), the same file-size limit, and the same rules for turning what it left
there into an outcome (stdout capped at the output limit, a stderr tail, ``output_limit``
when it wrote more). Both language modules build their outcomes here, so a case is judged
the same whichever language it is in.
"""

from __future__ import annotations

import os

from .processes import file_size, read_head, read_tail
from .protocol import DEFAULT_OUTPUT_LIMIT_BYTES, STDERR_TAIL, RunStatus, file_size_limit, outcome


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
        self.limit = int(job.get("output_limit_bytes") or DEFAULT_OUTPUT_LIMIT_BYTES)
        self.fsize = self.fsize_for(job)

    @staticmethod
    def fsize_for(job):
        """RLIMIT_FSIZE of the job's case processes."""
        return file_size_limit(int(job.get("output_limit_bytes") or DEFAULT_OUTPUT_LIMIT_BYTES))

    def outcome(self, status, returncode, duration, stderr_extra=""):
        out = read_head(self.stdout, self.limit + 1)
        if status in (RunStatus.OK, RunStatus.TIMEOUT) and (
            len(out) > self.limit or file_size(self.stderr) > self.fsize - 1
        ):
            status = RunStatus.OUTPUT_LIMIT
        err = read_tail(self.stderr)
        if stderr_extra:
            err = (err + stderr_extra)[-STDERR_TAIL:]
        return outcome(
            status, returncode, out[: self.limit].decode("utf-8", "replace"), err, round(duration, 6)
        )


def compile_error(stderr, returncode=1, duration_s=0.0):
    """The outcome of a case whose program did not compile (it never ran)."""
    return outcome(RunStatus.COMPILE_ERROR, returncode, "", stderr, duration_s)


def looks_like_memory_error(case):
    """Python's MemoryError (last traceback line) or the JVM's OutOfMemoryError in main."""
    tail = read_tail(case.stderr, 2048)
    lines = tail.rstrip().splitlines()
    if lines and lines[-1].startswith("MemoryError"):
        return True
    return 'Exception in thread "main" java.lang.OutOfMemoryError' in tail


def read_marks(path):
    """A case's profiling marks (``name time`` lines, ``benchmarks/case_profile.py``) as a dict."""
    out = {}
    try:
        with open(path) as fh:
            for line in fh:
                name, _, value = line.partition(" ")
                try:
                    out[name] = float(value)
                except ValueError:
                    pass
    except OSError:
        pass
    return out
