"""Chunked compilation of case programs (``sandbox/runtime/python_compile.py``) runs the program.

Every program here is run twice in a fresh namespace, compiled whole and compiled as chunks, and
must print the same, raise the same (type, message, line numbers of every main.py frame) and leave
the same module globals. The programs are the constructs where a cut at a top-level line could
change the meaning: strings and brackets spanning top-level lines, decorators, ``else`` /
``except`` clauses, module-level ``global``, ``from __future__``, a string first in a later chunk,
annotations, and syntax errors anywhere.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import traceback

import pytest

from biocoder_metric.sandbox.base import RUNTIME_SRC

# Loaded from its file, not imported: the host imports nothing of the in-sandbox runtime but its
# protocol (tests/test_runtime_stdlib.py); this module only compiles, so it runs here unchanged.
_spec = importlib.util.spec_from_file_location("runtime_python_compile", RUNTIME_SRC / "python_compile.py")
python_compile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(python_compile)
compile_program, split_chunks = python_compile.compile_program, python_compile.split_chunks


def _run(codes):
    env: dict = {"__name__": "__main__", "__builtins__": __builtins__}
    out = io.StringIO()
    err = None
    with contextlib.redirect_stdout(out):
        try:
            for code in codes:
                exec(code, env)
        except BaseException as exc:  # noqa: B036 - any program exception is compared
            frames = [
                (f.name, f.lineno) for f in traceback.extract_tb(exc.__traceback__) if f.filename == "main.py"
            ]
            err = (type(exc).__name__, str(exc), frames)
    public = {k: repr(v) for k, v in env.items() if k not in ("__builtins__",) and not callable(v)}
    return out.getvalue(), err, public


def _compile_error(fn):
    try:
        return fn(), None
    except (SyntaxError, ValueError) as exc:
        return None, (type(exc).__name__, str(exc), getattr(exc, "lineno", None))


def assert_same(src: str) -> int:
    """Whole and chunked give the same result; returns the number of chunks used."""
    whole, whole_err = _compile_error(lambda: compile(src, "main.py", "exec", dont_inherit=True))
    prog, prog_err = _compile_error(lambda: compile_program(src))
    assert whole_err == prog_err
    if whole is None:
        return 0
    assert _run((whole,)) == _run(prog.codes)
    return len(prog.codes)


PROGRAMS = {
    "plain": "import math\nX = 3\ndef f(a):\n    return a * X\nclass C:\n    y = 2\nprint(f(C.y), math.pi)\n",
    "string spanning top-level lines": 'S = """\ndef looks_like_code():\n    pass\nelse:\n"""\nprint(S)\ndef g():\n    return """\nclass Nope:\n"""\nprint(g())\n',
    "bracket spanning top-level lines": "def f():\n    return [\n1, 2,\n3]\nprint(f())\nx = (\n4)\nprint(x)\n",
    "decorators": "import functools\ndef deco(fn):\n    return functools.wraps(fn)(lambda *a: fn(*a) + 1)\n@deco\n@deco\ndef h(v):\n    return v\nprint(h(1))\n",
    "top-level else and except": "import sys\nif len(sys.argv) > 99:\n    a = 1\nelif False:\n    a = 2\nelse:\n    a = 3\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    b = 'caught'\nelse:\n    b = 'none'\nfinally:\n    c = 'done'\nfor i in range(2):\n    pass\nelse:\n    d = i\nwhile False:\n    pass\nelse:\n    e = 5\nprint(a, b, c, d, e)\n",
    "traceback line numbers": "def inner():\n    raise KeyError('k')\n\n\ndef outer():\n    return inner()\n\nprint('before')\nouter()\nprint('never')\n",
    "module-level global after assignment": "x = 1\ndef f():\n    pass\nglobal x\n",
    "global in a function": "n = 0\ndef bump():\n    global n\n    n += 1\nbump()\nprint(n)\n",
    "future import": "from __future__ import annotations\ndef f(a: Undefined) -> AlsoUndefined:\n    return a\nprint(f(2), f.__annotations__)\n",
    "string first in a later chunk": "def f():\n    pass\n'''not the module docstring'''\nprint(__doc__)\n",
    "module docstring": "'''the docstring'''\ndef f():\n    return __doc__\nprint(f())\n",
    "annotations after the first chunk": "print('__annotations__' in globals())\ndef f():\n    pass\ny: int = 2\nprint(__annotations__)\n",
    "annotations in the first chunk": "y: int = 2\ndef f():\n    return __annotations__\nprint(f())\n",
    "syntax error in a later chunk": "def ok():\n    return 1\nprint(ok())\ndef broken(:\n    pass\n",
    "indentation error at a cut": "def f():\n    return 1\n  x = 2\n",
    "stray else": "x = 1\nelse:\n    pass\n",
    "decorator at the end": "def f():\n    pass\n@f\n",
    "unclosed string at the end": 'def f():\n    pass\nx = """\n',
    "null byte": "def f():\n    pass\nx = '\x00'\n",
    "carriage returns": "def f():\r\n    return 1\r\nprint(f())\r\n",
    "no trailing newline": "def f():\n    return 7\nprint(f())",
    "identifiers that start like keywords": "iffy = 1\ndef defer():\n    return iffy\nelsewhere = defer()\nclassy = elsewhere\nprint(classy)\n",
    "exit in a chunk": "import sys\nprint('a')\ndef f():\n    pass\nsys.exit(3)\nprint('b')\n",
    "names across chunks": "def a():\n    return b()\ndef b():\n    return 'late binding'\nprint(a())\n",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_chunked_program_behaves_as_whole(name):
    assert_same(PROGRAMS[name])


