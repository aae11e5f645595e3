# ruff: noqa
# hostile: walks /proc for other processes' environments and command lines (the evaluator's,
#   by its host pid, and every pid visible), looking for the canary.
# expect: passed
# contained: host processes are invisible (pid namespace) or unreadable; the canary never
#   appears in the output.
def f(x):
    import os
    pids = ["@@EVALUATOR_PID@@"]
    try:
        pids += [p for p in os.listdir("/proc") if p.isdigit()]
    except Exception:
        pass
    for pid in pids:
        for what in ("environ", "cmdline"):
            try:
                with open("/proc/%s/%s" % (pid, what), "rb") as fh:
                    raw = fh.read()
            except Exception:
                continue
            if b"CANARY" in raw:
                i = raw.index(b"CANARY")
                print("LEAK /proc/%s/%s %r" % (pid, what, raw[max(0, i - 20):i + 60]))
    return x * 2
