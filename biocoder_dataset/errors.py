"""Error types of the dataset layer.

All of them subclass ``ValueError`` so callers that only know "bad input" can catch one
thing, while the CLI (``biocoder_metric.cli.data``) turns them into ``UsageError`` (exit status 2, no
traceback). Every message names the file, config or record it is about and what was
expected, because the usual reader is someone staring at a half-downloaded cache.
"""

from __future__ import annotations


class DatasetError(ValueError):
    """Base class: the dataset cannot be built from what was given."""


class UnknownConfigError(DatasetError):
    """A config name that is not one of ``schema.CONFIGS``."""


class SourceFileError(DatasetError):
    """An upstream file is missing, unreadable or cannot be downloaded."""


class ChecksumError(SourceFileError):
    """An upstream file's sha256 differs from the pinned one (truncated, corrupted or changed)."""


class RecordError(DatasetError):
    """An upstream record (or a whole file) does not have the expected shape."""
