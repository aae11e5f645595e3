"""The benchmark's semantics-preserving rewrites: each one differs in text and computes the same thing."""

from __future__ import annotations

import ast
import random

from benchmarks import rewrites

FUNCS = {
    "gc_window": '''
def gc_window(seq, k=3, strict=False):
    """GC share of each window of length k."""
    out = []
    for i in range(len(seq) - k + 1):
        w = seq[i:i + k]
        gc = sum(1 for c in w if c in "GC")
        if strict and gc == 0:
            continue
        elif gc > k:
            raise ValueError(w)
        else:
            out.append(round(gc / k, 3))
    best = max(out, key=lambda x: x) if out else None
    return out if best is None or best >= 0.5 else out[::-1]
''',
    "span": """
def span(values, lo=None):
    try:
        low = min(values) if lo is None else lo
    except ValueError as e:
        return str(e)
    total = 0
    for v in values:
        if v < low:
            total -= 1
        else:
            total += v - low
    return total
""",
}


def _call(src: str, name: str, args: tuple) -> object:
    ns: dict = {}
    exec(compile(src, "<rewrite>", "exec"), ns)  # noqa: S102 - test code written above
    try:
        return ("ok", ns[name](*args))
    except Exception as exc:  # noqa: BLE001 - the exception type is part of the behaviour
        return ("raised", type(exc).__name__)


def test_every_rewrite_changes_the_code_and_keeps_what_it_computes():
    rnd = random.Random(0)
    for name, src in FUNCS.items():
        got = rewrites.rewrites(src, "python", name)
        classes = [c for c, _ in got]
        assert rewrites.COMBINED in classes and len(classes) >= 4, classes
        for cls, new in got:
            assert ast.dump(ast.parse(new)) != ast.dump(ast.parse(src)), cls
            for _ in range(200):
                if name == "gc_window":
                    args = (
                        "".join(rnd.choice("ACGT") for _ in range(rnd.randint(0, 12))),
                        rnd.randint(1, 4),
                        rnd.random() < 0.5,
                    )
                else:
                    args = ([rnd.randint(-5, 5) for _ in range(rnd.randint(0, 6))], rnd.choice([None, 0, 2]))
                assert _call(new, name, args) == _call(src, name, args), (cls, args, new)


def test_names_bound_as_strings_and_introspection_are_left_alone():
    src = "def f(x):\n    try:\n        y = 1 / x\n    except ZeroDivisionError as e:\n        y = e\n    return y\n"
    renamed = dict(rewrites.rewrites(src, "python", "f")).get(rewrites.RENAMED_LOCALS)
    assert renamed is None or "except ZeroDivisionError as e" in renamed
    assert rewrites.RENAMED_LOCALS not in dict(
        rewrites.rewrites("def f(a):\n    b = a\n    return locals()\n", "python", "f")
    )
    assert rewrites.rewrites("public int f() { return 1; }", "java", "f") == []
