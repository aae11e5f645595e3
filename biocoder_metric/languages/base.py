"""What a language is to the toolkit: :class:`LanguageRunner`, one object per language.

Everything that differs between Python and Java outside the in-sandbox worker lives on the
runner of that language (``languages/python.py``, ``languages/java.py``), and every stage
dispatches through :func:`runner` instead of comparing language names:

* post-processing (generation): fence tags, prose stripping, scaffolding clean-up, how a
  prompt's head and a continuation are joined, what a definition of the target looks like;
* harness insertion (execution): how a signature line is closed, how a body is nested under
  it, imports the solution must not keep inline, annotations to drop, the class a program
  declares, how a fuzzed string literal is escaped;
* benchmark construction (build): comment stripping for near-duplicate tokens, the packages a
  repository is itself, what counts as the same function, how a prompt lists a class's
  attributes and globals, how helper functions are grouped, and the scaffolding rules (tests,
  stubs, boilerplate, output-only functions) as a hook;
* compile and run (execution, sandbox): the canary program, the host's extra first-reply slack
  per case (a compiler run), the stderr that means "did not compile" or "out of memory";
* the tools above the engine, named as hooks (``"module:function"``, imported on first use, so
  that this layer imports no stage above it; the way entry points register plugins): the
  mutation operators and held-out mutants (validity), the null candidates (harness strength),
  the harness synthesis entry point, and the benchmark build's function extractor.

Adding a language is one module here (a runner, registered in ``languages/__init__.py``) plus
its case runner inside the sandbox (``sandbox/runtime/``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any, ClassVar

#: Hooks every runner names: ``name -> "module:function"`` (see the module docstring).
HOOKS = (
    "mutants",
    "heldout_mutants",
    "null_candidates",
    "wrapped_candidates",
    "synthesize",
    "extract",
    "scaffolding",
)


class UnknownLanguageError(ValueError):
    """A language no runner is registered for."""


class LanguageRunner:
    """One language: data and small text rules on the class, the tools above the engine as hooks."""

    #: The ``language`` value of task rows and jobs.
    name: ClassVar[str]
    #: Fence tags (```` ```python ````) that mark a code block of this language in a model answer.
    fence_tags: ClassVar[frozenset[str]]
    #: Task id prefix of built tasks (``py_...``, ``java_...``).
    task_prefix: ClassVar[str]
    #: Line comment marker (prompt text written as comments).
    comment: ClassVar[str]
    #: What ends a signature line that opens a body (``:`` / `` {``).
    block_open: ClassVar[str]
    #: A body that does nothing, for an empty completion under a signature.
    empty_body: ClassVar[str]
    #: A program's last stderr line matching this did not parse/compile (None: the worker reports it).
    compile_error_re: ClassVar[re.Pattern[str] | None] = None
    #: This text anywhere in stderr means memory ran out (besides the shared last-line rule).
    oom_marker: ClassVar[str | None] = None
    #: Compiled before it runs (one compiler run per job, in the worker): a harness that does not
    #: compile is caught by running one case first.
    compiled: ClassVar[bool] = False
    #: Extra host-side seconds per case before the first reply (a compiler runs first).
    compile_slack_per_case_s: ClassVar[float] = 0.0
    #: A program printing ``biocoder canary ok`` (``{cls}``: the job's class name).
    canary_source: ClassVar[str]
    #: Characters a string literal escapes besides its own quote.
    literal_escapes: ClassVar[str] = ""
    #: How a control character is written in a string literal (``str.format`` of its code point).
    control_escape: ClassVar[str] = "\\x{:02x}"
    #: ``hook name -> "module:function"``; see :data:`HOOKS`.
    hooks: ClassVar[dict[str, str]] = {}

    # ------------------------------------------------------------ benchmark construction (build)
    #: How a class's attributes are listed in a built prompt.
    attribute_separator: ClassVar[str] = ", "
    #: A built prompt's "global variables" are the enclosing class's attributes (Java has no
    #: module-level variables).
    class_attributes_are_globals: ClassVar[bool] = False
    #: Rows without a file path are grouped by repository to find helper functions (Python's
    #: shipped rows carry no path; helpers there are module-level functions).
    siblings_by_repository: ClassVar[bool] = False

    def raised_exceptions(self, code: str) -> frozenset[str]:
        """Simple names of the exception types ``code`` raises itself (``raise X(...)``,
        ``throw new X(...)``): synthesis counts those as the function's behaviour, not as
        inputs that did not fit (``synth.validate.error_gate``). None by default."""
        return frozenset()

    def strip_comments(self, code: str) -> str:
        """``code`` without comments (and docstrings), for near-duplicate token sets."""
        raise NotImplementedError

    def takes_no_inputs(self, rec: dict[str, Any]) -> bool:
        """Whether an extracted function takes nothing a harness could vary: no parameter at all
        (Python counts ``self``/``cls`` among them). Every call gives the same result, so no
        generated input can tell a right answer from a memorised one (``build.select``)."""
        return not int(rec.get("numParams", 0)) and not rec.get("params")

    def own_packages(self, rec: dict[str, Any]) -> set[str]:
        """Module prefixes a function record's repository is itself (its imports of them say
        nothing about whether the code is bioinformatics)."""
        raise NotImplementedError

    def same_function(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are the same function (formatting aside)."""
        return "".join(a.split()) == "".join(b.split())

    # ------------------------------------------------------------ post-processing
    def defines_function(self, code: str, function_name: str) -> bool:
        """Whether ``code`` contains a definition (not just a call) of ``function_name``."""
        raise NotImplementedError

    def definition_header(self, function_name: str) -> re.Pattern[str]:
        """A header line defining ``function_name`` in a prompt (decorators/annotations included)."""
        raise NotImplementedError

    def strip_prose(self, text: str) -> str:
        """Unfenced model text without the prose before and after the code."""
        return text

    def clean(self, code: str, function_name: str | None) -> str:
        """Extracted code without what the harness must not get (test scaffolding, wrappers)."""
        return code

    def join_continuation(self, head: str, text: str) -> str:
        """A prompt's ``head`` (signature, docstring) and the model's continuation, as one function."""
        return head + text

    # ------------------------------------------------------------ harness insertion
    def close_signature(self, line: str) -> str:
        """A signature line ending in :attr:`block_open` (added when upstream stored it bare)."""
        stripped = line.rstrip()
        return stripped if stripped.endswith(self.block_open.strip()) else stripped + self.block_open

    def nest_body(self, signature: str, body: str) -> str:
        """``body`` laid out to go under ``signature`` (unchanged by default)."""
        return body

    def split_imports(self, solution: str) -> tuple[str, list[str]]:
        """The solution without the import lines that cannot stay inline, and those lines."""
        return solution, []

    def tidy_solution(self, solution: str) -> str:
        """The solution without what would stop a correct one compiling inside the harness."""
        return solution

    def class_name(self, program: str) -> str:
        """The class a program declares (its file is named after it); ``Main`` by default."""
        return "Main"

    def quote_char(self, ch: str, quote: str) -> str | None:
        """The escape of ``ch`` in a string literal delimited by ``quote``, or None to keep it."""
        if ch == "\\":
            return "\\\\"
        if ch == quote or ch in self.literal_escapes:
            return "\\" + ch
        if ch == "\n":
            return "\\n"
        if ch == "\t":
            return "\\t"
        if ch == "\r":
            return "\\r"
        if ord(ch) < 32 or ord(ch) == 127:
            return self.control_escape.format(ord(ch))
        return None

    # ------------------------------------------------------------ compile and run
    def canary(self, class_name: str) -> str:
        """The canary program of this language (see :attr:`canary_source`)."""
        return self.canary_source.replace("{cls}", class_name)

    def is_compile_error(self, last_stderr_line: str) -> bool:
        return bool(self.compile_error_re and self.compile_error_re.match(last_stderr_line))

    def is_out_of_memory(self, stderr: str) -> bool:
        return bool(self.oom_marker and self.oom_marker in stderr)

    # ------------------------------------------------------------ hooks above the engine
    def hook(self, name: str) -> Callable[..., Any] | None:
        """The function registered as hook ``name`` (imported on first use), or None."""
        target = self.hooks.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def mutants(self, code: str, limit: int | None, seed: str = "") -> list[tuple[str, str]]:
        """The project's mutants of ``code`` (operator name, source), at most ``limit``."""
        return self.hook("mutants")(code, limit, seed=seed)

    def heldout_mutants(self, code: str, limit: int) -> list[tuple[str, str]]:
        """The held-out mutant family of ``code`` (an independent generator, for measuring)."""
        return self.hook("heldout_mutants")(code, limit)

    def null_candidates(self, golden: str, function_name: str | None) -> list[tuple[str, str]]:
        """Candidates that must fail a sound harness (label, source)."""
        return self.hook("null_candidates")(golden, function_name)

    def wrapped_candidates(self, golden: str, function_name: str | None) -> list[tuple[str, str]]:
        """The golden with its return value replaced (label, source); none where not implemented."""
        fn = self.hook("wrapped_candidates")
        return fn(golden, function_name) if fn else []

    def synthesize(
        self, row: dict[str, Any], opts: Any, repo: str | None, siblings: Any, probe: Any = None
    ) -> Any:
        """The harness synthesis entry: ``(plans, reason when none, slice origin)`` for one task row.

        ``probe(contexts, cases)`` runs the golden on a few cases of candidate harnesses (the
        plan search); a hook may ignore it.
        """
        return self.hook("synthesize")(row, opts, repo, siblings, probe)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
