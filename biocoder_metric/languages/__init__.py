"""The runner table: one :class:`~biocoder_metric.languages.base.LanguageRunner` per language.

This is the one place that lists the languages. Every stage asks :func:`runner` for the
task's language instead of comparing names; adding a language is one module here plus its
case runner inside the sandbox (``sandbox/runtime/``), see ``languages/base.py``.
"""

from __future__ import annotations

from biocoder_metric.languages.base import HOOKS, LanguageRunner, UnknownLanguageError
from biocoder_metric.languages.java import JavaRunner
from biocoder_metric.languages.python import PythonRunner

__all__ = ["HOOKS", "LanguageRunner", "UnknownLanguageError", "names", "register", "runner", "unregister"]

_TABLE: dict[str, LanguageRunner] = {}


def register(lang: LanguageRunner) -> LanguageRunner:
    """Add (or replace) the runner of ``lang.name``; returns it."""
    _TABLE[lang.name] = lang
    return lang


def unregister(name: str) -> None:
    """Drop the runner of ``name`` (tests that registered a toy language)."""
    _TABLE.pop(name, None)


def runner(language: str) -> LanguageRunner:
    """The runner of ``language``; an error naming the known ones otherwise."""
    try:
        return _TABLE[language]
    except (KeyError, TypeError):
        raise UnknownLanguageError(
            f"unknown language {language!r} (expected {' or '.join(names())})"
        ) from None


def names() -> tuple[str, ...]:
    """The registered languages, in registration order."""
    return tuple(_TABLE)


register(PythonRunner())
register(JavaRunner())
