"""Compile a case program as a sequence of top-level chunks, remembering the chunks across programs.

Why: the case programs of one task share almost all their text. The harness's imports, helpers
and test driver are the same for every sample, and a fuzz case's values change only the chunk that
holds them, so the cases of one sample differ in one or two top-level statements. Compiling every
program whole costs about 0.3 ms per kB, for every case of every sample. Here a program is cut at
its top-level statements, each chunk is compiled on its own (at its own line numbers) and
remembered by its text, and the case process executes the chunks one after another in one
``__main__``. That is the same program: see :func:`compile_program` for why, and for the cases
that are compiled whole instead.

The worker runs trusted code only; this module holds no program state but compiled chunks, and a
chunk's code object is a pure function of its text and first line, so one program cannot change
what another runs.
"""

from __future__ import annotations

import collections
import marshal
import re
import types

#: First words of a top-level line that starts a compound statement (its own chunk).
_COMPOUND = re.compile(r"(?:def|class|async|if|for|while|try|with)\b|@")
#: First words that continue the compound statement above (never the start of a chunk).
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
#: ``global``/``nonlocal`` anywhere: module-level ones are checked across statements by the compiler.
_DECLARATION = re.compile(r"^[ \t]*(?:global|nonlocal)[ \t\\]", re.M)

#: Compiled chunks: (first line, text) -> (code object, marshalled bytes), least recently used first
#: (every chunk at line 1 too, the one the others are moved from).
_CHUNKS: collections.OrderedDict[tuple[int, str], tuple[object, bytes]] = collections.OrderedDict()
_CHUNK_CHARS = [0]
#: Bound on the remembered chunks' text (their code objects are a few times larger).
MAX_CHUNK_CHARS = 4 << 20


class Program:
    """A compiled case program: its code objects in execution order, and their marshalled form
    (the code objects one after another, read back with repeated ``marshal.load``)."""

    __slots__ = ("codes", "marshalled")

    def __init__(self, codes, marshalled):
        self.codes = codes
        self.marshalled = marshalled


def split_chunks(src):
    """``src`` cut before top-level lines that start a statement: every compound statement (with
    its decorators) alone, consecutive simple statements together. Returns [(first line, text)].

    The cut is a guess (a top-level line inside a string or a bracket also looks like a
    statement); :func:`compile_program` checks it.
    """
    lines = src.split("\n")
    chunks = []
    start = 0
    before = None  # what the statement line before this one starts: "compound", "simple", "decorator"
    for i, line in enumerate(lines):
        c = line[:1]
        if not c or c in " \t\f#" or _CONTINUATION.match(line):
            continue
        here = "decorator" if c == "@" else ("compound" if _COMPOUND.match(line) else "simple")
        # a decorator belongs to what follows it; simple statements stay together
        if before is not None and before != "decorator" and not (before == here == "simple"):
            chunks.append((start + 1, "\n".join(lines[start:i]) + "\n"))
            start = i
        before = here
    tail = "\n".join(lines[start:])
    if tail or not chunks:
        chunks.append((start + 1, tail))
    return chunks


def _shifted(code, lines):
    """``code`` (and every code object nested in it) moved ``lines`` lines down: line numbers are
    kept relative to ``co_firstlineno``, so this is the code compiled that much lower."""
    consts = tuple(_shifted(c, lines) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + lines, co_consts=consts)


def _remember(key, got):
    _CHUNKS[key] = got
    _CHUNK_CHARS[0] += len(key[1])
    while _CHUNK_CHARS[0] > MAX_CHUNK_CHARS and len(_CHUNKS) > 1:
        (_, old), _ = _CHUNKS.popitem(last=False)
        _CHUNK_CHARS[0] -= len(old)
    return got


def _compile_chunk(first_line, text):
    """The chunk ``text`` compiled as if it began on line ``first_line``, and marshalled.

    Remembered by text at line 1 and at each line it was used at: a chunk after a candidate's
    code moves with the candidate's length, and is then moved, not compiled again."""
    key = (first_line, text)
    got = _CHUNKS.get(key)
    if got is not None:
        _CHUNKS.move_to_end(key)
        return got
    base = _CHUNKS.get((1, text))
    if base is None:
        code = compile(text, "main.py", "exec", dont_inherit=True)
        base = _remember((1, text), (code, marshal.dumps(code)))
    else:
        _CHUNKS.move_to_end((1, text))
    if first_line == 1:
        return base
    code = _shifted(base[0], first_line - 1)
    return _remember(key, (code, marshal.dumps(code)))


def _chunked(src):
    """The chunks' code objects, or None where the program must be compiled whole."""
    if "\r" in src or "__future__" in src or _DECLARATION.search(src):
        return None
    chunks = split_chunks(src)
    if len(chunks) < 2:
        return None
    out = []
    budget = 2 * len(src)  # text compiled in failed attempts; past it, compile whole
    i = 0
    while i < len(chunks):
        first_line, text = chunks[i]
        j = i + 1
        while True:
            try:
                code, data = _compile_chunk(first_line, text)
                break
            except (SyntaxError, ValueError, OverflowError):
                budget -= len(text)
                if j >= len(chunks) or budget < 0:
                    return None
                text += chunks[j][1]  # cut inside a statement (a string, a bracket): join the next
                j += 1
        names = code.co_names
        if out and ("__doc__" in names or "__annotations__" in names):
            return None
        out.append((code, data))
        i = j
    return out


def compile_program(src):
    """Compile ``src`` (a whole ``main.py``) as :class:`Program`; raises what ``compile`` raises.

    Why executing the chunks one after another in one namespace is running the program: each
    chunk ends with a newline and compiles alone, so it ends outside any string, bracket or line
    continuation, and the next chunk begins at column 0 with a statement that compiles alone (not
    an ``else``/``except`` of the one before, not indented, not after a decorator). The program's
    parse is then the chunks' parses one after another, and the bytecode of a module-level
    statement depends only on that statement (its line numbers aside, which are those of the
    whole program), with four exceptions, compiled whole instead:
    ``from __future__`` (it changes how later statements compile), module-level ``global`` and
    ``nonlocal`` (checked against earlier statements; any such line sends the program whole), a
    string first in a later chunk (a chunk alone would take it as the module's ``__doc__``), and
    module-level annotations after the first chunk (they set ``__annotations__`` up at the
    program's start). Each chunk's code carries its own line numbers, so tracebacks and
    ``f_lineno`` are the whole program's. Any chunk that fails, or a program that cannot be cut,
    is compiled whole, so errors are always those of the whole program.
    """
    try:
        parts = _chunked(src)
    except (MemoryError, RecursionError):
        parts = None
    if parts is None:
        code = compile(src, "main.py", "exec", dont_inherit=True)
        return Program((code,), marshal.dumps(code))
    return Program(tuple(c for c, _ in parts), b"".join(d for _, d in parts))


def load_program(fh):
    """The code objects of a marshalled :class:`Program`, read from the binary file ``fh``."""
    codes = []
    while True:
        try:
            codes.append(marshal.load(fh))
        except EOFError:
            return tuple(codes)
