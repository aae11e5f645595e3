# ruff: noqa
# hostile: forges the worker protocol. Writes well-formed result messages claiming the CORRECT
#   output for case 0 of requests 1..1000 (each followed by "done") to every inherited file descriptor, to the
#   parent's stdout and to pid 1's stdout via /proc, then exits 0 without printing anything.
# expect: failed
# contained: the candidate cannot reach the worker's result channel: its own (empty) output is
#   judged, so the verdict is failed - never passed, never a sandbox error.
def f(x):
    import json
    import os
    answer = str(x * 2) + "\n"
    lines = []
    for req in range(1, 1001):
        outcome = {"status": "ok", "returncode": 0, "stdout": answer, "stderr": "", "duration_s": 0.01}
        lines.append(json.dumps({"id": req, "index": 0, "outcome": outcome}))
        lines.append(json.dumps({"id": req, "done": True}))
    payload = ("\n".join(lines) + "\n").encode()
    for fd in range(3, 256):
        try:
            os.write(fd, payload)
        except Exception:
            pass
    for path in ("/proc/%d/fd/1" % os.getppid(), "/proc/1/fd/1"):
        try:
            with open(path, "wb") as fh:
                fh.write(payload)
        except Exception:
            pass
    os._exit(0)
