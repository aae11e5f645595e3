"""Synthesise and validate harnesses for task rows; resumable, with a per-task report.

For each row: build candidate harnesses (a few generator plans, best guess first),
validate each in the sandbox (:mod:`biocoder_metric.synth.validate`) and keep the
strongest one that passes (the first with mutation score >= ``good_score`` stops the
search). Rows that get no valid harness stay golden-only with the reason.

Report records (one JSON line per task, appended and fsynced as each task finishes, so
an interrupted run resumes where it stopped; schema ``biocoder-synth/1``): ``task_id``,
``config``, ``language``, ``golden_sha256``, ``status`` (``validated`` | ``failed``),
``reason``, ``context`` (validated only), ``plan``, ``slice`` (``repository`` |
``golden``), ``validation`` (see :class:`~biocoder_metric.synth.validate.Validation`),
``attempts`` (each plan tried and why it was rejected), ``cause`` (failed only: a short key
from :data:`CAUSES`, the furthest gate any plan reached), ``seconds``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_dataset import settings
from biocoder_dataset.synth_harnesses import context_leaks_golden
from biocoder_metric.execution import EvalOptions
from biocoder_metric.execution.executors.local import SandboxPool
from biocoder_metric.execution.parallel import parallel_map
from biocoder_metric.languages import runner
from biocoder_metric.sandbox.runtime import protocol
from biocoder_metric.synth import java_harness, java_stubs, python_harness, python_slice, python_stubs
from biocoder_metric.synth.validate import Validation, killed_indices, regate, validate

SYNTH_SCHEMA = "biocoder-synth/1"
HARNESS_SOURCE_SYNTH = "synthesized"
HARNESS_SOURCE_UPSTREAM = "upstream"


@dataclass
class SynthOptions:
    """How harnesses are built and validated."""

    sandbox: str = field(
        default=settings.SANDBOX,
        metadata={
            "help": "auto | docker | bwrap (validation runs code: never 'none' unless you opt in)",
            "choices": ("auto", "docker", "bwrap", "none"),
        },
    )
    workers: int = field(default=settings.WORKERS, metadata={"help": "parallel sandboxes"})
    fuzz_cases: int = field(default=settings.FUZZ_CASES, metadata={"help": "fuzz cases per task"})
    seed: int = field(default=settings.SEED, metadata={"help": "fuzz seed"})
    timeout_s: float = field(
        default=protocol.DEFAULT_TIMEOUT_S, metadata={"help": "seconds per golden case", "flag": "--timeout"}
    )
    mutant_timeout_s: float = field(
        default=settings.MUTANT_TIMEOUT_S,
        metadata={"help": "seconds per mutant case", "flag": "--mutant-timeout"},
    )
    memory_mb: int = field(
        default=protocol.DEFAULT_MEMORY_MB, metadata={"help": "memory limit per case in MiB"}
    )
    mutant_limit: int = field(
        default=settings.MUTANTS, metadata={"help": "mutants per task for validation", "flag": "--mutants"}
    )
    max_plans: int = field(default=4, metadata={"help": "generator plans tried per task"})
    good_score: float = field(
        default=0.8,
        metadata={"help": "stop trying plans once one validates with at least this mutation score"},
    )
    repos: dict[str, str] = field(default_factory=dict)  # repository name (owner/name or name) -> folder
    allow_unsafe: bool = field(default=False, metadata={"help": "permit the 'none' sandbox"})
    image: str | None = field(default=None, metadata={"help": "Docker image (docker sandbox only)"})


#: Failure causes in the order synthesis meets them: a record's cause is the furthest any of its
#: plans got (a plan that reached the mutant gate says more than one whose golden crashed).
#: (cause, prefix of the reason text that signals it).
CAUSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("synthesis_error", ("synthesis error",)),
    ("cannot_analyse", ("cannot analyse",)),
    ("unresolved_names", ("unresolved",)),
    ("missing_class_methods", ("calls methods of its class",)),
    ("no_input_generator", ("no generator for type",)),
    ("no_candidate", ("no candidate harness",)),
    ("harness_leaks_golden", ("the harness would contain the golden",)),
    ("golden_fails", ("golden case",)),
    ("nondeterministic", ("nondeterministic",)),
    ("golden_raises_too_often", ("golden raises on",)),
    ("constant_output", ("output does not vary",)),
    ("null_candidate_passes", ("null candidate passes",)),
    ("return_unobserved", ("the return value is never observed",)),
    ("result_does_not_vary", ("what varies between cases",)),
    ("no_judgeable_mutant", ("no mutant of this function",)),
    ("too_few_mutants", ("only ",)),
    ("weak_mutant_score", ("kills ",)),
)


def cause_of(reason: str | None) -> str:
    """The short cause key of one failure reason (``other`` when no known prefix matches)."""
    text = (reason or "").strip()
    for cause, prefixes in CAUSES:
        if text.startswith(prefixes):
            return cause
    return "other"


def record_cause(record: dict[str, Any]) -> str | None:
    """The cause of a failed record: the furthest gate any attempt reached, else the record's reason."""
    if record.get("status") == "validated":
        return None
    order = {c: i for i, (c, _) in enumerate(CAUSES)}
    causes = [cause_of(a.get("reason")) for a in record.get("attempts") or []] or [
        cause_of(record.get("reason"))
    ]
    return max(causes, key=lambda c: order.get(c, -1))


