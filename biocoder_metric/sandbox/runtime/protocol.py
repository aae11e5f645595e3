"""What the host and the in-sandbox worker must agree on: statuses, limits, messages.

Why a module of its own: the host (``biocoder_metric``) and the worker (this folder, run inside
the sandbox) are two programs that speak JSON lines to each other. Every word both sides use,
the status vocabulary, the defaults of a job's fields, the stderr tail, the Java classpath and
flags, and how a message becomes a line, is defined here once and imported by both (the host
as ``biocoder_metric.sandbox.runtime.protocol``), so the two can never drift apart.

Like the whole folder it is standard library only and runs on Python 3.9 (the image's Python).

Protocol (one JSON object per line):

* worker -> host, once at start: ``{"ready": true, "pid": ..., "python": ..., "contained": ...}``
* host -> worker: ``{"id": N, "job": {Job fields}, "options": {"warm": true, "batch": true}}``
  (``profile: true`` adds per-stage times to each outcome message, for ``benchmarks/case_profile.py``)
* worker -> host: ``{"id": N, "index": i, "outcome": {CaseOutcome fields}}`` as each case
  finishes (streamed, so that a host-side backstop knows which case hung), then
  ``{"id": N, "done": true}``; or ``{"id": N, "error": "...", "traceback": "..."}`` for a
  malformed request.
* host -> worker ``{"id": N, "info": true}`` -> ``{"id": N, "info": {...}}`` (environment facts).
"""

from __future__ import annotations

import enum
import json
import os


class _StrEnum(str, enum.Enum):
    """A str whose members print as their plain value (``passed``, not ``Status.PASSED``).

    Members are str: they compare and hash equal to their value, and ``json.dumps`` writes the
    value, so every file keeps the same strings. (``enum.StrEnum`` needs Python 3.11.)
    """

    def __str__(self):
        return self.value

    def __format__(self, spec):
        return self.value.__format__(spec)


class RunStatus(_StrEnum):
    """How one program run (one fuzz case) ended, as the worker reports it."""

    OK = "ok"  # exited (any return code) within limits; look at returncode/stdout
    TIMEOUT = "timeout"
    MEMORY_EXCEEDED = "memory_exceeded"
    OUTPUT_LIMIT = "output_limit"
    COMPILE_ERROR = "compile_error"
    #: the case broke its sandbox (proven by a canary that ran cleanly after it; set by the host)
    SANDBOX_KILLED = "sandbox_killed"
    SANDBOX_ERROR = "sandbox_error"


# --------------------------------------------------------------------------- jobs and limits

#: Job fields the worker falls back to when a request leaves them out (``types.Job``'s defaults).
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MEMORY_MB = 2048
DEFAULT_OUTPUT_LIMIT_BYTES = 1 << 20
DEFAULT_CLASS_NAME = "Main"
#: Bytes of a case's stderr kept in its outcome (the end of it).
STDERR_TAIL = 4096
#: Files a case may write (RLIMIT_FSIZE). Larger than the output limit so that programs that
#: write scratch files still work; stdout above the output limit is detected by its size.
MIN_FSIZE = 64 << 20


def file_size_limit(output_limit_bytes):
    """RLIMIT_FSIZE for a case whose stdout may hold ``output_limit_bytes``."""
    return max(MIN_FSIZE, output_limit_bytes + 1)


# --------------------------------------------------------------------------- Java

#: Upstream's Java harnesses compile and run with these three libraries on the classpath
#: (commons-math3, htsjdk, jregex). Debian's packages put them at these fixed paths, in the
#: image (docker/Dockerfile) and on a host set up by scripts/install.sh; absent ones are skipped.
JAVA_LIBS = (
    "/usr/share/java/commons-math3.jar",
    "/usr/share/java/htsjdk.jar",
    "/usr/share/java/jregex.jar",
)


def java_libs():
    """The :data:`JAVA_LIBS` present on this machine, for the compile and run classpath."""
    return [path for path in JAVA_LIBS if os.path.isfile(path)]


def java_flags(memory_mb, libs):
    """The JVM flags every case JVM runs with: heap from the job's memory, one CPU, UTF-8."""
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
        "-Dbiocoder.libs=" + os.pathsep.join(libs),  # Runner's classpath (Runner.java)
    ]


# --------------------------------------------------------------------------- messages


def encode_line(obj):
    """One message as one line of text (JSON, newline-terminated)."""
    return json.dumps(obj) + "\n"


def decode_line(line):
    """The message of one line (``str`` or ``bytes``); ValueError if it is not JSON."""
    return json.loads(line)


def outcome(status, returncode=None, stdout="", stderr="", duration_s=0.0):
    """The fields of one case's outcome (``types.CaseOutcome`` on the host)."""
    return {
        "status": status,
        "returncode": returncode,
        "stdout": stdout,
        "stderr": stderr,
        "duration_s": duration_s,
    }


def job_request(req_id, job, warm, batch=True):
    """host -> worker: run ``job`` (a dict of Job fields, ``programs`` a list). ``batch``: a warm
    Python job's cases share one clean case process (``python_batch.py``)."""
    return {"id": req_id, "job": job, "options": {"warm": warm, "batch": batch}}


def info_request(req_id):
    """host -> worker: report the environment facts."""
    return {"id": req_id, "info": True}


def ready_message(pid, python, contained):
    return {"ready": True, "pid": pid, "python": python, "contained": contained}


def outcome_message(req_id, index, case_outcome):
    return {"id": req_id, "index": index, "outcome": case_outcome}


def done_message(req_id):
    return {"id": req_id, "done": True}


def info_message(req_id, facts):
    return {"id": req_id, "info": facts}


def error_message(req_id, error, traceback_tail, fatal=False):
    """A fault of the worker for request ``req_id``; ``fatal``: the worker stops after it (the
    host starts a fresh one for the next job instead of sending it to a dying worker)."""
    msg = {"id": req_id, "error": error, "traceback": traceback_tail}
    if fatal:
        msg["fatal"] = True
    return msg
