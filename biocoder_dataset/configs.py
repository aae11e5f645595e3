"""The rows of each config: ``load_problems(config, source_dir=None) -> list[dict]``.

This is the API every later stage uses (prompts, generation, the engine, the exporter),
so it returns plain dicts with exactly the columns of :mod:`biocoder_dataset.schema`,
validated, with unique ``task_id`` values and the prompt columns filled.

How each config is assembled from the registry files (:mod:`biocoder_dataset.sources`):

* ``python_public``: the 79 executable harness tasks of ``python-harness/tasks.json``
  (joe1chief/adapters), plus any harness record of the Hub's ``biocoder_public`` files
  when present, merged with the 157 goldens of ``github-d1c922e/python_public.json``.
  A harness is matched to its golden by whitespace-free golden text, else by a unique
  function name (the adapters repo edited some goldens to fit its harness, e.g.
  ``params.X`` -> ``X``). Goldens without a harness become ``golden_only`` rows.
* ``java_public`` / ``java_similar``: the metadata-rich goldens of ``github-head``
  (signature, Javadoc, file, lines, declarations used); Hub harness records that match
  one make it an executable harness task.
* ``python_hidden``, ``python_similar``, ``java_hidden``: ``github-d1c922e`` goldens only.
* ``rosalind``: ``github-head/rosalind.json`` goldens joined with the test case files
  through the derived table in :mod:`biocoder_dataset._rosalind_table`.
* ``demo``: package data (:mod:`biocoder_dataset.demo_tasks`).

Task ids: upstream ids are kept (``py_<12 hex>`` from the adapters file, the Hub's
``test_case_id`` shortened the same way); otherwise ``py_``/``java_`` + the first 12 hex
digits of the sha256 of the golden code, so an id depends only on content (a repeated
golden in one config gets ``-2``, ``-3`` in upstream order); Rosalind rows are
``rosalind_<problem id>``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_dataset import prompts, synth_harnesses
from biocoder_dataset._rosalind_table import ROSALIND_TABLE
from biocoder_dataset.demo_tasks import load_demo_rows
from biocoder_dataset.errors import RecordError, UnknownConfigError
from biocoder_dataset.harness_strength import strength_column
from biocoder_dataset.normalize import (
    canonical,
    code_key,
    java_function_info,
    optional_int,
    python_function_info,
    read_json,
    require_str,
    to_records,
)
from biocoder_dataset.schema import (
    CONFIGS,
    KIND_GOLDEN_ONLY,
    KIND_HARNESS,
    KIND_ROSALIND,
    TaskRow,
    empty_row,
    validate_row,
)
from biocoder_dataset.sources import REGISTRY, SourceResolver, rosalind_testcase, verify_records

log = logging.getLogger(__name__)

NO_HARNESS_REASON = "upstream publishes no test harness for this task (golden code only)"
_HF_ENTRIES = ("hf-biocoder_public/biocoder", "hf-biocoder_public/test_combined")
_PREFIX = {"python": "py", "java": "java"}


@dataclass
class ConfigBuild:
    """The rows of one config plus what happened while building them (match counts, sources)."""

    config: str
    rows: list[dict[str, Any]]
    report: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Golden:
    index: int
    code: str
    fields: dict[str, Any]
    extra: dict[str, Any]
    source: str


@dataclass
class _Harness:
    where: str
    language: str
    task_id: str
    context: str
    golden: str
    fields: dict[str, Any]
    extra: dict[str, Any]
    source: str


def _check_config(config: str) -> None:
    if config not in CONFIGS:
        raise UnknownConfigError(f"unknown config {config!r}; valid configs: {', '.join(CONFIGS)}")


def _load_records(res: SourceResolver, name: str) -> tuple[list[dict[str, Any]], Path] | None:
    path = res.path(REGISTRY[name])
    if path is None:
        return None
    records = to_records(read_json(path, name), f"{path} ({name})")
    verify_records(name, records, f"{path} ({name})", complete=not res.offline)
    return records, path


def _content_id(language: str, code: str) -> str:
    return f"{_PREFIX[language]}_{hashlib.sha256(code.encode('utf-8')).hexdigest()[:12]}"


def _summary_from_upstream_prompt(prompt: str | None) -> str | None:
    """The one-paragraph summary at the top of the adapters' ``prompt`` ("#This is in python\\n#Write ...")."""
    if not prompt:
        return None
    lines = [ln[1:] if ln.startswith("#") else ln for ln in prompt.splitlines()]
    if lines and lines[0].strip().lower() == "this is in python":
        lines = lines[1:]
    out: list[str] = []
    for ln in lines:
        if not ln.strip():
            break
        out.append(ln.strip())
    return " ".join(out) or None


