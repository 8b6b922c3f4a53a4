r"""Statistics of human impressions vs model probes (seed 004) and inter-rater reliability.

Inputs: human ratings in long form (``rater_id, image_id, attribute, rating``), human means
per stimulus (``image_id, attribute, mean``) and model scores (``model_id, image_id,
attribute, score``: CLIP's :math:`m` or P(favorable), or a VLM's :math:`\phi`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl
from numpy.typing import ArrayLike, NDArray
from scipy import stats as sps
from scipy.cluster import hierarchy
from scipy.spatial.distance import squareform

from cueshift.designs._results import adjust_by_family

Level = Literal["nominal", "ordinal", "interval", "ratio"]
F64 = NDArray[np.float64]


# --------------------------------------------------------------------------- reliability


def spearman_brown(r: float, factor: float = 2.0) -> float:
    r"""Spearman–Brown prophecy: reliability of a panel ``factor`` times larger,
    :math:`r' = k r / (1 + (k - 1) r)` (split-half: :math:`k = 2`, :math:`2r/(1+r)`)."""
    return factor * r / (1.0 + (factor - 1.0) * r)


def _ratio_delta2(values: F64) -> F64:
    total = values[:, None] + values[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total == 0, 0.0, ((values[:, None] - values[None, :]) / total) ** 2)


def _pair_sum(t: F64) -> float:
    r""":math:`\sum_{i \ne j} (t_i - t_j)^2 = 2 (m \sum t^2 - (\sum t)^2)`."""
    return 2.0 * (t.size * float(np.sum(t * t)) - float(np.sum(t)) ** 2)


def krippendorff_alpha(reliability_data: ArrayLike, level: Level = "interval") -> float:
    r"""Krippendorff's :math:`\alpha` of a raters × units matrix (NaN = not rated).

    From the coincidence matrix over pairable values (units with at least two values),

    .. math::

        o_{ck} = \sum_u \frac{\#\{(i, j),\, i \ne j:\ v_{iu} = c,\ v_{ju} = k\}}{m_u - 1}, \quad
        n_c = \sum_k o_{ck}, \quad
        \alpha = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta^2_{ck}}{\sum_{c,k} n_c n_k\, \delta^2_{ck}},

    with :math:`\delta^2_{ck}` = :math:`[c \ne k]` (nominal), :math:`(c - k)^2` (interval),
    :math:`((c-k)/(c+k))^2` (ratio) or :math:`\big(\sum_{g=c}^{k} n_g - \frac{n_c + n_k}{2}\big)^2`
    (ordinal). The ordinal metric equals the interval metric on the mid-ranks
    :math:`r_c = \sum_{g<c} n_g + n_c/2`, and for squared differences both sums reduce to
    :math:`\sum_{i \ne j}(t_i - t_j)^2 = 2(m\sum t^2 - (\sum t)^2)` per unit and overall, so
    nominal, interval and ordinal cost O(N) whatever the number of distinct values.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School
    for Communication, Departmental Papers 43 (its worked example: nominal .743, ordinal
    .815, interval .849, ratio .797). Seed 002 App. C.2 (ordinal alpha of 0-10 ratings).
    """
    data = np.asarray(reliability_data, dtype=np.float64)
    units = [col[~np.isnan(col)] for col in data.T]
    units = [u for u in units if u.size >= 2]
    if not units:
        return math.nan
    pooled = np.concatenate(units)
    values, counts = np.unique(pooled, return_counts=True)
    n = float(pooled.size)
    if values.size < 2:
        return math.nan
    if level == "nominal":
        observed = sum(
            (u.size**2 - float(np.sum(np.unique(u, return_counts=True)[1] ** 2))) / (u.size - 1)
            for u in units
        )
        expected = n * n - float(np.sum(counts.astype(np.float64) ** 2))
    elif level in ("interval", "ordinal"):
        if level == "ordinal":
            ranks = np.cumsum(counts) - counts / 2.0
            transform = lambda u: ranks[np.searchsorted(values, u)]  # noqa: E731
        else:
            transform = lambda u: u  # noqa: E731
        observed = sum(_pair_sum(transform(u)) / (u.size - 1) for u in units)
        expected = _pair_sum(transform(pooled))
    else:
        d2 = _ratio_delta2(values)
        index = {v: i for i, v in enumerate(values.tolist())}
        o = np.zeros((values.size, values.size))
        for u in units:
            c = np.bincount([index[v] for v in u.tolist()], minlength=values.size).astype(np.float64)
            o += (np.outer(c, c) - np.diag(c)) / (u.size - 1)
        n_c = o.sum(axis=1)
        observed, expected = float(np.sum(o * d2)), float(np.sum(np.outer(n_c, n_c) * d2))
    if expected == 0:
        return math.nan
    return 1.0 - (n - 1) * observed / expected


def rating_matrix(ratings: pl.DataFrame) -> F64:
    """Raters × units matrix (NaN = not rated) from long ``rater_id, image_id, rating`` rows."""
    wide = ratings.filter(pl.col("rating").is_not_null()).pivot(
        on="image_id", index="rater_id", values="rating", aggregate_function="first"
    )
    return wide.drop("rater_id").to_numpy().astype(np.float64)


def krippendorff_by_attribute(ratings: pl.DataFrame) -> pl.DataFrame:
    """Interval and ordinal :math:`\\alpha` of the human ratings of each attribute."""
    rows = []
    for (attribute,), part in ratings.group_by("attribute", maintain_order=True):
        matrix = rating_matrix(part)
        for level in ("interval", "ordinal"):
            rows.append(
                {
                    "attribute": attribute,
                    "level": level,
                    "estimate": krippendorff_alpha(matrix, level),  # type: ignore[arg-type]
                    "n_units": int(np.sum((~np.isnan(matrix)).sum(axis=0) >= 2)),
                    "n_raters": matrix.shape[0],
                    "n": int((~np.isnan(matrix)).sum()),
                }
            )
    return pl.DataFrame(rows).with_columns(pl.lit("krippendorff-alpha").alias("test"))


def split_half_reliability(
    ratings: pl.DataFrame,
    *,
    n_splits: int = 100,
    seed: int = 0,
    method: Literal["pearson", "spearman"] = "pearson",
) -> dict[str, float]:
    r"""Split-half reliability of per-stimulus means, Spearman–Brown corrected, over random rater splits.

    Each split assigns the raters at random to two halves (sizes :math:`\lfloor R/2 \rfloor` and
    :math:`\lceil R/2 \rceil`), averages each stimulus's ratings within each half, correlates
    the two mean vectors over stimuli rated in both halves (:math:`r`) and corrects to the full
    panel, :math:`r_{SB} = 2r/(1+r)`. ``estimate`` is the mean :math:`r_{SB}` over splits;
    ``split_low``/``split_high`` are its 2.5 / 97.5 percentiles over splits (spread of the
    random split, not a sampling interval). Seed 004's "Human IRR" (Peterson et al. 2022).
    """
    valid = ratings.filter(pl.col("rating").is_not_null())
    raters = sorted(valid["rater_id"].unique().to_list())
    corrected: list[float] = []
    raw: list[float] = []
    rng = np.random.default_rng(seed)
    splits = n_splits if len(raters) >= 2 else 0  # a single rater has no halves
    for _ in range(splits):
        half = set(rng.permutation(raters)[: len(raters) // 2].tolist())
        means = (
            valid.with_columns(pl.col("rater_id").is_in(list(half)).alias("__a"))
            .group_by(["image_id", "__a"])
            .agg(pl.col("rating").mean())
            .pivot(on="__a", index="image_id", values="rating")
            .drop_nulls()
        )
        if means.height < 3 or means.width < 3:
            continue
        a, b = means["true"].to_numpy(), means["false"].to_numpy()
        r = float(sps.pearsonr(a, b)[0] if method == "pearson" else sps.spearmanr(a, b)[0])
        if math.isnan(r):
            continue
        raw.append(r)
        corrected.append(spearman_brown(r))
    if not corrected:
        return {
            "estimate": math.nan,
            "raw_r": math.nan,
            "split_low": math.nan,
            "split_high": math.nan,
            "n_raters": len(raters),
            "n_splits": 0,
        }
    return {
        "estimate": float(np.mean(corrected)),
        "raw_r": float(np.mean(raw)),
        "split_low": float(np.percentile(corrected, 2.5)),
        "split_high": float(np.percentile(corrected, 97.5)),
        "n_raters": len(raters),
        "n_splits": len(corrected),
    }


def reliability_table(
    ratings: pl.DataFrame,
    *,
    n_splits: int = 100,
    seed: int = 0,
    method: Literal["pearson", "spearman"] = "pearson",
) -> pl.DataFrame:
    """Per attribute: split-half (Spearman–Brown) reliability and Krippendorff's α (interval, ordinal)."""
    rows = []
    for (attribute,), part in ratings.group_by("attribute", maintain_order=True):
        split = split_half_reliability(part, n_splits=n_splits, seed=seed, method=method)
        matrix = rating_matrix(part)
        rows.append(
            {
                "attribute": attribute,
                **split,
                "alpha_interval": krippendorff_alpha(matrix, "interval"),
                "alpha_ordinal": krippendorff_alpha(matrix, "ordinal"),
                "n": int(part["image_id"].n_unique()),
                "source": "split-half",
            }
        )
    return (
        pl.DataFrame(rows).with_columns(pl.col("n_raters", "n_splits", "n").cast(pl.Int64)).sort("attribute")
    )


