"""Parquet per config plus a generated dataset card; optional push to the Hub.

The exported folder has the layout ``Dataset.push_to_hub(config_name=...)`` produces
(``<config>/test-00000-of-00001.parquet``) and a ``README.md`` whose YAML ``configs:``
lists every config and its one ``test`` split explicitly, so ``load_dataset(folder, cfg)``
and the Hub read it with no script and never fall back to an inferred ``train`` split.
Features are declared (``schema.features()``) and repeated in the card's
``dataset_info``; all counts in the card are read back from the written files.

The export is written to a temporary folder next to the destination and moved into place
only when complete, so an interrupted export never leaves a half-written dataset behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

import yaml
from tqdm.auto import tqdm

from biocoder_dataset import __version__
from biocoder_dataset.configs import build_config
from biocoder_dataset.errors import DatasetError, UnknownConfigError
from biocoder_dataset.schema import COLUMNS, CONFIGS, SPLIT, features
from biocoder_dataset.sources import REGISTRY, SourceResolver

PARQUET_NAME = f"{SPLIT}-00000-of-00001.parquet"
_TEMPLATE = Path(__file__).resolve().parent / "card_template.md"


@dataclass
class ExportResult:
    """What was written: the folder and, per config, counts read back from its Parquet file."""

    out_dir: Path
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)


def parse_configs(configs: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """``None`` -> all; ``"a,b"`` or a list -> those, checked against ``schema.CONFIGS``."""
    if configs is None:
        return list(CONFIGS)
    names = [c.strip() for c in configs.split(",")] if isinstance(configs, str) else list(configs)
    names = [c for c in names if c]
    bad = [c for c in names if c not in CONFIGS]
    if bad or not names:
        raise UnknownConfigError(f"unknown config(s) {bad or names!r}; valid configs: {', '.join(CONFIGS)}")
    return list(dict.fromkeys(names))


class _NoAliasDumper(yaml.SafeDumper):
    """Writes repeated lists out in full: ``&id001`` anchors in a card confuse readers and Hub tools."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M"


def _front_matter(counts: dict[str, dict[str, Any]]) -> str:
    feature_list = [{"name": name, "dtype": dtype} for name, (dtype, _) in COLUMNS.items()]
    meta = {
        "pretty_name": "BioCoder",
        "license": "other",
        "license_name": "per-repository",
        "language": ["en"],
        "task_categories": ["text-generation"],
        "tags": ["code", "bioinformatics", "code-generation", "benchmark", "python", "java"],
        "size_categories": [_size_category(sum(c["rows"] for c in counts.values()))],
        "configs": [
            {
                "config_name": name,
                "data_files": [{"split": SPLIT, "path": f"{name}/{PARQUET_NAME}"}],
                **({"default": True} if name == "demo" else {}),
            }
            for name in counts
        ],
        "dataset_info": [
            {
                "config_name": name,
                "features": feature_list,
                "splits": [{"name": SPLIT, "num_bytes": c["num_bytes"], "num_examples": c["rows"]}],
                "download_size": c["download_size"],
                "dataset_size": c["num_bytes"],
            }
            for name, c in counts.items()
        ],
    }
    return yaml.dump(meta, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True, width=1000)


