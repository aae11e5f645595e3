# ruff: noqa
# hostile: memory bomb. Allocates and touches 64 MiB blocks until allocation fails. The
#   MemoryError (rlimit) or the OOM kill (cgroup) must both map to memory_exceeded. Bounded
#   at 3 GiB: a sandbox that lets it get that far prints ESCAPE (and fails the test).
# expect: memory_exceeded
# contained: the evaluator survives (no host OOM); the next sample runs normally.
def f(x):
    hoard = []
    for _ in range(48):
        hoard.append(b"\x01" * (64 << 20))
    print("ESCAPE: allocated 3 GiB without hitting a memory limit")
    return x * 2