def golden_sha256(row: dict[str, Any]) -> str:
    return hashlib.sha256((row.get("golden_code") or "").encode("utf-8")).hexdigest()


def repo_dir_for(row: dict[str, Any], repos: dict[str, str]) -> str | None:
    """The local checkout of the row's repository, matched by ``owner/name`` or by ``name``."""
    repo = row.get("repository") or ""
    if not repo:
        return None
    for key in (repo, repo.split("/")[-1]):
        if key in repos:
            return repos[key]
    return None


def candidates(
    row: dict[str, Any],
    opts: SynthOptions,
    siblings: list[tuple[str, str]] | None = None,
    probe: Any = None,
) -> tuple[list[tuple[str, dict[str, str], str]], str | None, str]:
    """([(plan label, plan description, context)], reason when none, slice origin).

    ``siblings``: (function name, golden) of the tasks from the same file (Java helpers).
    ``probe``: see :func:`make_probe` (None: no plan search).
    """
    return runner(row["language"]).synthesize(row, opts, repo_dir_for(row, opts.repos), siblings, probe)


def make_probe(pool: SandboxPool, row: dict[str, Any], opts: SynthOptions) -> Any:
    """``probe(contexts, cases)``: the golden's outputs on a few cases of each candidate harness.

    Shorter per-case time limit than validation: a plan whose golden needs seconds per case
    is no winner of a search.
    """
    from biocoder_metric.synth.validate import golden_case_outputs

    def probe(contexts: list[str], cases: int) -> list[list[str | None]]:
        return golden_case_outputs(
            pool,
            row,
            contexts,
            cases,
            seed=opts.seed + 7919,  # not the validation's cases: the search must not fit them
            timeout_s=min(opts.timeout_s, SEARCH_TIMEOUT_S),
            memory_mb=opts.memory_mb,
            diagnostics=True,
        )

    return probe


#: Seconds per golden case in the plan search.
SEARCH_TIMEOUT_S = 2.0


def _complete_java(subject: Any, row: dict[str, Any]) -> str | None:
    """:func:`java_stubs.complete` on ``subject`` (in place): None when the golden compiles."""
    return java_stubs.complete(
        subject,
        row["golden_code"],
        lambda s: java_harness.render_java(s, 0),
        lambda t, n: java_harness.generator(t, n, subject.type_vars, 0, subject.repo_types),
        protocol.java_libs(),
        declared=subject.declared_methods,
    )


