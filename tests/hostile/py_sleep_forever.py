# ruff: noqa
# hostile: sleeps far past the time limit (and prints nothing meanwhile).
# expect: timeout
# contained: killed at the time limit, not after 3600 s.
def f(x):
    import time
    time.sleep(3600)
    return x * 2
