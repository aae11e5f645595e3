# ruff: noqa
# hostile: tries to change the verdicts: overwrites every file it can find in the evaluator's
#   output directory and in the evaluator's golden-output cache (its real path, given by the
#   test) and ~/.cache, $XDG_CACHE_HOME, appending forged "passed" lines. Errors are swallowed.
# expect: passed
# contained: results of earlier samples are unchanged, later samples are judged against the
#   true golden output (the follow-up wrong sample still fails), no forged line appears.
def f(x):
    import os
    forged = '{"task_id": "FORGED-@@MARKER@@", "status": "passed"}\n'
    tops = ["@@OUT_DIR@@", "@@CACHE_DIR@@", "@@CANARY_DIR@@/.cache", os.path.expanduser("~/.cache"),
            os.environ.get("XDG_CACHE_HOME", "/nonexistent")]
    for top in tops:
        for dirpath, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    with open(path, "a") as fh:
                        fh.write(forged)
                except Exception:
                    pass
    return x * 2
