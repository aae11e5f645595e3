# ruff: noqa
# hostile: an orphan in its own session that KEEPS the case's stdout/stderr open (so a reader
#   waiting for EOF would hang), carries the marker and ignores SIGTERM; the case returns the
#   right answer at once.
# expect: passed
# contained: the case is judged on the exited main process (the orphan is killed, its open pipe
#   does not turn a correct answer into a timeout); no host process carries the marker afterwards.
def f(x):
    import subprocess
    import sys
    code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n"
    subprocess.Popen([sys.executable, "-c", code, "@@MARKER@@"], start_new_session=True)
    return x * 2
