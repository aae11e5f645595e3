"""``--shard I/N`` + ``biocoder merge`` give exactly the files of one unsharded run (real bwrap sandbox)."""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from biocoder_metric.cli import main
from biocoder_metric.execution.shard import Shard, assign_tasks, parse_shard, select

REPO = Path(__file__).resolve().parent.parent
DEMO_SAMPLES = REPO / "examples" / "demo_samples.jsonl"


def _bwrap_or_skip() -> None:
    from biocoder_metric.sandbox import available_sandboxes

    if "bwrap" not in available_sandboxes():
        pytest.skip("bubblewrap sandbox not usable here (apt-get install bubblewrap; user namespaces)")


# ---------------------------------------------------------------------------- shard selection (pure)


def test_parse_shard_accepts_i_of_n_and_names_bad_input():
    assert parse_shard("1/4") == Shard(1, 4)
    assert str(parse_shard(" 0 / 1 ")) == "0/1"
    for bad in ("4/4", "1", "-1/2", "a/b", "0/0", ""):
        with pytest.raises(ValueError, match="--shard"):
            parse_shard(bad)


def test_assignment_is_a_balanced_partition_of_whole_tasks():
    counts = {f"t{i:02d}": (i % 7) + 1 for i in range(40)}
    samples = [{"task_id": t, "n": j} for t, n in counts.items() for j in range(n)]
    for n in (1, 2, 3, 8):
        parts = [select(samples, Shard(i, n)) for i in range(n)]
        # disjoint, covering, file order kept, whole tasks
        flat = [(s["task_id"], s["n"]) for p in parts for s in p]
        assert sorted(flat) == sorted((s["task_id"], s["n"]) for s in samples)
        assert len(flat) == len(set(flat))
        for p in parts:
            assert p == [s for s in samples if s in p]
        owners = [{s["task_id"] for s in p} for p in parts]
        assert sum(len(o) for o in owners) == len(counts)
        sizes = [len(p) for p in parts]
        assert max(sizes) - min(sizes) <= max(counts.values())
    # deterministic: independent of the order tasks are seen in
    assert assign_tasks(dict(reversed(list(counts.items()))), 3) == assign_tasks(counts, 3)


# ---------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A subset of the demo samples (Python harness + Rosalind tasks) and the unsharded run of it."""
    _bwrap_or_skip()
    root = tmp_path_factory.mktemp("shard")
    lines = [
        ln
        for ln in DEMO_SAMPLES.read_text(encoding="utf-8").splitlines()
        if ln.strip() and not json.loads(ln)["task_id"].startswith("demo_java")
    ]
    samples = root / "samples.jsonl"
    samples.write_text("\n".join(lines) + "\n", encoding="utf-8")
    task_ids = ",".join(sorted({json.loads(ln)["task_id"] for ln in lines}))
    base = [
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--task-ids",
        task_ids,
        "--sandbox",
        "bwrap",
        "--fuzz-cases",
        "2",
        "--workers",
        "2",
        "--golden-cache",
        str(root / "golden"),
        "--no-progress",
    ]
    assert main(["evaluate", *base, "--out", str(root / "full")]) == 0
    return root, base


def _evaluate(base, out, *extra) -> int:
    return main(["evaluate", *base, "--out", str(out), *extra])