# --------------------------------------------------------------------------- model vs humans


def spearman_with_ci(
    x: ArrayLike, y: ArrayLike, confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    r"""Spearman :math:`\rho` with its p-value (``scipy.stats.spearmanr``) and a Fisher-z interval
    with the Bonett–Wright standard error :math:`\sqrt{(1 + \rho^2/2)/(n - 3)}`.

    Returns (rho, ci_low, ci_high, p_value, n) over the pairs where both values exist.
    """
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    n = int(a.size)
    if n < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan, math.nan, math.nan, math.nan, n
    result = sps.spearmanr(a, b)
    rho, p = float(result[0]), float(result[1])
    if n <= 3 or abs(rho) >= 1:
        return rho, math.nan, math.nan, p, n
    z = math.atanh(rho)
    half = float(sps.norm.ppf(0.5 + confidence / 2)) * math.sqrt((1 + rho * rho / 2) / (n - 3))
    return rho, math.tanh(z - half), math.tanh(z + half), p, n


#: Columns of a per model × attribute Spearman row (:func:`_spearman_row`).
_SPEARMAN_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "model_id": pl.String,
    "attribute": pl.String,
    "estimate": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "p_value": pl.Float64,
    "n": pl.Int64,
}


def _spearman_row(
    model_id: object, attribute: object, model: ArrayLike, human: ArrayLike, confidence: float
) -> dict[str, object]:
    """One model × attribute row: Spearman ρ of model vs human values (:func:`spearman_with_ci`)."""
    rho, lo, hi, p, n = spearman_with_ci(model, human, confidence)
    return {
        "model_id": model_id,
        "attribute": attribute,
        "estimate": rho,
        "ci_low": lo,
        "ci_high": hi,
        "p_value": p,
        "n": n,
    }


