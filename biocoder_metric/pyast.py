"""``ast.parse`` that is safe to call from several threads at once.

Why: CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, so two
threads building ASTs at the same time can corrupt it, and ``ast.parse`` then raises
``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905). The engine
post-processes and inserts samples on several threads (one per sandbox), and a benchmark run
on this machine died of it once. Every AST the host builds goes through :func:`parse`, which
holds one process-wide lock; parsing is a small share of a sample's time, so the lock costs
nothing measurable. ``tests/test_architecture.py`` checks that no host module calls
``ast.parse`` directly. (The in-sandbox runtime is single-threaded and keeps its own calls.)
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.RLock()


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec", **kwargs: Any) -> Any:
    """:func:`ast.parse` under the process-wide AST lock."""
    with _LOCK:
        return ast.parse(source, filename, mode, **kwargs)


def literal_eval(node_or_string: Any) -> Any:
    """:func:`ast.literal_eval` (which parses) under the same lock."""
    with _LOCK:
        return ast.literal_eval(node_or_string)


def unwrap_methods(node: Any, methods: frozenset[str]) -> Any:
    """``node`` without the calls of ``methods`` chained on it: ``line.strip().lower()`` ->
    ``line`` for ``{"strip", "lower"}`` (what a string still is beneath case and space calls)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods:
        node = node.func.value
    return node


def callee_name(func: Any) -> str:
    """The name a call's function expression ends in: ``open`` for ``open(p)``, ``stat`` for
    ``os.stat(p)``, ``""`` for anything else (``f()(x)``, ``xs[0](x)``). Why: the synthesis rules
    key on what a call is called, whatever module it is reached through."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""
