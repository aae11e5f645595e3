"""Harness synthesis on code nobody tuned it to: fresh projects and upstream tasks, dev | held-out.

Why: synthesis was measured on the tasks it was developed on, and its yield and strength
fell apart elsewhere (issue #20). This benchmark measures it honestly and keeps measuring it:

* **A corpus split before anything ran** (``benchmarks/generalise/corpus.json``): pinned
  bioinformatics projects (PyPI sdists; Java from Debian source packages), each in the
  ``dev`` or ``heldout`` part by a rule written in the manifest (sha256 of the name), and
  the upstream BioCoder rows split by sha256 of the task id, with a fixed cap per part and
  language. The manifest's parts are re-derived from the rule on every run, so a hand edit
  that moves a project cannot go unnoticed. Tune on ``dev`` only; ``heldout`` is run once.
* **Fresh projects**: each archive is downloaded into the cache when missing and checked
  against its sha256, unpacked, and run through ``biocoder build`` (extract, select,
  docstring prompts, tasks: :func:`biocoder_metric.build.pipeline.run`); a seeded sample of
  up to ``--max-per-project`` task rows gets harnesses synthesised with the unpacked tree as
  the repository (:func:`biocoder_metric.synth.pipeline.synthesize`).
* **Upstream rows**: synthesised from the golden alone (upstream's ``context`` removed, no
  repository), as ``python -m benchmarks synth_compare`` does.
* **Independent strength**: on every validated harness the golden, the engine's null
  candidates and the hand-style mutants of :mod:`benchmarks.hand_mutants` (written apart
  from the project's mutation modules, so tuning against those cannot fool it) are judged
  as ordinary candidates by the evaluation engine (:func:`biocoder_metric.execution.run_evaluation`,
  same sandbox). A mutant is killed when it does not pass; survivors are judged once more with
  3x the fuzz cases (recorded, never subtracted) and their changed lines are kept, so the raw
  output says which bugs a harness misses. Java mutants that do not compile are counted apart.

Printed, per group (fresh Python, fresh Java, upstream Python, upstream Java) with the
parts side by side: functions extracted and selected (with the select report's drops per
rule), rows attempted, validated and the yield, the median score of both mutant families
recorded by validation, null candidates, hand mutants killed (overall and per class),
median seconds per validated task and per attempted task, and failure causes (the
synthesis reason reduced to a short key; held-out causes are written to the JSON but not
printed unless ``--print-heldout-causes``, so nobody tunes on them by accident).
Everything, per-task records included, goes to ``--out``.

Resumable: work is kept under ``--work``/<code fingerprint>/ (the fingerprint hashes the
installed packages' sources, so a changed synthesis never reuses stale verdicts); rerun the
same command and finished synthesis records and judged candidates are reused.

    python -m benchmarks synth_generalise --parts dev --max-per-project 3 --projects vcfpy,treeswift \\
        --upstream-per-part 3 --sandbox bwrap --workers 2
    python -m benchmarks synth_generalise --parts dev,heldout --sandbox bwrap --workers 2   # the full run
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import hand_mutants, rewrites
from biocoder_metric import pyast

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).resolve().parent / "generalise" / "corpus.json"
UPSTREAM = ROOT.parent / "shared" / "biocoder-upstream"
DEFAULT_OUT = ROOT / "docs" / "bench-results" / "synth_generalise.json"
PARTS = ("dev", "heldout")
GROUPS = ("fresh-python", "fresh-java", "upstream-python", "upstream-java")
#: Packages whose sources decide the verdicts: their hash names the work folder.
CODE_DIRS = ("biocoder_metric", "biocoder_dataset")
#: Tasks judged per engine call (results are cached after each call).
JUDGE_CHUNK = 8
#: Surviving hand mutants are judged again with this many times the fuzz cases.
SURVIVOR_FACTOR = 3


# ------------------------------------------------------------------------------- manifest
def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rule_parts(projects: list[dict[str, Any]]) -> dict[str, str]:
    """The part of each project by the manifest's rule: per language, sorted by sha256(name), alternating."""
    out: dict[str, str] = {}
    for lang in sorted({p["language"] for p in projects}):
        ordered = sorted((p["name"] for p in projects if p["language"] == lang), key=_h)
        for i, name in enumerate(ordered):
            out[name] = PARTS[i % 2]
    return out


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    """The corpus manifest, after checking that every project's ``part`` follows the split rule."""
    manifest = json.loads(path.read_text(encoding="utf-8"))
    want = rule_parts(manifest["projects"])
    wrong = [
        f"{p['name']}: {p['part']} (rule: {want[p['name']]})"
        for p in manifest["projects"]
        if p["part"] != want[p["name"]]
    ]
    if wrong:
        raise ValueError(f"{path}: parts disagree with the split rule: {'; '.join(wrong)}")
    names = [p["name"] for p in manifest["projects"]]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: duplicate project names")
    return manifest


def upstream_part(task_id: str) -> str:
    """dev when sha256(task_id) is even, else heldout (the manifest's upstream rule)."""
    return PARTS[int(_h(task_id), 16) % 2]


