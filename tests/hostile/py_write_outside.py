# ruff: noqa
# hostile: writes outside its work dir: appends to and overwrites a canary file on the host,
#   creates new files next to it, in the host /tmp, in the project checkout and in /etc.
#   Errors are swallowed; the answer is returned normally.
# expect: passed
# contained: the canary file is byte-for-byte unchanged and none of the new files exists on the
#   host after the run.
def f(x):
    import os
    targets = [
        ("@@CANARY_DIR@@/secret.txt", "a"),
        ("@@CANARY_DIR@@/secret.txt", "w"),
        ("@@CANARY_DIR@@/@@MARKER@@.new", "w"),
        ("/tmp/@@MARKER@@.new", "w"),
        ("@@REPO_ROOT@@/@@MARKER@@.new", "w"),
        ("/etc/@@MARKER@@.new", "w"),
        ("/proc/1/root@@CANARY_DIR@@/@@MARKER@@.viaproc", "w"),
    ]
    for path, mode in targets:
        try:
            with open(path, mode) as fh:
                fh.write("PWNED @@MARKER@@\n")
        except Exception:
            pass
    return x * 2
