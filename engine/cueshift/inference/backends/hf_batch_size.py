r"""Rows per call of the transformers backend's batched paths: ``batch_size = "auto"`` (D56).

On a CUDA device, ``"auto"`` is a function of what does not change during a run, so the same card,
model, dtype and prompt shape always cut an image's prompts into the same calls (scores can
depend on which rows share a call, D50):

.. math::

    \text{cap} = \min\Bigl(\text{most},\ \max\Bigl(1,\ \Bigl\lfloor
    \frac{0.6\,(s \cdot \text{total} - \text{weights})}{\text{row bytes}} \Bigr\rfloor\Bigr)\Bigr)

with ``total`` the card's memory (``torch.cuda.get_device_properties``), ``weights`` the bytes
of the model's parameters and buffers, :math:`s` = ``min(1, gpus_per_replica)`` (the share of
the card each replica is given) and ``row bytes`` what one row of the call holds. Memory free
at the moment (other processes, the caching allocator) is never read. An image's ``n`` rows
then go in :math:`\lceil n / \lceil n / \text{cap} \rceil \rceil` rows per call (:func:`even_rows`):
one call when they fit, else calls of equal size, a function of ``n`` and the cap only. It is
evaluated per image from these fixed quantities (nothing is cached: a resumed run recomputes the
same numbers). Elsewhere (CPU, MPS) ``"auto"`` is :data:`CPU_BATCH` rows per call.

A call that then runs out of CUDA memory (other processes hold part of the card) raises
:class:`CallOutOfMemory`, which the backend reports as one line naming the model: a smaller
size is never tried on the fly, as that would make the stored scores depend on the moment.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import torch

from cueshift.errors import CueshiftError

T = TypeVar("T")

#: rows per call when ``batch_size = "auto"`` and the model is not on a CUDA device
CPU_BATCH = 32
#: ``batch_size = "auto"`` never goes beyond this (generate calls, score passes)
MAX_AUTO_BATCH = 256
#: the share of the card's memory, less the weights, that ``"auto"`` fills with rows
MEMORY_FRACTION = 0.6


def weight_bytes(model: Any) -> int:
    """Bytes of ``model``'s parameters and buffers (tied weights once)."""
    tensors = [*model.parameters(), *model.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def memory_cap(model: Any, per_row: int, *, most: int, share: float = 1.0) -> int:
    """Rows of ``per_row`` bytes that fit :data:`MEMORY_FRACTION` of the card's memory (its ``share``,
    at most all of it) less ``model``'s weights, between 1 and ``most``; :data:`CPU_BATCH` off CUDA.

    >>> from types import SimpleNamespace
    >>> memory_cap(SimpleNamespace(device=torch.device("cpu")), 1 << 20, most=256)
    32
    """
    if model.device.type != "cuda":
        return CPU_BATCH
    total = torch.cuda.get_device_properties(model.device).total_memory
    room = MEMORY_FRACTION * (min(1.0, share) * total - weight_bytes(model))
    return max(1, min(most, int(room) // per_row))


def even_rows(n: int, cap: int) -> int:
    """Rows per call that cut ``n`` rows into as few calls of at most ``cap`` rows as possible, of
    near-equal size: ``n`` itself when it fits, else all but the last call of this size and the last
    fewer than one row per call short of it (301 rows, at most 100 a call: 76, 76, 76, 73).

    >>> even_rows(300, 512), even_rows(300, 256), even_rows(300, 100), even_rows(301, 100)
    (300, 150, 100, 76)
    """
    calls = -(-max(1, n) // cap)
    return -(-max(1, n) // calls)


def auto_rows(model: Any, per_row: int, n: int, *, most: int = MAX_AUTO_BATCH, share: float = 1.0) -> int:
    """``batch_size = "auto"``'s rows per call for an image of ``n`` rows: :func:`even_rows` under
    :func:`memory_cap` on CUDA, :data:`CPU_BATCH` elsewhere (as before D56)."""
    cap = memory_cap(model, per_row, most=most, share=share)
    return even_rows(n, cap) if model.device.type == "cuda" else cap


class CallOutOfMemory(CueshiftError):
    """Calls of ``rows`` rows ran out of CUDA memory; the backend adds the model's name (:meth:`named`).

    >>> print(CallOutOfMemory(224, "auto"))  # doctest: +NORMALIZE_WHITESPACE
    ran out of CUDA memory in calls of 224 rows (batch_size = "auto" sized them from the GPU's
    total memory, part of which other processes hold): set batch_size = 112 (or lower) in the
    study's [models.settings] of this model
    """

    def __init__(self, rows: int, setting: int | str, model_id: str | None = None) -> None:
        self.rows, self.setting, self.model_id = rows, setting, model_id
        where = "in the study's [models.settings] of this model"
        if setting == "auto":
            why = 'batch_size = "auto" sized them from the GPU\'s total memory'
            why += ", part of which other processes hold"
            fix = f"set batch_size = {max(1, rows // 2)} (or lower) {where}"
        else:
            why = f"batch_size = {setting}"
            fix = f"set a smaller batch_size (e.g. {rows // 2}) {where}"
        if rows == 1:
            fix = "the model does not fit the GPU memory left free"
        noun = "row" if rows == 1 else "rows"
        model = "" if model_id is None else f"model {model_id!r}: "
        super().__init__(f"{model}ran out of CUDA memory in calls of {rows} {noun} ({why}): {fix}")

    def __reduce__(self) -> tuple[type[CallOutOfMemory], tuple[int, int | str, str | None]]:
        """Pickled (a Ray worker's error) as its arguments, not its message."""
        return CallOutOfMemory, (self.rows, self.setting, self.model_id)

    def named(self, model_id: str) -> CallOutOfMemory:
        """The same error, its line starting ``model 'm':``."""
        return CallOutOfMemory(self.rows, self.setting, model_id)


@contextmanager
def calls_of(rows: int, setting: int | str) -> Iterator[None]:
    """Turn ``torch.OutOfMemoryError`` in calls of ``rows`` rows into :class:`CallOutOfMemory`."""
    try:
        yield
    except torch.OutOfMemoryError:
        raise CallOutOfMemory(rows, setting) from None


def guarded(calls: Iterable[T], rows: int, setting: int | str) -> Iterator[T]:
    """What ``calls`` yields, made in calls of ``rows`` rows, under :func:`calls_of`."""
    with calls_of(rows, setting):
        yield from calls


__all__ = [
    "CPU_BATCH",
    "MAX_AUTO_BATCH",
    "MEMORY_FRACTION",
    "CallOutOfMemory",
    "auto_rows",
    "calls_of",
    "even_rows",
    "guarded",
    "memory_cap",
    "weight_bytes",
]