def upstream_split(
    rows_by_config: dict[str, list[dict[str, Any]]],
    configs: list[str],
    cap: int,
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(part, language) -> the capped rows, by the manifest's upstream rule (dedup by golden first)."""
    seen: set[tuple[str, str]] = set()
    pool: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for config in configs:
        for r in rows_by_config.get(config, []):
            if not r.get("golden_code") or r.get("kind") == "rosalind":
                continue
            key = (r["language"], _h(r["golden_code"]))
            if key in seen:
                continue
            seen.add(key)
            pool.setdefault((upstream_part(r["task_id"]), r["language"]), []).append(r)
    return {k: sorted(v, key=lambda r: _h(r["task_id"]))[:cap] for k, v in pool.items()}


def code_fingerprint() -> str:
    """Hash of the Python sources of the packages that synthesise and judge (12 hex digits)."""
    h = hashlib.sha256()
    for d in CODE_DIRS:
        for p in sorted((ROOT / d).rglob("*.py")):
            h.update(str(p.relative_to(ROOT)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:12]


def _sandbox_environment(args: argparse.Namespace) -> str:
    """The software environment synthesis and judging ran in (the sandbox's environment id).

    Why recorded: ``bwrap`` runs the reference image's root filesystem when the image is built and
    the host's interpreter otherwise, and the two differ in Python and numpy/pandas releases, so two
    runs' yields compare only when this matches.
    """
    from biocoder_metric.sandbox import make_sandbox

    sandbox = make_sandbox(args.sandbox, image=args.image)
    try:
        return sandbox.environment_id
    finally:
        sandbox.close()


def _git_describe() -> str | None:
    try:
        return (
            subprocess.run(
                ["git", "describe", "--always", "--dirty"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        return None


# ------------------------------------------------------------------------------- sources
def cache_root() -> Path:
    from biocoder_dataset import settings

    return settings.cache_root() / "generalise"


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(project: dict[str, Any], cache: Path, log) -> Path:
    """The project's archive in the cache, downloaded when missing; its sha256 must match the manifest."""
    folder = cache / ("sdists" if project["source"] == "pypi" else "debsrc")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / project["file"]
    if not path.is_file():
        log(f"  downloading {project['name']} {project['version']} ({project['source']})")
        if project["source"] == "pypi":
            # --no-binary NAME: the sdist of the project itself; its build tools may be wheels
            # (--no-binary :all: would also build numpy & co. from source just to read metadata).
            cmd = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                project["name"],
                f"{project['name']}=={project['version']}",
                "-d",
                str(folder),
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if not path.is_file():
                raise RuntimeError(
                    f"{project['name']}: pip download did not produce {path.name}: {proc.stderr[-600:]}"
                )
        elif project["source"] == "debian":
            _apt_source(project, cache, folder)
        else:
            raise ValueError(f"{project['name']}: unknown source {project['source']!r}")
    digest = _sha256_file(path)
    if digest != project["sha256"]:
        raise RuntimeError(f"{path}: sha256 {digest} differs from the manifest's {project['sha256']}")
    return path


def _apt_source(project: dict[str, Any], cache: Path, folder: Path) -> None:
    """``apt-get source --download-only`` through a private deb-src list (the system's apt config is untouched).

    The mirror is the one the system's own ``deb`` entries use for the suite; only the upstream
    tarball is needed, so a missing Debian patch tarball (the command's exit status) does not matter.
    """
    apt = cache / "apt"
    lists = apt / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    suite = project.get("debian_suite", "bookworm")
    sources = apt / "sources.list"
    lines = sorted({f"deb-src {opt}{uri} {suite} main" for uri, opt in _system_deb_mirrors(suite)})
    if not lines:
        raise RuntimeError(
            f"no apt mirror for {suite} is configured on this system: cannot fetch {project['name']}"
        )
    sources.write_text("\n".join(lines) + "\n", encoding="utf-8")
    opts = [
        "-o",
        f"Dir::Etc::SourceList={sources}",
        "-o",
        "Dir::Etc::SourceParts=/nonexistent",
        "-o",
        f"Dir::State::Lists={lists}",
        "-o",
        "Debug::NoLocking=1",
    ]
    if not any(lists.glob("*Sources*")):
        subprocess.run(["apt-get", *opts, "update"], capture_output=True, text=True, timeout=900)
    pkg = project.get("debian_package", project["name"])
    proc = subprocess.run(
        ["apt-get", *opts, "source", "--download-only", f"{pkg}={project['version']}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if not (folder / project["file"]).is_file():
        raise RuntimeError(
            f"{project['name']}: apt-get source did not fetch {project['file']}: {proc.stderr[-600:]}"
        )


def _system_deb_mirrors(suite: str) -> list[tuple[str, str]]:
    """(URI, ``[signed-by=...] `` or '') of the system's ``deb`` entries for ``suite`` with ``main``."""
    out: list[tuple[str, str]] = []
    etc = Path("/etc/apt")
    for f in sorted(etc.glob("sources.list.d/*.sources")):
        for stanza in f.read_text(encoding="utf-8", errors="replace").split("\n\n"):
            fields = {}
            for line in stanza.splitlines():
                if ":" in line and not line.startswith(("#", " ")):
                    k, v = line.split(":", 1)
                    fields[k.strip().lower()] = v.strip()
            if (
                "deb" in fields.get("types", "").split()
                and suite in fields.get("suites", "").split()
                and "main" in fields.get("components", "").split()
            ):
                opt = (
                    f"[signed-by={fields['signed-by']}] "
                    if fields.get("signed-by", "").startswith("/")
                    else ""
                )
                out += [(u, opt) for u in fields.get("uris", "").split()]
    for f in [etc / "sources.list", *sorted(etc.glob("sources.list.d/*.list"))]:
        if f.is_file():
            for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
                m = re.match(r"deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)", line.strip())
                if m and m.group(3) == suite and "main" in m.group(4).split():
                    out.append((m.group(2), (m.group(1) or "").strip() + " " if m.group(1) else ""))
    return out


def unpack(project: dict[str, Any], archive: Path, cache: Path) -> Path:
    """The unpacked source tree (``top`` inside the archive), extracted once and then reused."""
    dest = cache / "src" / f"{project['name']}-{project['sha256'][:12]}"
    marker = dest / ".unpacked"
    if not marker.is_file():
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(dest, filter="data")
            else:  # pragma: no cover - Python < 3.11.4
                tar.extractall(dest)  # noqa: S202 - a pinned, checksummed archive
        marker.write_text(project["sha256"] + "\n", encoding="utf-8")
    root = dest / project["top"]
    if not (root / project["package_dir"]).is_dir():
        raise RuntimeError(f"{project['name']}: {project['package_dir']} not found under {root}")
    return root.resolve()


# ------------------------------------------------------------------------------- synthesis
def _synth_options(args: argparse.Namespace, repos: dict[str, str] | None = None) -> Any:
    from biocoder_metric.synth.pipeline import SynthOptions

    kw: dict[str, Any] = {
        "sandbox": args.sandbox,
        "workers": args.workers,
        "repos": repos or {},
        "image": args.image,
    }
    for flag, field_name in (
        ("fuzz_cases", "fuzz_cases"),
        ("mutants", "mutant_limit"),
        ("max_plans", "max_plans"),
    ):
        if getattr(args, flag) is not None:
            kw[field_name] = getattr(args, flag)
    return SynthOptions(**kw)


def fresh_project(project: dict[str, Any], args: argparse.Namespace, work: Path, log) -> dict[str, Any]:
    """Download, unpack, build task rows, sample, synthesise; the project's entry (rows and records)."""
    from biocoder_dataset.jsonl import read_jsonl
    from biocoder_metric.build.pipeline import run as build_run
    from biocoder_metric.synth.pipeline import synthesize

    cache = cache_root()
    entry: dict[str, Any] = {
        k: project[k] for k in ("name", "version", "source", "language", "domain", "part", "package_dir")
    }
    try:
        root = unpack(project, fetch(project, cache, log), cache)
    except (OSError, RuntimeError, tarfile.TarError, subprocess.SubprocessError) as exc:
        entry["error"] = f"source not available: {exc}"
        log(f"  {project['name']}: {entry['error']}")
        return entry | {"rows": [], "records": []}
    repo_name = f"{project['source']}/{project['name']}"
    out_dir = work / "build" / project["name"]
    started = time.monotonic()
    try:
        summary = build_run(
            root, repo_name, project["language"], out_dir, package_dir=project["package_dir"], progress=False
        )
    except Exception as exc:  # noqa: BLE001 - one project's build must not end a long run; the error is reported
        entry["error"] = f"biocoder build failed: {type(exc).__name__}: {exc}"[:500]
        log(f"  {project['name']}: {entry['error']}")
        return entry | {"rows": [], "records": []}
    entry["build_seconds"] = round(time.monotonic() - started, 2)
    entry["extracted"] = summary["extract"].get("functions", 0)
    entry["selected"] = summary["select"].get("kept", 0)
    entry["select_dropped"] = summary["select"].get("dropped", {})
    rows = sorted(read_jsonl(out_dir / "tasks.jsonl"), key=lambda r: r["task_id"])
    entry["task_rows"] = len(rows)
    rng = random.Random(f"{args.seed}:{project['name']}")
    sample = sorted(rng.sample(rows, min(args.max_per_project, len(rows))), key=lambda r: r["task_id"])
    entry["sampled"] = [r["task_id"] for r in sample]
    log(
        f"  {project['name']}: {entry['extracted']} functions, {entry['selected']} selected, "
        f"{len(sample)} sampled; synthesising"
    )
    opts = _synth_options(args, {repo_name: str(root), project["name"]: str(root)})
    records = (
        synthesize(
            sample,
            opts,
            work / "synth" / f"{project['name']}.report.jsonl",
            progress=args.progress,
            helper_rows=rows,
        )
        if sample
        else []
    )
    return entry | {"rows": sample, "records": records}


def upstream_groups(
    manifest: dict[str, Any],
    args: argparse.Namespace,
    parts: list[str],
    work: Path,
    log,
) -> list[dict[str, Any]]:
    """Synthesise the capped upstream rows of each (part, language) from the golden alone, per config."""
    from biocoder_dataset.configs import load_problems
    from biocoder_metric.synth.pipeline import synthesize

    up = manifest["upstream"]
    cap = args.upstream_per_part if args.upstream_per_part is not None else up["cap_per_part_and_language"]
    by_config = {c: load_problems(c, source_dir=args.source_dir) for c in up["configs"]}
    split = upstream_split(by_config, up["configs"], cap)
    out = []
    for part in parts:
        for lang in ("python", "java"):
            if lang not in getattr(args, "languages", "python,java").split(","):
                continue
            chosen = split.get((part, lang), [])
            for config in up["configs"]:
                rows = [_golden_alone(r) for r in chosen if r.get("config") == config]
                if not rows:
                    continue
                log(f"  upstream {part} {lang} {config}: {len(rows)} rows; synthesising")
                helpers = [_golden_alone(r) for r in by_config[config]]
                records = synthesize(
                    rows,
                    _synth_options(args),
                    work / "synth" / f"upstream-{part}-{lang}-{config}.report.jsonl",
                    progress=args.progress,
                    helper_rows=helpers,
                )
                out.append(
                    {"part": part, "language": lang, "config": config, "rows": rows, "records": records}
                )
    return out


def _golden_alone(row: dict[str, Any]) -> dict[str, Any]:
    """The row without any harness: what synthesis must build from the golden alone."""
    return dict(row, context=None, kind="golden_only", executable=False, harness_source=None)


# ------------------------------------------------------------------------------- judging
def judge_validated(
    rows: list[dict[str, Any]], records: list[dict[str, Any]], args: argparse.Namespace, cache_path: Path, log
) -> dict[tuple[str, str], dict[str, Any]]:
    """For each validated harness: the engine's verdict on the golden, the null candidates and the hand mutants.

    Cached in ``cache_path`` by (task id, golden sha256, harness sha256, generator version,
    settings), so a rerun judges only what is new.
    """
    from biocoder_metric.execution import EvalOptions, run_evaluation
    from biocoder_metric.execution.strength import null_candidates
    from biocoder_metric.synth.pipeline import apply_records, golden_sha256

    settings_key = (
        f"v{hand_mutants.VERSION}:n{args.hand_mutants}:f{args.fuzz_cases}:t{args.timeout}:s{args.eval_seed}"
        f":x{SURVIVOR_FACTOR}:j2:rw{rewrites.VERSION}"
    )
    done: dict[str, dict[str, Any]] = {}
    if cache_path.is_file():
        for line in cache_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line: judged again
                done[rec["key"]] = rec
    todo: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]] = []
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for row, rec in zip(rows, records, strict=True):
        if rec.get("status") != "validated" or not rec.get("context"):
            continue
        harnessed = apply_records([row], [rec])[0]
        key = _h("\x1f".join([row["task_id"], golden_sha256(row), _h(rec["context"]), settings_key]))
        if key in done:
            out[(row["task_id"], golden_sha256(row))] = done[key]
            continue
        cands = [("golden", "golden", row["golden_code"])]
        cands += [("null", label, code) for label, code in null_candidates(harnessed)]
        cands += [
            ("hand", cls, code)
            for cls, code in hand_mutants.mutants(
                row["golden_code"],
                row["language"],
                row.get("function_name"),
                args.hand_mutants,
                seed=row["task_id"],
            )
        ]
        # semantics-preserving rewrites of the golden: a fair harness passes every one
        cands += [
            ("rewrite", cls, code)
            for cls, code in rewrites.rewrites(row["golden_code"], row["language"], row.get("function_name"))
        ]
        todo.append((key, harnessed, cands))
    if todo:
        log(f"  judging {len(todo)} validated harnesses: golden, null candidates, hand mutants")
    options = EvalOptions(
        sandbox=args.sandbox,
        workers=args.workers,
        image=args.image,
        fuzz_cases=args.fuzz_cases or _default_fuzz(),
        timeout_s=args.timeout,
        seed=args.eval_seed,
        include_weak=True,
    )
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    for i in range(0, len(todo), JUDGE_CHUNK):
        chunk = todo[i : i + JUDGE_CHUNK]
        # sample_index = position in cands: the engine numbers each task's samples in the order given
        samples = [
            {"task_id": h["task_id"], "sample_index": j, "completion": code}
            for _, h, cands in chunk
            for j, (_, _, code) in enumerate(cands)
        ]
        started = time.monotonic()
        run = run_evaluation([h for _, h, _ in chunk], samples, options, progress=False, allow_partial=True)
        by = {(r.task_id, r.sample_index): r.status for r in run.results}
        # Surviving hand mutants are judged again with 3x the fuzz cases, to tell a harness with too
        # few cases (killed then) from generators that never reach the difference (survives again).
        # Either way the mutant counts as a survivor: the harness as shipped misses it.
        again = [
            s
            for s in samples
            if s["sample_index"]
            and by.get((s["task_id"], s["sample_index"])) == "passed"
            and _kind_of(chunk, s) == "hand"
            and str(run.task_status.get(s["task_id"], ("?",))[0]) == "ok"
        ]
        by3: dict[tuple[str, int], str] = {}
        if again:
            more = EvalOptions(**{**vars(options), "fuzz_cases": options.fuzz_cases * SURVIVOR_FACTOR})
            ids = sorted({s["task_id"] for s in again})
            rerun = run_evaluation(
                [h for _, h, _ in chunk if h["task_id"] in ids],
                again,
                more,
                progress=False,
                allow_partial=True,
            )
            # the engine numbers each task's samples 0, 1, ... in the order given: map back to ours
            original: dict[str, list[int]] = {}
            for smp in again:
                original.setdefault(smp["task_id"], []).append(smp["sample_index"])
            by3 = {(r.task_id, original[r.task_id][r.sample_index]): r.status for r in rerun.results}
        took = time.monotonic() - started
        with cache_path.open("a", encoding="utf-8") as fh:
            for key, h, cands in chunk:
                task_status = run.task_status.get(h["task_id"], ("?", None))
                verdicts = []
                for j, (kind, label, _) in enumerate(cands):
                    v = {"kind": kind, "label": label, "status": by.get((h["task_id"], j), "missing")}
                    if (h["task_id"], j) in by3:
                        v["status_more_cases"] = by3[(h["task_id"], j)]
                    if kind == "hand" and v["status"] == "passed":
                        v["diff"] = _change(
                            h["golden_code"], cands[j][2], h["language"]
                        )  # what the harness misses
                    verdicts.append(v)
                entry = {
                    "key": key,
                    "task_id": h["task_id"],
                    "task_status": str(task_status[0]),
                    "task_reason": task_status[1],
                    "verdicts": verdicts,
                    "seconds": round(took / max(len(chunk), 1), 3),
                }
                fh.write(json.dumps(entry, sort_keys=True) + "\n")
                out[(h["task_id"], golden_sha256(h))] = entry
    return out


def _change(golden: str, mutant: str, language: str) -> str:
    """The lines a mutant changes (``-old`` / ``+new``), short: to read which bugs a harness misses."""
    import ast
    import difflib

    if language == "python":
        try:
            golden = ast.unparse(pyast.parse(golden))  # mutants are unparsed: compare like with like
        except SyntaxError:
            pass
    lines = [
        ln
        for ln in difflib.unified_diff(golden.splitlines(), mutant.splitlines(), lineterm="", n=0)
        if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    ]
    return "\n".join(ln.strip()[:160] for ln in lines)[:400]


def _kind_of(
    chunk: list[tuple[str, dict[str, Any], list[tuple[str, str, str]]]], sample: dict[str, Any]
) -> str:
    for _, h, cands in chunk:
        if h["task_id"] == sample["task_id"]:
            return cands[sample["sample_index"]][0]
    return "?"


def _default_fuzz() -> int:
    from biocoder_dataset import settings

    return settings.FUZZ_CASES


#: Verdicts that say nothing about the harness: the candidate never ran as a test.
NOT_JUDGED = ("compile_error", "sandbox_error", "missing")


def judged_counts(entry: dict[str, Any] | None) -> dict[str, Any]:
    """Golden verdict, null candidates and hand mutants (killed / judged, per class) from one judge entry."""
    if entry is None:
        return {}
    v = entry["verdicts"]
    golden = next((x["status"] for x in v if x["kind"] == "golden"), None)
    # a reference exists only where the golden itself passes as a candidate: where its output
    # varies between runs, a mutant's or null candidate's different output says nothing about the
    # harness (round 23 counted four equivalent mutants of a flaky task killed this way)
    ok = entry["task_status"] == "ok" and golden == "passed"
    nulls = [x for x in v if x["kind"] == "null"]
    hand = [x for x in v if x["kind"] == "hand"]
    rw = [x for x in v if x["kind"] == "rewrite"]
    per_class: dict[str, list[int]] = {}
    for x in hand:
        c = per_class.setdefault(x["label"], [0, 0, 0, 0])  # killed, judged, not judged, survive 3x cases too
        if not ok or x["status"] in NOT_JUDGED:
            c[2] += 1
        else:
            c[1] += 1
            c[0] += x["status"] != "passed"
            c[3] += x["status"] == "passed" and x.get("status_more_cases") == "passed"
    return {
        "engine_task_status": entry["task_status"],
        "engine_golden": golden if entry["task_status"] == "ok" else entry["task_status"],
        "nulls_total": len(nulls) if ok else 0,
        "nulls_rejected": sum(x["status"] != "passed" for x in nulls) if ok else 0,
        "nulls_passing": [x["label"] for x in nulls if x["status"] == "passed"] if ok else [],
        "hand_total": len(hand),
        "hand_judged": sum(c[1] for c in per_class.values()),
        "hand_killed": sum(c[0] for c in per_class.values()),
        "hand_survive_more_cases": sum(c[3] for c in per_class.values()),
        "hand_survivors": [
            {"class": x["label"], "diff": x.get("diff"), "status_more_cases": x.get("status_more_cases")}
            for x in hand
            if ok and x["status"] == "passed"
        ],
        "hand_per_class": {
            k: {"killed": c[0], "judged": c[1], "not_judged": c[2], "survive_more_cases": c[3]}
            for k, c in sorted(per_class.items())
        },
        "judge_seconds": entry.get("seconds"),
        "rewrites_judged": sum(1 for x in rw if ok and x["status"] not in NOT_JUDGED),
        "rewrites_passed": sum(1 for x in rw if ok and x["status"] == "passed"),
        "rewrites_failing": [x["label"] for x in rw if ok and x["status"] not in NOT_JUDGED + ("passed",)],
    }


# ------------------------------------------------------------------------------- summary
def cause_key(record: dict[str, Any]) -> str | None:
    """A failed record's cause, short enough to count: the first plan's reason without plan label or numbers.

    The report's ``reason`` joins ``plan label: reason`` for every plan; the label (``best guess``)
    says nothing about why, so the first attempt's own reason is used when there is one. A few
    reasons keep one detail that tells causes apart: the exception a golden raises, the kind of
    an unresolved name.
    """
    if record.get("status") == "validated":
        return None
    attempts = record.get("attempts") or []
    reason = str(
        (attempts[0].get("reason") if attempts else None) or record.get("reason") or "no reason recorded"
    )
    m = re.match(r"golden raises on \d+/\d+ calls \(([^)]*)\)", reason)
    if m:
        names = re.findall(r"exception: ([\w.]+)", m.group(1))
        return f"golden raises: {names[0] if names else '?'}"
    m = re.match(r"golden case \d+ \(run \d+\): (\w+)(?:: (.*))?", reason, re.DOTALL)
    if m:
        detail = m.group(2) or ""
        exc = re.search(r"\b([A-Za-z_]\w*(?:Error|Exception|Exit))\b", detail)
        what = exc.group(1) if exc else re.sub(r"\d+", "N", detail.split(":")[0]).strip()[:40]
        return f"golden case fails: {m.group(1)}" + (f": {what}" if what else "")
    if reason.startswith("unresolved names:"):
        # the first name's note, if any: "x (submodule pkg.x cannot be inlined)", "y (from lxml, not in ...)"
        first = re.match(r"\s*[\w.]+\s*(\(([^)]*)\))?", reason.split(":", 1)[1])
        if first is None or not first.group(2):
            return "unresolved names: not defined anywhere"
        note = re.sub(r"^(submodule|from|module) \S+?,? ", r"\1 X ", first.group(2))
        return "unresolved names: " + note[:60]
    text = re.sub(r"\([^)]*\)", "", reason)
    head = re.sub(r"\d+", "N", text.split(":")[0])
    return re.sub(r"\s+", " ", head).strip()[:80] or "no reason recorded"


def _median(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 4) if xs else None


def task_record(
    group: str, part: str, source: str, row: dict[str, Any], rec: dict[str, Any], judged: dict[str, Any]
) -> dict[str, Any]:
    """One task's line of the raw output."""
    v = rec.get("validation") or {}
    return {
        "group": group,
        "part": part,
        "source": source,
        "task_id": row["task_id"],
        "function_name": row.get("function_name"),
        "language": row["language"],
        "status": rec.get("status"),
        "cause": cause_key(rec),
        "reason": rec.get("reason"),
        "seconds": rec.get("seconds"),
        "slice": rec.get("slice"),
        "plan": rec.get("plan"),
        "attempts": [
            {"plan": a.get("plan"), "passed": a.get("passed"), "reason": a.get("reason")}
            for a in rec.get("attempts") or []
        ],
        "validation": {
            k: v.get(k)
            for k in (
                "cases",
                "calls",
                "golden_error_cases",
                "mutants_total",
                "mutants_judged",
                "mutants_killed",
                "mutants_likely_equivalent",
                "mutants_killed_by_other_plans",
                "mutation_score",
                "heldout_total",
                "heldout_judged",
                "heldout_killed",
                "heldout_mutation_score",
                "null_candidates_passed",
                "return_unobserved",
                "seconds",
            )
        }
        if v
        else None,
        **judged,
    }


def summarise(
    tasks: list[dict[str, Any]], projects: list[dict[str, Any]], group: str, part: str
) -> dict[str, Any]:
    """The numbers of one (group, part) cell of the table."""
    ts = [t for t in tasks if t["group"] == group and t["part"] == part]
    ok = [t for t in ts if t["status"] == "validated"]
    s: dict[str, Any] = {
        "attempted": len(ts),
        "validated": len(ok),
        "yield": round(len(ok) / len(ts), 4) if ts else None,
    }
    if group.startswith("fresh"):
        ps = [p for p in projects if p["part"] == part and f"fresh-{p['language']}" == group]
        s["projects"] = [p["name"] for p in ps]
        s["projects_unavailable"] = [p["name"] for p in ps if p.get("error")]
        s["functions_extracted"] = sum(p.get("extracted", 0) for p in ps)
        s["selected"] = sum(p.get("selected", 0) for p in ps)
        drops: Counter[str] = Counter()
        for p in ps:
            drops.update(p.get("select_dropped") or {})
        s["select_dropped"] = dict(sorted(drops.items()))
        s["task_rows"] = sum(p.get("task_rows", 0) for p in ps)
    if group.startswith("upstream"):
        per_config: dict[str, dict[str, int]] = {}
        for t in ts:
            c = per_config.setdefault(t["source"], {"attempted": 0, "validated": 0})
            c["attempted"] += 1
            c["validated"] += t["status"] == "validated"
        s["by_config"] = dict(sorted(per_config.items()))
    s["golden_passes_validation"] = sum(1 for t in ok if (t["validation"] or {}).get("cases"))
    s["engine_golden_passed"] = sum(1 for t in ok if t.get("engine_golden") == "passed")
    s["engine_judged_tasks"] = sum(1 for t in ok if t.get("engine_golden") is not None)
    s["median_project_mutation_score"] = _median([(t["validation"] or {}).get("mutation_score") for t in ok])
    s["median_heldout_family_score"] = _median(
        [(t["validation"] or {}).get("heldout_mutation_score") for t in ok]
    )
    s["null_candidates_passing_in_validation"] = sum(
        len((t["validation"] or {}).get("null_candidates_passed") or []) for t in ok
    )
    s["null_candidates_total"] = sum(t.get("nulls_total", 0) for t in ok)
    s["null_candidates_rejected"] = sum(t.get("nulls_rejected", 0) for t in ok)
    killed = sum(t.get("hand_killed", 0) for t in ok)
    judged = sum(t.get("hand_judged", 0) for t in ok)
    s["hand_mutants_killed"] = killed
    s["hand_mutants_judged"] = judged
    s["hand_mutants_not_judged"] = sum(t.get("hand_total", 0) for t in ok) - judged
    s["hand_kill_rate"] = round(killed / judged, 4) if judged else None
    # Survivors that survive 3x the cases too: the generators never reach the difference (or, rarely,
    # the mutant is equivalent). Not subtracted: a boundary bug the inputs never touch is a real miss.
    s["hand_mutants_survive_more_cases"] = sum(t.get("hand_survive_more_cases", 0) for t in ok)
    per: dict[str, dict[str, int]] = {}
    for t in ok:
        for cls, c in (t.get("hand_per_class") or {}).items():
            d = per.setdefault(cls, {"killed": 0, "judged": 0, "not_judged": 0, "survive_more_cases": 0})
            for k in d:
                d[k] += c[k]
    s["hand_per_class"] = {c: per[c] for c in hand_mutants.CLASSES if c in per}
    s["median_hand_kill_rate_per_task"] = _median(
        [t["hand_killed"] / t["hand_judged"] for t in ok if t.get("hand_judged")]
    )
    s["rewrites_judged"] = sum(t.get("rewrites_judged", 0) for t in ok)
    s["rewrites_passed"] = sum(t.get("rewrites_passed", 0) for t in ok)
    s["rewrites_failing"] = {
        (t.get("task_id") or t.get("function_name")): t["rewrites_failing"]
        for t in ok
        if t.get("rewrites_failing")
    }
    s["median_seconds_per_validated_task"] = _median([t["seconds"] for t in ok])
    s["median_seconds_per_attempted_task"] = _median([t["seconds"] for t in ts])
    s["synthesis_task_seconds_total"] = round(sum(t["seconds"] or 0 for t in ts), 1)
    s["judge_seconds_total"] = round(sum(t.get("judge_seconds") or 0 for t in ok), 1)
    s["failure_causes"] = dict(Counter(t["cause"] for t in ts if t["cause"]).most_common())
    return s


# ------------------------------------------------------------------------------- printing
def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def render_table(
    summary: dict[str, dict[str, dict[str, Any]]], parts: list[str], show_heldout_causes: bool
) -> str:
    """The compact side-by-side table (one block per group that has any task or project)."""
    lines = []
    for group in GROUPS:
        cells = {p: summary.get(group, {}).get(p) for p in parts}
        if not any(c and (c["attempted"] or c.get("projects")) for c in cells.values()):
            continue
        lines.append(f"\n== {group}")
        lines.append(f"{'':38}" + "".join(f"{p:>18}" for p in parts))

        def row(label: str, fn, cells=cells) -> None:
            lines.append(f"{label:38}" + "".join(f"{(fn(cells[p]) if cells[p] else '-'):>18}" for p in parts))

        if group.startswith("fresh"):
            row(
                "projects (unavailable)", lambda c: f"{len(c['projects'])} ({len(c['projects_unavailable'])})"
            )
            row("functions extracted", lambda c: str(c["functions_extracted"]))
            row("selected", lambda c: str(c["selected"]))
            rules = sorted({r for p in parts if cells[p] for r in cells[p]["select_dropped"]})
            for r in rules:
                row(f"  dropped: {r}", lambda c, r=r: str(c["select_dropped"].get(r, 0)))
        row("rows attempted", lambda c: str(c["attempted"]))
        row("validated (yield)", lambda c: f"{c['validated']} ({_fmt(c['yield'])})")
        configs = sorted({k for p in parts if cells[p] for k in cells[p].get("by_config", {})})
        for k in configs:
            row(
                f"  {k}: validated / attempted",
                lambda c, k=k: (lambda d: f"{d['validated']}/{d['attempted']}" if d else "-")(
                    c.get("by_config", {}).get(k)
                ),
            )
        row(
            "engine: golden passes / judged",
            lambda c: f"{c['engine_golden_passed']}/{c['engine_judged_tasks']}",
        )
        row("median project mutation score", lambda c: _fmt(c["median_project_mutation_score"]))
        row("median held-out family score", lambda c: _fmt(c["median_heldout_family_score"]))
        row(
            "null candidates rejected (engine)",
            lambda c: f"{c['null_candidates_rejected']}/{c['null_candidates_total']}",
        )
        row(
            "hand mutants killed / judged",
            lambda c: f"{c['hand_mutants_killed']}/{c['hand_mutants_judged']} ({_fmt(c['hand_kill_rate'])})",
        )
        for cls in hand_mutants.CLASSES:
            row(
                f"  {cls}",
                lambda c, cls=cls: (lambda d: f"{d['killed']}/{d['judged']}" if d else "-")(
                    c["hand_per_class"].get(cls)
                ),
            )
        row("  survivors, also with 3x cases", lambda c: str(c["hand_mutants_survive_more_cases"]))
        row("hand mutants not judged (compile)", lambda c: str(c["hand_mutants_not_judged"]))
        row(
            "golden rewrites passing / judged",
            lambda c: f"{c.get('rewrites_passed', 0)}/{c.get('rewrites_judged', 0)}",
        )
        row("median s / validated task", lambda c: _fmt(c["median_seconds_per_validated_task"]))
        row("median s / attempted task", lambda c: _fmt(c["median_seconds_per_attempted_task"]))
        for p in parts:
            c = cells[p]
            if not c or not c["failure_causes"]:
                continue
            if p == "heldout" and not show_heldout_causes:
                lines.append(
                    f"failure causes ({p}): {sum(c['failure_causes'].values())} failed "
                    "(causes in the JSON; not printed, see --print-heldout-causes)"
                )
                continue
            lines.append(f"failure causes ({p}):")
            lines.extend(f"  {n:4} x {cause}" for cause, n in c["failure_causes"].items())
    return "\n".join(lines)


# ------------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks synth_generalise",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--parts", default="dev", help="comma-separated: dev, heldout (default: dev only)")
    ap.add_argument(
        "--sources", default="fresh,upstream", help="comma-separated: fresh, upstream (default: both)"
    )
    ap.add_argument(
        "--projects", default=None, help="only these projects (comma-separated names; smoke runs)"
    )
    ap.add_argument(
        "--languages", default="python,java", help="comma-separated: python, java (default: both)"
    )
    ap.add_argument(
        "--max-per-project", type=int, default=10, help="task rows sampled per fresh project (default: 10)"
    )
    ap.add_argument(
        "--upstream-per-part",
        type=int,
        default=None,
        help="upstream rows per part and language (default: the manifest's cap, 30)",
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the per-project row sample (default: 0)")
    ap.add_argument(
        "--source-dir",
        default=str(UPSTREAM),
        help="the upstream files (default: ../shared/biocoder-upstream)",
    )
    ap.add_argument("--sandbox", default="bwrap", help="sandbox for synthesis and judging (default: bwrap)")
    ap.add_argument("--image", default=None, help="Docker image (docker; bwrap's root filesystem)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fuzz-cases", type=int, default=None, help="fuzz cases (default: synthesis's default)")
    ap.add_argument(
        "--mutants", type=int, default=None, help="project mutants per task (default: synthesis's)"
    )
    ap.add_argument(
        "--max-plans", type=int, default=None, help="generator plans per task (default: synthesis's)"
    )
    ap.add_argument(
        "--hand-mutants",
        type=int,
        default=10,
        help="hand-style mutants judged per validated task (default: 10)",
    )
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per case when judging (default: 5)")
    ap.add_argument("--eval-seed", type=int, default=0, help="fuzz seed of the judging run (default: 0)")
    ap.add_argument(
        "--work",
        default=None,
        help="work folder; runs live in WORK/<code fingerprint>/ (default: $BIOCODER_CACHE_DIR/generalise/work, "
        "normally ~/.cache/biocoder/generalise/work)",
    )
    ap.add_argument(
        "--out",
        default=str(DEFAULT_OUT),
        help="raw output JSON (default: docs/bench-results/synth_generalise.json)",
    )
    ap.add_argument("--manifest", default=str(MANIFEST))
    ap.add_argument(
        "--print-heldout-causes",
        action="store_true",
        help="also print the held-out part's failure causes (they are always in the JSON)",
    )
    ap.add_argument("--no-progress", dest="progress", action="store_false")
    ap.add_argument(
        "--combine",
        nargs="+",
        metavar="RAW_JSON",
        default=None,
        help="write --out from runs of disjoint languages (a Java-only and a Python-only run), "
        "each group taken from the run that covered its language; nothing is synthesised",
    )
    return ap


def combine_runs(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One raw output from runs that covered disjoint languages, each group from its own run.

    Why: a round that changes one language's synthesis re-measures that language alone (a full
    run is twice as long on 2 cores); the README's table needs every group. Nothing is averaged
    or re-counted: each group's summary, tasks and projects are copied from the run whose
    ``--languages`` covered it, and ``runs`` keeps every run's command, code fingerprint, commit
    and timings, so a reader sees which code measured which rows. Runs on different manifests,
    split rules or hand-mutant versions, or two runs of one language, are refused.
    """
    if len(reports) < 2:
        raise ValueError("--combine needs at least two runs")
    owner: dict[str, int] = {}
    for i, r in enumerate(reports):
        langs = r["settings"]["languages"]
        for lang in langs.split(",") if isinstance(langs, str) else langs:
            if lang in owner:
                raise ValueError(f"two runs cover {lang}: runs {owner[lang] + 1} and {i + 1}")
            owner[lang] = i
    for key in ("manifest_sha256", "split_rule", "upstream_rule", "hand_mutants_version", "parts"):
        if any(r.get(key) != reports[0].get(key) for r in reports):
            raise ValueError(f"runs differ in {key}: they measure different things")
    first = reports[0]
    out = {k: v for k, v in first.items() if k not in ("summary", "tasks", "projects", "timings")}
    out["summary"] = {
        group: reports[owner[group.rsplit("-", 1)[1]]]["summary"].get(group, {})
        if group.rsplit("-", 1)[1] in owner
        else {}
        for group in first["summary"]
    }
    out["tasks"] = [t for i, r in enumerate(reports) for t in r["tasks"] if owner.get(t["language"]) == i]
    out["projects"] = [
        p for i, r in enumerate(reports) for p in r["projects"] if owner.get(p["language"]) == i
    ]
    out["settings"] = dict(first["settings"], languages=",".join(sorted(owner)))
    out["runs"] = [
        {
            k: r.get(k)
            for k in ("command", "code_fingerprint", "git", "timings", "loadavg_end", "cpu_count", "settings")
        }
        for r in reports
    ]
    out["command"] = "combined: " + " | ".join(r["command"] for r in reports)
    out["code_fingerprint"] = "+".join(r["code_fingerprint"] for r in reports)
    out["git"] = "+".join(str(r.get("git")) for r in reports)
    out["timings"] = {"total_wall_s": round(sum(r["timings"]["total_wall_s"] for r in reports), 1)}
    return out


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.combine:
        try:
            report = combine_runs([json.loads(Path(f).read_text(encoding="utf-8")) for f in args.combine])
        except (OSError, ValueError, KeyError) as e:
            print(f"synth_generalise --combine: {e}", file=sys.stderr)
            return 2
        print(render_table(report["summary"], report["parts"], False))
        Path(args.out).write_text(
            json.dumps(report, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8"
        )
        print(f"raw output: {args.out}", file=sys.stderr)
        return 0
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    sources = {s.strip() for s in args.sources.split(",") if s.strip()}
    languages = {s.strip() for s in args.languages.split(",") if s.strip()}
    bad = (
        [p for p in parts if p not in PARTS]
        + [s for s in sources if s not in ("fresh", "upstream")]
        + [x for x in languages if x not in ("python", "java")]
    )
    if bad or not parts:
        print(f"synth_generalise: unknown --parts/--sources/--languages value(s): {bad}", file=sys.stderr)
        return 2
    if args.sandbox == "none":
        print(
            "synth_generalise: --sandbox none would run project code unsandboxed; use bwrap or docker",
            file=sys.stderr,
        )
        return 2

    from biocoder_metric.synth.pipeline import golden_sha256

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    manifest = load_manifest(Path(args.manifest))
    fingerprint = code_fingerprint()
    work = (Path(args.work).expanduser() if args.work else cache_root() / "work") / fingerprint
    work.mkdir(parents=True, exist_ok=True)
    log(f"synth_generalise: parts {parts}, work {work}")
    started = time.monotonic()
    wanted = {n.strip() for n in args.projects.split(",")} if args.projects else None
    if wanted:
        unknown = wanted - {p["name"] for p in manifest["projects"]}
        if unknown:
            print(f"synth_generalise: --projects: not in the manifest: {sorted(unknown)}", file=sys.stderr)
            return 2

    projects: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    timings: dict[str, float] = {}
    if "fresh" in sources:
        t0 = time.monotonic()
        for project in manifest["projects"]:
            if project["part"] not in parts or project["language"] not in languages:
                continue
            if wanted and project["name"] not in wanted:
                continue
            log(f"fresh {project['part']}: {project['name']} {project['version']} ({project['language']})")
            entry = fresh_project(project, args, work, log)
            group = f"fresh-{project['language']}"
            judged = judge_validated(
                entry["rows"], entry["records"], args, work / "judge" / f"{project['name']}.jsonl", log
            )
            for row, rec in zip(entry["rows"], entry["records"], strict=True):
                tasks.append(
                    task_record(
                        group,
                        project["part"],
                        project["name"],
                        row,
                        rec,
                        judged_counts(judged.get((row["task_id"], golden_sha256(row)))),
                    )
                )
            projects.append({k: v for k, v in entry.items() if k not in ("rows", "records")})
        timings["fresh_wall_s"] = round(time.monotonic() - t0, 1)
    if "upstream" in sources:
        t0 = time.monotonic()
        if not Path(args.source_dir).is_dir():
            print(f"synth_generalise: upstream data not found at {args.source_dir}", file=sys.stderr)
            return 2
        for g in upstream_groups(manifest, args, parts, work, log):
            if g["language"] not in languages:
                continue
            group = f"upstream-{g['language']}"
            judged = judge_validated(
                g["rows"],
                g["records"],
                args,
                work / "judge" / f"upstream-{g['part']}-{g['language']}-{g['config']}.jsonl",
                log,
            )
            for row, rec in zip(g["rows"], g["records"], strict=True):
                tasks.append(
                    task_record(
                        group,
                        g["part"],
                        g["config"],
                        row,
                        rec,
                        judged_counts(judged.get((row["task_id"], golden_sha256(row)))),
                    )
                )
        timings["upstream_wall_s"] = round(time.monotonic() - t0, 1)

    summary = {group: {part: summarise(tasks, projects, group, part) for part in parts} for group in GROUPS}
    timings["total_wall_s"] = round(time.monotonic() - started, 1)
    attempted = len(tasks)
    report = {
        "benchmark": "synth_generalise",
        "command": "python -m benchmarks synth_generalise "
        + shlex.join(argv if argv is not None else sys.argv[1:]),
        "parts": parts,
        "settings": {
            k: getattr(args, k)
            for k in (
                "sources",
                "languages",
                "projects",
                "max_per_project",
                "upstream_per_part",
                "seed",
                "sandbox",
                "image",
                "workers",
                "fuzz_cases",
                "mutants",
                "max_plans",
                "hand_mutants",
                "timeout",
                "eval_seed",
            )
        },
        "synth_defaults": {
            k: getattr(_synth_options(args), k)
            for k in ("fuzz_cases", "mutant_limit", "max_plans", "good_score")
        },
        "hand_mutants_version": hand_mutants.VERSION,
        "code_fingerprint": fingerprint,
        "git": _git_describe(),
        "manifest_sha256": _sha256_file(Path(args.manifest)),
        "split_rule": manifest["split_rule"],
        "upstream_rule": manifest["upstream"]["rule"],
        "environment": _sandbox_environment(args),
        "cpu_count": os.cpu_count(),
        "loadavg_end": os.getloadavg(),
        "timings": timings
        | {"wall_s_per_attempted_task": round(timings["total_wall_s"] / attempted, 2) if attempted else None},
        "summary": summary,
        "projects": projects,
        "tasks": tasks,
    }
    print(render_table(summary, parts, args.print_heldout_causes))
    print(
        f"\n{attempted} tasks in {timings['total_wall_s']} s "
        f"({report['timings']['wall_s_per_attempted_task']} s per attempted task, including builds and judging)"
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    tmp.replace(out)
    log(f"raw output: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


#: The raw output ``scripts/figures.py`` renders the README block ``synth_generalise`` from.
RESULTS_FILE = "synth_generalise.json"


def render_markdown(data: dict[str, Any]) -> str:
    """Held-out and dev parts side by side: yield, both mutant families, nulls, hand mutants, rewrites."""

    def cell(c: dict[str, Any] | None, key: str, fmt: str = "{}") -> str:
        v = (c or {}).get(key)
        return "-" if v is None else fmt.format(v)

    rows = [
        "| set | part | validated / attempted | median project / held-out mutant score | null candidates "
        "rejected | hand mutants killed | golden rewrites pass |",
        "|---|---|---|---|---|---|---|",
    ]
    for group in ("fresh-python", "upstream-python", "fresh-java", "upstream-java"):
        for part in ("heldout", "dev"):
            c = (data["summary"].get(group) or {}).get(part)
            if not c:
                continue
            hand = f"{c['hand_mutants_killed']} / {c['hand_mutants_judged']}" + (
                f" ({100 * c['hand_kill_rate']:.0f}%)" if c.get("hand_kill_rate") is not None else ""
            )
            rows.append(
                f"| {group} | {part} | {c['validated']} / {c['attempted']} ({100 * (c.get('yield') or 0):.0f}%) | "
                f"{cell(c, 'median_project_mutation_score', '{:.2f}')} / {cell(c, 'median_heldout_family_score', '{:.2f}')} | "
                f"{c['null_candidates_rejected']} / {c['null_candidates_total']} | {hand} | "
                f"{cell(c, 'rewrites_passed')} / {cell(c, 'rewrites_judged')} |"
            )
    return "\n".join(rows)
