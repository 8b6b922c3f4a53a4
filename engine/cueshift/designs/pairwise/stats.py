r"""Statistics of the two-image pairwise design and its 0-10 ratings (seed 002).

Trials input (one row per stored trial): ``model_id, scenario_id, seed, left_image_id,
right_image_id, winner_image_id`` (NULL when invalid), ``cohort, left_group, right_group``.
Ratings input: ``rater_kind, rater_id, image_id, attribute, rating`` (NULL when invalid),
``cohort, stimulus_group``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl
from scipy import stats as sps

from cueshift.designs._results import adjust_by_family

PseudoCount = Literal["always", "extreme", "none"]


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""Wilson score interval for a binomial proportion :math:`\hat p = k/n`.

    .. math::

        \frac{\hat p + \frac{z^2}{2n}}{1 + \frac{z^2}{n}} \pm
        \frac{z}{1 + \frac{z^2}{n}} \sqrt{\frac{\hat p (1 - \hat p)}{n} + \frac{z^2}{4n^2}},
        \qquad z = \Phi^{-1}\!\left(\tfrac{1 + \text{confidence}}{2}\right)

    References
    ----------
    Wilson, E. B. (1927). *JASA* 22, 209–212. Seed 002 Tables 3–4 ("95% Wilson").
    """
    if n <= 0:
        return math.nan, math.nan
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    p = k / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


def binomial_test(k: int, n: int, p0: float = 0.5) -> float:
    r"""Exact two-sided binomial test of :math:`H_0: p = p_0`.

    .. math::

        p = \sum_{i:\ P(X = i) \le P(X = k)} \binom{n}{i} p_0^i (1 - p_0)^{n - i},

    the sum over outcomes no more likely than the observed one (relative tolerance
    :math:`10^{-7}`, the convention of ``scipy.stats.binomtest``). Seed 002 Table 4.
    """
    if n <= 0:
        return math.nan
    pmf = sps.binom.pmf(np.arange(n + 1), n, p0)
    return float(min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum()))


def odds_ratio(k: int, n: int, rule: PseudoCount = "always") -> float:
    r"""Odds of a win, :math:`\hat p / (1 - \hat p)` (seed 002 Table 4's "OR").

    With the 0.5 pseudo-count, :math:`\hat p = (k + 0.5)/(n + 1)` and the odds are
    :math:`(k + 0.5)/(n - k + 0.5)`. ``rule``: ``'always'`` applies it to every row (it
    reproduces the published ORs of all rows with k ≥ 27 and 9/40, 18/40, 20/40),
    ``'extreme'`` only at k = 0 or k = n (the caption's wording), ``'none'`` never
    (infinite at k = n).
    """
    if n <= 0:
        return math.nan
    if rule == "always" or (rule == "extreme" and k in (0, n)):
        return (k + 0.5) / (n - k + 0.5)
    return math.inf if k == n else k / (n - k)


def proportion_rows(
    frame: pl.DataFrame, *, confidence: float = 0.95, pseudo_count: PseudoCount = "always", p0: float = 0.5
) -> pl.DataFrame:
    """Add ``estimate`` (k/n), Wilson ``ci_low``/``ci_high``, the exact two-sided binomial
    ``p_value`` against ``p0`` and ``odds_ratio`` to a frame with integer columns ``k`` and ``n``."""
    ks, ns = frame["k"].to_list(), frame["n"].to_list()
    bounds = [wilson_interval(k, n, confidence) for k, n in zip(ks, ns, strict=True)]
    return frame.with_columns(
        pl.Series("estimate", [k / n if n else None for k, n in zip(ks, ns, strict=True)], dtype=pl.Float64),
        pl.Series("ci_low", [b[0] for b in bounds], dtype=pl.Float64),
        pl.Series("ci_high", [b[1] for b in bounds], dtype=pl.Float64),
        pl.Series(
            "p_value", [binomial_test(k, n, p0) for k, n in zip(ks, ns, strict=True)], dtype=pl.Float64
        ),
        pl.Series(
            "odds_ratio",
            [odds_ratio(k, n, pseudo_count) for k, n in zip(ks, ns, strict=True)],
            dtype=pl.Float64,
        ),
    )


