"""The rows of a config whose candidate harnesses differ between two checkouts (the prelude aside).

Why: a round's rules change the harnesses of a few rows; re-synthesising those, rather than every
row again, is how a round ships, and a reviewer reruns this to get the same rows. Each checkout's
own code renders every row's candidate harnesses from the golden alone (no plan search, nothing
executed); a row is listed when a candidate's label, plan or harness (less that checkout's
harness prelude, which every row shares, its Java helpers and its stub helpers, which every
harness with stubs shares) or the failure reason differs. Rules that act only through the plan
search (what the golden does on probe cases: python_search, python_repair) change no row here;
a round of those ships by re-running the rows whose last failure they address. The rows are those of the
``--before`` checkout's state: without a harness (default), or with a synthesised one
(``--shipped``).

    git worktree add --detach /tmp/before b6da932
    python scripts/synth_changed_rows.py --before /tmp/before --config python_hidden
    python -m biocoder_metric build harness --config python_hidden --only-missing \\
        --task-ids "$(tail -1 changed.txt)" ...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Run inside a checkout (its own packages first on the path): digests of each row's candidates.
_RENDER = r"""
import hashlib, json, sys
from biocoder_dataset.configs import load_problems
from biocoder_metric.synth import java_harness, python_harness, python_stubs
from biocoder_metric.synth.pipeline import SynthOptions, candidates, sibling_index

config, source_dir, mode, ids_in, out = sys.argv[1:6]
rows = load_problems(config, source_dir=source_dir)
if ids_in != "-":
    wanted = set(json.loads(open(ids_in).read()))
    picked = [r for r in rows if r["task_id"] in wanted]
elif mode == "shipped":
    picked = [r for r in rows if r.get("executable") and r.get("harness_source") == "synthesized"]
else:
    picked = [r for r in rows if not (r.get("executable") and r.get("context"))]
alone = [dict(r, context=None, kind="golden_only", executable=False, harness_source=None) for r in picked]
index = sibling_index([*alone, *rows])
opts = SynthOptions()
digests = {}
for r in alone:
    try:
        got, reason, _ = candidates(r, opts, index.get((r.get("repository") or "", r.get("file_path") or "")), None)
        # what every row's harness holds, and what every harness with stubs holds
        shared = (python_harness.PRELUDE, java_harness.HELPERS, python_stubs.PRELUDE)
        for part in shared:
            got = [(label, plan, ctx.replace(part, "")) for label, plan, ctx in got]
        text = json.dumps([[label, plan, ctx] for label, plan, ctx in got] + [reason])
    except Exception as exc:
        text = "error: " + type(exc).__name__ + ": " + str(exc)
    digests[r["task_id"]] = hashlib.sha256(text.encode()).hexdigest()
open(out, "w").write(json.dumps(digests))
"""


def render(
    root: Path, config: str, source_dir: str, mode: str, ids: list[str] | None, work: Path, label: str
) -> dict[str, str]:
    """Digest per row as the code under ``root`` renders its candidates (``ids``: exactly those rows)."""
    ids_file = "-"
    if ids is not None:
        ids_file = str(work / f"ids-{label}.json")
        Path(ids_file).write_text(json.dumps(ids), encoding="utf-8")
    out = work / f"digests-{label}.json"
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run(
        [sys.executable, "-c", _RENDER, config, source_dir, mode, ids_file, str(out)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"rendering {config} at {root} failed:\n{proc.stderr[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def changed_rows(before: Path, after: Path, config: str, source_dir: str, mode: str = "missing") -> list[str]:
    """Task ids (in the config's order) of the ``before`` state's rows whose candidates differ."""
    with tempfile.TemporaryDirectory() as tmp:
        old = render(before, config, source_dir, mode, None, Path(tmp), "before")
        new = render(after, config, source_dir, mode, list(old), Path(tmp), "after")
    return [t for t in old if new.get(t) != old[t]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a checkout of the earlier code (a git worktree)")
    ap.add_argument("--after", default=str(REPO), help="the later checkout (default: this one)")
    ap.add_argument("--config", required=True, help="python_hidden, python_similar, ...")
    ap.add_argument("--source-dir", default=str(REPO.parent / "shared" / "biocoder-upstream"))
    ap.add_argument("--shipped", action="store_true", help="rows with a synthesised harness instead")
    args = ap.parse_args(argv)
    rows = changed_rows(
        Path(args.before).resolve(),
        Path(args.after).resolve(),
        args.config,
        args.source_dir,
        "shipped" if args.shipped else "missing",
    )
    print(f"{args.config}: {len(rows)} rows whose candidate harnesses differ")
    print(",".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
