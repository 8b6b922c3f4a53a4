"""Work on the next item in a background thread while the caller handles the current one.

The transformers backend prepares an image (reading it, any-resolution tiling, tokenising its
prompts: tens of milliseconds of host work) while the accelerator judges the image before it.

Examples
--------
>>> [(item, result) for item, result in one_ahead([1, 2, 3], lambda x: x * 10)]
[(1, 10), (2, 20), (3, 30)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def one_ahead(items: Sequence[T], work: Callable[[T], R]) -> Iterator[tuple[T, R]]:
    """``(item, work(item))`` in order, ``work`` of the next item already running in one background
    thread while the caller handles the current pair. An exception of ``work`` is raised when its
    item's turn comes; closing the iterator early waits for the one item in flight."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cueshift-one-ahead") as pool:
        pending: Future[R] | None = pool.submit(work, items[0]) if items else None
        for k, item in enumerate(items):
            assert pending is not None
            result = pending.result()
            pending = pool.submit(work, items[k + 1]) if k + 1 < len(items) else None
            yield item, result


__all__ = ["one_ahead"]
