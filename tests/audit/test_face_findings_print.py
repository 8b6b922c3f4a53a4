"""The face findings of ``cueshift audit`` in the console: counts by attribute and by ethnicity x
gender, from stored audit rows, checked against counts made here by hand."""

from __future__ import annotations

import polars as pl
from rich.console import Console

from cueshift.designs._audit_face_print import face_findings, print_face_findings

FACES = pl.DataFrame(
    {
        "face_id": ["a", "b", "c"],
        "ethnicity": ["African", "European", "African"],
        "gender": ["female", "male", "male"],
    }
)


def _rows() -> pl.DataFrame:
    # (variation, face, attribute, measure, failed, reason)
    raw = [
        ("a-hat", "a", "hat", "face_count", True, "no face on the variation"),
        ("a-hat", "a", "hat", "skin_ita", False, None),
        ("b-hat", "b", "hat", "face_count", True, "several faces (2) on the variation"),
        ("b-hat", "b", "hat", "face_identity_distance", True, "distance 0.7"),
        ("c-hat", "c", "hat", "face_count", False, None),
        ("c-tie", "c", "tie", "face_count", False, None),
        ("c-tie", "c", "tie", "skin_ita", True, "skin tone moved by 9.0 ITA° (bound 6.0)"),
        ("c-tie", "c", "tie", "ssim", True, "not a face finding"),
        ("a-tie", "a", "tie", "ssim", True, "no face in the reason of a pixel row"),
    ]
    frame = pl.DataFrame(
        raw, schema=["image_id", "face_id", "feature_key", "measure", "failed", "reason"], orient="row"
    )
    return frame.with_columns(
        variation_value=pl.col("feature_key"),
        difference=pl.when(pl.col("measure") == "skin_ita").then(2.0).otherwise(0.0),
    )


def test_counts_by_attribute_and_group() -> None:
    by_attribute = face_findings(_rows(), FACES, ("feature_key",))
    assert by_attribute.rows() == [("hat", 3, 1, 1, 1, 0), ("tie", 1, 0, 0, 0, 1)]
    by_group = face_findings(_rows(), FACES, ("ethnicity", "gender"))
    assert by_group.rows() == [
        ("African", "female", 1, 1, 0, 0, 0),
        ("African", "male", 2, 0, 0, 0, 1),
        ("European", "male", 1, 0, 1, 1, 0),
    ]


def test_console_tables_fit_80_columns() -> None:
    console = Console(width=80, record=True, force_terminal=False)
    summary = print_face_findings(_rows(), FACES, console)
    text = console.export_text()
    assert "Face findings by attribute" in text and "Face findings by ethnicity x gender" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert summary is not None and set(summary["summary"]) == {"attribute", "group", "difference"}


def test_no_face_rows_print_nothing() -> None:
    console = Console(width=80, record=True)
    assert print_face_findings(_rows().filter(pl.col("measure") == "ssim"), FACES, console) is None
    assert console.export_text() == ""