@pytest.mark.bwrap
def test_two_shards_merged_equal_the_unsharded_run(work, capsys):
    root, base = work
    for i in (0, 1):
        assert _evaluate(base, root / f"s{i}", "--shard", f"{i}/2") == 0
    shard_tasks = [set(json.loads((root / f"s{i}" / "shard.json").read_text())["tasks"]) for i in (0, 1)]
    assert shard_tasks[0] and shard_tasks[1] and not shard_tasks[0] & shard_tasks[1]
    capsys.readouterr()
    assert main(["merge", "--out", str(root / "merged"), str(root / "s0"), str(root / "s1")]) == 0
    full, merged = root / "full", root / "merged"
    # same per-sample statuses, same pass@k: the files are byte-identical
    assert (merged / "results.jsonl").read_bytes() == (full / "results.jsonl").read_bytes()
    assert (merged / "summary.json").read_bytes() == (full / "summary.json").read_bytes()
    assert json.loads((merged / "run.json").read_text()) == json.loads((full / "run.json").read_text())
    statuses = Counter(json.loads(ln)["status"] for ln in (merged / "results.jsonl").read_text().splitlines())
    assert statuses["passed"] and len(statuses) > 1  # the demo samples mix passing and failing candidates
    # the merged dir is an unsharded run: rerunning the unsharded command there resumes everything
    assert _evaluate(base, merged) == 0
    assert json.loads((merged / "timing.json").read_text())["samples_run"] == 0
    assert (merged / "results.jsonl").read_bytes() == (full / "results.jsonl").read_bytes()


@pytest.mark.bwrap
def test_merge_reports_missing_and_duplicated_samples(work, capsys):
    root, base = work
    assert _evaluate(base, root / "m0", "--shard", "0/2") == 0
    capsys.readouterr()
    assert main(["merge", "--out", str(root / "mm"), str(root / "m0")]) == 1
    err = capsys.readouterr().err
    assert "missing shard(s): 1/2" in err and "missing samples:" in err and "nothing written" in err
    assert not (root / "mm" / "results.jsonl").exists()
    assert main(["merge", "--out", str(root / "mm"), str(root / "m0"), str(root / "m0")]) == 1
    err = capsys.readouterr().err
    assert "duplicated samples:" in err and "given more than once: 0/2" in err
    # --allow-missing writes what is there, and says what is missing
    assert main(["merge", "--allow-missing", "--out", str(root / "mm"), str(root / "m0")]) == 0
    n0 = len(json.loads((root / "m0" / "shard.json").read_text())["tasks"])
    assert json.loads((root / "mm" / "summary.json").read_text())["tasks"]["total"] == n0


@pytest.mark.bwrap
def test_merge_refuses_shards_of_different_runs(work, capsys):
    root, base = work
    assert _evaluate(base, root / "d0", "--shard", "0/2") == 0
    assert _evaluate(base, root / "d1", "--shard", "1/2", "--seed", "7") == 0
    capsys.readouterr()
    assert main(["merge", "--out", str(root / "dm"), str(root / "d0"), str(root / "d1")]) == 2
    err = capsys.readouterr().err
    assert "not a shard of the same run" in err and "seed" in err
    # a directory that is not a shard at all
    assert main(["merge", "--out", str(root / "dm"), str(root / "full")]) == 2
    assert "shard.json" in capsys.readouterr().err


@pytest.mark.bwrap
def test_shard_output_is_refused_as_resume_of_another_shard(work, capsys):
    root, base = work
    assert _evaluate(base, root / "r", "--shard", "0/2") == 0
    capsys.readouterr()
    assert _evaluate(base, root / "r", "--shard", "1/2") == 2
    assert "different run" in capsys.readouterr().err


@pytest.mark.bwrap
def test_merge_applies_the_missing_tasks_rule(work, capsys):
    """Shards are partial by design and never fail the rule; the merge does, like an unsharded run."""
    root, base = work
    samples = Path(base[base.index("--samples") + 1])
    kept = [ln for ln in samples.read_text().splitlines() if json.loads(ln)["task_id"] != "demo_py_orf"]
    short = root / "short.jsonl"
    short.write_text("\n".join(kept) + "\n", encoding="utf-8")
    sbase = list(base)
    sbase[sbase.index("--samples") + 1] = str(short)
    assert _evaluate(sbase, root / "u-missing") == 1  # unsharded: exit 1, names the task
    assert "demo_py_orf" in capsys.readouterr().err
    for i in (0, 1):
        assert _evaluate(sbase, root / f"ms{i}", "--shard", f"{i}/2") == 0
    capsys.readouterr()
    assert main(["merge", "--out", str(root / "mmiss"), str(root / "ms0"), str(root / "ms1")]) == 1
    err = capsys.readouterr().err
    assert "without samples: 1: demo_py_orf" in err and "nothing written" in err
    # with --allow-missing the merge equals the unsharded --allow-missing run (task counted as 0)
    assert _evaluate(sbase, root / "u-allow", "--allow-missing") == 0
    assert (
        main(["merge", "--allow-missing", "--out", str(root / "mmiss"), str(root / "ms0"), str(root / "ms1")])
        == 0
    )
    assert (root / "mmiss" / "summary.json").read_bytes() == (root / "u-allow" / "summary.json").read_bytes()
    assert json.loads((root / "mmiss" / "summary.json").read_text())["missing"]["tasks"] == ["demo_py_orf"]


