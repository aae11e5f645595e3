"""Turn a task row plus a candidate solution into the program texts the sandbox runs.

Pure text manipulation, never executes anything. Three jobs:

* **Fuzz placeholders** (``<|int;range=0,100|>`` ...): the full upstream grammar,
  with values drawn from ``random.Random(f"{seed}:{task_id}:{case}")`` and filled in
  order of appearance. The harness is filled *before* the candidate is inserted, so
  the golden program and every candidate see exactly the same values, and text in a
  candidate can never be mistaken for a placeholder.
* **Insertion** at ``<<insert solution here>>``, re-indented to the marker's
  indentation (methods inside a class, Java methods inside ``public class Main {``).
  A completion that only continues the prompt's signature gets the signature prepended.
* **The Rosalind driver**: the candidate runs under a non-``__main__`` module name
  (so its own ``if __name__ == "__main__":`` block stays inert) and the driver prints
  ``solve(stdin)``.

Deliberate difference from upstream: string values with ``quotes=double|single`` are
emitted as *valid, escaped* literals of the target language. Upstream pasted the raw
characters between quotes, so a value containing a quote or backslash produced a
program that did not parse; with the default alphabet (letters) both agree exactly.
"""

from __future__ import annotations

import random
import re
import string
import textwrap
from dataclasses import dataclass

from biocoder_dataset.schema import TaskRow
from biocoder_metric.generation.postprocess import defines_function
from biocoder_metric.languages import runner

INSERT_MARKER = "<<insert solution here>>"

#: A placeholder is ``<|kind|>`` or ``<|kind;key=value;...|>`` (non-greedy, may not span lines).
PLACEHOLDER_RE = re.compile(r"<\|([^\n]*?)\|>")

#: Defaults of the upstream fuzzer (docs/ARCHITECTURE.md "Fuzz placeholders").
INT_RANGE = (-100000, 100000)
FLOAT_RANGE = (-100000.0, 100000.0)
STRING_LENGTH = (10, 10)

#: ``type=`` alphabets of ``<|string|>``. ``ascii`` (the default) means letters, as upstream.
STRING_ALPHABETS: dict[str, str] = {
    "ascii": string.ascii_letters,
    "alpha": string.ascii_lowercase,
    "alphanumeric": string.ascii_lowercase + string.digits,
    "alphanumeric_allcases": string.ascii_letters + string.digits,
    "alphanumeric_special": string.ascii_letters + string.digits + string.punctuation,
}
QUOTES = ("double", "single", "none")
BOOL_TYPES = ("upper", "lower", "int")
_ALLOWED_KEYS = {
    "int": {"range"},
    "float": {"range"},
    "string": {"length", "type", "custom", "quotes"},
    "bool": {"type"},
}


class HarnessError(ValueError):
    """A harness or candidate that cannot be turned into a program; the message names the task."""


@dataclass(frozen=True)
class Placeholder:
    """One parsed fuzz placeholder: its kind and options, with the original text for messages."""

    text: str
    kind: str
    options: tuple[tuple[str, str], ...] = ()

    def get(self, key: str) -> str | None:
        return dict(self.options).get(key)


# ---------------------------------------------------------------------------- placeholders


def parse_placeholder(text: str, task_id: str) -> Placeholder:
    """Parse the inside of one ``<|...|>``; raise :class:`HarnessError` naming task and text when malformed."""
    whole = f"<|{text}|>"

    def bad(why: str) -> HarnessError:
        return HarnessError(f"task {task_id}: malformed fuzz placeholder {whole!r}: {why}")

    parts = text.split(";")
    kind = parts[0].strip()
    if kind not in _ALLOWED_KEYS:
        return_kinds = ", ".join(sorted(_ALLOWED_KEYS))
        raise bad(f"unknown type {kind!r} (expected one of {return_kinds})")
    options: list[tuple[str, str]] = []
    seen: set[str] = set()
    for part in parts[1:]:
        if "=" not in part:
            raise bad(f"option {part!r} is not key=value")
        key, value = part.split("=", 1)
        key = key.strip()
        if key not in _ALLOWED_KEYS[kind]:
            raise bad(
                f"option {key!r} is not valid for {kind} (valid: {', '.join(sorted(_ALLOWED_KEYS[kind]))})"
            )
        if key in seen:
            raise bad(f"option {key!r} given twice")
        seen.add(key)
        # ``custom`` is an alphabet: keep its characters verbatim (spaces included).
        options.append((key, value if key == "custom" else value.strip()))
    ph = Placeholder(text=whole, kind=kind, options=tuple(options))
    _validate(ph, bad)
    return ph


