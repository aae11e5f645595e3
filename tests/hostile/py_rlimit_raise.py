# ruff: noqa
# hostile: raises every rlimit it can (soft to hard, hard to unlimited), then allocates 64 MiB
#   blocks (bounded at 3 GiB).
# expect: memory_exceeded
# contained: the memory cap is not something the candidate can lift (hard limit or cgroup):
#   allocation still fails before 3 GiB.
def f(x):
    import resource
    for name in dir(resource):
        if not name.startswith("RLIMIT_"):
            continue
        lim = getattr(resource, name)
        for target in ((resource.RLIM_INFINITY, resource.RLIM_INFINITY),):
            try:
                resource.setrlimit(lim, target)
            except Exception:
                try:
                    soft, hard = resource.getrlimit(lim)
                    resource.setrlimit(lim, (hard, hard))
                except Exception:
                    pass
    hoard = []
    for _ in range(48):
        hoard.append(b"\x05" * (64 << 20))
    print("ESCAPE: allocated 3 GiB after raising rlimits")
    return x * 2
