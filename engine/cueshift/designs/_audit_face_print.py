"""Console tables of the face findings of ``cueshift audit`` (``[audit.faces]``): counts of no
face / several faces / identity failures / skin-tone failures by attribute and by the base's
ethnicity × gender, and the skin tone summary's group differences (docs/faces.md)."""

from __future__ import annotations

import polars as pl
from rich.console import Console

from cueshift._console import FitTable
from cueshift.designs._audit_skin import skin_tone_summary
from cueshift.render import ci_label
from cueshift.schemas.audit_skin import ALL, SKIN_TONE_LEVEL, SkinToneSchema

FACE_MEASURES = ("face_count", "face_detector_score", "face_identity_distance", "skin_ita")
_COUNTS = {
    "no face": pl.col("reason").str.contains("no face"),
    "several": pl.col("reason").str.contains("several faces"),
    "identity": pl.col("measure").is_in(["face_identity_distance"]) & pl.col("failed"),
    "skin tone": (pl.col("measure") == "skin_ita") & pl.col("failed"),
}


def face_findings(rows: pl.DataFrame, faces: pl.DataFrame, by: tuple[str, ...]) -> pl.DataFrame:
    """Per ``by`` group: variations with a face-model row and how many had each finding.

    >>> rows = pl.DataFrame({"image_id": ["v1", "v2"], "face_id": ["f", "f"],
    ...     "feature_key": ["hat", "hat"], "measure": ["face_count", "skin_ita"],
    ...     "failed": [True, True], "reason": ["no face on the variation", "moved"]})
    >>> face_findings(rows, pl.DataFrame({"face_id": ["f"], "ethnicity": ["x"], "gender": ["y"]}),
    ...     ("feature_key",)).row(0)
    ('hat', 2, 1, 0, 0, 1)
    """
    face_rows = rows.filter(pl.col("measure").is_in(FACE_MEASURES)).with_columns(
        pl.col("reason").fill_null("")
    )
    face_rows = face_rows.join(faces.select("face_id", "ethnicity", "gender"), on="face_id", how="left")
    face_rows = face_rows.with_columns(pl.col("ethnicity", "gender").fill_null("unknown"))
    counts = [pl.col("image_id").filter(test).n_unique().alias(name) for name, test in _COUNTS.items()]
    return face_rows.group_by(*by).agg(pl.col("image_id").n_unique().alias("variations"), *counts).sort(*by)


def print_face_findings(
    rows: pl.DataFrame, faces: pl.DataFrame, console: Console, *, summary: pl.DataFrame | None = None
) -> pl.DataFrame | None:
    """Print the face findings and the skin tone differences; return the validated
    ``audit_skin_tone`` summary (None: no face-model rows). ``summary``: the one stored by the
    audit (computed from ``rows`` when not given)."""
    if not rows.filter(pl.col("measure").is_in(FACE_MEASURES)).height:
        return None
    for by, title in (
        (("feature_key",), "Face findings by attribute"),
        (("ethnicity", "gender"), "Face findings by ethnicity x gender"),
    ):
        found = face_findings(rows, faces, by)
        table = FitTable(*by, title=title)
        for name in ("variations", *_COUNTS):
            table.add_column(name, justify="right")
        for row in found.iter_rows():
            table.add_row(*(str(v) for v in row[: len(by)]), *(f"{v:,}" for v in row[len(by) :]))
        console.print(table)
    summary = SkinToneSchema.validate(skin_tone_summary(rows, faces) if summary is None else summary)
    differences = summary.filter(pl.col("summary") == "difference", pl.col("feature_key") == ALL)
    if differences.height:
        table = FitTable("ethnicity", title="Skin tone: ITA° change, this group minus the other faces")
        level = differences["confidence_level"].drop_nulls().min()  # the level the intervals were computed at
        interval = ci_label(level if isinstance(level, float) else SKIN_TONE_LEVEL)
        for name in ("difference", interval, "faces"):
            table.add_column(name, justify="right")
        for cell in differences.iter_rows(named=True):
            low, high, estimate = (_signed(cell[name]) for name in ("ci_low", "ci_high", "estimate"))
            table.add_row(cell["ethnicity"], estimate, f"[{low}, {high}]", f"{cell['n_faces']:,}")
        console.print(table)
    return summary


def _signed(value: float | None) -> str:
    """``+1.2`` (``-`` where a group has too few faces for the number)."""
    return "-" if value is None else f"{value:+.1f}"


__all__ = ["FACE_MEASURES", "face_findings", "print_face_findings"]
