"""Skin tone summaries on planted per-edit ITA° changes, against numpy means and scipy's bootstrap."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from cueshift.designs._audit_skin import skin_tone_summary
from cueshift.schemas.audit_skin import ALL, SkinToneSchema

N_FACES = 60
PLANTED = {"black": 6.0, "white": 1.0}  # mean ITA° change (lightening) per ethnicity


def _planted() -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(7)
    faces = pl.DataFrame(
        {
            "face_id": [f"f{i:02d}" for i in range(N_FACES)],
            "ethnicity": ["black" if i % 2 else "white" for i in range(N_FACES)],
            "gender": ["female" if i % 4 < 2 else "male" for i in range(N_FACES)],
        }
    )
    rows = []
    for face, eth in faces.select("face_id", "ethnicity").iter_rows():
        face_shift = rng.normal(0.0, 1.0)  # shared by the face's edits: the cluster
        for value in ("glasses", "smile", "hat"):
            change = PLANTED[eth] + face_shift + rng.normal(0.0, 1.0)
            rows.append((f"{face}-{value}", face, "accessory", value, "skin_ita", change))
    audit = pl.DataFrame(
        rows,
        schema=["image_id", "face_id", "feature_key", "variation_value", "measure", "difference"],
        orient="row",
    )
    other = audit.head(5).with_columns(measure=pl.lit("ssim"), difference=pl.lit(99.0))
    return pl.concat([audit, other]), faces


def test_summary_recovers_the_planted_lightening() -> None:
    audit, faces = _planted()
    table = skin_tone_summary(audit, faces, n_resamples=2000)
    SkinToneSchema.validate(table)
    skin = audit.filter(pl.col("measure") == "skin_ita").join(faces, on="face_id")
    per_face = skin.group_by("face_id", "ethnicity").agg(pl.col("difference").mean())
    black = per_face.filter(ethnicity="black")["difference"].to_numpy()
    white = per_face.filter(ethnicity="white")["difference"].to_numpy()
    row = (
        table.filter(summary="difference", ethnicity="black")
        .filter(pl.col("feature_key") == ALL)
        .row(0, named=True)
    )
    assert row["estimate"] == pytest.approx(black.mean() - white.mean())
    assert row["ci_low"] <= PLANTED["black"] - PLANTED["white"] <= row["ci_high"]
    assert row["ci_low"] > 0  # the editor lightens black faces more: the interval excludes 0
    ref = sps.bootstrap((black, white), lambda a, b: a.mean() - b.mean(), method="percentile", random_state=1)
    width = row["ci_high"] - row["ci_low"]
    assert ref.confidence_interval.low == pytest.approx(row["ci_low"], abs=0.15 * width)
    assert ref.confidence_interval.high == pytest.approx(row["ci_high"], abs=0.15 * width)


def test_group_cells_hold_the_planted_means() -> None:
    audit, faces = _planted()
    table = skin_tone_summary(audit, faces, n_resamples=2000)
    skin = audit.filter(pl.col("measure") == "skin_ita").join(faces, on="face_id")
    for (eth, gender), cell in skin.group_by("ethnicity", "gender"):
        per_face = cell.group_by("face_id").agg(pl.col("difference").mean())["difference"].to_numpy()
        row = table.filter(summary="group", ethnicity=eth, gender=gender).filter(pl.col("feature_key") == ALL)
        got = row.row(0, named=True)
        assert got["estimate"] == pytest.approx(per_face.mean())
        # a 95 % interval misses now and then (4 cells): the planted mean lies within one width
        width = got["ci_high"] - got["ci_low"]
        assert abs(got["estimate"] - PLANTED[str(eth)]) < width
        ref = sps.bootstrap((per_face,), np.mean, method="percentile", random_state=2).confidence_interval
        assert ref.low == pytest.approx(got["ci_low"], abs=0.15 * width)
        assert ref.high == pytest.approx(got["ci_high"], abs=0.15 * width)
        assert got["n_faces"] == per_face.size and got["n_edits"] == cell.height
    glasses = table.filter(summary="attribute", variation_value="glasses").row(0, named=True)
    expected = skin.filter(variation_value="glasses")["difference"].mean()
    assert glasses["estimate"] == pytest.approx(expected)
    assert glasses["n_faces"] == N_FACES


def test_no_skin_rows_give_an_empty_table() -> None:
    audit, faces = _planted()
    table = skin_tone_summary(audit.filter(pl.col("measure") == "ssim"), faces)
    assert table.height == 0
    SkinToneSchema.validate(table)
