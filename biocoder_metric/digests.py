"""Content identities: what a results folder was computed from, so a resume never mixes inputs.

A resumed run, a shard merge and the golden cache all compare these digests instead of
trusting file names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

#: The row fields that matter for judging (a change in any other field keeps old results valid).
JUDGED_FIELDS = (
    "task_id",
    "language",
    "kind",
    "executable",
    "context",
    "golden_code",
    "test_input",
    "expected_output",
    "function_name",
    "signature",
)


def sha256(text: str) -> str:
    """Hex sha256 of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def samples_digest(samples: Sequence[dict[str, Any]]) -> str:
    """Identity of a normalised sample list: (task, index, completion hash) of every sample."""
    return sha256(json.dumps([[s["task_id"], s["sample_index"], sha256(s["completion"])] for s in samples]))


def problems_digest(rows: Iterable[dict[str, Any]]) -> str:
    """Identity of the problem rows, over the fields that matter for judging."""
    return sha256(
        json.dumps([[r.get(k) for k in JUDGED_FIELDS] for r in sorted(rows, key=lambda r: r["task_id"])])
    )