def _crossed(trials: pl.DataFrame, target: str, other: str) -> pl.DataFrame:
    """Valid trials of a target-group stimulus against an other-group stimulus, with ``target_won``."""
    groups = {target, other}
    return trials.filter(
        pl.col("winner_image_id").is_not_null()
        & (pl.col("left_group") != pl.col("right_group"))
        & pl.col("left_group").is_in(list(groups))
        & pl.col("right_group").is_in(list(groups))
    ).with_columns(
        pl.when(pl.col("winner_image_id") == pl.col("left_image_id"))
        .then(pl.col("left_group"))
        .otherwise(pl.col("right_group"))
        .eq(target)
        .alias("target_won")
    )


def cohort_preference(
    trials: pl.DataFrame,
    *,
    target: str,
    other: str,
    confidence: float = 0.95,
    bh_family: Sequence[str] = (),
    pseudo_count: PseudoCount = "always",
) -> pl.DataFrame:
    r"""Cohort-level proportion of trials won by the target group (seed 002 Tables 3–4).

    Per model × cohort: :math:`k` target wins of :math:`n` valid crossed trials (both left/right
    orders pooled, so a position bias cancels in a balanced design), :math:`\hat p = k/n`,
    Wilson interval, exact two-sided binomial test against 0.5, BH over ``bh_family``
    (``()``: all model × cohort tests, the paper's 30) and the odds ratio.
    """
    crossed = _crossed(trials, target, other)
    counts = crossed.group_by(["model_id", "cohort"], maintain_order=True).agg(
        pl.col("target_won").sum().cast(pl.Int64).alias("k"), pl.len().cast(pl.Int64).alias("n")
    )
    n_invalid = (
        trials.filter(pl.col("winner_image_id").is_null())
        .group_by(["model_id", "cohort"])
        .agg(pl.len().cast(pl.Int64).alias("n_invalid"))
    )
    rows = proportion_rows(
        counts.sort(["model_id", "cohort"]), confidence=confidence, pseudo_count=pseudo_count
    )
    rows = adjust_by_family(rows, list(bh_family), "bh")
    return rows.join(n_invalid, on=["model_id", "cohort"], how="left").with_columns(
        pl.col("n_invalid").fill_null(0),
        pl.lit(target).alias("target_group"),
        pl.lit("binomial-exact").alias("test"),
        pl.lit(pseudo_count).alias("pseudo_count"),
    )


def stimulus_win_rates(
    trials: pl.DataFrame,
    *,
    confidence: float = 0.95,
    bh_family: Sequence[str] = (),
    pseudo_count: PseudoCount = "always",
) -> pl.DataFrame:
    """Per-stimulus win rate (seed 002 Tables 1–2): wins of each image over its valid trials,
    Wilson interval, binomial test against 0.5, BH over ``bh_family`` (+ stimulus group)."""
    valid = trials.filter(pl.col("winner_image_id").is_not_null())
    sides = [
        valid.select(
            "model_id",
            "cohort",
            pl.col(f"{side}_image_id").alias("image_id"),
            pl.col(f"{side}_group").alias("stimulus_group"),
            (pl.col("winner_image_id") == pl.col(f"{side}_image_id")).alias("won"),
        )
        for side in ("left", "right")
    ]
    counts = (
        pl.concat(sides)
        .group_by(["model_id", "cohort", "stimulus_group", "image_id"])
        .agg(pl.col("won").sum().cast(pl.Int64).alias("k"), pl.len().cast(pl.Int64).alias("n"))
    )
    rows = proportion_rows(
        counts.sort(["model_id", "cohort", "stimulus_group", "image_id"]),
        confidence=confidence,
        pseudo_count=pseudo_count,
    )
    return adjust_by_family(rows, [*bh_family, "stimulus_group"], "bh").with_columns(
        pl.lit("binomial-exact").alias("test")
    )


