# ruff: noqa
# hostile: fills the worker's work root *outside* its own case dir (the parent dirs of its cwd)
#   with 32 MiB files (posix_fallocate) until the space runs out, so that preparing the next case (or the next
#   sample) fails and becomes a sandbox_error, which is left out of n and c: a wrong answer
#   would escape being counted. The worker must sweep the work root after every case.
# expect: passed
# contained: the next case and the wrong answer after it are judged normally
import os

def f(x):
    for root in (os.path.dirname(os.getcwd()), os.path.dirname(os.path.dirname(os.getcwd())),
                 os.path.dirname(os.path.dirname(os.path.dirname(os.getcwd())))):
        try:
            for i in range(96):
                with open(os.path.join(root, f"fill-{os.getpid()}-{i}"), "wb") as fh:
                    try:
                        os.posix_fallocate(fh.fileno(), 0, 32 << 20)  # instant where the fs supports it
                    except OSError as exc:
                        if exc.errno not in (95,):  # EOPNOTSUPP: fall back to writing
                            raise
                        fh.write(b"\0" * (32 << 20))
        except OSError:
            pass
    return x * 2
