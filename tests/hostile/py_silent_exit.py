# ruff: noqa
# hostile: leaves with exit status 0 before the harness prints anything (os._exit skips every
#   handler and flush).
# expect: failed
# contained: a clean exit with the wrong (empty) output is `failed`, not passed, not an error.
def f(x):
    import os
    os._exit(0)
