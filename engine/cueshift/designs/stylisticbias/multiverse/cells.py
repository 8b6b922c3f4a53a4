"""The stored judgments read once, as counts per model × image × scenario × ordering, and the Δ and
base φ rows of each specification built from them in polars (no new inference, one read).

:func:`read_cells` counts each cell's favourable, unfavourable and invalid answers, the invalid
answers a lenient reading gives to either pole (each distinct invalid text read once with
:func:`~cueshift.inference.parser.named_letter` under its ordering's letters) and the sums of the
scores at every temperature the multiverse asks for (``sql/views/phi_at.sql``'s formula).
:func:`specification_rows` turns them into the frames of :func:`cueshift.views.read_delta` and
:func:`cueshift.views.read_base_phi` (same columns and row order) for one specification.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.multiverse.choices import Specification
from cueshift.inference.parser import named_letter
from cueshift.store import query
from cueshift.study.scenarios import ORDERING_BY_ID, Scenario
from cueshift.views import BASE_COLUMNS, DELTA_COLUMNS, PLACEBO_FEATURE_KEY, parse_phi

_CELL = ["model_id", "image_id", "scenario_id"]
_COUNTS = [
    "n_favorable",
    "n_unfavorable",
    "n_invalid",
    "lenient_favorable",
    "lenient_unfavorable",
    "n_scored",
]


def _score(temperature: float) -> str:
    """One judgment's P_T as ``phi_at`` computes it."""
    if temperature == 0:
        return "CASE WHEN p_favorable > 0.5 THEN 1.0 WHEN p_favorable < 0.5 THEN 0.0 ELSE 0.5 END"
    return (
        "CASE WHEN p_favorable <= 0 THEN 0.0 WHEN p_favorable >= 1 THEN 1.0 ELSE 1.0 / (1.0 + "
        f"exp(-(ln(p_favorable) - ln(1.0 - p_favorable)) / {float(temperature)!r})) END"
    )


@dataclass(frozen=True)
class StoredCells:
    """What every specification is built from.

    Attributes
    ----------
    cells
        Counts per model × image × scenario × ordering (``_COUNTS``) and ``score_<i>``: the sum of
        the scores at the ``i``-th temperature of ``temperatures``.
    images, scenarios
        The image rows (role, base, evaluated, variation and the face's labels) and the scenarios'
        categories.
    temperatures
        The temperatures of the φ options read from scores.
    failed_edits
        The variations whose stored edit audit failed (``edit_verdict``); ``None``: no audit stored.
    """

    cells: pl.DataFrame
    images: pl.DataFrame
    scenarios: pl.DataFrame
    temperatures: tuple[float, ...]
    failed_edits: frozenset[str] | None


def read_cells(
    con: duckdb.DuckDBPyConnection, models: Sequence[str], phi_options: Sequence[str]
) -> StoredCells:
    """Read the judgments' counts once (optionally of some models) for the φ options given."""
    temperatures = tuple(
        dict.fromkeys(t for t in (parse_phi(o).temperature for o in phi_options) if t is not None)
    )
    where = "WHERE list_contains(?, model_id)" if models else ""
    params: list[object] | None = [list(models)] if models else None
    scores = "".join(f", sum({_score(t)}) AS score_{i}" for i, t in enumerate(temperatures))
    cells = query(
        con,
        "SELECT model_id, image_id, scenario_id, ordering, "
        "count(*) FILTER (WHERE outcome = 'favorable') AS n_favorable, "
        "count(*) FILTER (WHERE outcome = 'unfavorable') AS n_unfavorable, "
        "count(*) FILTER (WHERE outcome = 'invalid') AS n_invalid, "
        f"count(p_favorable) AS n_scored{scores} FROM judgment {where} GROUP BY ALL",
        params,
    )
    cells = cells.join(_lenient(con, models), on=[*_CELL, "ordering"], how="left").with_columns(
        pl.col("lenient_favorable", "lenient_unfavorable").fill_null(0)
    )
    images = query(
        con,
        "SELECT img.image_id, img.face_id, img.role, img.base_image_id, img.evaluated, "
        "img.variation_category, img.feature_key, img.variation_value, "
        "fc.age, fc.gender, fc.ethnicity, fc.body_type "
        "FROM image AS img LEFT JOIN face AS fc ON fc.face_id = img.face_id",
    )
    scenarios = query(con, "SELECT scenario_id, category AS scenario_category FROM scenario")
    failed = query(con, "SELECT image_id, failed FROM edit_verdict")
    failed_edits = frozenset(failed.filter(pl.col("failed"))["image_id"]) if failed.height else None
    return StoredCells(cells, images, scenarios, temperatures, failed_edits)


