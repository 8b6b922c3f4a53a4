"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): missing
answers: invalid and refusal rates per group x variation x model, and their shifts.

Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules. They read the
``invalid_answers`` and ``invalid_texts`` views of the study database (``sql/views/``); inputs
built from frames alone (no database) get none of these tables.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.method_names import FACE_TEST
from cueshift.designs.stylisticbias.run_reads import read_once
from cueshift.designs.stylisticbias.stats import (
    missing_by_ordering,
    missing_lean,
    missing_rates,
    missing_shift,
)
from cueshift.inference.parser import named_letter
from cueshift.stats import Declarations
from cueshift.store import query
from cueshift.study.scenarios import ORDERING_BY_ID, Scenario

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


def _read(ctx: Context, view: str) -> pl.DataFrame | None:
    """The rows of ``view`` of the analysed models, or None without a database or rows (read
    once per run: :func:`~cueshift.designs.stylisticbias.run_reads.read_once`)."""
    return read_once(ctx, view, lambda: _read_view(ctx, view))


def _read_view(ctx: Context, view: str) -> pl.DataFrame | None:
    con = ctx.inputs.con
    if con is None:
        return None
    models = list(ctx.inputs.models)
    if models:
        frame = query(con, f"SELECT * FROM {view} WHERE list_contains(?, model_id)", [models])
    else:
        frame = query(con, f"SELECT * FROM {view}")
    return frame if frame.height else None


def named_letters(texts: pl.DataFrame) -> pl.DataFrame:
    """``model_id, face_id, ordering, named_letter, n_invalid``: each distinct invalid text of the
    ``invalid_texts`` view read with :func:`~cueshift.inference.parser.named_letter` under its prompt's
    letter mapping (once per distinct text, scenario and ordering)."""
    distinct = texts.select("response_text", "favorable", "unfavorable", "ordering").unique()
    letters = [
        named_letter(text, ORDERING_BY_ID[ordering].descriptor_by_letter(Scenario("", fav, unfav, "")))
        for text, fav, unfav, ordering in distinct.iter_rows()
    ]
    read = distinct.with_columns(pl.Series("named_letter", letters, dtype=pl.String))
    return texts.join(read, on=["response_text", "favorable", "unfavorable", "ordering"]).select(
        "model_id", "face_id", "ordering", "named_letter", "n_invalid"
    )


@DECLARED(
    "missing_rates",
    description="Invalid and refusal rates per model x demographic group x variation value (base images too)",
    source="invalid_answers",
    grouping="model (and pooled) x dimension x group x variation value x rate",
    statistic="face-level mean rate, Wilson CI at the effective sample size of the face clusters",
    family="none (descriptive)",
)
def _missing_rates(ctx: Context) -> pl.DataFrame | None:
    counts = _read(ctx, "invalid_answers")
    if counts is None:
        return None
    return missing_rates(counts, confidence_level=ctx.inputs.resampling.confidence_level)


@DECLARED(
    "missing_shift",
    description="Shift of the invalid (refusal) rate, variation image vs the same face's base image",
    source="invalid_answers",
    grouping="model (and pooled) x dimension x group x variation value x rate (refusals: all faces)",
    statistic=f"face-level mean shift from integer counts; {FACE_TEST}; face-level bootstrap CI",
    family="model x rate x dimension (BH)",
)
def _missing_shift(ctx: Context) -> pl.DataFrame | None:
    counts = _read(ctx, "invalid_answers")
    if counts is None or not (counts["role"] == "variation").any():
        return None
    return missing_shift(counts, resampling=ctx.inputs.resampling)


@DECLARED(
    "missing_by_ordering",
    description="Invalid answers per ordering x the letter they would have named (parser or model asymmetry)",
    source="invalid_answers, invalid_texts",
    grouping="model (and pooled) x ordering x named letter",
    statistic="face-level share of the ordering's answers, face-level cluster bootstrap CI",
    family="none (descriptive)",
)
def _missing_by_ordering(ctx: Context) -> pl.DataFrame | None:
    inputs = _named_inputs(ctx)
    return None if inputs is None else missing_by_ordering(*inputs, resampling=ctx.inputs.resampling)


@DECLARED(
    "missing_lean",
    description="Do invalid answers lean to a pole? (favorable - unfavorable letter named) / answers",
    source="invalid_answers, invalid_texts",
    grouping="model (and pooled)",
    statistic=f"face-level mean lean from integer counts; {FACE_TEST}; face-level bootstrap CI",
    family="all rows (BH)",
)
def _missing_lean(ctx: Context) -> pl.DataFrame | None:
    inputs = _named_inputs(ctx)
    return None if inputs is None else missing_lean(*inputs, resampling=ctx.inputs.resampling)


def _named_inputs(ctx: Context) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The answer counts and the invalid answers by the letter they name, or None without rows."""
    counts = _read(ctx, "invalid_answers")
    if counts is None:
        return None
    return counts, read_once(ctx, "named letters", lambda: _named(_read(ctx, "invalid_texts")))


def _named(texts: pl.DataFrame | None) -> pl.DataFrame:
    """:func:`named_letters` of the invalid texts (no rows without them); made once per run
    (:func:`read_once`): both analyses that take it get the same frame."""
    if texts is not None:
        return named_letters(texts)
    return pl.DataFrame(
        schema={"model_id": pl.String, "face_id": pl.String, "ordering": pl.Int32,
                "named_letter": pl.String, "n_invalid": pl.Int64}
    )  # fmt: skip
