# ruff: noqa
# hostile: reads the project's own files: everything in the evaluator's output directory
#   (results of earlier samples, a planted canary) and the output directory of an earlier run.
#   Prints anything holding the canary.
# expect: passed
# contained: neither output directory is visible inside the sandbox; the canary never appears
#   in the results.
def f(x):
    import os
    for top in ("@@OUT_DIR@@", "@@PRIOR_DIR@@"):
        for dirpath, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    with open(path, "r", errors="replace") as fh:
                        data = fh.read(1 << 16)
                except Exception:
                    continue
                if "CANARY" in data:
                    i = data.index("CANARY")
                    print("LEAK %s: %s" % (path, data[max(0, i - 20):i + 60]))
    return x * 2
