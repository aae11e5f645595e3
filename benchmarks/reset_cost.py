"""What the per-case clean-state reset costs, measured inside the real sandboxes.

``python -m benchmarks reset_cost [--sandbox bwrap,docker] [--repeats 300] [--out FILE]``

The reset (``sandbox/runtime/state.py``) runs after every case: walk every writable mount,
restore kept dirs' modes and times, clear SysV IPC objects and keyrings. Its cost is measured
where it runs: a case in each sandbox loads the runtime's own ``state`` module from the
read-only runtime mount and times ``CleanState(contained=True).reset(keep=(its job dir,))``
back to back (the same places, the same mounts, the same kernel), once on an empty sandbox
and once after planting 50 files and 3 IPC objects per reset (what a messy case leaves).
It also times whole trivial cases (``pass``) in a job of 40, host side, for scale.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

_PROGRAM = r"""
import importlib.util, json, os, sys, time, ctypes
root = "@@ROOT@@"
spec = importlib.util.spec_from_file_location("_rt", os.path.join(root, "__init__.py"), submodule_search_locations=[root])
pkg = importlib.util.module_from_spec(spec); sys.modules["_rt"] = pkg; spec.loader.exec_module(pkg)
from _rt.state import CleanState
keep = os.path.dirname(os.path.dirname(os.getcwd()))
state = CleanState(True)
libc = ctypes.CDLL(None)
def timed(plant):
    out = []
    for _ in range(@@REPEATS@@):
        if plant:
            for i in range(50):
                with open("/tmp/f%d" % i, "w") as fh:
                    fh.write("x")
            libc.shmget(0, 4096, 0o1000 | 0o600); libc.semget(0, 1, 0o1000 | 0o600); libc.msgget(0, 0o1000 | 0o600)
        t = time.perf_counter_ns()
        state.reset((keep,))
        out.append(time.perf_counter_ns() - t)
    return out
print(json.dumps({"places": state.places, "clean_ns": timed(False), "messy_ns": timed(True)}))
"""


#: The raw output ``scripts/figures.py`` prints the ``reset_cost`` block from.
RESULTS_FILE = "reset_cost.json"


def render_markdown(data: dict) -> str:
    rows = [
        "| sandbox | places reset (from mountinfo) | reset, clean case (median / p90) | reset after a messy case (median) | trivial case, whole (median) |",
        "|---|---|---:|---:|---:|",
    ]
    for r in data["sandboxes"]:
        rows.append(
            f"| {r['sandbox']} | {', '.join(f'`{p}`' for p in r['places'])} | {r['reset_clean']['median_us']} / "
            f"{r['reset_clean']['p90_us']} us | {r['reset_after_messy_case']['median_us']} us | "
            f"{r['trivial_case_wall_ms_median']} ms |"
        )
    return "\n".join(
        rows
        + [
            "",
            f"{data['repeats']} resets per row, timed inside the sandbox; a messy case left "
            "50 files and 3 SysV objects. Raw output `docs/bench-results/reset_cost.json` "
            "(`python -m benchmarks reset_cost`).",
        ]
    )


def _stats(ns: list[int]) -> dict[str, float]:
    us = sorted(v / 1000 for v in ns)
    return {
        "median_us": round(statistics.median(us), 1),
        "p90_us": round(us[int(0.9 * (len(us) - 1))], 1),
        "max_us": round(us[-1], 1),
        "n": len(us),
    }


def measure(sandbox: str, repeats: int) -> dict:
    from biocoder_metric.sandbox import make_sandbox
    from biocoder_metric.sandbox.bubblewrap import RUNTIME_MOUNT as BWRAP_RUNTIME
    from biocoder_metric.sandbox.docker import RUNTIME_MOUNT as DOCKER_RUNTIME
    from biocoder_metric.types import Job

    root = DOCKER_RUNTIME if sandbox == "docker" else BWRAP_RUNTIME
    program = _PROGRAM.replace("@@ROOT@@", root).replace("@@REPEATS@@", str(repeats))
    with make_sandbox(sandbox) as box:
        (got,) = box.run(Job(language="python", programs=(program,), timeout_s=120))
        if got.status != "ok" or got.returncode != 0:
            raise SystemExit(f"{sandbox}: the measuring case failed: {got.status} {got.stderr[-2000:]}")
        data = json.loads(got.stdout)
        box.run(Job(language="python", programs=("pass",) * 5))  # warm the zygote
        walls = []
        for _ in range(5):
            start = time.perf_counter()
            box.run(Job(language="python", programs=("pass",) * 40))
            walls.append((time.perf_counter() - start) / 40 * 1000)
    return {
        "sandbox": sandbox,
        "places": data["places"],
        "reset_clean": _stats(data["clean_ns"]),
        "reset_after_messy_case": _stats(data["messy_ns"]),
        "trivial_case_wall_ms_median": round(statistics.median(walls), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks reset_cost", description=__doc__)
    parser.add_argument("--sandbox", default="bwrap,docker")
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--out", default=None, help="write the raw figures here as JSON")
    args = parser.parse_args(argv)
    report = {"benchmark": "reset_cost", "repeats": args.repeats, "sandboxes": []}
    for name in [s for s in args.sandbox.split(",") if s]:
        row = measure(name, args.repeats)
        report["sandboxes"].append(row)
        print(
            f"{name}: reset {row['reset_clean']['median_us']} us median (clean), "
            f"{row['reset_after_messy_case']['median_us']} us after a messy case; "
            f"a trivial case {row['trivial_case_wall_ms_median']} ms wall; places {row['places']}"
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
