# ruff: noqa
# hostile: output that bypasses the output limit: 64 MiB of junk written to the stdout/stderr of
#   pid 1 and of its parent process through /proc/PID/fd (on Docker, pid 1's output goes to the
#   engine's log file on the HOST disk; under bwrap, to the host's protocol pipe). Prints ESCAPE
#   for every stream it could write.
# expect: passed
# contained: no such stream can be opened for writing from inside the sandbox, so nothing but the
#   answer is printed and no host-side log grows.
def f(x):
    import os
    junk = (b"J" * 1023 + b"\n") * 1024
    for path in ("/proc/1/fd/1", "/proc/1/fd/2", "/proc/%d/fd/1" % os.getppid(), "/proc/%d/fd/2" % os.getppid()):
        try:
            with open(path, "wb") as fh:
                for _ in range(64):
                    fh.write(junk)
        except Exception:
            continue
        print("ESCAPE: wrote 64 MiB to %s" % path)
    return x * 2
