# ruff: noqa
# hostile: fork bomb. Every process renames itself to the marker, calls setsid() (to escape
#   process-group kills) and keeps forking; fork errors (a pids limit) are swallowed, so the
#   root never returns. Bounded to a tree of at most 1+4+16+64+256 = 341 processes so that a
#   sandbox which does NOT limit pids cannot starve the shared test machine.
# expect: timeout
# contained: after the case no host process carries the marker (all setsid'd children were
#   killed, not just the process group); the evaluator goes on with the next sample.
def f(x):
    import ctypes
    import os
    import time

    def rename():
        try:
            ctypes.CDLL(None).prctl(15, b"@@MARKER@@", 0, 0, 0)  # PR_SET_NAME
        except Exception:
            pass

    rename()
    depth = 0
    children = 0
    while True:
        if depth < 4 and children < 4:
            try:
                pid = os.fork()
            except OSError:
                pid = -1
            if pid == 0:
                rename()
                try:
                    os.setsid()
                except OSError:
                    pass
                depth += 1
                children = 0
                continue
            children += 1
        else:
            time.sleep(0.05)
