"""The one record shape every BioCoder config is normalised into.

This module is the only place where column names are defined. The dataset
builder, the Parquet exporter, the dataset card and the execution engine all
read these names from here, so a rename cannot make two stages disagree.

A row is a plain ``dict`` (what ``datasets`` yields); :data:`COLUMNS` lists the
keys in order and :func:`features` gives the explicit ``datasets.Features``
(declared, never inferred, because many columns are null for whole configs).
"""

from __future__ import annotations

from typing import Any, Optional, TypedDict

#: Every config the project serves, in the order the card lists them.
CONFIGS: tuple[str, ...] = (
    "python_public",
    "python_hidden",
    "python_similar",
    "java_public",
    "java_hidden",
    "java_similar",
    "rosalind",
    "demo",
)

#: The only split: BioCoder is a test-only benchmark.
SPLIT = "test"

#: Values of the ``kind`` column.
KIND_HARNESS = "harness"  # a program with <<insert solution here>> and fuzz placeholders
KIND_ROSALIND = "rosalind"  # candidate defines solve(input_text) -> str, compared to expected_output
KIND_GOLDEN_ONLY = "golden_only"  # upstream ships the golden code but no executable harness

#: Column name -> (arrow/datasets dtype, description). Order matters: it is the Parquet column order.
COLUMNS: dict[str, tuple[str, str]] = {
    "task_id": (
        "string",
        "Stable id, unique within a config (e.g. 'py_039995e59529', 'rosalind_2sum', 'demo_py_gc_content').",
    ),
    "config": ("string", "The config this row belongs to."),
    "language": ("string", "'python' or 'java' (Rosalind tasks are Python)."),
    "kind": ("string", "'harness', 'rosalind' or 'golden_only'."),
    "executable": ("bool", "True when the engine can judge a candidate for this task."),
    "not_executable_reason": ("string", "Why `executable` is False (null otherwise)."),
    "function_name": ("string", "Name of the function/method to write (Rosalind: 'solve')."),
    "signature": ("string", "Its signature as written upstream."),
    "comment": ("string", "The docstring / Javadoc / summary describing the function."),
    "prompt_summary_only": ("string", "Prompt with the signature and summary only."),
    "prompt_full_context": ("string", "Prompt with the surrounding file context, signature and summary."),
    "context": ("string", "Harness program with '<<insert solution here>>' and fuzz placeholders, or null."),
    "golden_code": ("string", "The reference solution."),
    "test_input": ("string", "Rosalind: the dataset given to solve()."),
    "expected_output": ("string", "Rosalind: the expected answer (compared after strip())."),
    "repository": ("string", "Upstream source repository of the function (owner/name)."),
    "file_path": ("string", "Path of the function's file in that repository."),
    "line_start": ("int32", "First line of the function in that file."),
    "line_end": ("int32", "Last line of the function in that file."),
    "source": ("string", "Which upstream file(s) this row was built from (registry names)."),
    "metadata": ("string", "Remaining upstream fields, as a JSON object string."),
    "harness_source": (
        "string",
        "Who wrote the harness: 'upstream' (hand-written) or 'synthesized' (biocoder build harness, validated); null without one.",
    ),
    "harness_strength": (
        "string",
        "Harness audit (`biocoder audit`) as a JSON object string: weak_harness, "
        "constant_output, null_candidates_passed, mutation_score, audit_version; null if not audited.",
    ),
}

#: The Python type of each column dtype (a value may also be null).
PYTHON_TYPES: dict[str, type] = {"string": str, "bool": bool, "int32": int}

#: The type of one row, generated from :data:`COLUMNS` (same keys, same order; every value may
#: be null), so the two cannot drift: ``row: TaskRow`` in the stages that read rows.
TaskRow = TypedDict(  # noqa: UP013 - the functional form is what lets the keys come from COLUMNS
    "TaskRow",
    {name: Optional[PYTHON_TYPES[dtype]] for name, (dtype, _) in COLUMNS.items()},  # noqa: UP045
)


def empty_row() -> TaskRow:
    """A row with every column present and null, so builders only set what they know."""
    row: TaskRow = {name: None for name in COLUMNS}  # type: ignore[assignment]
    row["executable"] = False
    return row


def features():
    """The explicit ``datasets.Features`` for :data:`COLUMNS` (imported lazily: the engine must not need ``datasets``)."""
    import datasets

    return datasets.Features({name: datasets.Value(dtype) for name, (dtype, _) in COLUMNS.items()})


def validate_row(row: dict[str, Any], where: str) -> None:
    """Raise ``ValueError`` naming ``where`` and the field when a row does not fit the schema."""
    missing = [c for c in COLUMNS if c not in row]
    extra = [c for c in row if c not in COLUMNS]
    if missing or extra:
        raise ValueError(f"{where}: row has missing columns {missing} / unknown columns {extra}")
    for name, (dtype, _) in COLUMNS.items():
        value = row[name]
        if value is None:
            if name in ("task_id", "config", "language", "kind", "executable"):
                raise ValueError(f"{where}: field {name!r} must not be null")
            continue
        ok = {
            "string": isinstance(value, str),
            "bool": isinstance(value, bool),
            "int32": isinstance(value, int) and not isinstance(value, bool),
        }[dtype]
        if not ok:
            raise ValueError(
                f"{where}: field {name!r} should be {dtype}, got {type(value).__name__}: {value!r:.80}"
            )
