# ruff: noqa
# hostile: classic daemon: fork, setsid, fork again, close stdio, exec a 600 s sleeper that
#   carries the marker and ignores SIGTERM; the case itself returns the right answer at once.
# expect: passed
# contained: the answer is judged normally, and the daemon does not outlive the case: no host
#   process carries the marker once the run is over.
def f(x):
    import os
    import sys
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            fd = os.open(os.devnull, os.O_RDWR)
            for target in (0, 1, 2):
                os.dup2(fd, target)
            code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n"
            os.execv(sys.executable, [sys.executable, "-c", code, "@@MARKER@@"])
        os._exit(0)
    os.wait()
    return x * 2
