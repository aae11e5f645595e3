"""Shared fixtures of the harness-strength tests (test_strength.py, test_strength_entry_points.py):
four harnesses written here, one per strength verdict, and the rows that carry them."""

from __future__ import annotations

import pytest

from reliability_support import sandbox_reason

GOLDEN = 'def f(x):\n    print("computing", x)\n    return x * 2\n'
WRONG = 'def f(x):\n    print("computing", x)\n    return x * 3\n'
#: The echo fixture's golden has no effect of its own: only the echoed input varies.
PURE = "def f(x):\n    return x * 2\n"
HARNESSES = {
    "never_calls": "<<insert solution here>>\nx = <|int;range=1,99|>\nprint('checked', x)\n",
    "result_unprinted": "<<insert solution here>>\nx = <|int;range=1,99|>\nf(x)\n",
    "echoes_inputs": "<<insert solution here>>\nx = <|int;range=1,99|>\nr = f(x)\nprint(x)\n",
    "sound": "<<insert solution here>>\nx = <|int;range=1,99|>\nprint(f(x))\n",
}
EXPECTED = {
    "never_calls": "weak_harness",
    "result_unprinted": "return_unobserved",
    "echoes_inputs": "weak_harness",
    "sound": "ok",
}


def make_rows() -> list[dict]:
    from biocoder_dataset.schema import empty_row

    rows = []
    for name, context in HARNESSES.items():
        row = empty_row()
        row.update(
            task_id=f"strength_{name}",
            config="custom",
            language="python",
            kind="harness",
            executable=True,
            function_name="f",
            signature="def f(x):",
            context=context,
            golden_code=PURE if name == "echoes_inputs" else GOLDEN,
        )
        rows.append(row)
    return rows


def skip_without_bwrap() -> None:
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
