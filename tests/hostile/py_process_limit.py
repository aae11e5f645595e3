# ruff: noqa
# hostile: wide fork bomb: tries to hold 300 live processes at once (posix_spawn of `sleep`,
#   cheap enough to get there within the time limit; argv[0] is the marker). A sandbox with a
#   process limit stops it with a spawn error (uncaught); one without lets all 300 exist and the
#   program prints ESCAPE - what a real, unbounded fork bomb turns into host-wide pid exhaustion.
#   (Bounded at 300, above Docker's 256, to keep the shared test machine usable.)
# expect: runtime_error
# contained: spawning fails well before 300 live processes; every child is gone afterwards (no
#   host process carries the marker).
def f(x):
    import os
    import shutil
    sleep = shutil.which("sleep") or "/bin/sleep"
    for _ in range(300):
        os.posix_spawn(sleep, ["@@MARKER@@", "600"], {})
    print("ESCAPE: 300 live processes, no process limit")
    return x * 2
