"""Harness strength at evaluation time: null candidates and whether the return value is observed.

Why in the engine: a pass@k is only as good as the test behind it, and a shipped audit file
covers only the tasks someone audited. So before a harness task enters a headline the engine
knows its strength, for every task set (a config, ``--tasks``, the metric, lm-eval): the
checks below run in the golden phase, once per (harness, golden, environment, fuzz options),
and are cached on disk next to the golden outputs. ``--include-weak`` skips them and scores
everything.

* **Null candidates** (``weak_harness``): the golden's header with its body replaced by
  ``return None``, ``pass``, ``return <first argument>``, ``raise``, and (Python) a constant of
  the golden's return type (the golden is called for its type, and its value thrown away).
  If one passes, the test cannot tell a solution from nothing.
* **Return observed** (``return_unobserved``, Python): the golden wrapped so that its return
  value is replaced by None, or by a different value of the same type, after the golden ran
  (its side effects, such as its own log lines, stay). If neither replacement is detected
  while the golden does return something, the test never looks at the result.
* **Constant output**: the golden prints the same on every fuzz case (reported, not excluding).

The candidates embed the golden's code, so they run in the golden pool (never where samples
run), and they are judged exactly as samples are (``judging.judge``). Cheap by design: one job
runs every candidate on the first two fuzz cases; only candidates that survive those run the
rest.
"""

from __future__ import annotations

import ast
import json
import re
import threading
from pathlib import Path
from typing import Any

from biocoder_dataset.java_source import block_end, java_mask
from biocoder_metric import pyast
from biocoder_metric.digests import sha256
from biocoder_metric.execution import harness
from biocoder_metric.execution.executors.base import Pool
from biocoder_metric.execution.jobs import programs_job
from biocoder_metric.execution.judging import judge
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.io import write_text_atomic
from biocoder_metric.languages import runner
from biocoder_metric.types import Status

#: Version of the strength check and its cache entries; bump when the rules change.
CHECK_VERSION = 1
#: Fuzz cases every candidate runs first; survivors run the rest.
FIRST_CASES = 2

NULL_RETURN_NONE = "return None"
NULL_PASS = "pass"
NULL_FIRST_ARG = "return first argument"
NULL_RAISE = "raise"


# ---------------------------------------------------------------------------- null candidates


