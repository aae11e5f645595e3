# ruff: noqa
# hostile: stderr flood, 64 KiB writes forever.
# expect: runtime_error
# contained: stderr counts against the output limit too (output_limit -> runtime_error); only
#   a tail of it reaches the results; the evaluator stays alive.
def f(x):
    import sys
    chunk = "E" * 65536
    while True:
        sys.stderr.write(chunk)
