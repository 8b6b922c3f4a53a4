"""The probe report's baselines: the similarity beside its random-weight twin and the image statistics
(Table 6), and each model against its random twin (Table 7). Table 6 leaves out its random-twin
columns, and says so, when no model of the report has a twin (:class:`TwinColumnsSpec`)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from dataclasses import dataclass, replace

import polars as pl

from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    Col,
    Styled,
    TableSpec,
    ci,
    fmt_integer,
    number,
    stub,
)

#: Table 6's columns of the random-weight twin: left out when no model of the report has one.
TWIN_COLUMNS = ("random_similarity", "random_low")
_TWIN_NOTE = (
    "ρ random twin: the same for the model's architecture with random weights (settings.random_init; "
    "blank without a twin). "
)
_NO_TWIN_NOTE = (
    "No random twin was run for the models of this report (a twin: a CLIP model with "
    "settings.random_init = true, or [probe] random_twins = true), so Table 6 has no random-twin "
    "columns and Table 7 is left out."
)


@dataclass(frozen=True)
class TwinColumnsSpec(TableSpec):
    """A table whose random-twin columns (:data:`TWIN_COLUMNS`) are left out when every row's
    twin similarity is missing, its notes then saying no twin was run."""

    def build(self, frame: pl.DataFrame) -> Styled:
        """The table of :meth:`TableSpec.build`, without the twin columns when no row has a twin."""
        if frame.height == 0 or frame["random_similarity"].is_not_null().any():
            return super().build(frame)
        columns = tuple(c for c in self.columns if c.name not in TWIN_COLUMNS)
        notes = (self.notes[0].replace(_TWIN_NOTE, ""), _NO_TWIN_NOTE, *self.notes[1:])
        return TableSpec.build(replace(self, columns=columns, notes=notes), frame)


BASELINE_TABLES: tuple[TableSpec, ...] = (
    TwinColumnsSpec(
        key="probe_baselines",
        title="Table 6. Similarity beside its baselines: random-weight twin, image statistics alone, net of them",
        sql=f"""SELECT model_id, attribute, similarity, similarity_low, similarity_high, random_similarity,
                   random_low, random_high, pixels_estimate, pixels_low, pixels_high, pixels_r2,
                   partial_estimate, partial_low, partial_high, partial_p_adj, n
            FROM result_probe_baselines WHERE {MODELS_FILTER} ORDER BY model_id, attribute""",
        columns=(
            stub("attribute", "Attribute"),
            Col("similarity", "ρ model", number(2)),
            Col("similarity_low", CI_LABEL, ci(2), args=("similarity_high",)),
            Col("random_similarity", "ρ random twin", number(2)),
            Col("random_low", CI_LABEL, ci(2), args=("random_high",)),
            Col("pixels_estimate", "ρ image statistics", number(2)),
            Col("pixels_low", CI_LABEL, ci(2), args=("pixels_high",)),
            Col("pixels_r2", "CV R²", number(2)),
            Col("partial_estimate", "ρ net of image statistics", number(2), p="partial_p_adj"),
            Col("partial_low", CI_LABEL, ci(2), args=("partial_high",)),
            Col("n", "Stimuli", fmt_integer),
        ),
        group="model_id",
        notes=(
            "ρ model: Spearman ρ of model scores and human means (Eq. 4). "
            + _TWIN_NOTE
            + "ρ image statistics: out-of-fold Spearman ρ between the human means and their k-fold "
            "cross-validated ridge prediction from the image statistics (tone, colour, sharpness, framing; "
            "whole image and face region), with its out-of-fold R². ρ net of image statistics: partial "
            "Spearman ρ of model scores and human means given the image statistics, t test with BH over "
            "attributes per model. Intervals: Fisher z with the Bonett–Wright standard error.",
            EMPHASIS_LEGEND,
        ),
        notes_sql="""SELECT max(folds) || ' folds over images, ridge penalty ' || printf('%g', max(ridge))
                        || ' on the standardised statistics, ' || max(n_measures) || ' varying statistics.'
                     FROM result_probe_baselines WHERE folds IS NOT NULL HAVING count(*) > 0""",
        requires=("result_probe_baselines",),
    ),
    TableSpec(
        key="probe_twin",
        title="Table 7. Each model against its random twin: which attributes the trained weights capture",
        sql=f"""SELECT model_id, attribute, similarity, random_similarity, twin_difference, twin_low, twin_high,
                   twin_p_adj, twin_partial_difference, twin_partial_low, twin_partial_high,
                   twin_partial_p_adj, verdict, twin_n
            FROM result_probe_baselines WHERE verdict IS NOT NULL AND {MODELS_FILTER}
            ORDER BY model_id, twin_difference DESC NULLS LAST, attribute""",
        columns=(
            stub("attribute", "Attribute"),
            Col("similarity", "ρ model", number(2)),
            Col("random_similarity", "ρ twin", number(2)),
            Col("twin_difference", "ρ − twin", number(2), p="twin_p_adj"),
            Col("twin_low", CI_LABEL, ci(2), args=("twin_high",)),
            Col("twin_partial_difference", "partial ρ − twin", number(2), p="twin_partial_p_adj"),
            Col("twin_partial_low", CI_LABEL, ci(2), args=("twin_partial_high",)),
            Col("verdict", "Verdict", align="left"),
            Col("twin_n", "Faces", fmt_integer),
        ),
        group="model_id",
        notes=(
            "A similarity is the model's own only where it exceeds what the same architecture reaches "
            "with random weights, through the same preprocessing on the same faces: the null that counts. "
            "ρ − twin: the model's Spearman ρ with the human means minus its random-weight twin's, on the "
            "same faces; partial ρ − twin: the same for the partial ρ net of the image statistics. "
            "Intervals and p: face-level paired bootstrap (faces resampled, both correlations recomputed; "
            "percentile interval, p from the share of replicates beyond 0), BH over attributes per model. "
            "Verdict: captured (ρ and, with image statistics, partial ρ above the twin's), image statistics "
            "only (ρ above the twin's, partial ρ not), as random twin, below random twin.",
            EMPHASIS_LEGEND,
        ),
        notes_sql="""SELECT max(twin_resamples) || ' bootstrap replicates of the faces.'
                     FROM result_probe_baselines WHERE twin_resamples IS NOT NULL HAVING count(*) > 0""",
        requires=("result_probe_baselines",),
        optional=True,  # only models with a random twin ([probe] random_twins = true for CLIP models)
    ),
)