def model_human_similarity(
    scores: pl.DataFrame, human_means: pl.DataFrame, *, confidence: float = 0.95
) -> pl.DataFrame:
    r"""Seed 004 Eq. 4: :math:`s^a_m = \rho(\mathbf m^a, \mathbf h^a)` per model × attribute,
    Spearman over the stimuli scored by the model and rated by humans; BH over attributes per model."""
    joined = scores.join(human_means, on=["image_id", "attribute"], how="inner")
    rows = [
        _spearman_row(model_id, attribute, part["score"].to_numpy(), part["mean"].to_numpy(), confidence)
        for (model_id, attribute), part in joined.group_by(["model_id", "attribute"], maintain_order=True)
    ]
    frame = pl.DataFrame(rows, schema=_SPEARMAN_SCHEMA, orient="row")
    return (
        adjust_by_family(frame.with_columns(pl.col("p_value").fill_nan(None)), ["model_id"], "bh")
        .with_columns(pl.lit("spearman").alias("test"))
        .sort(["model_id", "attribute"])
    )


def correlate(
    x: ArrayLike, y: ArrayLike, method: Literal["pearson", "spearman"], confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    """Pearson (Fisher-z interval) or Spearman (:func:`spearman_with_ci`) correlation with its p-value."""
    if method == "spearman":
        return spearman_with_ci(x, y, confidence)
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if a.size < 3:
        return math.nan, math.nan, math.nan, math.nan, int(a.size)
    result = sps.pearsonr(a, b)
    ci = result.confidence_interval(confidence)
    return float(result.statistic), float(ci.low), float(ci.high), float(result.pvalue), int(a.size)


def reliability_similarity(
    similarity: pl.DataFrame,
    reliability: pl.DataFrame,
    *,
    method: Literal["pearson", "spearman"] = "spearman",
    confidence: float = 0.95,
    families: dict[str, str] | None = None,
) -> pl.DataFrame:
    """Seed 004 Fig. 3/4: across attributes, the correlation between human reliability and
    model–human similarity, per model and per model family (family mean similarity)."""
    rel = reliability.select("attribute", pl.col("estimate").alias("reliability"))
    sim = similarity.select("model_id", "attribute", pl.col("estimate").alias("similarity"))
    groups = [("model", m, part) for (m,), part in sim.group_by("model_id", maintain_order=True)]
    if families:
        fam = (
            sim.with_columns(pl.col("model_id").replace_strict(families, default=None).alias("family"))
            .drop_nulls("family")
            .group_by(["family", "attribute"])
            .agg(pl.col("similarity").mean())
        )
        groups += [("family", f, part) for (f,), part in fam.group_by("family", maintain_order=True)]
    rows = []
    for level, name, part in groups:
        joined = part.join(rel, on="attribute", how="inner")
        est, lo, hi, p, n = correlate(
            joined["reliability"].to_numpy(), joined["similarity"].to_numpy(), method, confidence
        )
        rows.append(
            {
                "level": level,
                "name": name,
                "estimate": est,
                "ci_low": lo,
                "ci_high": hi,
                "p_value": p,
                "n": n,
                "test": method,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "level": pl.String,
            "name": pl.String,
            "estimate": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "p_value": pl.Float64,
            "n": pl.Int64,
            "test": pl.String,
        },
        orient="row",
    )


# --------------------------------------------------------------------------- structure


def attribute_correlations(values: pl.DataFrame, value: str, attributes: Sequence[str]) -> F64:
    """Seed 004 Eq. 6 (CAT): Spearman correlation between attributes over stimuli (complete cases)."""
    wide = values.pivot(on="attribute", index="image_id", values=value, aggregate_function="first")
    matrix = wide.select([a for a in attributes]).drop_nulls().to_numpy().astype(np.float64)
    return np.asarray(
        sps.spearmanr(matrix).statistic
        if len(attributes) > 2
        else np.corrcoef(sps.rankdata(matrix, axis=0), rowvar=False),
        dtype=np.float64,
    )


def frobenius_similarity(a: ArrayLike, b: ArrayLike, *, off_diagonal: bool = False) -> float:
    r"""Normalised Frobenius inner product :math:`\langle A, B\rangle_F / (\lVert A\rVert_F \lVert B\rVert_F)`
    (the cosine of the two matrices; 1 for identical structure). ``off_diagonal`` drops the
    unit diagonal of correlation matrices, which otherwise inflates the similarity."""
    x, y = np.asarray(a, dtype=np.float64).copy(), np.asarray(b, dtype=np.float64).copy()
    if off_diagonal:
        mask = ~np.eye(x.shape[0], dtype=bool)
        x, y = x[mask], y[mask]
    return float(np.sum(x * y) / (np.linalg.norm(x) * np.linalg.norm(y)))


def ward_clusters(correlation: ArrayLike, n_clusters: int) -> tuple[F64, NDArray[np.int64], list[int]]:
    r"""Ward clustering of attributes from their correlation matrix (seed 004 Fig. 5).

    Distance :math:`d_{ab} = \sqrt{2(1 - r_{ab})}`, the Euclidean distance between the
    standardised attribute vectors, as Ward's criterion requires; ``scipy.cluster.hierarchy``.
    Returns the linkage, the flat labels at ``n_clusters`` and the dendrogram leaf order.
    """
    c = np.asarray(correlation, dtype=np.float64)
    distance = np.sqrt(np.clip(2.0 * (1.0 - c), 0.0, None))
    np.fill_diagonal(distance, 0.0)
    linkage = hierarchy.linkage(squareform(distance, checks=False), method="ward")
    labels = hierarchy.fcluster(linkage, t=n_clusters, criterion="maxclust").astype(np.int64)
    return linkage, labels, hierarchy.leaves_list(linkage).tolist()


def adjusted_rand_index(a: Sequence[int], b: Sequence[int]) -> float:
    r"""Hubert–Arabie adjusted Rand index of two partitions (1 identical, ~0 chance):

    .. math::

        \frac{\sum_{ij}\binom{n_{ij}}{2} - E}
             {\tfrac12[\sum_i\binom{a_i}{2} + \sum_j\binom{b_j}{2}] - E},
              \quad E = \frac{\sum_i\binom{a_i}{2}\sum_j\binom{b_j}{2}}{\binom{n}{2}}
    """
    _, ia = np.unique(np.asarray(a), return_inverse=True)
    _, ib = np.unique(np.asarray(b), return_inverse=True)
    table = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(table, (ia, ib), 1)
    comb = lambda x: x * (x - 1) / 2.0  # noqa: E731
    index = comb(table).sum()
    rows, cols = comb(table.sum(axis=1)).sum(), comb(table.sum(axis=0)).sum()
    expected = rows * cols / comb(len(ia))
    top = (rows + cols) / 2.0
    return float((index - expected) / (top - expected)) if top != expected else 1.0


# --------------------------------------------------------------------------- scale


def normalise_by_max(values: ArrayLike) -> F64:
    """Seed 004 Table 2: a variable whose range lies outside (0, 1) is divided by its maximum."""
    v = np.asarray(values, dtype=np.float64)
    inside = np.nanmin(v) > 0 and np.nanmax(v) < 1
    return v if inside else v / np.nanmax(v)


def scale_regression(
    data: pl.DataFrame, predictors: Sequence[str], *, confidence: float = 0.95
) -> pl.DataFrame:
    r"""Seed 004 Table 2: OLS of model–human similarity :math:`s^a_m` on human reliability and
    model scale, one row per model × attribute; predictors normalised by :func:`normalise_by_max`.

    .. math:: s^a_m = \beta_0 + \beta_1 \text{IRR}_a + \beta_2 \text{DatasetSize}_m + \dots + \varepsilon

    Returns one row per term (``estimate, se, ci_low, ci_high, statistic`` = t, ``p_value``)
    with the fit's adjusted R², F, N and degrees of freedom repeated on every row.
    """
    import statsmodels.api as sm

    usable = [p for p in predictors if p in data.columns and data[p].drop_nulls().n_unique() > 1]
    clean = data.drop_nulls(["similarity", *usable])
    if not usable or clean.height <= len(usable) + 1:
        return pl.DataFrame()
    x = np.column_stack([normalise_by_max(clean[p].to_numpy()) for p in usable])
    fit = sm.OLS(clean["similarity"].to_numpy(), sm.add_constant(x)).fit()
    ci = fit.conf_int(1 - confidence)
    terms = ["const", *usable]
    return pl.DataFrame(
        {
            "term": terms,
            "estimate": fit.params,
            "se": fit.bse,
            "ci_low": ci[:, 0],
            "ci_high": ci[:, 1],
            "statistic": fit.tvalues,
            "p_value": fit.pvalues,
            "adj_r2": [fit.rsquared_adj] * len(terms),
            "f_statistic": [float(fit.fvalue)] * len(terms),
            "f_p_value": [float(fit.f_pvalue)] * len(terms),
            "n": [int(fit.nobs)] * len(terms),
            "df_model": [float(fit.df_model)] * len(terms),
            "df_resid": [float(fit.df_resid)] * len(terms),
            "test": ["ols-t"] * len(terms),
        }
    )


def model_human_rating_agreement(ratings: pl.DataFrame, *, confidence: float = 0.95) -> pl.DataFrame:
    """Seed 002 Fig. 6 companion: per model × attribute, Spearman ρ between the model's mean
    rating of each stimulus and the human mean, and the mean difference (model − human)."""
    valid = ratings.filter(pl.col("rating").is_not_null())
    humans = (
        valid.filter(pl.col("rater_kind") == "human")
        .group_by(["image_id", "attribute"])
        .agg(pl.col("rating").mean().alias("human"))
    )
    models = (
        valid.filter(pl.col("rater_kind") == "model")
        .group_by(["rater_id", "image_id", "attribute"])
        .agg(pl.col("rating").mean().alias("model"))
    )
    rows = []
    for (rater, attribute), part in models.join(humans, on=["image_id", "attribute"]).group_by(
        ["rater_id", "attribute"], maintain_order=True
    ):
        model, human = part["model"].to_numpy(), part["human"].to_numpy()
        rows.append(
            {
                **_spearman_row(rater, attribute, model, human, confidence),
                "mean_difference": float(np.mean(model - human)),
            }
        )
    schema = {**_SPEARMAN_SCHEMA, "mean_difference": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(pl.lit("spearman").alias("test"))