def _python_function(tree: ast.Module, name: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (name is None or node.name == name):
            return node
    return None


def python_null_candidates(golden: str, function_name: str | None) -> list[tuple[str, str]]:
    """(name, source) of the null candidates: the golden's own header (decorators kept), body replaced.

    Built from the golden rather than the ``signature`` column so decorators such as
    ``@property``/``@staticmethod`` and default values are exactly the golden's.
    """
    try:
        tree = pyast.parse(golden)
    except SyntaxError:
        return []
    fn = _python_function(tree, function_name)
    if fn is None:
        return []
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    is_method = bool(params) and params[0] in ("self", "cls")
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    first = (
        params[1]
        if is_method and not static and len(params) > 1
        else (params[0] if params and not (is_method and not static) else None)
    )
    bodies = [
        (NULL_RETURN_NONE, "return None"),
        (NULL_PASS, "pass"),
        (NULL_FIRST_ARG, f"return {first}" if first else None),
        (NULL_RAISE, "raise RuntimeError('null candidate')"),
    ]
    out = []
    for label, body in bodies:
        if body is None:
            continue
        fn.body = pyast.parse(body).body
        out.append((label, ast.unparse(ast.fix_missing_locations(fn))))
    return out


_JAVA_DEFAULTS = {
    "int": "0",
    "long": "0L",
    "short": "(short) 0",
    "byte": "(byte) 0",
    "double": "0.0",
    "float": "0.0f",
    "boolean": "false",
    "char": "'\\0'",
}
_JAVA_MODIFIERS = {
    "public",
    "private",
    "protected",
    "static",
    "final",
    "synchronized",
    "abstract",
    "native",
    "strictfp",
    "default",
}


def java_null_candidates(golden: str, function_name: str | None) -> list[tuple[str, str]]:
    """(name, source) of the Java null candidates: the golden's header, body replaced (textually)."""
    if not function_name:
        return []
    mask = java_mask(golden)
    m = re.search(rf"\b{re.escape(function_name)}\s*\(", mask)
    if m is None:
        return []
    close_paren = mask.find(")", m.end())
    open_brace = mask.find("{", close_paren)
    if close_paren < 0 or open_brace < 0:
        return []
    end = block_end(golden, open_brace)
    if end is None:
        return []
    end -= 1  # the closing brace
    head = mask[: m.start()]
    head = re.sub(r"@\w+(\([^)]*\))?", " ", head[head.rfind(";") + 1 :] if ";" in head else head)
    words = [w for w in re.split(r"\s+", head.strip()) if w and w not in _JAVA_MODIFIERS]
    # the return type is what is left (generic parameters <T> first are dropped)
    rtype = re.sub(r"^<[^>]*>\s*", "", " ".join(words)).strip()
    params = [p.strip() for p in golden[m.end() : close_paren].split(",") if p.strip()]
    first_type, first_name = None, None
    if params:
        parts = re.sub(r"@\w+\s*", "", params[0]).replace("final ", "").rsplit(None, 1)
        if len(parts) == 2:
            first_type, first_name = parts[0].strip(), parts[1].strip()
    header = golden[: open_brace + 1]
    tail = golden[end:]
    default = None if rtype == "void" else _JAVA_DEFAULTS.get(rtype, "null")
    bodies = [
        (NULL_RETURN_NONE, "" if default is None else f"return {default};"),
        (NULL_PASS, "" if default is None else None),
        (NULL_FIRST_ARG, f"return {first_name};" if first_name and first_type == rtype else None),
        (NULL_RAISE, 'throw new RuntimeException("null candidate");'),
    ]
    return [(label, f"{header}\n    {body}\n{tail}") for label, body in bodies if body is not None]


def rosalind_null_candidates() -> list[tuple[str, str]]:
    """Null candidates for a Rosalind task (``solve(input_text)``)."""
    return [
        (NULL_RETURN_NONE, "def solve(input_text):\n    return None\n"),
        (NULL_PASS, "def solve(input_text):\n    pass\n"),
        (NULL_FIRST_ARG, "def solve(input_text):\n    return input_text\n"),
        (NULL_RAISE, "def solve(input_text):\n    raise RuntimeError('null candidate')\n"),
    ]


def null_candidates(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The null candidates for one task row."""
    if row.get("kind") == "rosalind":
        return rosalind_null_candidates()
    return runner(row["language"]).null_candidates(row["golden_code"], row.get("function_name"))


NULL_CONSTANT = "constant of the return type"
RETURN_NONE_AFTER_CALL = "golden's effects, return value replaced by None"
RETURN_PERTURBED = "golden's effects, return value replaced by another of its type"
RETURNS_SOMETHING = "golden returns a value"

#: A value of the same type as ``v`` but different from it (``_perturb``), and a fixed one
#: of that type (``_zero``); both standard library only, numpy/pandas duck-typed.
_HELPERS = """
def _biocoder_perturb(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float, complex)):
        return v + 1 if v == v else 0.0
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, bytes):
        return v + b"x"
    if isinstance(v, (list, tuple)):
        try:
            return type(v)(v[:-1]) if len(v) else type(v)([0])
        except Exception:
            return v[:-1] if len(v) else [0]
    if isinstance(v, (set, frozenset, dict)):
        try:
            return type(v)() if len(v) else type(v)({0: 0} if isinstance(v, dict) else {0})
        except Exception:
            return None
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        try:
            return v + 1
        except Exception:
            return v[:0] if len(v) else None
    if hasattr(v, "iloc"):
        try:
            return v.iloc[:-1] if len(v) else None
        except Exception:
            return None
    return None


def _biocoder_zero(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float, complex, str, bytes, list, tuple, dict, set, frozenset)):
        try:
            return type(v)()
        except Exception:
            return None
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        try:
            return v * 0
        except Exception:
            return None
    return None