def _golden_records(res: SourceResolver, name: str) -> list[_Golden]:
    loaded = _load_records(res, name)
    assert loaded is not None  # only optional entries can be absent
    records, path = loaded
    out = []
    for i, rec in enumerate(records):
        fields, extra = canonical(rec)
        where = f"{path} ({name}) record {i}"
        code = require_str(fields["golden_code"], "golden/content", where)
        for key in ("signature", "comment", "repository", "file_path"):
            require_str(fields[key], key, where, allow_none=True)
        for key in ("line_start", "line_end"):
            fields[key] = optional_int(fields[key], key, where)
        out.append(_Golden(i, code, fields, extra, name))
    return out


def _harness_records(res: SourceResolver, names: tuple[str, ...]) -> list[_Harness]:
    out: list[_Harness] = []
    for name in names:
        loaded = _load_records(res, name)
        if loaded is None:
            continue
        records, path = loaded
        for i, rec in enumerate(records):
            fields, extra = canonical(rec)
            where = f"{path} ({name}) record {i}"
            ident = fields["task_id"] or fields["hash"]
            if ident is not None:
                where += f" ({ident})"
            golden = require_str(fields["golden_code"], "goldenCode/golden_code", where)
            context = require_str(fields["context"], "contextCode/context", where)
            if prompts.INSERT_MARKER not in context:
                raise RecordError(f"{where}: field 'context' has no {prompts.INSERT_MARKER!r} line")
            for key in ("signature", "comment", "function_name", "repository", "file_path", "summary"):
                require_str(fields[key], key, where, allow_none=True)
            for key in ("line_start", "line_end"):
                fields[key] = optional_int(fields[key], key, where)
            lang = fields["language"]
            if lang is None:  # the snake_case family (adapters file) has no language field
                lang = "python" if re.search(r"^\s*(async\s+)?def\s", golden, re.M) else "java"
            lang = str(lang).strip().lower()
            if lang not in _PREFIX:
                raise RecordError(
                    f"{where}: field 'language' should be Python or Java, got {fields['language']!r}"
                )
            if fields["task_id"] is not None:
                task_id = require_str(fields["task_id"], "task_id", where)
            elif fields["hash"] is not None:
                task_id = f"{_PREFIX[lang]}_{str(fields['hash'])[:12]}"
            else:
                task_id = _content_id(lang, golden)
            out.append(_Harness(where, lang, task_id, context, golden, fields, extra, name))
    return out


def _function_info(language: str, code: str):
    return python_function_info(code) if language == "python" else java_function_info(code)


