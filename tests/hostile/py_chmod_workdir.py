# ruff: noqa
# hostile: makes its work dir hard to clean up: a deep tree of read-only directories with
#   files, then chmod 000 on the work dir itself. Returns the right answer.
# expect: passed
# contained: the worker still cleans up and the next sample (same worker) runs normally.
def f(x):
    import os
    base = os.getcwd()
    path = base
    for i in range(30):
        path = os.path.join(path, "d%d" % i)
        os.mkdir(path)
        with open(os.path.join(path, "f"), "w") as fh:
            fh.write("x")
    p = path
    while p != base:
        os.chmod(p, 0o500)
        p = os.path.dirname(p)
    os.chmod(base, 0)
    return x * 2