def _validate(ph: Placeholder, bad) -> None:
    """Check option values once, at parse time, so a bad harness fails before anything runs."""
    if ph.kind in ("int", "float") and ph.get("range") is not None:
        _parse_range(ph.get("range"), int if ph.kind == "int" else float, bad)
    if ph.kind == "string":
        if ph.get("length") is not None:
            lo, hi = _parse_range(ph.get("length"), int, bad, single_ok=True)
            if lo < 0:
                raise bad("length must be >= 0")
        if ph.get("type") is not None and ph.get("type") not in STRING_ALPHABETS:
            raise bad(f"string type {ph.get('type')!r} not one of {', '.join(STRING_ALPHABETS)}")
        if ph.get("custom") is not None and ph.get("custom") == "":
            raise bad("custom alphabet is empty")
        if ph.get("quotes") is not None and ph.get("quotes") not in QUOTES:
            raise bad(f"quotes {ph.get('quotes')!r} not one of {', '.join(QUOTES)}")
    if ph.kind == "bool" and ph.get("type") is not None and ph.get("type") not in BOOL_TYPES:
        raise bad(f"bool type {ph.get('type')!r} not one of {', '.join(BOOL_TYPES)}")


def _parse_range(value: str, conv, bad, single_ok: bool = False):
    items = [v.strip() for v in value.split(",")]
    try:
        if len(items) == 1 and single_ok:
            n = conv(items[0])
            return n, n
        if len(items) != 2:
            raise ValueError
        lo, hi = conv(items[0]), conv(items[1])
    except ValueError:
        raise bad(f"{value!r} is not {'n or ' if single_ok else ''}a,b of {conv.__name__}s") from None
    if lo > hi:
        raise bad(f"range {value!r} has its lower bound above its upper bound")
    return lo, hi


def find_placeholders(program: str, task_id: str) -> list[Placeholder]:
    """All placeholders of ``program`` in order of appearance (each validated)."""
    return [parse_placeholder(m.group(1), task_id) for m in PLACEHOLDER_RE.finditer(program)]


def _quote(value: str, quotes: str, language: str) -> str:
    """A literal of ``language`` whose value is exactly ``value`` (upstream pasted raw text; see module doc)."""
    if quotes == "none":
        return value
    q = '"' if quotes == "double" else "'"
    lang = runner(language)
    out = []
    for ch in value:
        escaped = lang.quote_char(ch, q)
        out.append(ch if escaped is None else escaped)
    return q + "".join(out) + q


def generate_value(ph: Placeholder, rng: random.Random, language: str) -> str:
    """The source text replacing one placeholder (consumes ``rng`` deterministically)."""
    bad = lambda why: HarnessError(f"malformed fuzz placeholder {ph.text!r}: {why}")  # noqa: E731
    if ph.kind == "int":
        lo, hi = _parse_range(ph.get("range"), int, bad) if ph.get("range") else INT_RANGE
        return str(rng.randint(lo, hi))
    if ph.kind == "float":
        lo, hi = _parse_range(ph.get("range"), float, bad) if ph.get("range") else FLOAT_RANGE
        return repr(rng.uniform(lo, hi))
    if ph.kind == "bool":
        value = rng.random() < 0.5
        kind = ph.get("type") or "lower"
        if kind == "upper":
            return "True" if value else "False"
        if kind == "int":
            return "1" if value else "0"
        return "true" if value else "false"
    # string
    lo, hi = _parse_range(ph.get("length"), int, bad, single_ok=True) if ph.get("length") else STRING_LENGTH
    length = rng.randint(lo, hi)
    alphabet = ph.get("custom") or STRING_ALPHABETS[ph.get("type") or "ascii"]
    value = "".join(rng.choice(alphabet) for _ in range(length))
    return _quote(value, ph.get("quotes") or "double", language)


def fill_placeholders(program: str, task_id: str, case: int, seed: int, language: str) -> str:
    """Replace every placeholder of ``program`` with values for fuzz case ``case``.

    One RNG per (seed, task, case), consumed in order of appearance, so the golden
    and every candidate program of a case get identical values on every machine.
    """
    find_placeholders(program, task_id)  # validate all first: the error names the task
    rng = random.Random(f"{seed}:{task_id}:{case}")
    return PLACEHOLDER_RE.sub(
        lambda m: generate_value(parse_placeholder(m.group(1), task_id), rng, language), program
    )


# ---------------------------------------------------------------------------- insertion


def signature_line(
    prompt: str | None, signature: str | None, function_name: str | None, language: str
) -> str | None:
    """The line to prepend to a completion that continues the prompt's signature.

    Prefer the prompt's last non-blank line when it is the signature (what the model
    actually continued); fall back to the row's ``signature`` column, completed with
    ``:`` (Python) or `` {`` (Java) when upstream stored it bare.
    """
    if not function_name:
        return None
    if prompt:
        lines = [ln for ln in prompt.rstrip().splitlines() if ln.strip()]
        if lines and defines_function(_close_signature(lines[-1], language), function_name, language):
            return _close_signature(lines[-1].rstrip(), language)
    if signature and function_name in signature:
        return _close_signature(signature.strip(), language)
    return None


