# ruff: noqa
# hostile: ignores SIGTERM/SIGINT/SIGHUP, starts a marker-carrying child that ignores them too,
#   then sleeps forever.
# expect: timeout
# contained: the sandbox escalates to SIGKILL: neither the case process nor its child (marker)
#   survives on the host.
def f(x):
    import signal
    import subprocess
    import sys
    import time
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    code = ("import signal, time\n"
            "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)\n"
            "time.sleep(600)\n")
    subprocess.Popen([sys.executable, "-c", code, "@@MARKER@@"],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        time.sleep(1)