def java_candidates(
    row: dict[str, Any],
    opts: SynthOptions,
    repo: str | None,
    siblings: list[tuple[str, str]] | None = None,
    probe: Any = None,
) -> tuple[list[tuple[str, dict[str, str], str]], str | None, str]:
    """:func:`candidates` for a Java row (the Java runner's ``synthesize`` hook)."""
    try:
        subject = java_harness.analyse_java(row, repo, siblings)
    except (ValueError, OSError) as exc:
        return [], f"cannot analyse the method: {exc}", "golden"
    origin = "repository" if repo else "golden"
    if subject.unresolved:
        return [], "unresolved: " + "; ".join(subject.unresolved), origin
    # fields and helpers with no source: declared from what javac says is missing (java_stubs)
    why = _complete_java(subject, row)
    if why is not None and repo and any(s.source for s in subject.repo_types.values()):
        # the repository classes the golden names, inlined, did not compile with it (one needs
        # more of the project than the harness can bring): stubs of them, as before
        plain = java_harness.analyse_java(row, repo, siblings, inline_named=False)
        if not plain.unresolved and _complete_java(plain, row) is None:
            subject, why = plain, None
    if why is not None:
        return [], "unresolved: " + why, origin
    out = []
    for variant in range(min(3, opts.max_plans)):
        ctx = java_harness.render_java(subject, variant)
        if ctx is None:
            bad = [
                p.type
                for p in subject.params
                if java_harness.generator(p.type, p.name, subject.type_vars, 0, subject.repo_types) is None
            ]
            bad += [
                f.type
                for f in subject.settable_fields
                if java_harness.generator(f.type, f.name, subject.type_vars, 0, subject.repo_types) is None
            ]
            bad += [  # fields with no source, declared from what javac said (java_stubs)
                t
                for t, n in subject.stub_fields
                if java_harness.generator(t, n, subject.type_vars, 0, subject.repo_types) is None
            ]
            return [], f"no generator for type(s): {', '.join(dict.fromkeys(bad))}", origin
        if all(ctx != c for _, _, c in out):
            out.append((f"variant {variant}", {p.name: p.type for p in subject.params}, ctx))
    return out, None, origin


def python_candidates(
    row: dict[str, Any],
    opts: SynthOptions,
    repo: str | None,
    siblings: list[tuple[str, str]] | None = None,
    probe: Any = None,
) -> tuple[list[tuple[str, dict[str, str], str]], str | None, str]:
    """:func:`candidates` for a Python row (the Python runner's ``synthesize`` hook).

    With a ``probe``, the plan search (:mod:`biocoder_metric.synth.python_search`) may put a
    plan the golden accepts better than the best guess first.
    """
    golden, name = row["golden_code"], row["function_name"]
    sl = None
    module = None
    if not repo and not row.get("repository") and opts.repos:
        hit = python_slice.find_in_repositories(name, list(opts.repos.values()))
        if hit is not None:
            repo, module = str(hit[0]), hit[1]
    if repo:
        module = module or python_slice.locate_module(repo, row)
        if module is not None:
            try:
                sl = python_slice.slice_repository(golden, name, repo, module)
            except (SyntaxError, OSError, ValueError):
                sl = None
    if sl is None or sl.unresolved:
        fallback = python_slice.slice_golden(golden, name, helpers=_unique_helpers(siblings))
        if sl is None or not fallback.unresolved:
            sl = fallback
    python_stubs.unfit_symbols(sl, golden, name)
    stubs = None
    if sl.unresolved:
        # names with no source anywhere: stubs whose values are functions of their arguments
        # (python_stubs), unless a name is used in a way no generated value can stand for
        stubs, why = _stub_unresolved(golden, sl)
        if stubs is None:
            return (
                [],
                "unresolved names: " + ", ".join(sl.unresolved) + (f" ({why})" if why else ""),
                sl.origin,
            )
    try:
        subject = python_harness.analyse(golden, name, repo, sl.class_name, sl.class_members, sl.definitions)
    except (SyntaxError, ValueError) as exc:
        return [], f"cannot analyse the function: {exc}", sl.origin
    if stubs is not None:
        subject.stubs = stubs.slots
        subject.stub_classes = stubs.classes
    if subject.missing_methods:
        return (
            [],
            "calls methods of its class that are not available: " + ", ".join(subject.missing_methods),
            sl.origin,
        )
    if repo and module is not None and sl.origin == "repository":
        _construct_repository_classes(subject, sl, repo, module)
    plans = python_harness.plans(subject, opts.max_plans)
    searched = 0
    if plans:
        from biocoder_metric.synth import python_search

        head = python_search.with_search(subject, sl, plans[0], probe, seed=opts.seed)
        # the searched plan is one more, not instead of one: the ranked alternatives that
        # validated before it existed keep their place
        searched = len(head) - 1
        plans = [*head, *plans[1:]][: max(opts.max_plans, 1) + searched]
    out = [(p.label, p.describe(), python_harness.render(subject, sl, p)) for p in plans]
    if (
        repo
        and module is not None
        and sl.origin == "repository"
        and subject.method in ("instance", "property")
    ):
        built = _factory_candidates(golden, name, repo, module, sl.class_name, probe)
        built += _constructed_candidates(golden, name, repo, module, probe)
        # after the best guess: what already validates keeps its harness
        out = (out[:1] + built[:3] + out[1:])[: max(opts.max_plans, 1) + searched]
    return out, None, sl.origin