def _strength_notes(counts: dict[str, dict[str, Any]]) -> str:
    """The card's harness-audit summary (``harness_strength`` column) for the exported configs."""
    from biocoder_dataset.harness_strength import card_summary

    rows = []
    for name, s in card_summary().items():
        if name not in counts:
            continue
        weak = ", ".join(f"`{t}`" for t in s["weak"]) or "none"
        unobserved = ", ".join(f"`{t}`" for t in s.get("return_unobserved", [])) or "none"
        rows.append(
            f"| `{name}` | {s['audited']} | {len(s['weak'])} ({weak}) | "
            f"{len(s.get('return_unobserved', []))} ({unobserved}) | {s['constant_output']} | "
            f"{s['mutants_killed']}/{s['mutants_total']} | {s['likely_equivalent']} |"
        )
    if not rows:
        return ""
    version = next(iter(card_summary().values()))["audit_version"]
    return (
        "\n\n## Harness strength (audit " + str(version) + ")\n\n"
        "`biocoder audit` judges null candidates (`return None`, `pass`, the first argument, `raise`) and "
        "single-site mutants of the golden on every executable task. A task where a null candidate passes is "
        "a *weak harness*: evaluators leave it out of the headline pass@k unless asked (`--include-weak`). "
        "A task whose test never detects a replaced return value while the golden returns one is "
        "*return unobserved*, left out by the same rule. "
        "Per task results are in the `harness_strength` column; method in the project's `docs/validity.md`.\n\n"
        "| config | audited | weak harness | return unobserved | constant output | mutants killed | likely equivalent |\n"
        "|---|---:|---|---|---:|---:|---:|\n" + "\n".join(rows)
    )


def render_card(counts: dict[str, dict[str, Any]], reports: dict[str, dict[str, Any]], source: str) -> str:
    """The README.md text for an export with these per-config counts."""
    from biocoder_dataset.builder import _CITATION

    table = "\n".join(
        f"| `{name}` | {c['rows']} | {c['executable']} | "
        + ", ".join(f"{k} {v}" for k, v in sorted(c["kinds"].items()))
        + " |"
        for name, c in counts.items()
    )
    notes = []
    for name, rep in reports.items():
        match = rep.get("golden_match")
        if match:
            parts = ", ".join(f"{v} by {k.replace('_', ' ')}" for k, v in sorted(match.items()))
            notes.append(
                f"- `{name}`: harness tasks matched to the {rep.get('goldens')} published goldens: {parts}."
            )
    match_notes = (
        (
            "How harness tasks were matched to upstream goldens (whitespace-free golden text, "
            "else a unique function name):\n\n" + "\n".join(notes)
        )
        if notes
        else ""
    )
    columns = "\n".join(f"| `{n}` | {t} | {d} |" for n, (t, d) in COLUMNS.items())
    sources = "\n".join(
        f"- `{e.local_path}`: `{e.repo}` @ `{e.revision[:12]}` `{e.path}`"
        + (
            f" (sha256 `{e.sha256[:16]}...`)"
            if e.sha256
            else " (optional; verified against the Hub's LFS sha256 on download, and per record)"
            if e.host == "hf"
            else " (no checksum: the real file's was never computed; verified per record)"
        )
        for e in REGISTRY.values()
    )
    sources += "\n- `rosalind-testcases/`: `gersteinlab/BioCoder` `evaluation/TestRosalind/testcases/` (each file pinned by sha256)"
    return Template(_TEMPLATE.read_text(encoding="utf-8")).substitute(
        front_matter=_front_matter(counts),
        version=__version__,
        source=source,
        configs_table=table,
        match_notes=match_notes + _strength_notes(counts),
        columns_table=columns,
        sources_list=sources,
        citation=_CITATION,
    )


def _write_config(rows: list[dict[str, Any]], folder: Path) -> dict[str, Any]:
    import datasets
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    ds = datasets.Dataset.from_list(rows, features=features())
    path = folder / PARQUET_NAME
    ds.to_parquet(str(path))
    table = pq.read_table(path)  # counts come from the file as written
    kinds: dict[str, int] = {}
    for k in table.column("kind").to_pylist():
        kinds[k] = kinds.get(k, 0) + 1
    return {
        "rows": table.num_rows,
        "executable": sum(bool(x) for x in table.column("executable").to_pylist()),
        "kinds": kinds,
        "num_bytes": int(table.nbytes),
        "download_size": path.stat().st_size,
    }