def _close_signature(line: str, language: str) -> str:
    return runner(language).close_signature(line)


def complete_solution(
    candidate: str,
    *,
    language: str,
    function_name: str | None = None,
    prompt: str | None = None,
    signature: str | None = None,
) -> str:
    """The candidate as a full definition: prepend the signature when it only has a body.

    Returns the text unchanged when it defines ``function_name`` (or when no name is
    known); otherwise, when a signature line is available, signature + body, so both
    a full function and a prompt continuation can be inserted.
    """
    if not function_name or defines_function(candidate, function_name, language):
        return candidate
    sig = signature_line(prompt, signature, function_name, language)
    if sig is None:
        return candidate
    lang = runner(language)
    body = lang.nest_body(sig, candidate.rstrip() if candidate.strip() else lang.empty_body)
    return sig + "\n" + body


def insert_solution(context: str, solution: str, task_id: str) -> str:
    """Insert ``solution`` at the single marker line, indented like the marker.

    The solution is dedented first (models often return a method already indented),
    then every non-blank line gets the marker line's leading whitespace. Anything else
    on the marker line stays after the inserted block.
    """
    count = context.count(INSERT_MARKER)
    if count != 1:
        raise HarnessError(
            f"task {task_id}: harness must contain exactly one {INSERT_MARKER!r} marker, found {count}"
        )
    marker_at = context.index(INSERT_MARKER)
    line_start = context.rfind("\n", 0, marker_at) + 1
    lead = context[line_start:marker_at]
    # The marker normally sits alone on its line; its leading whitespace is the indentation.
    indent = lead if not lead.strip() else ""
    before = context[:line_start] if not lead.strip() else context[:marker_at]
    after = context[marker_at + len(INSERT_MARKER) :]
    block = textwrap.indent(textwrap.dedent(solution).strip("\n"), indent)
    return before + block + after


def build_harness_programs(
    row: TaskRow,
    solution: str,
    *,
    fuzz_cases: int,
    seed: int,
    prompt: str | None = None,
) -> tuple[str, ...]:
    """One complete program per fuzz case for a harness task.

    ``solution`` is the post-processed candidate (or the golden code). Placeholders
    are filled in the harness first, then the completed solution is inserted.
    """
    task_id = row["task_id"]
    context = row.get("context")
    if not context:
        raise HarnessError(f"task {task_id}: has no harness (context is empty)")
    if context.count(INSERT_MARKER) != 1:
        raise HarnessError(
            f"task {task_id}: harness must contain exactly one {INSERT_MARKER!r} marker, found {context.count(INSERT_MARKER)}"
        )
    if fuzz_cases < 1:
        raise ValueError("fuzz_cases must be >= 1")
    language = row["language"]
    full = complete_solution(
        solution,
        language=language,
        function_name=row.get("function_name"),
        prompt=prompt,
        signature=row.get("signature"),
    )
    full, imports = runner(language).split_imports(full)
    full = runner(language).tidy_solution(full)
    if not find_placeholders(context, task_id):
        fuzz_cases = 1  # a harness without placeholders is one deterministic case
    programs = []
    for case in range(fuzz_cases):
        program = insert_solution(fill_placeholders(context, task_id, case, seed, language), full, task_id)
        missing = [imp for imp in imports if imp not in program.splitlines()]
        programs.append("".join(line + "\n" for line in missing) + program)
    return tuple(programs)


#: The Rosalind driver. The candidate is compiled as module ``biocoder_candidate`` so its
#: own ``__main__`` block (upstream solutions read a file named on the command line) does
#: not run; a SyntaxError still surfaces as a SyntaxError traceback (-> compile_error).
_ROSALIND_DRIVER = """\
import sys as _biocoder_sys

_BIOCODER_SOURCE = {source!r}
_biocoder_ns = {{"__name__": "biocoder_candidate", "__builtins__": __builtins__}}
exec(compile(_BIOCODER_SOURCE, "solution.py", "exec"), _biocoder_ns)
_biocoder_result = _biocoder_ns["{function_name}"](_biocoder_sys.stdin.read())
if _biocoder_result is not None:
    print(_biocoder_result)
"""


def build_rosalind_program(solution: str, function_name: str = "solve") -> str:
    """The program for a Rosalind task: the candidate plus a driver printing ``solve(stdin)``.

    The result is printed with ``print`` (a ``None`` result prints nothing, so a solution
    that prints its answer itself also works). The comparison with the expected output
    is done on stripped text by the judge.
    """
    return _ROSALIND_DRIVER.format(source=solution, function_name=function_name)
