# ruff: noqa
# hostile: ignores every catchable signal, blocks them all with pthread_sigmask, then sleeps
#   in a loop.
# expect: timeout
# contained: SIGKILL ends it at the time limit; nothing is left behind.
def f(x):
    import signal
    import time
    for sig in range(1, signal.NSIG):
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(sig, signal.SIG_IGN)
        except Exception:
            pass
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, set(range(1, signal.NSIG)) - {signal.SIGKILL, signal.SIGSTOP})
    except Exception:
        pass
    while True:
        time.sleep(0.5)
