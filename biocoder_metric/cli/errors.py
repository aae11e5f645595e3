"""The CLI's one error type: input a user can fix, printed without a traceback."""

from __future__ import annotations


class UsageError(Exception):
    """Unusable input: printed without a traceback, exit status 2."""