def test_chunks_are_used_and_text_is_kept():
    src = PROGRAMS["plain"]
    chunks = split_chunks(src)
    assert "".join(text for _, text in chunks) == src
    assert [line for line, _ in chunks] == [1, 3, 5, 7]
    assert assert_same(src) == 4
    # where a chunk alone would compile differently, the program is compiled whole
    for name in ("future import", "string first in a later chunk", "annotations after the first chunk"):
        assert len(compile_program(PROGRAMS[name]).codes) == 1, name
    # a cut inside a string or a bracket is joined with what follows, not compiled whole
    assert (
        1
        < len(compile_program(PROGRAMS["string spanning top-level lines"]).codes)
        < len(split_chunks(PROGRAMS["string spanning top-level lines"]))
    )


def test_chunks_are_remembered_by_text_and_line():
    a = "import math\ndef shared():\n    return math.e\ndef case():\n    return 1\n"
    b = "import math\ndef shared():\n    return math.e\ndef case():\n    return 2\n"
    pa, pb = compile_program(a), compile_program(b)
    assert pa.codes[1] is pb.codes[1]  # the shared chunk was compiled once
    assert pa.codes[2] is not pb.codes[2]
    # the same text at another line is another code object (its line numbers differ)
    c = "\n" + a
    pc = compile_program(c)
    assert pc.codes[1] is not pa.codes[1]
    assert assert_same(c)


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(python_compile, "MAX_CHUNK_CHARS", 200)
    for i in range(50):
        compile_program(f"def f{i}():\n    return {i}\nprint(f{i}())\n")
    assert sum(len(text) for _, text in python_compile._CHUNKS) <= 200 + 40


def test_marshalled_program_loads_back(tmp_path):
    src = PROGRAMS["traceback line numbers"]
    prog = compile_program(src)
    path = tmp_path / "code"
    path.write_bytes(prog.marshalled)
    with open(path, "rb") as fh:
        codes = python_compile.load_program(fh)
    assert len(codes) == len(prog.codes) > 1
    assert _run(codes) == _run((compile(src, "main.py", "exec"),))


def test_a_chunk_moved_by_a_longer_candidate_keeps_the_whole_programs_line_numbers():
    driver = "def main():\n    try:\n        solve()\n    except ZeroDivisionError:\n        pass\n    solve()\nmain()\n"
    short = "def solve():\n    return 1 / 0\n"
    long = (
        "def solve():\n    x = 1\n\n    y = 0\n    def inner():\n        return x / y\n    return inner()\n"
    )
    first = "import math\n" + short + driver
    moved = "import math\n" + long + driver
    assert assert_same(first)
    assert assert_same(moved)  # the driver chunk comes from the cache, moved 5 lines down
    driver_code = compile_program(moved).codes[-2]
    assert driver_code.co_consts[0].co_firstlineno == moved.split("\n").index("def main():") + 1