def _stub_unresolved(golden: str, sl: Any) -> tuple[Any, str | None]:
    """Stubs for every unresolved name of ``sl`` (python_stubs), applied to the slice: its
    ``unresolved`` emptied and the exception classes added to its definitions. ``(None, why)``
    when one name is not a name (an attribute a module lacks) or cannot be stubbed."""
    names, rest = python_stubs.stubbable_names(sl.unresolved)
    if rest or not names:
        return None, None
    stubs, why = python_stubs.plan_stubs([golden, *sl.definitions, *sl.class_members], names)
    if stubs is None:
        return None, why
    sl.unresolved = []
    sl.definitions = stubs.definitions + list(sl.definitions)
    return stubs, None


def _factory_candidates(
    golden: str, name: str, repo: str, module: Any, class_name: str | None, probe: Any = None
) -> list[tuple[str, dict[str, str], str]]:
    """The method's harness with ``self`` built by the first factory function of its module that
    slices and renders (python_construct), with its searched variant when the search finds one."""
    from biocoder_metric.synth import python_construct

    if not class_name:
        return []
    try:
        source = Path(module).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for ctor in python_construct.factories(source, class_name, repo)[:2]:
        try:
            sl = python_slice.slice_repository(golden, name, repo, module, factory=ctor.callee)
        except (SyntaxError, OSError, ValueError, RecursionError):
            continue
        if sl.unresolved or sl.class_name != class_name:
            continue
        ctor.assigned = python_construct.every_assigned_field(sl.class_members)
        got = _render_constructed(golden, name, repo, sl, ctor, probe)
        if got:
            return got
    return []


def _constructed_candidates(
    golden: str, name: str, repo: str, module: Any, probe: Any = None
) -> list[tuple[str, dict[str, str], str]]:
    """The method's harness with ``self`` built through ``__init__`` (python_construct), when it
    slices, with its searched variant when the search finds one."""
    from biocoder_metric.synth import python_construct

    try:
        sl = python_slice.slice_repository(golden, name, repo, module, extra_members=("__init__",))
    except (SyntaxError, OSError, ValueError, RecursionError):
        return []
    if sl.unresolved or sl.class_name is None:
        return []
    ctor = python_construct.constructor(
        sl.class_members, repo, sl.class_bases, sl.definitions, sl.class_name, golden
    )
    if ctor is None:
        return []
    members = [golden, *sl.class_members]
    reads = {
        p.name: _fields_read(p.kinds[0] if p.kinds else "", members, ctor.stored.get(p.name))
        for p in ctor.params
    }
    _duck_typed(ctor.params, sl, repo, reads)
    return _render_constructed(golden, name, repo, sl, ctor, probe)


