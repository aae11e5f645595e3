"""Write examples/demo_samples.jsonl: three known samples per demo task, for the quick start.

Per task: sample 0 is the golden solution wrapped in a chat-style answer (prose and a fenced
block, so post-processing is exercised), sample 1 is the shipped mutant (a realistic bug), and
sample 2 is the golden as plain code. A correct evaluator therefore reports pass@1 = 2/3 on every
task; the quick start prints that, which makes a broken install obvious.

Usage: python scripts/make_demo_samples.py [--out examples/demo_samples.jsonl]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from biocoder_dataset.demo_tasks import DEMO_DIR


def demo_samples(demo_dir: Path = DEMO_DIR) -> list[dict]:
    samples = []
    for task_dir in sorted(p for p in demo_dir.iterdir() if (p / "task.json").is_file()):
        meta = json.loads((task_dir / "task.json").read_text(encoding="utf-8"))
        ext = "py" if meta["language"] == "python" else "java"
        golden = (task_dir / f"golden.{ext}").read_text(encoding="utf-8")
        mutant = (task_dir / f"mutant.{ext}").read_text(encoding="utf-8")
        chat = (
            f"Here is an implementation of `{meta['function_name']}`:\n\n"
            f"```{meta['language']}\n{golden.rstrip()}\n```\n\nIt runs in linear time."
        )
        for index, completion in enumerate((chat, mutant, golden)):
            samples.append({"task_id": meta["task_id"], "sample_index": index, "completion": completion})
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="examples/demo_samples.jsonl")
    args = parser.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for sample in demo_samples():
            fh.write(json.dumps(sample, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
