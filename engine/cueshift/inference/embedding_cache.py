"""Where embedding backends keep vectors between runs: a protocol, and an in-memory implementation.

A backend never sees a database. An embedding backend (the CLIP probes) asks an
:class:`EmbeddingCache` for the vectors it has already computed and hands it the ones it
computes; the runner passes the study database's implementation
(:class:`cueshift.store.embedding_cache.DuckDBEmbeddingCache`) in through
:class:`~cueshift.inference.backends.base.StudyContext`, tests and notebooks may pass a
:class:`MemoryEmbeddingCache` or nothing.

Keys
----
A vector is keyed by ``(encoder, kind, item_key)``:

``encoder``
    What determines the vector besides its input: the checkpoint, its revision and the
    numeric precision (e.g. ``'openai/clip-vit-large-patch14@main:float16'``), never a
    study's ``model_id`` or its probe templates, so every model entry of the same
    checkpoint shares the cache. The CLIP backend's keys end in its encoding version
    (:func:`with_encoding`: ``'…:float16#encoding=2'``), so vectors of an older encoding are
    not reused but encoded again (they stay stored: the quality encoder still reads them).
``kind``
    ``'image'`` (the vision tower) or ``'text'`` (the text tower).
``item_key``
    The image's content (its SHA-256), or the probe text itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

EmbeddingKind = Literal["image", "text"]
#: How the CLIP backend encodes: 1, the inputs missing from a request in one forward pass (before
#: D50; keys without a version); 2, each image and probe text alone, on weights aligned to 64 bytes
#: (D50). Vectors of 1 and 2 differ by about 1e-6.
CLIP_ENCODING = 2
#: Raw projected features, one row per item (float32).
Vectors = npt.NDArray[np.float32]


def with_encoding(encoder: str, encoding: int = CLIP_ENCODING) -> str:
    """``encoder`` as the CLIP backend keys it: with ``#encoding=N`` (1, the first, has none).

    Examples
    --------
    >>> with_encoding("/m/clip@default:float32")
    '/m/clip@default:float32#encoding=2'
    >>> with_encoding("/m/clip@default:float32", 1)
    '/m/clip@default:float32'
    """
    return encoder if encoding == 1 else f"{encoder}#encoding={encoding}"


class EmbeddingCache(Protocol):
    """Stored embeddings by ``(encoder, kind, item_key)`` (see the module docstring)."""

    def get(self, encoder: str, kind: EmbeddingKind, keys: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of those ``keys`` that have one (1-d float32 arrays); others are absent."""
        ...

    def put(self, encoder: str, kind: EmbeddingKind, keys: Sequence[str], vectors: Vectors) -> None:
        """Store ``vectors`` (one row per key); a key stored already keeps its first vector."""
        ...


class MemoryEmbeddingCache:
    """An :class:`EmbeddingCache` held in a dictionary (tests, notebooks; lost with the object).

    Attributes
    ----------
    vectors : dict
        ``(encoder, kind, item_key) -> vector``.
    """

    def __init__(self) -> None:
        self.vectors: dict[tuple[str, EmbeddingKind, str], Vectors] = {}

    def get(self, encoder: str, kind: EmbeddingKind, keys: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of ``keys`` (copies)."""
        found = ((key, self.vectors.get((encoder, kind, key))) for key in keys)
        return {key: vector.copy() for key, vector in found if vector is not None}

    def put(self, encoder: str, kind: EmbeddingKind, keys: Sequence[str], vectors: Vectors) -> None:
        """Store one row of ``vectors`` per key, keeping vectors stored before."""
        rows = np.asarray(vectors, dtype=np.float32)
        if rows.ndim != 2 or rows.shape[0] != len(keys):
            raise ValueError(f"put: {len(keys)} keys but vectors of shape {rows.shape}")
        for key, row in zip(keys, rows, strict=True):
            self.vectors.setdefault((encoder, kind, key), row.copy())


__all__ = [
    "CLIP_ENCODING",
    "EmbeddingCache",
    "EmbeddingKind",
    "MemoryEmbeddingCache",
    "Vectors",
    "with_encoding",
]