def _render_constructed(
    golden: str, name: str, repo: str, sl: Any, ctor: Any, probe: Any = None
) -> list[tuple[str, dict[str, str], str]]:
    """The harnesses of method ``name`` of the sliced class ``sl`` with ``self`` built by ``ctor``
    (none where the method cannot be analysed or needs methods the slice lacks). With a
    ``probe``, the plan search also chooses the constructor's arguments: its plan is added,
    before or after the unsearched one (:func:`python_search.with_search`)."""
    from biocoder_metric.synth import python_construct

    try:
        subject = python_harness.analyse(
            golden,
            name,
            repo,
            sl.class_name,
            sl.class_members,
            sl.definitions,
            inherited=python_construct.inherited_members(sl.class_bases, sl.definitions),
        )
    except (SyntaxError, ValueError):
        return []
    if subject.missing_methods:
        return []
    from biocoder_metric.synth import python_search

    plan = python_construct.constructed_plan(subject, ctor, sl.definitions)
    return [
        (p.label, p.describe(), python_harness.render(subject, sl, p))
        for p in python_search.with_search(subject, sl, plan, probe, label=f"{plan.label}, searched")
    ]


def _construct_repository_classes(subject: Any, sl: Any, repo: str, module: Any) -> None:
    """Parameters typed as one of the repository's classes get that class, built by its constructor, first."""
    from biocoder_metric.synth.python_inputs import class_hints, constructor_kind

    hints = class_hints(subject.func, skip_first=subject.method in ("instance", "property", "class"))
    untyped = [p for p in subject.params if p.name not in hints]
    _duck_typed(
        untyped, sl, repo, {p.name: _fields_read(p.kinds[0] if p.kinds else "", [], None) for p in untyped}
    )
    wanted = sorted({c for p, c in hints.items() if any(q.name == p for q in subject.params)})
    if not wanted:
        return
    try:
        sources = python_slice.slice_classes(repo, module, wanted, sl)
    except (SyntaxError, OSError, ValueError, RecursionError):
        return
    for p in subject.params:
        cls = hints.get(p.name)
        kind = constructor_kind(sources[cls], cls, repo) if cls in sources else None
        if kind and kind not in p.kinds:
            p.kinds.insert(0, kind)


def _fields_read(kind: str, sources: list[str], field: str | None) -> set[str]:
    """Attributes read on one object: the fields of its ``obj:`` kind, and ``self.FIELD.x`` in
    ``sources`` where the object is stored in ``self.FIELD``."""
    from biocoder_metric import pyast

    out: set[str] = set()
    if kind.startswith("obj:"):
        try:
            out |= {k for k in pyast.literal_eval(kind[len("obj:") :]) if isinstance(k, str)}
        except (ValueError, SyntaxError):
            pass
    for src in sources if field else ():
        try:
            tree = pyast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == field
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "self"
                and not node.attr.startswith("__")
            ):
                out.add(node.attr)
    return out


#: Kinds whose attributes are their own (``arr.shape``, ``s.upper``), never a project object's.
_NOT_OBJECTS = ("ndarray", "frame", "series", "str", "path", "int", "float", "bool", "ctor:")


def _duck_typed(params: list[Any], sl: Any, repo: str, reads: dict[str, set[str]]) -> None:
    """A parameter the code reads attributes of (an ``obj:`` kind, or ``self.f.x`` where it is
    stored in ``self.f``; not an array or a string, whose attributes are their own) whose attributes are all
    fields one repository class's ``__init__`` assigns gets that class, built by its constructor,
    first: the project's own object (``count == len(seq_list)``) where independent fields disagree."""
    from biocoder_metric.synth.python_inputs import constructor_kind

    for p in params:
        fields = reads.get(p.name) or set()
        if not fields or not p.kinds or p.kinds[0].startswith(_NOT_OBJECTS):
            continue
        found = python_slice.duck_class(repo, fields)
        if found is None:
            continue
        cls, path = found
        try:
            sources = python_slice.slice_classes(repo, path, [cls], sl)
        except (SyntaxError, OSError, ValueError, RecursionError):
            continue
        kind = constructor_kind(sources[cls], cls, repo, defaulted=True) if cls in sources else None
        if kind and kind not in p.kinds:
            p.kinds.insert(0, kind)


