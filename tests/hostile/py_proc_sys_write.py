# ruff: noqa
# hostile: writes kernel settings through /proc/sys and sethostname(): the hostname, the
#   maximum pid. Errors are swallowed.
# expect: passed
# contained: the host's hostname and kernel.pid_max are unchanged after the run.
def f(x):
    import socket
    for path, value in (("/proc/sys/kernel/hostname", "@@MARKER@@"), ("/proc/sys/kernel/pid_max", "4242")):
        try:
            with open(path, "w") as fh:
                fh.write(value)
        except Exception:
            pass
    try:
        socket.sethostname("@@MARKER@@")
    except Exception:
        pass
    return x * 2