def _lenient(con: duckdb.DuckDBPyConnection, models: Sequence[str]) -> pl.DataFrame:
    """Per cell × ordering, the invalid answers naming only the favourable or only the other option."""
    subset = " AND list_contains(?, j.model_id)" if models else ""
    invalid = query(
        con,
        "SELECT j.model_id, j.image_id, j.scenario_id, j.ordering, s.favorable, s.unfavorable, "
        "j.response_text, count(*) AS n FROM judgment AS j JOIN scenario AS s USING (scenario_id) "
        f"WHERE j.outcome = 'invalid'{subset} GROUP BY ALL",
        [list(models)] if models else None,
    )
    texts = invalid.select("response_text", "favorable", "unfavorable", "ordering").unique()
    poles = []
    for text, fav, unfav, ordering in texts.iter_rows():
        order = ORDERING_BY_ID[ordering]
        letter = named_letter(text, order.descriptor_by_letter(Scenario("", fav, unfav, "")))
        poles.append(None if letter not in ("a", "b") else letter == order.favorable_letter)
    read = texts.with_columns(pl.Series("favorable_pole", poles, dtype=pl.Boolean))
    named = invalid.join(read, on=["response_text", "favorable", "unfavorable", "ordering"])
    return named.group_by([*_CELL, "ordering"]).agg(
        lenient_favorable=pl.col("n").filter(pl.col("favorable_pole")).sum(),
        lenient_unfavorable=pl.col("n").filter(~pl.col("favorable_pole")).sum(),
    )


def _phi(stored: StoredCells, spec: Specification) -> pl.DataFrame:
    """φ and its valid-answer count per model × image × scenario under ``spec``."""
    cells = stored.cells
    if spec.of("orderings") != "all":
        cells = cells.filter(pl.col("ordering") == int(spec.of("orderings")))
    summed = cells.group_by(_CELL).agg(pl.col(_COUNTS).sum(), pl.col("^score_.*$").sum())
    temperature = parse_phi(spec.of("phi")).temperature
    if temperature is not None:
        score = pl.col(f"score_{stored.temperatures.index(temperature)}")
        valid = pl.col("n_scored")
        return summed.select(*_CELL, phi=pl.when(valid > 0).then(score / valid), n_valid=valid)
    fav, unfav, invalid = pl.col("n_favorable"), pl.col("n_unfavorable"), pl.col("n_invalid")
    if spec.of("parsing") == "lenient":
        fav, unfav = fav + pl.col("lenient_favorable"), unfav + pl.col("lenient_unfavorable")
        invalid = invalid - pl.col("lenient_favorable") - pl.col("lenient_unfavorable")
    valid = fav + unfav + (invalid if spec.of("invalid") == "unfavorable" else 0)
    return summed.select(
        *_CELL, phi=pl.when(valid > 0).then(fav.cast(pl.Float64) / valid), n_valid=valid.cast(pl.Int64)
    )


def specification_rows(stored: StoredCells, spec: Specification) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``delta`` and ``base_phi`` frames of ``spec`` (columns and order of the views' readers)."""
    phi = _phi(stored, spec).filter(pl.col("phi").is_not_null())
    images = stored.images
    variations = images.filter(
        (pl.col("role") == "variation")
        & pl.col("evaluated")
        & (pl.col("feature_key").str.to_lowercase().ne_missing(PLACEBO_FEATURE_KEY))
    )
    if spec.of("audit") == "strict" and stored.failed_edits:
        variations = variations.filter(~pl.col("image_id").is_in(list(stored.failed_edits)))
    base = phi.select(
        "model_id", "scenario_id", base_image_id="image_id", phi_base="phi", n_valid_base="n_valid"
    )
    delta = (
        phi.rename({"phi": "phi_variation", "n_valid": "n_valid_variation"})
        .join(variations, on="image_id")
        .join(base, on=["model_id", "scenario_id", "base_image_id"])
        .join(stored.scenarios, on="scenario_id")
        .with_columns(delta=pl.col("phi_variation") - pl.col("phi_base"))
        .sort("model_id", "face_id", "variation_value", "image_id", "scenario_id")
        .select(DELTA_COLUMNS)
    )
    base_phi = (
        phi.join(images.filter(pl.col("role") == "base"), on="image_id")
        .join(stored.scenarios, on="scenario_id")
        .sort("model_id", "face_id", "image_id", "scenario_id")
        .select(BASE_COLUMNS)
    )
    return delta, base_phi


__all__ = ["StoredCells", "read_cells", "specification_rows"]
