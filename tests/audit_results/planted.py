"""Planted edit audits for the tests of ``cueshift analyze --audit``: ``edit_audit`` rows built
from a simulated study's variations (validated by ``EditAuditSchema``), with chosen failures and
unintended changes, and the clean face-level SBS computed straight from the Δ rows."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import polars as pl

from cueshift.schemas.tables import EditAuditSchema
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

VARIATION = ["image_id", "base_image_id", "face_id", "feature_key", "variation_value"]
#: The encoder key of the planted confound probes.
ENCODER = "/tmp/tiny-clip@default:float32"


def simulated_delta(n_faces: int = 60, seed: int = 4) -> pl.DataFrame:
    """Δ rows of a simulated two-model study on five scenarios (planted attribute effects)."""
    scenarios = ("competent", "likeable", "intelligent", "responsible", "open_minded")
    spec = SimulationSpec(n_faces=n_faces, seed=seed, scenario_ids=scenarios, interactions=False)
    return delta_frame(simulate_study(spec))


def audit_rows(
    variations: pl.DataFrame, failed: Collection[str], confounds: Mapping[str, np.ndarray]
) -> pl.DataFrame:
    """``edit_audit`` rows: per variation a cue check (failed for the ``failed`` image ids), one
    unintended row per confound (its difference, never failed; a CLIP confound probe of
    ``ENCODER`` unless the name starts with ``pixels:``, then a pixel statistic) and an identity row."""
    frames = []
    is_failed = variations["image_id"].is_in(list(failed))
    common = dict(measured_base=None, measured_variation=None, robust_z=None, bound=None)
    frames.append(
        variations.select(VARIATION).with_columns(
            check_kind=pl.lit("cue"),
            measure=pl.lit("cue_probability"),
            difference=pl.when(is_failed).then(-0.2).otherwise(0.3),
            failed=is_failed,
            reason=pl.when(is_failed).then(pl.lit("cue not detected")),
        )
    )
    for name, values in confounds.items():
        pixels = name.startswith("pixels:")
        frames.append(
            variations.select(VARIATION).with_columns(
                check_kind=pl.lit("unintended"),
                measure=pl.lit(name.removeprefix("pixels:")),
                source=pl.lit("pixels" if pixels else ENCODER),
                difference=pl.Series(values, dtype=pl.Float64),
                failed=pl.lit(False),
                reason=pl.lit(None, dtype=pl.String),
            )
        )
    frames.append(
        variations.select(VARIATION).with_columns(
            check_kind=pl.lit("identity"),
            measure=pl.lit("identity_cosine"),
            difference=pl.lit(0.95),
            failed=pl.lit(False),
            reason=pl.lit(None, dtype=pl.String),
        )
    )
    rows = pl.concat(frames, how="diagonal").with_columns(
        pl.col("source").fill_null("pixels"),
        *[pl.lit(v, dtype=pl.Float64).alias(k) for k, v in common.items()],
    )
    order = list(EditAuditSchema.to_schema().columns)
    return EditAuditSchema.validate(rows.select(order))


def variations_of(delta: pl.DataFrame) -> pl.DataFrame:
    """The variations of Δ rows, one row each, sorted by image id."""
    return delta.select(VARIATION).unique().sort("image_id")


def face_level_sbs(delta: pl.DataFrame, value: str = "delta") -> pl.DataFrame:
    """SBS per model × attribute and pooled (``'(pooled)'``) straight from the rows: the mean over
    faces of each face's mean ``value`` (seed 000 Eq. 4)."""
    pooled = delta.with_columns(model_id=pl.lit("(pooled)"))
    rows = pl.concat([delta.select(pooled.columns), pooled])
    per_face = rows.group_by("model_id", "feature_key", "face_id").agg(pl.col(value).mean())
    return per_face.group_by("model_id", "feature_key").agg(pl.col(value).mean().alias("sbs"))


def stored_variations(con: Any) -> pl.DataFrame:
    """The evaluated, non-placebo variations of a stored study (:data:`VARIATION` columns)."""
    images = pl.from_arrow(
        con.sql(
            "SELECT * FROM image WHERE role = 'variation' AND evaluated AND feature_key <> 'placebo'"
        ).to_arrow_table()
    )
    assert isinstance(images, pl.DataFrame)
    return images.select(VARIATION)
