"""An asyncio event loop in a background thread, so a synchronous caller can run coroutines on it.

A backend that talks to servers concurrently keeps one such loop for its lifetime: its
synchronous ``judge`` submits a coroutine and waits, which also works where the caller
already runs an event loop (Jupyter), since the coroutine runs on another thread's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """A lazily started event loop on a daemon thread named ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        """Whether the loop runs (it starts with the first :meth:`run`)."""
        return self._loop is not None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop thread and wait for its result (cancelled if the wait is interrupted)."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name=self.name, daemon=True)
            self._thread.start()
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def close(self, cleanup: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Run ``cleanup()`` on the loop (best effort, 5 s), then stop the loop and join the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if loop.is_running():
            if cleanup is not None:
                closing = asyncio.run_coroutine_threadsafe(cleanup(), loop)
                with contextlib.suppress(Exception):  # best effort on shutdown
                    closing.result(timeout=5)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()
        self._loop = self._thread = None


__all__ = ["LoopThread"]