def position_bias(trials: pl.DataFrame, *, confidence: float = 0.95) -> pl.DataFrame:
    r"""Position bias per model: :math:`P(\text{left wins})` with a Wilson interval and the exact
    binomial test against 0.5, and, for pairs asked in both orders (same seed), the share
    ``consistency`` whose winner is the same image in both orders (1 − the share decided by
    position alone)."""
    valid = trials.filter(pl.col("winner_image_id").is_not_null()).with_columns(
        (pl.col("winner_image_id") == pl.col("left_image_id")).alias("left_won")
    )
    counts = valid.group_by("model_id", maintain_order=True).agg(
        pl.col("left_won").sum().cast(pl.Int64).alias("k"), pl.len().cast(pl.Int64).alias("n")
    )
    rows = proportion_rows(counts.sort("model_id"), confidence=confidence)
    keyed = valid.with_columns(
        pl.min_horizontal("left_image_id", "right_image_id").alias("__a"),
        pl.max_horizontal("left_image_id", "right_image_id").alias("__b"),
    )
    pairs = (
        keyed.group_by(["model_id", "scenario_id", "seed", "__a", "__b"])
        .agg(pl.len().alias("__n"), pl.col("winner_image_id").n_unique().alias("__winners"))
        .filter(pl.col("__n") == 2)
    )
    consistency = pairs.group_by("model_id").agg(
        (pl.col("__winners") == 1).mean().alias("consistency"),
        pl.len().cast(pl.Int64).alias("n_swapped_pairs"),
    )
    return rows.join(consistency, on="model_id", how="left").with_columns(
        (pl.col("estimate") - 0.5).alias("left_excess"), pl.lit("binomial-exact").alias("test")
    )


