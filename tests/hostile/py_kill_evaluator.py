# ruff: noqa
# hostile: tries to kill the evaluator: SIGKILL to its host pid (given by the test), to the
#   case's parent (the in-sandbox worker), to pid 1 and to every process it may signal
#   (kill(-1)); errors are swallowed and the answer is returned normally.
# expect: passed
# contained: the evaluator survives and goes on with the next sample; the sandbox keeps the
#   worker out of the candidate's reach (other pid namespace / other uid), so the case is
#   judged normally.
def f(x):
    import os
    import signal
    for pid in (int("@@EVALUATOR_PID@@"), os.getppid(), 1, -1):
        try:
            os.kill(pid, signal.SIGKILL)
        except Exception:
            pass
    return x * 2