def export(
    out_dir: str | os.PathLike,
    configs: str | list[str] | None = None,
    source_dir: str | os.PathLike | None = None,
    *,
    verify: bool | None = None,
    overwrite: bool = False,
    demo_dir: str | os.PathLike | None = None,
) -> ExportResult:
    """Write ``<out>/<config>/test-00000-of-00001.parquet`` for each config and ``<out>/README.md``.

    An existing non-empty ``out_dir`` is replaced only with ``overwrite=True``.
    """
    names = parse_configs(configs)
    out, tmp = _staging(out_dir, overwrite)
    result = ExportResult(out)
    try:
        for name in tqdm(names, desc="export configs", unit="config"):
            build = build_config(name, source_dir, verify=verify, demo_dir=demo_dir)
            result.counts[name] = _write_config(build.rows, tmp / name)
            result.reports[name] = build.report
        source = "the embedded demo tasks" if names == ["demo"] else SourceResolver(source_dir).describe()
        (tmp / "README.md").write_text(
            render_card(result.counts, result.reports, f"`{source}`"), encoding="utf-8"
        )
        _publish(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def _staging(out_dir: str | os.PathLike, overwrite: bool) -> tuple[Path, Path]:
    """(output folder, a fresh staging folder beside it); refuses a non-empty output unless ``overwrite``."""
    out = Path(out_dir).resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise DatasetError(
            f"output folder {out} already exists and is not empty; choose another folder "
            f"or pass overwrite=True (--overwrite) to replace it"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    return out, Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.partial-"))


def _publish(tmp: Path, out: Path) -> None:
    """Put the finished staging folder in place of ``out`` (the old one is moved aside, then deleted)."""
    if out.exists():
        old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old-"))
        os.replace(out, old / "x")
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


def export_task_file(
    out_dir: str | os.PathLike, tasks_file: str | os.PathLike, *, overwrite: bool = False
) -> ExportResult:
    """Export the rows of a tasks file (``biocoder build tasks``) like :func:`export`, one folder per config.

    Rows are grouped by their ``config`` column (``custom`` when absent), so a built set is
    loadable with ``load_dataset(folder, config)`` exactly like the upstream configs.
    """
    from biocoder_dataset.task_file import load_task_rows

    rows = load_task_rows(tasks_file)
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["config"], []).append(row)
    out, tmp = _staging(out_dir, overwrite)
    result = ExportResult(out)
    try:
        for name, group in groups.items():
            result.counts[name] = _write_config(group, tmp / name)
            result.reports[name] = {}
        (tmp / "README.md").write_text(
            render_card(result.counts, result.reports, f"`{Path(tasks_file).name}` (a built task set)"),
            encoding="utf-8",
        )
        _publish(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return result


def check_export_folder(folder: str | os.PathLike) -> list[str]:
    """The configs of an export folder; raises :class:`DatasetError` naming what is missing."""
    root = Path(folder)
    card = root / "README.md"
    if not card.is_file():
        raise DatasetError(
            f"{root} is not a BioCoder export: {card} is missing (run `biocoder data export` first)"
        )
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        raise DatasetError(f"{card}: no YAML front matter")
    meta = yaml.safe_load(text[4 : text.index("\n---\n", 4)])
    names = [c.get("config_name") for c in (meta or {}).get("configs", [])]
    if not names:
        raise DatasetError(f"{card}: the YAML front matter lists no configs")
    for name in names:
        if not (root / str(name) / PARQUET_NAME).is_file():
            raise DatasetError(
                f"{root}: config {name!r} is listed in README.md but {name}/{PARQUET_NAME} is missing"
            )
    return names


def push(
    folder: str | os.PathLike,
    repo_id: str,
    *,
    private: bool = False,
    token: str | None = None,
    commit_message: str | None = None,
) -> str:
    """Upload an export folder to a Hub dataset repo (created if needed); returns the repo URL.

    The card and the Parquet files are uploaded together, so the card in the repo is always
    the generated one (never edited on the Hub, where ``push_to_hub`` would fight it).
    """
    names = check_export_folder(folder)
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise DatasetError(f"repo id {repo_id!r} should look like ORG/NAME")
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    url = api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type="dataset",
        commit_message=commit_message or f"BioCoder export ({', '.join(names)}), biocoder-eval {__version__}",
    )
    return str(url)