"""


def _call_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The argument list that passes ``fn``'s own parameters on, as written in its header."""
    a = fn.args
    parts = [p.arg for p in (*a.posonlyargs, *a.args)]
    if a.vararg:
        parts.append("*" + a.vararg.arg)
    parts += [f"{p.arg}={p.arg}" for p in a.kwonlyargs]
    if a.kwarg:
        parts.append("**" + a.kwarg.arg)
    return ", ".join(parts)


def _packed_args(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str]:
    """``fn``'s parameters as one list expression (positional) and one dict expression (keywords)."""
    a = fn.args
    positional = (
        "["
        + ", ".join([p.arg for p in (*a.posonlyargs, *a.args)] + ([f"*{a.vararg.arg}"] if a.vararg else []))
        + "]"
    )
    items = [f"{p.arg!r}: {p.arg}" for p in a.kwonlyargs] + ([f"**{a.kwarg.arg}"] if a.kwarg else [])
    return positional, "{" + ", ".join(items) + "}"


def _is_generator(fn: ast.AST) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fn))


def python_wrapped_candidates(golden: str, function_name: str | None) -> list[tuple[str, str]]:
    """(label, source): the golden run for its effects, its return value then replaced.

    The wrapper keeps the golden's header (decorators, defaults); the golden itself becomes a
    nested function without decorators, called with the same parameters, so methods, static
    and class methods work alike. Generators and async functions are not wrapped.
    """
    try:
        tree = pyast.parse(golden)
    except SyntaxError:
        return []
    fn = _python_function(tree, function_name)
    if fn is None or isinstance(fn, ast.AsyncFunctionDef) or _is_generator(fn):
        return []
    inner = pyast.parse(ast.unparse(fn)).body[0]
    inner.decorator_list = []
    inner.name = "_biocoder_golden"
    call = f"_r = _biocoder_golden({_call_args(fn)})"
    # The constant null must have no effect of the golden's: it calls the golden only to learn
    # the return type, on deep copies of the arguments and with stdout swallowed.
    positional, keywords = _packed_args(fn)
    silent = (
        "import contextlib, copy, io\n"
        "try:\n"
        f"    _ca, _ck = copy.deepcopy(({positional}, {keywords}))\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        _r = _biocoder_golden(*_ca, **_ck)\n"
        "except BaseException:\n"
        "    _r = None"
    )
    out = []
    for label, head, tail in (
        (NULL_CONSTANT, silent, "return _biocoder_zero(_r)"),
        (RETURN_NONE_AFTER_CALL, call, "return None"),
        (RETURN_PERTURBED, call, "return _biocoder_perturb(_r)"),
        (RETURNS_SOMETHING, call, "if _r is not None:\n    import os\n    os._exit(97)\nreturn _r"),
    ):
        body = pyast.parse(_HELPERS).body + [inner] + pyast.parse(f"{head}\n{tail}").body
        wrapper = pyast.parse(ast.unparse(fn)).body[0]
        wrapper.body = body
        out.append((label, ast.unparse(ast.fix_missing_locations(wrapper))))
    return out


def harness_digest(row: dict[str, Any]) -> str:
    """What a harness task's strength depends on: its program, golden, language and function."""
    return sha256(
        json.dumps(
            [
                row.get("language"),
                row.get("kind"),
                row.get("function_name"),
                row.get("context"),
                row.get("golden_code"),
            ]
        )
    )


