# ruff: noqa
# hostile: crashes the interpreter with a NULL dereference (SIGSEGV).
# expect: runtime_error
# contained: a signal death is a runtime_error of this sample only; the worker and the
#   evaluator go on.
def f(x):
    import ctypes
    ctypes.string_at(0)
    return x * 2
