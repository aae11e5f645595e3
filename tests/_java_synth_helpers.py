"""Shared pieces of the Java harness-synthesis tests: the harness synthesised for a made-up
golden (from the golden alone, as for an upstream row) and that harness run on the host."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from biocoder_metric.execution import harness
from biocoder_metric.synth import javac_server
from biocoder_metric.synth.pipeline import SynthOptions, candidates


def java_harness(golden: str, name: str, variant: int = 0) -> str:
    """The harness of plan ``variant`` (the first when there are fewer)."""
    row = {"task_id": "java_t", "language": "java", "function_name": name, "golden_code": golden,
           "file_path": None, "repository": None, "metadata": "{}", "signature": None}  # fmt: skip
    cands, reason, _ = candidates(row, SynthOptions(), [])
    assert reason is None and cands, reason
    return cands[min(variant, len(cands) - 1)][2]


def run_java(
    tmp_path: Path, golden: str, name: str, ctx: str, seed: int = 3, classpath: list[str] | None = None
) -> str:
    """The golden in its harness, compiled and run on the host (our own code); its stdout."""
    row = {"task_id": "t", "language": "java", "function_name": name, "context": ctx, "signature": None}
    prog = harness.build_harness_programs(row, golden, fuzz_cases=1, seed=seed)[0]
    out = Path(tempfile.mkdtemp(prefix=f"s{seed}_", dir=tmp_path))  # one test may run several
    (out / "Main.java").write_text(prog)
    cp = ":".join(classpath or [])
    # a warm javac (the one harness construction uses; tests/test_javac_server.py checks it answers
    # as a javac process does)
    rc, errors = javac_server.javac([*(["-cp", cp] if cp else []), "-d", str(out), str(out / "Main.java")])
    assert rc == 0, errors[-2000:]
    run_cp = ":".join([str(out), *(classpath or [])])
    # run in its own folder: a harness writes its input files (``_bc_dir_0``) where it runs
    ran = subprocess.run(
        ["java", "-cp", run_cp, "Main"], capture_output=True, text=True, timeout=120, cwd=out
    )
    assert ran.returncode == 0, ran.stderr[-1000:]
    return ran.stdout
