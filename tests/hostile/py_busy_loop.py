# ruff: noqa
# hostile: busy loop.
# expect: timeout
# contained: killed at the time limit; the next sample runs.
def f(x):
    n = 0
    while True:
        n += 1