def _unique_helpers(siblings: list[tuple[str, str]] | None) -> dict[str, str]:
    """Function name -> golden, for names only one sibling task defines (an ambiguous name is no helper)."""
    seen: dict[str, set[str]] = {}
    for fname, golden in siblings or []:
        seen.setdefault(fname, set()).add(golden)
    return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


def sibling_index(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(repository, file path) -> [(function name, golden)] over all rows: helpers found among other tasks.

    Python rows of the shipped configs carry no ``file_path``: they are grouped by repository
    (key ``(repository, "")``), and a helper is taken only when its name is unique there.
    """
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for r in rows:
        if not (r.get("golden_code") and r.get("function_name")):
            continue
        if r.get("file_path"):
            out.setdefault((r.get("repository") or "", r["file_path"]), []).append(
                (r["function_name"], r["golden_code"])
            )
        elif runner(r.get("language") or "python").siblings_by_repository:
            # no file path: grouped by repository; rows that name none (upstream's hidden sets) form one
            # group, where a helper is still taken only when its name is unique
            out.setdefault((r.get("repository") or "", ""), []).append((r["function_name"], r["golden_code"]))
    return out


def synthesize_task(
    pool: SandboxPool, row: dict[str, Any], opts: SynthOptions, siblings: list[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """Build, validate and pick a harness for one row; the report record."""
    started = time.monotonic()
    record: dict[str, Any] = {
        "schema": SYNTH_SCHEMA,
        "task_id": row["task_id"],
        "config": row.get("config"),
        "language": row["language"],
        "golden_sha256": golden_sha256(row),
        "status": "failed",
        "reason": None,
        "context": None,
        "plan": None,
        "attempts": [],
    }
    try:
        cands, reason, origin = candidates(row, opts, siblings, make_probe(pool, row, opts))
    except Exception as exc:  # noqa: BLE001 - one odd task must not stop a batch; the reason is recorded
        cands, reason, origin = [], f"synthesis error: {type(exc).__name__}: {exc}", "golden"
    record["slice"] = origin
    passing: list[tuple[dict[str, Any], Validation, dict[str, Any]]] = []  # (attempt, verdict, harness)
    killed: set[int] = set()  # mutants (by index) any plan of this task killed
    for label, plan, ctx in cands:
        if context_leaks_golden(row, ctx):  # a copy of the answer in the harness: never acceptable
            record["attempts"].append(
                {
                    "plan": label,
                    "generators": plan,
                    "passed": False,
                    "reason": "the harness would contain the golden's body",
                    "mutation_score": None,
                }
            )
            reason = reason or "the harness would contain the golden's body"
            continue
        trial = dict(row, context=ctx, kind="harness", executable=True)
        v = validate(
            pool,
            trial,
            fuzz_cases=opts.fuzz_cases,
            seed=opts.seed,
            timeout_s=opts.timeout_s,
            mutant_timeout_s=opts.mutant_timeout_s,
            memory_mb=opts.memory_mb,
            mutant_limit=opts.mutant_limit,
        )
        killed |= killed_indices(v)
        v = regate(v, killed)
        attempt = {
            "plan": label,
            "generators": plan,
            "passed": v.passed,
            "reason": v.reason,
            "mutation_score": v.mutation_score,
        }
        record["attempts"].append(attempt)
        if v.passed:
            passing.append((attempt, v, {"context": ctx, "plan": plan}))
            if (v.mutation_score or 0.0) >= opts.good_score:
                break
        elif reason is None:
            reason = v.reason
    best: tuple[float, dict[str, Any]] | None = None
    for attempt, v, harness in passing:  # judged again against the mutants every plan killed
        v = regate(v, killed)
        if not v.passed:
            attempt.update(passed=False, reason=v.reason, mutation_score=v.mutation_score)
            continue
        score = v.mutation_score if v.mutation_score is not None else 0.0
        if best is None or score > best[0]:
            best = (score, {**harness, "validation": v.to_json()})
    if best is not None:
        record.update(status="validated", reason=None, cause=None, **best[1])
    else:
        record["reason"] = reason or "no candidate harness"
        if record["attempts"]:
            record["reason"] = "; ".join(
                dict.fromkeys(f"{a['plan']}: {a['reason']}" for a in record["attempts"])
            )[:1000]
        record["cause"] = record_cause(record)
    record["seconds"] = round(time.monotonic() - started, 3)
    return record


def read_report(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Finished records of an earlier run, keyed by (task id, golden sha256); a torn last line is dropped."""
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if not path.is_file():
        return done
    with path.open("r", encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break
            rec = json.loads(line)
            done[(rec["task_id"], rec["golden_sha256"])] = rec
    return done


def synthesize(
    rows: Iterable[dict[str, Any]],
    opts: SynthOptions,
    report_path: str | os.PathLike,
    progress: bool = True,
    helper_rows: Iterable[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Records for every row, resuming from ``report_path`` and appending to it as tasks finish.

    ``helper_rows``: more rows of the same dataset whose goldens may serve as helpers (never as the
    task's own code: a row's golden is excluded from its own slice, and the leak guard checks it).
    """
    rows = list(rows)
    path = Path(report_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _truncate_torn_line(path)
    done = read_report(path)
    todo = [r for r in rows if (r["task_id"], golden_sha256(r)) not in done]
    results = {
        (r["task_id"], golden_sha256(r)): done[(r["task_id"], golden_sha256(r))]
        for r in rows
        if (r["task_id"], golden_sha256(r)) in done
    }
    if todo:
        pool = SandboxPool(
            EvalOptions(
                sandbox=opts.sandbox, workers=opts.workers, allow_unsafe=opts.allow_unsafe, image=opts.image
            ),
            opts.workers,
        )
        index = sibling_index([*rows, *helper_rows])

        def one(r: dict[str, Any]) -> dict[str, Any]:
            return synthesize_task(
                pool, r, opts, index.get((r.get("repository") or "", r.get("file_path") or ""))
            )

        try:
            with path.open("a", encoding="utf-8") as out:
                for _, rec in parallel_map(
                    one, todo, opts.workers, "harness synthesis", progress, unit="task"
                ):
                    out.write(json.dumps(rec, sort_keys=True) + "\n")
                    out.flush()
                    os.fsync(out.fileno())
                    results[(rec["task_id"], rec["golden_sha256"])] = rec
        finally:
            pool.close()
    return [results[(r["task_id"], golden_sha256(r))] for r in rows]


def _truncate_torn_line(path: Path) -> None:
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def apply_records(rows: Iterable[dict[str, Any]], records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with validated harnesses made executable (``harness_source: synthesized``); others unchanged."""
    by_key = {(r["task_id"], r["golden_sha256"]): r for r in records if r.get("status") == "validated"}
    out = []
    for row in rows:
        rec = by_key.get((row["task_id"], golden_sha256(row)))
        new = dict(row)
        if rec is not None and not (row.get("executable") and row.get("context")):
            new.update(
                context=rec["context"],
                kind="harness",
                executable=True,
                not_executable_reason=None,
                harness_source=HARNESS_SOURCE_SYNTH,
            )
        elif row.get("executable") and row.get("kind") == "harness":
            new.setdefault("harness_source", HARNESS_SOURCE_UPSTREAM)
        out.append(new)
    return out
