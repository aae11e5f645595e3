"""One parallel map with a progress bar, shared by every stage that fans work out to threads.

Why threads: the work is waiting on sandboxes (subprocesses, containers, Ray actors), not
Python computation, so threads are enough and keep results in one process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def progress_bar(total: int, desc: str, enabled: bool = True, unit: str = "job") -> Any:
    """A tqdm bar (hidden when ``enabled`` is false or there is nothing to do)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled or total == 0, dynamic_ncols=True)


def parallel_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    workers: int,
    desc: str,
    progress: bool = True,
    unit: str = "job",
) -> Iterator[tuple[T, R]]:
    """Yield ``(item, fn(item))`` as each finishes, on ``workers`` threads, with a progress bar.

    Results arrive in completion order so callers can write them incrementally (a crash
    loses only what was running). The first exception propagates after running work stops.
    """
    todo = list(items)
    with (
        ThreadPoolExecutor(max_workers=max(1, workers)) as ex,
        progress_bar(len(todo), desc, progress, unit) as bar,
    ):
        futures = {ex.submit(fn, item): item for item in todo}
        for fut in as_completed(futures):
            result = fut.result()
            bar.update(1)
            yield futures[fut], result
