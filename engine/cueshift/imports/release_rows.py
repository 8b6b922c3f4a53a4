"""Matched release judgments shaped into ``judgment`` / ``release_judgment`` rows, and their counts.

The rows come from :func:`~.release_matching.match_study`; :func:`judgment_frames` parses each
answer strictly and keeps the release's own reading beside it, :func:`echo_counts` and
:func:`agreement_table` count per model what the import report shows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import polars as pl

from cueshift.designs.forced_choice import JUDGMENT_KEY
from cueshift.inference.parser_batch import parse_answers
from cueshift.study.scenarios import ORDERING_BY_ID, ORDERINGS, Scenario


def _release_letter() -> pl.Expr:
    """The release's ``chosen_option`` as a letter: ``a`` / ``(b)`` / ``Option A`` / a descriptor."""
    text = (
        pl.col("chosen_option")
        .str.strip_chars()
        .str.to_lowercase()
        .str.replace(r"^(?:option|answer|choice)\s*[:\-]?\s*", "")
        .str.strip_chars("()[]{}.:'\" ")
    )
    folded = pl.col("chosen_option").str.strip_chars().str.to_lowercase()
    return (
        pl.when(text.is_in(["a", "b"]))
        .then(text)
        .when(folded == pl.col("option_a").str.strip_chars().str.to_lowercase())
        .then(pl.lit("a"))
        .when(folded == pl.col("option_b").str.strip_chars().str.to_lowercase())
        .then(pl.lit("b"))
        .otherwise(pl.lit(None, dtype=pl.String))
    )


def judgment_frames(
    matched: pl.DataFrame, scenarios: Sequence[Scenario], run_id: str, now: dt.datetime
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(``judgment`` rows with our strict parse, ``release_judgment`` rows with the release's)."""
    by_id = {s.scenario_id: s for s in scenarios}
    mappings: dict[tuple[str, int], dict[str, str]] = {}
    descriptors = []
    for scenario_id, ordering in matched.select("scenario_id", "ordering").iter_rows():
        key = (scenario_id, ordering)
        if key not in mappings:
            mappings[key] = ORDERING_BY_ID[ordering].descriptor_by_letter(by_id[scenario_id])
        descriptors.append(mappings[key])
    answers = [
        raw[start:end] if start or end < len(raw) else raw
        for raw, start, end in matched.select("raw_output", "answer_start", "answer_end").iter_rows()
    ]  # an echoed prompt and chat template cut off (cueshift.images.release_echo)
    letters, reasons = parse_answers(answers, descriptors)
    favorable = {o.ordering: o.favorable_letter for o in ORDERINGS}
    frame = matched.with_columns(
        pl.Series("chosen_letter", letters, dtype=pl.String),
        pl.Series("__reason", reasons, dtype=pl.String),
        pl.col("ordering").replace_strict(favorable, return_dtype=pl.String).alias("__fav"),
        pl.col("ordering").cast(pl.Int32),
        pl.col("seed").cast(pl.Int32),
    )
    judgments = frame.select(
        *JUDGMENT_KEY,
        pl.col("raw_output").alias("response_text"),
        pl.when(pl.col("chosen_letter").is_null())
        .then(pl.lit("invalid"))
        .when(pl.col("chosen_letter") == pl.col("__fav"))
        .then(pl.lit("favorable"))
        .otherwise(pl.lit("unfavorable"))
        .alias("outcome"),
        "chosen_letter",
        pl.when(pl.col("chosen_letter").is_null()).then(pl.col("__reason")).alias("invalid_reason"),
        *(
            pl.lit(None, dtype=pl.Float64).alias(c)
            for c in ("p_favorable", "p_neither", "association", "logit_scale")
        ),
        pl.lit(0.0).alias("latency_ms"),
        pl.lit(now).cast(pl.Datetime("us")).alias("created_at"),
        pl.lit(run_id).alias("run_id"),
    )
    releases = frame.select(
        *JUDGMENT_KEY,
        "chosen_option",
        _release_letter().alias("release_letter"),
        pl.col("file").alias("source_file"),
        pl.col("timestamp").alias("release_timestamp"),
        pl.lit(run_id).alias("run_id"),
    )
    return judgments, releases


def echo_counts(matched: pl.DataFrame) -> pl.DataFrame:
    """Per model: ``echo_stripped``, the answers whose echoed prompt was cut off before parsing."""
    stripped = (pl.col("answer_start") > 0) | (pl.col("answer_end") < pl.col("raw_output").str.len_chars())
    return (
        matched.group_by("model_id")
        .agg(stripped.sum().cast(pl.Int64).alias("echo_stripped"))
        .sort("model_id")
    )


def agreement_table(judgments: pl.DataFrame, releases: pl.DataFrame) -> pl.DataFrame:
    """Per model: how often our strict parse and the release's ``chosen_option`` name the same letter.

    ``agree`` counts the same letter or no letter on both sides; ``we_invalid_release_letter`` the
    answers we call invalid that the release read as a letter (its guess), ``letters_differ``
    the answers read as opposite letters, ``we_letter_release_none`` those only we read.
    """
    both = judgments.select(*JUDGMENT_KEY, "chosen_letter").join(
        releases.select(*JUDGMENT_KEY, "release_letter"), on=list(JUDGMENT_KEY)
    )
    ours, theirs = pl.col("chosen_letter"), pl.col("release_letter")
    return (
        both.group_by("model_id")
        .agg(
            pl.len().alias("n"),
            ours.eq_missing(theirs).sum().alias("agree"),
            (~ours.eq_missing(theirs)).sum().alias("disagree"),
            (ours.is_null() & theirs.is_not_null()).sum().alias("we_invalid_release_letter"),
            (ours.is_not_null() & theirs.is_not_null() & (ours != theirs)).sum().alias("letters_differ"),
            (ours.is_not_null() & theirs.is_null()).sum().alias("we_letter_release_none"),
        )
        .sort("model_id")
    )