def _logit_fit(
    y: np.ndarray, x: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Logistic regression by statsmodels; returns (params, covariance, separated)."""
    import statsmodels.api as sm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = sm.GLM(y, x, family=sm.families.Binomial(), freq_weights=weights).fit()
        except Exception:  # perfect separation or a singular design
            return np.full(x.shape[1], np.nan), np.full((x.shape[1], x.shape[1]), np.nan), True
    params, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
    separated = bool(np.any(np.abs(params) > 15) or not np.all(np.isfinite(cov)))
    return params, cov, separated


def bradley_terry(
    trials: pl.DataFrame, *, confidence: float = 0.95, prior_games: float = 1.0
) -> pl.DataFrame:
    r"""Bradley–Terry strengths with a position (home) term, per model × cohort.

    .. math::

        \operatorname{logit} P(\text{left wins}) = h + \theta_{\text{left}} - \theta_{\text{right}},

    fitted by maximum likelihood (logistic regression). ``prior_games`` > 0 adds, for every
    stimulus, that many virtual games against a virtual opponent of strength 0, half won
    and half lost (a weak shrinkage toward equal strength that keeps estimates finite when a
    stimulus wins or loses every trial); 0 gives the plain MLE with one stimulus as
    reference. Strengths are reported centred (:math:`\sum_j \theta_j = 0`) with Wald
    intervals from the transformed covariance :math:`C V C^\top`, :math:`C = I - \tfrac{1}{m}J`.
    Row ``term = 'position'`` is :math:`h` (log-odds of choosing the left image). Cells still
    (quasi-)separated get NULL estimates and ``separated = true``.

    References
    ----------
    Bradley, R. A. & Terry, M. E. (1952). *Biometrika* 39, 324–345; Agresti (2013), §11.6.
    """
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    rows: list[dict[str, object]] = []
    valid = trials.filter(pl.col("winner_image_id").is_not_null())
    for (model_id, cohort), part in valid.group_by(["model_id", "cohort"], maintain_order=True):
        groups = dict(zip(part["left_image_id"], part["left_group"], strict=True)) | dict(
            zip(part["right_image_id"], part["right_group"], strict=True)
        )
        stimuli = sorted(groups)
        index = {s: i for i, s in enumerate(stimuli)}
        m = len(stimuli)
        x = np.zeros((part.height, m))
        x[np.arange(part.height), [index[s] for s in part["left_image_id"]]] += 1.0
        x[np.arange(part.height), [index[s] for s in part["right_image_id"]]] -= 1.0
        y = (part["winner_image_id"] == part["left_image_id"]).to_numpy().astype(float)
        if prior_games > 0:
            virtual = np.vstack([np.eye(m), np.eye(m)])
            design = np.vstack(
                [np.column_stack([np.ones(part.height), x]), np.column_stack([np.zeros(2 * m), virtual])]
            )
            y_all = np.concatenate([y, np.ones(m), np.zeros(m)])
            weights = np.concatenate([np.ones(part.height), np.full(2 * m, prior_games / 2)])
            params, cov, separated = _logit_fit(y_all, design, weights)
            full, vfull = params[1:], cov[1:, 1:]
        else:
            params, cov, separated = _logit_fit(y, np.column_stack([np.ones(part.height), x[:, :-1]]))
            full = np.append(params[1:], 0.0)
            vfull = np.zeros((m, m))
            vfull[:-1, :-1] = cov[1:, 1:]
        c = np.eye(m) - np.ones((m, m)) / m
        centred, vc = c @ full, c @ vfull @ c.T
        terms = [("position", None, params[0], cov[0, 0])] + [
            (s, groups[s], centred[index[s]], vc[index[s], index[s]]) for s in stimuli
        ]
        for term, group, est, var in terms:
            se = math.sqrt(var) if var >= 0 and not separated else math.nan
            ok = not separated and math.isfinite(se) and se > 0
            rows.append(
                {
                    "model_id": model_id,
                    "cohort": cohort,
                    "term": term,
                    "stimulus_group": group,
                    "estimate": None if separated else float(est),
                    "se": se if ok else None,
                    "ci_low": float(est - z * se) if ok else None,
                    "ci_high": float(est + z * se) if ok else None,
                    "statistic": float(est / se) if ok else None,
                    "p_value": float(2 * sps.norm.sf(abs(est / se))) if ok else None,
                    "n": part.height,
                    "separated": separated,
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
        "p_value": pl.Float64,
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
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    rows = []
    for (model_id, cohort), part in _crossed(trials, target, other).group_by(
        ["model_id", "cohort"], maintain_order=True
    ):
        g = (part["left_group"] == target).cast(pl.Float64).to_numpy() - (part["right_group"] == target).cast(
            pl.Float64
        ).to_numpy()
        y = (part["winner_image_id"] == part["left_image_id"]).to_numpy().astype(float)
        params, cov, separated = _logit_fit(y, np.column_stack([np.ones(part.height), g]))
        se = math.sqrt(cov[1, 1]) if not separated else math.nan
        ok = not separated and se > 0
        rows.append(
            {
                "model_id": model_id,
                "cohort": cohort,
                "estimate": None if separated else params[1],
                "ci_low": params[1] - z * se if ok else None,
                "ci_high": params[1] + z * se if ok else None,
                "statistic": params[1] / se if ok else None,
                "p_value": float(2 * sps.norm.sf(abs(params[1] / se))) if ok else None,
                "odds_ratio": math.exp(params[1]) if not separated else None,
                "position": None if separated else params[0],
                "n": part.height,
                "separated": separated,
            }
        )
    schema = {
        "model_id": pl.String,
        "cohort": pl.String,
        "estimate": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "p_value": pl.Float64,
        "odds_ratio": pl.Float64,
        "position": pl.Float64,
        "n": pl.Int64,
        "separated": pl.Boolean,
    }
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return adjust_by_family(frame, list(bh_family), "bh").with_columns(
        pl.lit(target).alias("target_group"), pl.lit("logit-wald").alias("test")
    )


# --------------------------------------------------------------------------- ratings


def assign_bins(
    values: Sequence[float | None], bins: Sequence[tuple[str, float, float, str]]
) -> list[str | None]:
    """Label of the bin holding each value; bins are ``(label, low, high, closed)`` with
    ``closed`` in left/right/both/neither. ``None`` for a missing value or one in no bin."""
    out: list[str | None] = []
    for v in values:
        label = None
        if v is not None and not math.isnan(v):
            for name, low, high, closed in bins:
                lo_ok = v >= low if closed in ("left", "both") else v > low
                hi_ok = v <= high if closed in ("right", "both") else v < high
                if lo_ok and hi_ok:
                    label = name
                    break
        out.append(label)
    return out


def _rater_label(ratings: pl.DataFrame) -> pl.DataFrame:
    """Humans pooled as one rater ``(humans)``; each model its own rater."""
    return ratings.with_columns(
        pl.when(pl.col("rater_kind") == "human")
        .then(pl.lit("(humans)"))
        .otherwise(pl.col("rater_id"))
        .alias("rater")
    )


def rating_summary(ratings: pl.DataFrame, *, confidence: float = 0.95) -> pl.DataFrame:
    r"""Mean rating per rater (models; humans pooled) × cohort × stimulus group, with the t
    interval :math:`\bar x \pm t_{1-\alpha/2,n-1} s/\sqrt n` and the count of invalid answers."""
    labelled = _rater_label(ratings)
    agg = labelled.group_by(["rater_kind", "rater", "attribute", "cohort", "stimulus_group"]).agg(
        pl.col("rating").mean().alias("estimate"),
        pl.col("rating").std().alias("sd"),
        pl.col("rating").is_not_null().sum().cast(pl.Int64).alias("n"),
        pl.col("rating").is_null().sum().cast(pl.Int64).alias("n_invalid"),
    )
    half = [
        float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
        if n > 1 and sd is not None
        else None
        for n, sd in agg.select("n", "sd").iter_rows()
    ]
    return (
        agg.with_columns(pl.Series("__half", half, dtype=pl.Float64))
        .with_columns(
            (pl.col("estimate") - pl.col("__half")).alias("ci_low"),
            (pl.col("estimate") + pl.col("__half")).alias("ci_high"),
        )
        .drop("__half")
        .sort(["rater_kind", "rater", "attribute", "cohort", "stimulus_group"])
    )


def rating_bins(
    ratings: pl.DataFrame, bins: Sequence[tuple[str, float, float, str]], *, confidence: float = 0.95
) -> pl.DataFrame:
    """Share of valid ratings in each bin (seed 002 Fig. 6) per rater × attribute × cohort,
    with Wilson intervals; every bin appears (zero counts included)."""
    labelled = _rater_label(ratings).filter(pl.col("rating").is_not_null())
    labelled = labelled.with_columns(
        pl.Series("bin", assign_bins(labelled["rating"].to_list(), bins), dtype=pl.String)
    )
    keys = ["rater_kind", "rater", "attribute", "cohort"]
    totals = labelled.group_by(keys).agg(pl.len().cast(pl.Int64).alias("n"))
    grid = totals.join(
        pl.DataFrame({"bin": [b[0] for b in bins], "bin_order": list(range(len(bins)))}), how="cross"
    )
    counts = labelled.group_by([*keys, "bin"]).agg(pl.len().cast(pl.Int64).alias("k"))
    rows = grid.join(counts, on=[*keys, "bin"], how="left").with_columns(pl.col("k").fill_null(0))
    rows = proportion_rows(rows.sort([*keys, "bin_order"]), confidence=confidence)
    return rows.drop("p_value", "odds_ratio")
