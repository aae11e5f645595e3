# ruff: noqa
# hostile: deletes and renames things outside its work dir: the canary file, the canary
#   directory tree, the evaluator's output directory. Errors are swallowed.
# expect: passed
# contained: the canary file and directory and the output directory are all still there,
#   unchanged, after the run.
def f(x):
    import os
    import shutil
    for action in (
        lambda: os.remove("@@CANARY_DIR@@/secret.txt"),
        lambda: os.rename("@@CANARY_DIR@@/.ssh", "@@CANARY_DIR@@/.ssh_gone"),
        lambda: shutil.rmtree("@@CANARY_DIR@@/.cache"),
        lambda: shutil.rmtree("@@OUT_DIR@@"),
        lambda: shutil.rmtree("/proc/1/root@@CANARY_DIR@@"),
    ):
        try:
            action()
        except Exception:
            pass
    return x * 2
