"""The stages of ``biocoder build`` as functions over files, and ``build run`` chaining them resumably.

Each stage reads the previous stage's JSONL and writes its own atomically, so the
intermediate files are the contract (documented in ``docs/build.md``) and any stage can be
rerun or replaced by hand. ``run`` keeps ``build_state.json`` in the output folder: for every
finished stage, a key hashing its parameters and the bytes of its inputs. A rerun skips a stage
whose key and output are unchanged and redoes it (and everything after) otherwise; the
prompts stage additionally resumes inside itself through the summary cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

from biocoder_dataset.jsonl import read_jsonl
from biocoder_metric.build.common import (
    SkipLog,
    files_path,
    report_path,
    write_json,
    write_jsonl,
)
from biocoder_metric.languages import UnknownLanguageError, names, runner

log = logging.getLogger("biocoder.build")
STATE_NAME = "build_state.json"


# ------------------------------------------------------------------------------------ stages
def extract_stage(
    repo: str | Path,
    repo_name: str,
    language: str,
    out: str | Path,
    package_dir: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Write ``out`` (functions), ``<out stem>.files.jsonl`` and ``<out stem>.report.json``; return the report."""
    if "/" not in repo_name or repo_name.count("/") != 1:
        raise ValueError(f"--repo-name must be OWNER/NAME, got {repo_name!r}")
    try:
        extract = runner(language).hook("extract")  # ast (Python) or tree-sitter (Java), imported here
    except UnknownLanguageError:
        raise ValueError(f"--language must be {' or '.join(names())}, got {language!r}") from None
    out = Path(out)
    start = time.perf_counter()
    skips = SkipLog()
    functions, files, skips = extract(Path(repo), repo_name, package_dir, skips, progress=progress)
    elapsed = time.perf_counter() - start
    write_jsonl(out, functions)
    write_jsonl(files_path(out), files)
    report = {
        "repo": str(repo),
        "repoName": repo_name,
        "language": language,
        "package_dir": package_dir,
        "files_parsed": len(files),
        "functions": len(functions),
        "seconds": round(elapsed, 3),
        "skipped_files": skips.as_dict(),
    }
    write_json(report_path(out), report)
    return report


def select_stage(
    functions: str | Path,
    out: str | Path,
    report: str | Path | None = None,
    config: Any = None,
    existing: list[str] | None = None,
) -> dict[str, Any]:
    """Write the kept records to ``out`` and the report (default ``<out stem>.report.json``)."""
    from biocoder_metric.build.select import SelectConfig, existing_goldens, select

    cfg = config or SelectConfig()
    kept, rep = select(read_jsonl(Path(functions)), cfg, existing_goldens(existing or []))
    write_jsonl(Path(out), kept)
    write_json(Path(report) if report else report_path(Path(out)), rep)
    return rep


def prompts_stage(
    functions: str | Path,
    out: str | Path,
    extracted: str | Path | None = None,
    backend: Any = None,
    progress: bool = True,
    cache_dir: Path | None = None,
) -> dict[str, Any]:
    """Write prompted records to ``out``; ``extracted`` (default ``functions``) supplies the file context."""
    from biocoder_metric.build.prompts import prompt_functions

    selected = read_jsonl(Path(functions))
    pool_path = Path(extracted) if extracted else Path(functions)
    fpath = files_path(pool_path)
    if not fpath.is_file():
        raise FileNotFoundError(
            f"{fpath}: the per-file records of {pool_path} are missing; pass --extracted "
            f"with the functions file written by `biocoder build extract` (its .files.jsonl sits next to it)"
        )
    pool = read_jsonl(pool_path) if extracted else selected
    prompted, stats = prompt_functions(
        selected, pool, read_jsonl(fpath), backend, progress=progress, cache_dir=cache_dir
    )
    write_jsonl(Path(out), prompted)
    return stats


def tasks_stage(
    prompted: str | Path, out: str | Path, config: str = "custom", harness: list[str] | None = None
) -> dict[str, Any]:
    """Write schema rows (JSONL) to ``out``; ``harness`` files attach test contexts where they match."""
    from biocoder_dataset.task_file import load_records
    from biocoder_metric.build.tasks import build_tasks

    harness_records: list[dict[str, Any]] = []
    for h in harness or []:
        harness_records += load_records(h)
    rows, rep = build_tasks(read_jsonl(Path(prompted)), config, harness_records)
    write_jsonl(Path(out), rows)
    return rep


