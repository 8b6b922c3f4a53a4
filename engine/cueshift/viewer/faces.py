"""Faces: the index of faces, and one face's base image with all its variations.

φ per image × scenario is read from the in-memory ``phi`` table (``sql/views/phi.sql``); Δ of a
variation is its φ minus its base's φ for the same model and scenario (seed 000 Eq. 2).
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.page_helpers import NotFound, Page, page_count
from cueshift.viewer.filters import Filters
from cueshift.views import PLACEBO_FEATURE_KEY

#: Faces per page of the index.
PER_PAGE = 48
#: SQL condition on ``image`` rows: a noise-floor placebo (shown apart, never counted as a variation).
PLACEBO = f"coalesce(lower(feature_key), '') = '{PLACEBO_FEATURE_KEY}'"


def faces_index(con: duckdb.DuckDBPyConnection, f: Filters, page: int) -> Page:
    """Faces (with their base image and number of evaluated variations), ``PER_PAGE`` a page."""
    condition, params = "TRUE", list[object]()
    if f.dimension is not None:
        condition, params = f"i.{f.dimension} = ?", [f.group]
    total = int(store.query(con, f"SELECT count(*) AS n FROM face AS i WHERE {condition}", params)["n"][0])
    n_pages = page_count(total, PER_PAGE, page, "the face index")
    rows = store.query(
        con,
        f"""
        SELECT i.face_id, i.age, i.gender, i.ethnicity, i.body_type,
               min(m.image_id) FILTER (WHERE m.role = 'base') AS base_image_id,
               count(*) FILTER (WHERE m.role = 'variation' AND m.evaluated AND NOT {PLACEBO}) AS n_variations,
               count(*) FILTER (WHERE m.role = 'variation' AND {PLACEBO}) AS n_placebos
        FROM face AS i LEFT JOIN image AS m USING (face_id)
        WHERE {condition} GROUP BY ALL ORDER BY i.face_id LIMIT ? OFFSET ?
        """,
        [*params, PER_PAGE, (page - 1) * PER_PAGE],
    )
    return Page(rows=rows, page=page, n_pages=n_pages, total=total)


def person(con: duckdb.DuckDBPyConnection, face_id: str) -> dict[str, object]:
    """The face row (demographics), or a 404."""
    rows = store.query(con, "SELECT * FROM face WHERE face_id = ?", [face_id])
    if rows.height == 0:
        raise NotFound(f"face {face_id!r}: no such face in this study")
    return rows.row(0, named=True)


def images(con: duckdb.DuckDBPyConnection, face_id: str) -> pl.DataFrame:
    """The face's images: the base first, then variations by category and value, then the
    noise-floor placebos (``placebo`` true)."""
    return store.query(
        con,
        f"""
        SELECT image_id, role, base_image_id, variation_category, variation_value, framing, evaluated,
               exclusion_reason, {PLACEBO} AS placebo
        FROM image WHERE face_id = ?
        ORDER BY role = 'variation', {PLACEBO}, variation_category, variation_value, image_id
        """,
        [face_id],
    )


def phi_grid(con: duckdb.DuckDBPyConnection, face_id: str, f: Filters) -> pl.DataFrame:
    """φ (and Δ for variations) of every image of the face per model × scenario in view."""
    where, params = f.without("group").where(alias="p")
    ids = [
        str(r[0]) for r in con.execute("SELECT image_id FROM image WHERE face_id = ?", [face_id]).fetchall()
    ]
    if not ids:
        raise NotFound(f"face {face_id!r}: no images")
    # phi is sorted by image_id: the range lets DuckDB skip every row group of other faces
    span = [min(ids), max(ids)]
    return store.query(
        con,
        f"""
        WITH q AS (SELECT * FROM phi WHERE image_id BETWEEN ? AND ?)
        SELECT p.model_id, p.image_id, p.scenario_id, p.scenario_category, p.phi, p.n_valid, p.n_total,
               p.phi - b.phi AS delta
        FROM (SELECT q.*, s.category AS scenario_category, m.base_image_id
              FROM q JOIN image AS m USING (image_id) JOIN scenario AS s USING (scenario_id)
              WHERE m.face_id = ?) AS p
        LEFT JOIN q AS b ON b.model_id = p.model_id AND b.scenario_id = p.scenario_id
                        AND b.image_id = p.base_image_id
        WHERE {where}
        """,
        [*span, face_id, *params],
    )


def image_means(grid: pl.DataFrame) -> pl.DataFrame:
    """Per model × image: mean φ and mean Δ over the scenarios in view."""
    return grid.group_by("model_id", "image_id").agg(
        mean_phi=pl.col("phi").mean(), mean_delta=pl.col("delta").mean(), n_cells=pl.len()
    )