class StrengthCheck:
    """The strength of each harness task of a session, computed once and cached on disk."""

    def __init__(self, options: EvalOptions, environment_id: str):
        self.options = options
        self.environment_id = environment_id
        self._memo: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def cache_path(self, row: dict[str, Any]) -> Path:
        key = sha256(
            json.dumps(
                [
                    CHECK_VERSION,
                    harness_digest(row),
                    self.environment_id,
                    self.options.seed,
                    self.options.fuzz_cases,
                    self.options.timeout_s,
                    self.options.memory_mb,
                ]
            )
        )
        safe = re.sub(r"[^\w.-]", "_", row["task_id"])[:80]
        return self.options.cache_dir() / f"strength-{safe}-{key[:24]}.json"

    def check(self, row: dict[str, Any], expected: list[str], pool: Pool) -> dict[str, Any]:
        """The strength record of ``row`` (see the module docstring); ``expected``: golden outputs."""
        task_id = row["task_id"]
        with self._lock:
            if task_id in self._memo:
                return self._memo[task_id]
        path = self.cache_path(row)
        record = None
        if self.options.use_golden_cache and path.is_file():
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                record = None
        if record is None:
            record = self._compute(row, expected, pool)
            if self.options.use_golden_cache:
                write_text_atomic(path, json.dumps(record, sort_keys=True), durable=False)
        with self._lock:
            self._memo[task_id] = record
        return record

    def _verdicts(
        self, row: dict[str, Any], expected: list[str], pool: Pool, candidates: list[tuple[str, str]]
    ) -> dict[str, str]:
        """label -> sample status, first on FIRST_CASES cases each (one job), then survivors on the rest."""
        opts = self.options
        programs: dict[str, tuple[str, ...]] = {}
        verdicts: dict[str, str] = {}
        for label, code in candidates:
            try:
                programs[label] = harness.build_harness_programs(
                    row, code, fuzz_cases=opts.fuzz_cases, seed=opts.seed
                )
            except (
                ValueError,
                SyntaxError,
            ):  # HarnessError is a ValueError: this candidate cannot be inserted
                verdicts[label] = "not_built"  # never a pass: it proves nothing about the harness
        n = len(expected)
        for label in [label for label, progs in programs.items() if len(progs) != n]:
            del programs[label]  # another number of cases than the golden's: not comparable
            verdicts[label] = "not_built"
        for start, stop in ((0, min(FIRST_CASES, n)), (min(FIRST_CASES, n), n)):
            live = [label for label in programs if verdicts.get(label, Status.PASSED) == Status.PASSED]
            if start >= stop or not live:
                continue
            job = programs_job(opts, row, [p for label in live for p in programs[label][start:stop]])
            outcomes = pool.run(job)
            width = stop - start
            for i, label in enumerate(live):
                status, _, _ = judge(
                    outcomes[i * width : (i + 1) * width], expected[start:stop], row["language"]
                )
                verdicts[label] = status
        return verdicts

    def _compute(self, row: dict[str, Any], expected: list[str], pool: Pool) -> dict[str, Any]:
        nulls = null_candidates(row)
        wrapped = runner(row["language"]).wrapped_candidates(row["golden_code"], row.get("function_name"))
        first = [c for c in wrapped if c[0] in (NULL_CONSTANT, RETURN_NONE_AFTER_CALL, RETURN_PERTURBED)]
        verdicts = self._verdicts(row, expected, pool, nulls + first)
        null_labels = [label for label, _ in nulls] + [c[0] for c in first if c[0] == NULL_CONSTANT]
        passed = [label for label in null_labels if verdicts.get(label) == Status.PASSED]
        unobserved = None
        if wrapped:
            undetected = all(
                verdicts.get(x) == Status.PASSED for x in (RETURN_NONE_AFTER_CALL, RETURN_PERTURBED)
            )
            unobserved = False
            if undetected:
                probe = [c for c in wrapped if c[0] == RETURNS_SOMETHING]
                returns = self._verdicts(row, expected, pool, probe).get(RETURNS_SOMETHING)
                unobserved = returns is not None and returns != Status.PASSED
        return {
            "check_version": CHECK_VERSION,
            "harness_sha256": harness_digest(row),
            "weak_harness": bool(passed),
            "null_candidates_passed": passed,
            "null_candidates": {label: verdicts.get(label) for label in null_labels},
            "return_unobserved": unobserved,
            "return_checks": {
                label: verdicts.get(label) for label in (RETURN_NONE_AFTER_CALL, RETURN_PERTURBED)
            }
            if wrapped
            else None,
            "constant_output": len(set(expected)) <= 1,
            "fuzz_cases": len(expected),
        }