SBATCH = REPO / "scripts" / "slurm" / "biocoder_array.sbatch"


def _flags_without(base: list[str], *names: str) -> list[str]:
    """``base`` minus the named flags and their values (the sbatch script sets those itself)."""
    out, skip = [], False
    for a in base:
        if skip:
            skip = False
        elif a in names:
            skip = True
        else:
            out.append(a)
    return out


def _array_element(index: int, count: int, samples: str, out_root: Path, flags: list[str], env_extra=None):
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "SLURM_ARRAY_TASK_ID": str(index),
        "SLURM_ARRAY_TASK_COUNT": str(count),
        "SLURM_ARRAY_TASK_MIN": "0",
        "SLURM_ARRAY_TASK_MAX": str(count - 1),
        "SLURM_ARRAY_TASK_STEP": "1",
        "BIOCODER": f"{sys.executable} -m biocoder_metric",
        "BIOCODER_CONFIG": "demo",
        "BIOCODER_WORKERS": "1",
        **(env_extra or {}),
    }
    return subprocess.run(
        ["bash", str(SBATCH), samples, str(out_root), *flags],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.bwrap
@pytest.mark.slow
def test_the_slurm_array_script_shards_and_merge_equals_unsharded(work, capsys):
    """The shipped sbatch script, run as Slurm would run its two elements (bash + SLURM_ARRAY_* variables)."""
    root, base = work
    samples = base[base.index("--samples") + 1]
    flags = _flags_without(base, "--config", "--samples", "--sandbox", "--workers")
    for i in (0, 1):
        proc = _array_element(i, 2, samples, root / "array", flags)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert f"biocoder shard {i}/2" in proc.stderr
    capsys.readouterr()
    assert (
        main(
            [
                "merge",
                "--out",
                str(root / "array" / "merged"),
                str(root / "array" / "shard-0"),
                str(root / "array" / "shard-1"),
            ]
        )
        == 0
    )
    for name in ("results.jsonl", "summary.json"):
        assert (root / "array" / "merged" / name).read_bytes() == (root / "full" / name).read_bytes()


@pytest.mark.bwrap
def test_bwrap_over_an_unpacked_rootfs_without_docker(work, tmp_path):
    """BIOCODER_BWRAP_ROOTFS=DIR (the Slurm recipe's rootfs, e.g. from `apptainer build --sandbox`)."""
    from biocoder_metric.sandbox import _local_reference_image

    if _local_reference_image() is None:
        pytest.skip(
            "the biocoder-eval image is not built here (scripts/setup_docker.sh): no rootfs to unpack"
        )
    from biocoder_metric.sandbox.image import export_rootfs

    root, base = work
    rootfs = export_rootfs(_local_reference_image())
    samples = base[base.index("--samples") + 1]
    flags = _flags_without(base, "--config", "--samples", "--sandbox", "--workers")
    proc = _array_element(0, 1, samples, tmp_path / "rf", flags, {"BIOCODER_BWRAP_ROOTFS": str(rootfs)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the image's files, so the image's verdicts (the environment id names the rootfs's software, not the image)
    assert (tmp_path / "rf" / "shard-0" / "results.jsonl").read_bytes() == (
        root / "full" / "results.jsonl"
    ).read_bytes()
    bad = _array_element(0, 1, samples, tmp_path / "bad", flags, {"BIOCODER_BWRAP_ROOTFS": str(tmp_path)})
    assert bad.returncode == 2 and "does not look like a root filesystem" in bad.stderr


@pytest.mark.bwrap
@pytest.mark.slow
def test_check_shards_merge_into_the_unsharded_check_json(tmp_path, capsys):
    _bwrap_or_skip()
    flags = [
        "--config",
        "demo",
        "--sandbox",
        "bwrap",
        "--fuzz-cases",
        "1",
        "--golden-cache",
        str(tmp_path / "g"),
        "--no-progress",
        "--json",
    ]
    assert main(["check", *flags, "--out", str(tmp_path / "full")]) == 0
    for i in (0, 1):
        assert main(["check", *flags, "--shard", f"{i}/2", "--out", str(tmp_path / f"c{i}")]) == 0
    capsys.readouterr()
    assert main(["merge", "--out", str(tmp_path / "m"), str(tmp_path / "c0")]) == 1  # shard 1 missing
    assert "not checked by any shard" in capsys.readouterr().err
    assert main(["merge", "--out", str(tmp_path / "m"), str(tmp_path / "c0"), str(tmp_path / "c1")]) == 0
    merged = json.loads((tmp_path / "m" / "check.json").read_text())
    assert merged == json.loads((tmp_path / "full" / "check.json").read_text())
    assert len(merged["tasks"]) == 21


def _shard_of(tmp_path: Path, out: str, **slurm: int | str) -> subprocess.CompletedProcess:
    """The sbatch script's command line for one element (BIOCODER=echo: nothing is evaluated)."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "BIOCODER"))}
    env.update({k: str(v) for k, v in slurm.items()}, BIOCODER="echo")
    return subprocess.run(
        ["bash", str(SBATCH), "samples.jsonl", str(tmp_path / out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_slurm_script_keeps_the_partition_for_stepped_arrays_and_single_reruns(tmp_path: Path):
    full = {
        "SLURM_ARRAY_TASK_MIN": 0,
        "SLURM_ARRAY_TASK_MAX": 6,
        "SLURM_ARRAY_TASK_STEP": 2,
        "SLURM_ARRAY_TASK_COUNT": 4,
    }
    shards = [_shard_of(tmp_path, "a", SLURM_ARRAY_TASK_ID=i, **full) for i in (0, 2, 4, 6)]
    assert [re.search(r"--shard (\S+)", p.stdout).group(1) for p in shards] == ["0/4", "1/4", "2/4", "3/4"]
    # re-running element 4 alone (`sbatch --array=4`): Slurm says MIN=MAX=4, COUNT=1; the record keeps 2/4
    again = _shard_of(
        tmp_path,
        "a",
        SLURM_ARRAY_TASK_ID=4,
        SLURM_ARRAY_TASK_MIN=4,
        SLURM_ARRAY_TASK_MAX=4,
        SLURM_ARRAY_TASK_COUNT=1,
    )
    assert "--shard 2/4" in again.stdout and "shard-2" in again.stdout
    # without a record, a lone element that is not 0 is refused instead of evaluating everything
    lone = _shard_of(
        tmp_path,
        "b",
        SLURM_ARRAY_TASK_ID=1,
        SLURM_ARRAY_TASK_MIN=1,
        SLURM_ARRAY_TASK_MAX=1,
        SLURM_ARRAY_TASK_COUNT=1,
    )
    assert lone.returncode == 2 and "BIOCODER_SHARD_COUNT" in lone.stderr
    given = _shard_of(
        tmp_path,
        "b",
        SLURM_ARRAY_TASK_ID=1,
        SLURM_ARRAY_TASK_MIN=1,
        SLURM_ARRAY_TASK_MAX=1,
        SLURM_ARRAY_TASK_COUNT=1,
        BIOCODER_SHARD_COUNT=8,
    )
    assert "--shard 1/8" in given.stdout
    off = _shard_of(tmp_path, "a", SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=3, SLURM_ARRAY_TASK_MAX=3)
    assert off.returncode == 2 and "grid" in off.stderr