# ------------------------------------------------------------------------------------ run
def _file_digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(str(p).encode())
        if p.is_file():
            with p.open("rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()


def _tree_digest(repo: Path, language: str, package_dir: str | None) -> str:
    """Cheap fingerprint of a source tree: paths, sizes and mtimes of its source files."""
    from biocoder_metric.build.common import iter_source_files

    h = hashlib.sha256()
    for p in iter_source_files(repo, language, package_dir):
        st = p.stat()
        h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


class _State:
    def __init__(self, folder: Path) -> None:
        self.path = folder / STATE_NAME
        self.data: dict[str, Any] = (
            json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        )
        self.dirty = False  # once a stage reruns, every later stage reruns too

    def fresh(self, stage: str, key: str, outputs: list[Path]) -> bool:
        ok = (
            not self.dirty
            and self.data.get(stage, {}).get("key") == key
            and all(p.is_file() for p in outputs)
        )
        if not ok:
            self.dirty = True
        return ok

    def done(self, stage: str, key: str, report: dict[str, Any]) -> None:
        self.data[stage] = {
            "key": key,
            "report": report,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        write_json(self.path, self.data)


def run(
    repo: str | Path,
    repo_name: str,
    language: str,
    out_dir: str | Path,
    *,
    package_dir: str | None = None,
    select_config: Any = None,
    existing: list[str] | None = None,
    backend: Any = None,
    harness: list[str] | None = None,
    config: str = "custom",
    progress: bool = True,
) -> dict[str, Any]:
    """All stages into ``out_dir`` (functions, selected, prompted, tasks .jsonl), skipping up-to-date ones."""
    from dataclasses import asdict

    from biocoder_metric.build.select import SelectConfig

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    state = _State(out)
    paths = {s: out / f"{s}.jsonl" for s in ("functions", "selected", "prompted", "tasks")}
    summary: dict[str, Any] = {}
    cfg = select_config or SelectConfig()

    def key(*parts: Any) -> str:
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()

    k = key(
        "extract",
        str(Path(repo).resolve()),
        repo_name,
        language,
        package_dir,
        _tree_digest(Path(repo), language, package_dir),
    )
    if state.fresh("extract", k, [paths["functions"], files_path(paths["functions"])]):
        log.info("extract: up to date")
        summary["extract"] = state.data["extract"]["report"] | {"skipped_stage": True}
    else:
        rep = extract_stage(repo, repo_name, language, paths["functions"], package_dir, progress)
        rep_small = {k2: v for k2, v in rep.items() if k2 != "skipped_files"} | {
            "skipped": rep["skipped_files"]["counts"]
        }
        state.done("extract", k, rep_small)
        summary["extract"] = rep_small

    k = key("select", asdict(cfg), _file_digest([paths["functions"], *map(Path, existing or [])]))
    if state.fresh("select", k, [paths["selected"]]):
        summary["select"] = state.data["select"]["report"] | {"skipped_stage": True}
    else:
        rep = select_stage(paths["functions"], paths["selected"], out / "select.json", cfg, existing)
        small = {
            "input": rep["input"],
            "kept": rep["kept"],
            "dropped": {n: r["dropped"] for n, r in rep["rules"].items()},
        }
        state.done("select", k, small)
        summary["select"] = small

    ident = backend.identity() if backend is not None else {"backend": "docstring"}
    k = key(
        "prompts",
        ident,
        _file_digest([paths["selected"], paths["functions"], files_path(paths["functions"])]),
    )
    if state.fresh("prompts", k, [paths["prompted"]]):
        summary["prompts"] = state.data["prompts"]["report"] | {"skipped_stage": True}
    else:
        rep = prompts_stage(paths["selected"], paths["prompted"], paths["functions"], backend, progress)
        state.done("prompts", k, rep)
        summary["prompts"] = rep

    k = key("tasks", config, _file_digest([paths["prompted"], *map(Path, harness or [])]))
    if state.fresh("tasks", k, [paths["tasks"]]):
        summary["tasks"] = state.data["tasks"]["report"] | {"skipped_stage": True}
    else:
        rep = tasks_stage(paths["prompted"], paths["tasks"], config, harness)
        state.done("tasks", k, rep)
        summary["tasks"] = rep
    summary["outputs"] = {s: str(p) for s, p in paths.items()}
    return summary
