"""What the analyses read from a simulated study (:mod:`tests.simulate.study`): the ``delta``
view computed in memory (:func:`delta_frame`), or the study stored as judgment rows in a
database (:func:`write_study`), invalid answers included.
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift.inference.parser import parse_answer
from cueshift.study.scenarios import ORDERINGS
from cueshift.study.variations import PLACEBO_FEATURE_KEY
from tests.simulate.study import SimulatedStudy

#: Invalid answers of the simulated judge, rotated over a cell's invalid prompts; each is stored
#: with the reason :func:`~cueshift.inference.parser.parse_answer` gives it (refusal, hedge, ...).
INVALID_TEXTS: tuple[str, ...] = (
    "I cannot tell.",
    "It could be (a) or (b).",
    "Neither.",
    "Both (a) and (b).",
    "The person in the image.",
)


def delta_frame(study: SimulatedStudy) -> pl.DataFrame:
    """The ``delta`` view computed in memory (same columns), without a database; like the view it
    leaves out the noise-floor placebos."""
    phi = study.counts.with_columns(
        n_valid=pl.col("n_total") - pl.col("n_invalid"),
    ).with_columns(phi=pl.when(pl.col("n_valid") > 0).then(pl.col("n_favorable") / pl.col("n_valid")))
    image, face, scen = study.tables["image"], study.tables["face"], study.tables["scenario"]
    var = image.filter(
        (pl.col("role") == "variation") & (pl.col("feature_key") != PLACEBO_FEATURE_KEY)
    ).select(
        "image_id",
        "base_image_id",
        "face_id",
        "variation_category",
        "feature_key",
        "variation_value",
        "framing",
    )
    v = phi.join(var, on="image_id")
    b = phi.select(
        "model_id",
        "scenario_id",
        pl.col("image_id").alias("base_image_id"),
        pl.col("phi").alias("phi_base"),
        pl.col("p_favorable").alias("p_base"),
        pl.col("n_valid").alias("n_valid_base"),
    )
    out = (
        v.join(b, on=["model_id", "scenario_id", "base_image_id"])
        .join(
            face.select("face_id", "age", "gender", "ethnicity", "body_type"),
            on="face_id",
        )
        .join(scen.select("scenario_id", pl.col("category").alias("scenario_category")), on="scenario_id")
    )
    return out.select(
        "model_id",
        "face_id",
        "image_id",
        "base_image_id",
        "scenario_id",
        "scenario_category",
        "variation_category",
        "feature_key",
        "variation_value",
        "framing",
        "age",
        "gender",
        "ethnicity",
        "body_type",
        pl.col("phi").alias("phi_variation"),
        "phi_base",
        (pl.col("phi") - pl.col("phi_base")).alias("delta"),
        (pl.col("p_favorable") - pl.col("p_base")).alias("delta_expected"),
        pl.col("n_valid").alias("n_valid_variation"),
        "n_valid_base",
    )


def write_study(con: duckdb.DuckDBPyConnection, study: SimulatedStudy) -> int:
    """Store the study: dimension tables through :func:`cueshift.store.write_tables` (validated),
    then the judgments expanded from the counts inside DuckDB (12 rows per count row: ordering
    ``k % 4 + 1``, seed ``k // 4 + 1``; outcomes rotated by a per-cell offset; invalid answers
    rotate over :data:`INVALID_TEXTS`, stored with the parser's reason). The judgment rows
    skip pandera validation (tens of millions of rows); they are built to satisfy its checks.
    Returns the number of judgments written."""
    from cueshift.store import write_tables

    write_tables(con, study.tables)
    counts = study.counts.with_columns(
        offset=(pl.col("image_id").hash(7) % pl.col("n_total").cast(pl.UInt64)).cast(pl.Int32),
        text_offset=(pl.col("image_id").hash(11) % len(INVALID_TEXTS)).cast(pl.Int32),
    )
    mapping = {"a": "favorable", "b": "unfavorable"}
    reasons = [parse_answer(text, mapping).reason for text in INVALID_TEXTS]
    texts = " ".join(f"WHEN {i} THEN '{t}'" for i, t in enumerate(INVALID_TEXTS))
    reason_of = " ".join(f"WHEN {i} THEN '{r}'" for i, r in enumerate(reasons))
    arrow = counts.to_arrow()  # noqa: F841 (read by name in SQL)
    fav_letter = " ".join(f"WHEN {o.ordering} THEN '{o.favorable_letter}'" for o in ORDERINGS)
    con.execute(f"""
        INSERT INTO judgment (model_id, image_id, scenario_id, ordering, seed, response_text, outcome,
                              chosen_letter, invalid_reason, p_favorable, p_neither, latency_ms,
                              created_at, run_id)
        WITH expanded AS (
            SELECT c.model_id, c.image_id, c.scenario_id,
                   (k % 4 + 1)::INTEGER AS ordering, (k // 4 + 1)::INTEGER AS seed,
                   (k + c.offset) % c.n_total AS slot, (k + c.text_offset) % {len(INVALID_TEXTS)} AS text,
                   c.n_invalid, c.n_favorable, c.p_favorable
            FROM arrow AS c, range(c.n_total) AS t(k)
        ), judged AS (
            SELECT *, CASE WHEN slot < n_invalid THEN 'invalid'
                           WHEN slot < n_invalid + n_favorable THEN 'favorable'
                           ELSE 'unfavorable' END AS outcome,
                      CASE ordering {fav_letter} END AS fav_letter
            FROM expanded
        )
        SELECT model_id, image_id, scenario_id, ordering, seed,
               CASE outcome WHEN 'invalid' THEN CASE text {texts} END
                            WHEN 'favorable' THEN '(' || fav_letter || ')'
                            ELSE '(' || CASE fav_letter WHEN 'a' THEN 'b' ELSE 'a' END || ')' END,
               outcome,
               CASE outcome WHEN 'invalid' THEN NULL WHEN 'favorable' THEN fav_letter
                            ELSE CASE fav_letter WHEN 'a' THEN 'b' ELSE 'a' END END,
               CASE outcome WHEN 'invalid' THEN CASE text {reason_of} END END,
               p_favorable, NULL, 0.0, TIMESTAMP '2026-01-01', 'sim'
        FROM judged
    """)
    return int(counts["n_total"].sum())
