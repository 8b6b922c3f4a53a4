"""The embedding cache in the study database: table ``embedding``, keyed by encoder, kind and item.

:class:`DuckDBEmbeddingCache` implements :class:`cueshift.inference.embedding_cache.EmbeddingCache`
(the protocol the CLIP backend is written against) on an open study database. The runner
builds one and passes it to the backends; no backend sees the connection.

The cache only saves time: a write that fails (e.g. a read-only database) is logged and
skipped, and the judgments go on. A vector that breaks the table's schema (empty or not
finite) is an error, since it would be a wrong embedding, not a missing one.

The CLIP backend's keys carry its encoding version, so a resumed run never reads vectors of an
older encoding; judgments stored before are kept as they are, and :func:`older_encoding_notes`
says how many of a CLIP model's were scored by runs that did not record the version.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import duckdb
import numpy as np
import polars as pl

from cueshift.inference.embedding_cache import CLIP_ENCODING, EmbeddingKind, Vectors
from cueshift.store import validate
from cueshift.store.runs import CLIP_ENCODING_ENTRY
from cueshift.study.config import ModelConfig

log = logging.getLogger(__name__)


class DuckDBEmbeddingCache:
    """Embeddings stored in the ``embedding`` table of a study database.

    Parameters
    ----------
    con
        The open study database (:func:`cueshift.store.open_study`); the caller closes it.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def get(self, encoder: str, kind: EmbeddingKind, keys: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of ``keys`` (float32); keys without one are absent."""
        if not keys:
            return {}
        rows = self.con.execute(
            "SELECT item_key, vector FROM embedding WHERE encoder = ? AND kind = ? "
            "AND item_key IN (SELECT unnest(?::VARCHAR[]))",
            [encoder, kind, list(keys)],
        ).fetchall()
        return {str(key): np.asarray(vector, dtype=np.float32) for key, vector in rows}

    def put(self, encoder: str, kind: EmbeddingKind, keys: Sequence[str], vectors: Vectors) -> None:
        """Store one row of ``vectors`` per key; keys stored already keep their vectors."""
        rows = np.asarray(vectors, dtype=np.float32)
        if rows.ndim != 2 or rows.shape[0] != len(keys):
            raise ValueError(f"put: {len(keys)} keys but vectors of shape {rows.shape}")
        if not keys:
            return
        new_rows = pl.DataFrame(
            {
                "encoder": [encoder] * len(keys),
                "kind": [kind] * len(keys),
                "item_key": list(keys),
                "vector": pl.Series([row.tolist() for row in rows], dtype=pl.List(pl.Float32)),
            }
        )
        self.con.register("cueshift_new_embeddings", validate("embedding", new_rows).to_arrow())
        try:
            self.con.execute(
                "INSERT INTO embedding (encoder, kind, item_key, vector) "
                "SELECT encoder, kind, item_key, vector FROM cueshift_new_embeddings ON CONFLICT DO NOTHING"
            )
        except duckdb.Error as exc:  # the cache only saves time: go on without it
            log.warning("embedding cache not written (%s)", str(exc).splitlines()[0])
        finally:
            self.con.unregister("cueshift_new_embeddings")


def older_encoding_notes(con: duckdb.DuckDBPyConnection, models: Sequence[ModelConfig]) -> list[str]:
    """One line per CLIP model of ``models`` with judgments stored by runs that recorded an older
    embedding encoding than :data:`~cueshift.inference.embedding_cache.CLIP_ENCODING`, or none (runs
    before it was recorded). Those include judgments stored after D50 but before the version was
    recorded, which used today's encoding: the note says they *may* come from the older batched one.
    """
    clip_ids = [m.model_id for m in models if m.backend == "clip"]
    if not clip_ids:
        return []
    rows = con.execute(
        "SELECT j.model_id, count(*) FROM judgment AS j JOIN run AS r ON j.run_id = r.run_id "
        "WHERE j.model_id IN (SELECT unnest(?::VARCHAR[])) AND j.association IS NOT NULL "
        "AND coalesce(try_cast(json_extract_string(r.versions, ?) AS INTEGER), 1) < ? "
        "GROUP BY j.model_id ORDER BY j.model_id",
        [clip_ids, f"$.{CLIP_ENCODING_ENTRY}", CLIP_ENCODING],
    ).fetchall()
    return [
        f"model {model_id!r}: {n:,} stored judgments were scored before cueshift recorded the CLIP "
        "encoding version; they may come from the older batched encoding (about 1e-6 from today's) and "
        "are kept as stored; to rescore them all, run the study into a new database (--db)"
        for model_id, n in rows
    ]


__all__ = ["DuckDBEmbeddingCache", "older_encoding_notes"]
