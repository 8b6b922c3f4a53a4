r"""Statistics on a frame: the paired difference of two models on the same subjects
(:func:`model_difference`), as the design's model comparison (per-subject differences over the
rows both models have, the subject-clustered bootstrap and the signed-rank test)."""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import sparse

from cueshift.errors import CueshiftError
from cueshift.stats._cell_codes import cell_codes
from cueshift.stats._exact_means import ratio_means
from cueshift.stats._face_draws import face_multiplicities
from cueshift.stats._face_sums import face_sums
from cueshift.stats._frame_input import By, by_columns, checked_rows, finish, subject_ids
from cueshift.stats._frame_means import check_bootstrap
from cueshift.stats._one_sample import one_sample_test
from cueshift.stats._resample import cluster_bootstrap
from cueshift.stats._settings import CIMethod
from cueshift.stats._signed_rank import ZeroMethod


def model_difference(
    data: pl.DataFrame,
    dv: str,
    subject: str,
    model: str,
    a: object,
    b: object,
    by: By = None,
    *,
    pair_on: By = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
    method: CIMethod = "bca",
    zero_method: ZeroMethod = "wilcox",
    family: By = None,
) -> pl.DataFrame:
    r"""Paired difference of model ``a`` minus model ``b`` on the same subjects, per group of ``by``.

    For subject :math:`s` and group :math:`g`, over the slots :math:`R_{sg}` (values of
    ``pair_on``; without it, the group itself) in which both models have a value,

    .. math::

        \bar d_{sg} = \frac{1}{|R_{sg}|}\sum_{r \in R_{sg}} (\bar y^{a}_{r} - \bar y^{b}_{r}), \qquad
        \hat\theta_g = \frac{1}{|S_g|}\sum_{s \in S_g} \bar d_{sg}

    (:math:`\bar y_r`: a model's mean in the slot). ``ci_low``/``ci_high`` are the
    subject-clustered bootstrap of :math:`\hat\theta_g` (:func:`mean_shift`'s: the subjects of
    both models drawn, one draw shared by all groups), ``statistic``/``p`` the Wilcoxon
    signed-rank test of the :math:`\bar d_{sg}` against 0 (scipy's statistic), ``n`` the subjects
    paired; ``p_adj`` BH over the rows or within ``family``. The design's ``result_model_differences``
    is this with ``pair_on`` = variation × scenario.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, §4 (paired differences).
    .. [2] Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. *JRSS B* 69, 369–390.

    Examples
    --------
    >>> frame = pl.DataFrame({"rater": ["old", "new"] * 4, "patient": [p for p in "wxyz" for _ in "ab"],
    ...                       "score": [3.0, 2.0, 4.0, 2.5, 5.0, 4.0, 2.0, 1.0]})
    >>> out = model_difference(frame, "score", "patient", "rater", "old", "new", n_resamples=200)
    >>> out.select("estimate", "statistic", "n").rows()
    [(1.125, 0.0, 4)]
    """
    name = "model_difference"
    keys, pairs = by_columns(by), by_columns(pair_on)
    check_bootstrap(name, confidence, n_resamples, method)
    rows = checked_rows(data, name, dv, [subject, model, *keys, *pairs])
    if a == b:
        raise CueshiftError(f"{name}: a and b are the same model ({a!r})")
    present = set(rows[model].unique().to_list())
    for m in (a, b):
        if m not in present:
            raise CueshiftError(f"{name}: model {m!r} has no row with a value of {dv!r} in {model!r}")
    rows = rows.filter(pl.col(model).is_in([a, b]))
    subjects = subject_ids(rows, name, subject)
    slots = [*keys, *pairs]
    fs = face_sums(rows, [model, *slots], faces=subjects, value=dv, subject=subject)
    cells = fs.cells.with_row_index("__c")
    side_a = cells.filter(pl.col(model) == a).drop(model)
    side_b = cells.filter(pl.col(model) == b).drop(model).rename({"__c": "__c_b"})
    joined = (
        side_a.join(side_b, on=slots, how="inner", nulls_equal=True)
        if slots
        else side_a.join(side_b, how="cross")
    )
    ia, ib = joined["__c"].to_numpy(), joined["__c_b"].to_numpy()
    both = (fs.counts[:, ia] > 0) & (fs.counts[:, ib] > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slot_a = np.where(both, fs.sums[:, ia] / np.where(both, fs.counts[:, ia], 1.0), 0.0)
        slot_b = np.where(both, fs.sums[:, ib] / np.where(both, fs.counts[:, ib], 1.0), 0.0)
    group, groups = cell_codes(joined, keys)
    member = sparse.csr_matrix(
        (np.ones(group.size), (np.arange(group.size), group)), shape=(group.size, groups.height)
    )
    counts = np.asarray((member.T @ both.astype(np.float64).T).T)
    values = ratio_means(np.asarray((member.T @ (slot_a - slot_b).T).T), counts, fs.scale)
    weights = face_multiplicities(len(subjects), n_resamples, seed)
    boot, _ = cluster_bootstrap(values, confidence_level=confidence, method=method, multiplicities=weights)
    statistic, p, _, _ = one_sample_test(values, test="rank", zero_method=zero_method)
    few = boot.n < 2
    columns = {
        "estimate": boot.estimate,
        "ci_low": np.where(few, np.nan, boot.ci_low),
        "ci_high": np.where(few, np.nan, boot.ci_high),
        "statistic": statistic,
        "p": p,
        "n": boot.n,
    }
    out_groups = groups.drop("__all") if not keys else groups
    method_name = f"paired difference {a} - {b}: cluster bootstrap ({method}) + wilcoxon"
    return finish(out_groups, keys, columns, method=method_name, name=name, family=family)
