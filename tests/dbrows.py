"""Tiny hand-made rows for store and view tests (shaped like the schemas, no image set needed)."""

from __future__ import annotations

import datetime as dt

import polars as pl

SHA = "0" * 64
NOW = dt.datetime(2026, 1, 1, 12, 0, 0)


def faces(*rows: tuple[str, str, str]) -> pl.DataFrame:
    """(face_id, gender, age) rows."""
    return pl.DataFrame(
        {
            "face_id": [r[0] for r in rows],
            "source": ["hand"] * len(rows),
            "age": [r[2] for r in rows],
            "gender": [r[1] for r in rows],
            "ethnicity": ["Asian"] * len(rows),
            "body_type": ["normal"] * len(rows),
            "attributes": pl.Series([None] * len(rows), dtype=pl.String),
        }
    )


def images(*rows: tuple[str, str, str | None, str | None]) -> pl.DataFrame:
    """(image_id, face_id, base_image_id, variation_value) rows; base when base_image_id is None."""
    return pl.DataFrame(
        {
            "image_id": [r[0] for r in rows],
            "face_id": [r[1] for r in rows],
            "role": ["base" if r[2] is None else "variation" for r in rows],
            "base_image_id": pl.Series([r[2] for r in rows], dtype=pl.String),
            "variation_category": pl.Series(
                [None if r[2] is None else "Eyewear" for r in rows], dtype=pl.String
            ),
            "feature_key": pl.Series([None if r[2] is None else "eyewear" for r in rows], dtype=pl.String),
            "variation_value": pl.Series([r[3] for r in rows], dtype=pl.String),
            "framing": ["face"] * len(rows),
            "path": [f"{r[0]}.png" for r in rows],
            "sha256": [SHA] * len(rows),
            "width": pl.Series([8] * len(rows), dtype=pl.Int32),
            "height": pl.Series([8] * len(rows), dtype=pl.Int32),
            "evaluated": [True] * len(rows),
            "exclusion_reason": pl.Series([None] * len(rows), dtype=pl.String),
        }
    )


def scenarios(*ids: str) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "scenario_id": list(ids),
            "scenario_set": ["hand"] * len(ids),
            "position": pl.Series(range(len(ids)), dtype=pl.Int32),
            "favorable": [i.title() for i in ids],
            "unfavorable": ["Not " + i for i in ids],
            "category": ["Interpersonal"] * len(ids),
            "family": pl.Series([None] * len(ids), dtype=pl.String),
        }
    )


def judgments(model_id: str, rows: list[tuple[str, str, int, int, str]]) -> pl.DataFrame:
    """(image_id, scenario_id, ordering, seed, outcome) rows; letters follow ordering 1/2 -> fav 'a'."""
    letters = []
    for _, _, ordering, _, outcome in rows:
        fav = "a" if ordering in (1, 2) else "b"
        unfav = "b" if fav == "a" else "a"
        letters.append({"favorable": fav, "unfavorable": unfav, "invalid": None}[outcome])
    return pl.DataFrame(
        {
            "model_id": [model_id] * len(rows),
            "image_id": [r[0] for r in rows],
            "scenario_id": [r[1] for r in rows],
            "ordering": pl.Series([r[2] for r in rows], dtype=pl.Int32),
            "seed": pl.Series([r[3] for r in rows], dtype=pl.Int32),
            "response_text": [f"({letter})" if letter else "I cannot tell." for letter in letters],
            "outcome": [r[4] for r in rows],
            "chosen_letter": pl.Series(letters, dtype=pl.String),
            "p_favorable": pl.Series([None] * len(rows), dtype=pl.Float64),
            "p_neither": pl.Series([None] * len(rows), dtype=pl.Float64),
            "latency_ms": [1.0] * len(rows),
            "created_at": pl.Series([NOW] * len(rows), dtype=pl.Datetime("us")),
            "run_id": ["run-1"] * len(rows),
        }
    )