def _repo_and_path(fields: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """Upstream's Java metadata names repos 'owner,name' and paths '/home/ubuntu/repos/owner,name/...'."""
    repo, path = fields.get("repository"), fields.get("file_path")
    raw_path = path
    if isinstance(repo, str) and "/" not in repo and "," in repo:
        prefix = f"/home/ubuntu/repos/{repo}/"
        if isinstance(path, str) and path.startswith(prefix):
            path = path[len(prefix) :]
        repo = repo.replace(",", "/", 1)
    return repo, path, (raw_path if raw_path != path else None)


def _base_row(config: str, language: str, task_id: str) -> dict[str, Any]:
    row = empty_row()
    row.update(task_id=task_id, config=config, language=language)
    return row


def _golden_only_row(config: str, language: str, g: _Golden, task_id: str) -> dict[str, Any]:
    info = _function_info(language, g.code)
    row = _base_row(config, language, task_id)
    repo, path, raw_path = _repo_and_path(g.fields)
    row.update(
        kind=KIND_GOLDEN_ONLY,
        executable=False,
        not_executable_reason=NO_HARNESS_REASON,
        function_name=g.fields.get("function_name") or info.name,
        signature=g.fields.get("signature") or info.signature,
        comment=g.fields.get("comment") or info.docstring,
        golden_code=g.code,
        repository=repo,
        file_path=path,
        line_start=g.fields.get("line_start"),
        line_end=g.fields.get("line_end"),
        source=g.source,
    )
    meta = dict(g.extra)
    meta.update({"golden_index": g.index})
    for key in ("package_name", "summary", "hash"):
        if g.fields.get(key) is not None:
            meta[key] = g.fields[key]
    if raw_path:
        meta["upstream_file_path"] = raw_path
    row["metadata"] = meta  # serialised in _finish
    return row


def _harness_signature(language: str, upstream: str | None, info: Any) -> str | None:
    """The header a candidate must implement.

    Upstream's Python ``signature`` field drops default values (``f(data, percentile)`` where the
    golden has ``percentile=75``), and the harness calls the function relying on them, so a prompt
    built from it is unpassable. For Python the golden's own ``def`` header is used, with
    upstream's decorator lines (``@staticmethod``...) kept in front.
    """
    if language != "python" or not info.signature:
        return upstream or info.signature
    decorators = [ln.strip() for ln in (upstream or "").splitlines() if ln.strip().startswith("@")]
    return "\n".join([*decorators, info.signature])


def _harness_row(config: str, h: _Harness, g: _Golden | None, how: str | None) -> dict[str, Any]:
    info = _function_info(h.language, h.golden)
    gf = g.fields if g is not None else {}
    repo, path, raw_path = _repo_and_path(
        {
            "repository": h.fields["repository"] or gf.get("repository"),
            "file_path": h.fields["file_path"] or gf.get("file_path"),
        }
    )
    row = _base_row(config, h.language, h.task_id)
    row.update(
        kind=KIND_HARNESS,
        executable=True,
        function_name=h.fields["function_name"] or info.name or gf.get("function_name"),
        signature=_harness_signature(h.language, h.fields["signature"] or gf.get("signature"), info),
        comment=h.fields["comment"] or gf.get("comment") or info.docstring,
        context=h.context,
        golden_code=h.golden,
        repository=repo,
        file_path=path,
        line_start=h.fields["line_start"] if h.fields["line_start"] is not None else gf.get("line_start"),
        line_end=h.fields["line_end"] if h.fields["line_end"] is not None else gf.get("line_end"),
        source=h.source + (f"+{g.source}" if g is not None else ""),
    )
    meta: dict[str, Any] = {}
    if g is not None:
        meta.update(g.extra)
        meta["golden_index"] = g.index
        if g.code != h.golden:
            meta["upstream_golden_code"] = g.code  # the harness edited the golden (see module docstring)
    meta.update(h.extra)
    meta["golden_match"] = how
    for key in ("hash", "package_name", "upstream_prompt"):
        value = h.fields.get(key) or gf.get(key)
        if value is not None:
            meta[key] = value
    summary = h.fields.get("summary") or _summary_from_upstream_prompt(h.fields.get("upstream_prompt"))
    if summary:
        meta["summary"] = summary
    if raw_path:
        meta["upstream_file_path"] = raw_path
    row["metadata"] = meta
    return row


def _fill_missing(row: dict[str, Any], h: _Harness) -> None:
    """A second upstream copy of an already-built harness task only fills what the first lacked."""
    for col, key in (
        ("signature", "signature"),
        ("comment", "comment"),
        ("file_path", "file_path"),
        ("line_start", "line_start"),
        ("line_end", "line_end"),
        ("repository", "repository"),
    ):
        if row[col] is None and h.fields.get(key) is not None:
            row[col] = h.fields[key]
    summary = h.fields.get("summary") or _summary_from_upstream_prompt(h.fields.get("upstream_prompt"))
    if summary and "summary" not in row["metadata"]:
        row["metadata"]["summary"] = summary
    for key in ("hash", "package_name", "upstream_prompt"):  # e.g. the adapters file behind a Hub record
        if h.fields.get(key) is not None and key not in row["metadata"]:
            row["metadata"][key] = h.fields[key]
    row["metadata"].setdefault("also_in", []).append(h.source)


def _merge(
    config: str,
    language: str,
    goldens: list[_Golden],
    harnesses: list[_Harness],
    keep_unmatched_harness: bool,
) -> ConfigBuild:
    """Harness rows (matched to goldens) first, then the goldens that have no harness."""
    by_key: dict[str, _Golden] = {}
    by_name: dict[str, list[_Golden]] = {}
    for g in goldens:
        by_key.setdefault(code_key(g.code), g)
        name = g.fields.get("function_name") or _function_info(language, g.code).name
        if name:
            by_name.setdefault(name, []).append(g)
    used: set[int] = set()
    rows: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    by_golden: dict[int, dict[str, Any]] = {}
    matches: Counter[str] = Counter()
    for h in harnesses:
        if h.language != language:
            continue
        if h.task_id in by_id:
            _fill_missing(by_id[h.task_id], h)
            matches["duplicate_harness"] += 1
            continue
        g = by_key.get(code_key(h.golden))
        how = "text" if g is not None else None
        if g is None:
            name = h.fields["function_name"] or _function_info(language, h.golden).name
            candidates = by_name.get(name or "", [])
            if len(candidates) == 1:
                g, how = candidates[0], "function_name"
        if g is not None and g.index in by_golden:  # the same task from a second upstream file
            _fill_missing(by_golden[g.index], h)
            matches["duplicate_harness"] += 1
            continue
        if g is None and not keep_unmatched_harness:
            matches["unmatched_harness_skipped"] += 1
            continue
        matches[how or "unmatched_harness_kept"] += 1
        row = _harness_row(config, h, g, how)
        rows.append(row)
        by_id[h.task_id] = row
        if g is not None:
            used.add(g.index)
            by_golden[g.index] = row
    seen: Counter[str] = Counter(r["task_id"] for r in rows)
    for g in goldens:
        if g.index in used:
            continue
        base = _content_id(language, g.code)
        seen[base] += 1
        task_id = base if seen[base] == 1 else f"{base}-{seen[base]}"
        rows.append(_golden_only_row(config, language, g, task_id))
    report = {
        "goldens": len(goldens),
        "harness_rows": sum(r["kind"] == KIND_HARNESS for r in rows),
        "golden_only_rows": sum(r["kind"] == KIND_GOLDEN_ONLY for r in rows),
        "golden_match": dict(matches),
    }
    return ConfigBuild(config, rows, report)


def _build_merged(config: str, res: SourceResolver) -> ConfigBuild:
    language = "python" if config.startswith("python") else "java"
    if config == "python_public":
        goldens = _golden_records(res, "github-d1c922e/python_public")
        # The Hub's official files first; the adapters file fills in what they lack (fallback).
        harnesses = _harness_records(res, (*_HF_ENTRIES, "python-harness/tasks"))
    elif config in ("java_public", "java_similar"):
        goldens = _golden_records(res, f"github-head/{config}")
        harnesses = _harness_records(res, _HF_ENTRIES)
    else:
        goldens = _golden_records(res, f"github-d1c922e/{config}")
        harnesses = []
    return _merge(config, language, goldens, harnesses, keep_unmatched_harness=config.endswith("_public"))


def _rosalind_index(res: SourceResolver) -> list[tuple[str, str, str | None]]:
    """(problem_id, track, title) per golden index, from the shipped table.

    When a source dir also holds ``github-head/rosalind_index.json`` (the file the table was
    derived from) the two must agree, so a stale table cannot go unnoticed.
    """
    table = [(pid, track, title) for pid, track, title, _, _ in ROSALIND_TABLE]
    if res.source_dir is not None:
        index_path = res.source_dir / "github-head" / "rosalind_index.json"
        if index_path.is_file():
            for rec in to_records(read_json(index_path, "rosalind_index"), str(index_path)):
                i = rec.get("index")
                if not isinstance(i, int) or not 0 <= i < len(table) or rec.get("problem_id") != table[i][0]:
                    raise RecordError(
                        f"{index_path}: entry {rec!r:.120} disagrees with the shipped Rosalind table "
                        f"(biocoder_dataset/_rosalind_table.py); regenerate the table"
                    )
    return table


def _build_rosalind(res: SourceResolver) -> ConfigBuild:
    name = "github-head/rosalind"
    goldens = _golden_records(res, name)
    table = _rosalind_index(res)
    if len(goldens) != len(table):
        raise RecordError(
            f"{REGISTRY[name].local_path}: expected {len(table)} Rosalind goldens "
            f"(the shipped table), found {len(goldens)}"
        )
    rows = []
    missing = 0
    for g, (pid, track, title) in zip(goldens, table, strict=True):
        row = _base_row("rosalind", "python", f"rosalind_{pid}")
        files = {}
        for which, solution in (("input", False), ("solution", True)):
            path = res.path(rosalind_testcase(pid, solution))
            files[which] = path.read_text(encoding="utf-8") if path is not None else None
        executable = files["input"] is not None and files["solution"] is not None
        missing += not executable
        row.update(
            kind=KIND_ROSALIND,
            executable=executable,
            not_executable_reason=None if executable else f"upstream has no test case files for {pid}",
            function_name="solve",
            signature=prompts.ROSALIND_SIGNATURE,
            comment=prompts.rosalind_comment(pid, title),
            golden_code=g.code,
            test_input=files["input"],
            expected_output=files["solution"],
            repository="danhalligan/rosalind.info",
            file_path=f"rosalind/{track}/{pid}.py",
            source=f"{name}+rosalind-testcases",
            metadata={
                "problem_id": pid,
                "track": track,
                "title": title,
                "golden_index": g.index,
                "golden_defines_solve": bool(re.search(r"^def\s+solve\s*\(", g.code, re.M)),
            },
        )
        rows.append(row)
    return ConfigBuild("rosalind", rows, {"goldens": len(goldens), "without_test_files": missing})


def _finish(build: ConfigBuild) -> ConfigBuild:
    """Serialise metadata, add prompts, validate every row and the id uniqueness."""
    seen: dict[str, int] = {}
    for i, row in enumerate(build.rows):
        if isinstance(row.get("metadata"), dict):
            row["metadata"] = json.dumps(row["metadata"], sort_keys=True, ensure_ascii=False, default=str)
        if row.get("harness_strength") is None:
            row["harness_strength"] = strength_column(build.config, row["task_id"])
        synth_harnesses.apply(build.config, row)  # harness_source; shipped synthesised harnesses
        where = f"config {build.config!r} row {i} (task {row.get('task_id')!r})"
        try:
            row["prompt_summary_only"] = prompts.build_prompt(row, "summary_only")
            row["prompt_full_context"] = prompts.build_prompt(row, "full_context")
        except ValueError as exc:
            raise RecordError(f"{where}: cannot build its prompts: {exc}") from exc
        try:
            validate_row(row, where)
        except ValueError as exc:
            raise RecordError(str(exc)) from exc
        if row["task_id"] in seen:
            raise RecordError(f"{where}: duplicate task_id (also row {seen[row['task_id']]})")
        seen[row["task_id"]] = i
    build.report.update(
        rows=len(build.rows),
        executable=sum(r["executable"] for r in build.rows),
        kinds=dict(Counter(r["kind"] for r in build.rows)),
    )
    return build


def build_config(
    config: str,
    source_dir: str | os.PathLike | None = None,
    *,
    verify: bool | None = None,
    demo_dir: str | os.PathLike | None = None,
) -> ConfigBuild:
    """Build one config and report how (match counts etc.); see :func:`load_problems`."""
    _check_config(config)
    if config == "demo":
        build = ConfigBuild("demo", load_demo_rows(demo_dir), {"source": "package data"})
    else:
        res = SourceResolver(source_dir, verify=verify)
        build = _build_rosalind(res) if config == "rosalind" else _build_merged(config, res)
        build.report["source"] = res.describe()
        if res.skipped:
            build.report["skipped_optional_sources"] = list(res.skipped)
    build = _finish(build)
    log.info("built config %s: %s", config, build.report)
    return build


def load_problems(
    config: str,
    source_dir: str | os.PathLike | None = None,
    *,
    verify: bool | None = None,
    demo_dir: str | os.PathLike | None = None,
) -> list[TaskRow]:
    """The rows of ``config``, each with exactly the schema's columns.

    ``source_dir=None`` uses the source-dir setting if set, else downloads the pinned
    upstream files (cached); see :mod:`biocoder_dataset.settings`. ``verify=False`` (or the
    skip-checksum setting) skips the sha256 checks. ``demo_dir`` points the ``demo`` config at another folder (tests).
    """
    return build_config(config, source_dir, verify=verify, demo_dir=demo_dir).rows


def load_problem_index(
    config: str, source_dir: str | os.PathLike | None = None, **kwargs: Any
) -> dict[str, dict[str, Any]]:
    """``{task_id: row}`` for ``config`` (same arguments as :func:`load_problems`)."""
    return {row["task_id"]: row for row in load_problems(config, source_dir, **kwargs)}
