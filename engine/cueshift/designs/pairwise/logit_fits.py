"""Logit models of the two-image pairwise design (seed 002): Bradley–Terry strengths with a
position term and the position-adjusted group effect, fitted by the kernels in
:mod:`cueshift.stats` (logistic / Bradley–Terry fits, Wald intervals, BH).

Trials input: as in :mod:`cueshift.designs.pairwise.win_rates`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.designs.pairwise.win_rates import crossed_trials
from cueshift.stats import WaldResult, bh_by_family, bradley_terry_fit, logistic_fit, wald_test


def _wald_columns(wald: WaldResult, separated: bool) -> dict[str, float | None]:
    """``se, ci_low, ci_high, statistic, p`` of a Wald test; all null for a separated fit."""
    columns = ("se", "ci_low", "ci_high", "statistic", "p")
    if separated:
        return dict.fromkeys(columns)
    kept = (wald.se, wald.ci_low, wald.ci_high, wald.statistic, wald.p_value)
    return dict(zip(columns, kept, strict=True))


def bradley_terry(
    trials: pl.DataFrame, *, confidence: float = 0.95, prior_games: float = 1.0
) -> pl.DataFrame:
    r"""Bradley–Terry strengths with a position (home) term, per model × cohort.

    .. math::

        \operatorname{logit} P(\text{left wins}) = h + \theta_{\text{left}} - \theta_{\text{right}},

    fitted per cell by :func:`cueshift.stats.bradley_terry_fit` (``prior_games`` virtual games
    per stimulus against an opponent of strength 0, half won, half lost); strengths centred
    (:math:`\sum_j \theta_j = 0`) with Wald intervals (:func:`cueshift.stats.wald_test`). Row
    ``term = 'position'`` is :math:`h` (log-odds of choosing the left image). Cells still
    (quasi-)separated get NULL estimates and ``separated = true``.

    References
    ----------
    .. [1] Bradley, R. A. & Terry, M. E. (1952). *Biometrika* 39, 324–345.
    .. [2] Agresti, A. (2013). *Categorical Data Analysis*, 3rd ed., §11.6.
    """
    rows: list[dict[str, object]] = []
    valid = trials.filter(pl.col("winner_image_id").is_not_null())
    for (model_id, cohort), part in valid.group_by(["model_id", "cohort"], maintain_order=True):
        groups = dict(zip(part["left_image_id"], part["left_group"], strict=True)) | dict(
            zip(part["right_image_id"], part["right_group"], strict=True)
        )
        stimuli = sorted(groups)
        index = {s: i for i, s in enumerate(stimuli)}
        fit = bradley_terry_fit(
            np.array([index[s] for s in part["left_image_id"]], dtype=np.int64),
            np.array([index[s] for s in part["right_image_id"]], dtype=np.int64),
            (part["winner_image_id"] == part["left_image_id"]).to_numpy().astype(float),
            len(stimuli),
            prior_games=prior_games,
        )
        terms = [("position", None, fit.position, fit.position_var)] + [
            (s, groups[s], float(fit.strengths[index[s]]), float(fit.strength_vars[index[s]]))
            for s in stimuli
        ]
        for term, group, est, var in terms:
            wald = wald_test(est, var, confidence)
            rows.append(
                {
                    "model_id": model_id,
                    "cohort": cohort,
                    "term": term,
                    "stimulus_group": group,
                    "estimate": None if fit.separated else est,
                    **_wald_columns(wald, fit.separated),
                    "n": part.height,
                    "separated": fit.separated,
                }
            )
    schema = {
        "model_id": pl.String,
        "cohort": pl.String,
        "term": pl.String,
        "stimulus_group": pl.String,
        "estimate": pl.Float64,
        "se": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "p": pl.Float64,
        "n": pl.Int64,
        "separated": pl.Boolean,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(
        pl.lit("bradley-terry-wald").alias("test"), pl.lit(prior_games).alias("prior_games")
    )


def group_effect(
    trials: pl.DataFrame, *, target: str, other: str, confidence: float = 0.95, bh_family: Sequence[str] = ()
) -> pl.DataFrame:
    r"""Position-adjusted preference for the target group, per model × cohort:

    .. math:: \operatorname{logit} P(\text{left wins}) = h + \beta\,(g_{\text{left}} - g_{\text{right}}),

    :math:`g = 1` for a target-group stimulus. ``estimate`` is :math:`\beta` (log odds that the
    target-group image wins at equal position) with a Wald interval; ``odds_ratio`` is
    :math:`e^\beta`; ``position`` is :math:`h`.
    """
    rows = []
    for (model_id, cohort), part in crossed_trials(trials, target, other).group_by(
        ["model_id", "cohort"], maintain_order=True
    ):
        g = (part["left_group"] == target).cast(pl.Float64).to_numpy() - (part["right_group"] == target).cast(
            pl.Float64
        ).to_numpy()
        y = (part["winner_image_id"] == part["left_image_id"]).to_numpy().astype(float)
        fit = logistic_fit(y, np.column_stack([np.ones(part.height), g]))
        beta = float(fit.params[1])
        wald = _wald_columns(wald_test(beta, float(fit.cov[1, 1]), confidence), fit.separated)
        rows.append(
            {
                "model_id": model_id,
                "cohort": cohort,
                "estimate": None if fit.separated else beta,
                "ci_low": wald["ci_low"],
                "ci_high": wald["ci_high"],
                "statistic": wald["statistic"],
                "p": wald["p"],
                "odds_ratio": None if fit.separated else math.exp(beta),
                "position": None if fit.separated else float(fit.params[0]),
                "n": part.height,
                "separated": fit.separated,
            }
        )
    schema = {
        "model_id": pl.String,
        "cohort": pl.String,
        "estimate": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "p": pl.Float64,
        "odds_ratio": pl.Float64,
        "position": pl.Float64,
        "n": pl.Int64,
        "separated": pl.Boolean,
    }
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return bh_by_family(frame, list(bh_family)).with_columns(
        pl.lit(target).alias("target_group"), pl.lit("logit-wald").alias("test")
    )
