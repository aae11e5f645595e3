# ruff: noqa
# hostile: stdout flood, 64 KiB writes forever.
# expect: runtime_error
# contained: the output limit stops it (output_limit -> runtime_error); the evaluator does not
#   buffer unbounded output (it stays alive, results stay small).
def f(x):
    import sys
    chunk = "A" * 65536
    while True:
        sys.stdout.write(chunk)
