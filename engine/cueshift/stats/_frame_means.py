r"""Statistics on a frame: the subject-clustered mean (:func:`mean_shift`) and the Stylistic Bias
Score (:func:`sbs`), thin adapters over the kernels the StylisticBias SBS table runs
(:func:`~cueshift.stats._faces.face_matrix`, :func:`~cueshift.stats._resample.cluster_bootstrap`,
:func:`~cueshift.stats._one_sample.one_sample_test`)."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.stats._face_draws import face_multiplicities
from cueshift.stats._faces import FaceMatrix, face_matrix
from cueshift.stats._frame_input import By, by_columns, checked_rows, finish, subject_ids
from cueshift.stats._one_sample import one_sample_test
from cueshift.stats._resample import BootstrapResult, cluster_bootstrap
from cueshift.stats._settings import DEFAULT_RESAMPLES, CIMethod
from cueshift.stats._signed_rank import ZeroMethod


def check_bootstrap(name: str, confidence: float, n_resamples: int, method: str) -> None:
    """One clear line for bootstrap settings out of range."""
    if not 0.0 < confidence < 1.0:
        raise CueshiftError(f"{name}: confidence must lie strictly between 0 and 1, not {confidence!r}")
    if n_resamples < 2:
        raise CueshiftError(f"{name}: n_resamples must be at least 2, not {n_resamples!r}")
    if method not in ("bca", "percentile"):
        raise CueshiftError(f"{name}: method must be 'bca' or 'percentile', not {method!r}")


def subject_bootstrap(
    data: pl.DataFrame,
    name: str,
    dv: str,
    subject: str,
    keys: list[str],
    *,
    confidence: float,
    n_resamples: int,
    seed: int,
    method: CIMethod,
) -> tuple[FaceMatrix, BootstrapResult]:
    """Per-subject means of ``dv`` per group of ``keys`` and their cluster bootstrap (one draw of
    all the frame's subjects shared by every group, as the design's SBS table); intervals of
    groups with fewer than two subjects are NaN."""
    check_bootstrap(name, confidence, n_resamples, method)
    rows = checked_rows(data, name, dv, [subject, *keys])
    subjects = subject_ids(rows, name, subject)
    fm = face_matrix(rows, keys, faces=subjects, value=dv, subject=subject)
    weights = face_multiplicities(len(subjects), n_resamples, seed)
    boot, _ = cluster_bootstrap(fm.values, confidence_level=confidence, method=method, multiplicities=weights)
    few = boot.n < 2
    low, high = np.where(few, np.nan, boot.ci_low), np.where(few, np.nan, boot.ci_high)
    return fm, BootstrapResult(boot.estimate, low, high, boot.n, method, n_resamples, confidence)


def mean_shift(
    data: pl.DataFrame,
    dv: str,
    subject: str,
    by: By = None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
    method: CIMethod = "bca",
) -> pl.DataFrame:
    r"""Mean of ``dv`` per group, subjects weighted equally, with a subject-clustered bootstrap CI.

    .. math::

        \hat\theta_g = \frac{1}{|S_g|}\sum_{s \in S_g} \bar y_{sg}, \qquad
        \bar y_{sg} = \text{mean of subject } s\text{'s rows of } dv \text{ in group } g,

    (the plain mean when every subject has one row). The interval resamples whole subjects
    (:func:`cluster_bootstrap`: every replicate draws the frame's subjects with replacement, one
    draw shared by all groups; a group is estimated over the drawn subjects it has), BCa or
    percentile. Rows with a null or NaN ``dv`` are left out; a group with one subject has no
    interval (null); a group that a replicate misses entirely has none either (with many small
    groups of distinct subjects, call it per group).

    Parameters
    ----------
    data : polars.DataFrame
        Any frame; ``dv`` numeric.
    dv, subject : str
        The outcome column and the cluster column (a patient, a face, a school).
    by : str or sequence of str, optional
        Grouping columns; one row per group (sorted, nulls last).
    confidence, n_resamples, seed, method
        Coverage, bootstrap replicates, seed of the subject draws, ``'bca'`` or ``'percentile'``.

    Returns
    -------
    polars.DataFrame
        ``by``, ``estimate, ci_low, ci_high`` (``statistic, p, p_adj`` null), ``n`` subjects, ``method``.

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82, 171–185.
    .. [2] Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. *JRSS B* 69, 369–390.

    Examples
    --------
    >>> frame = pl.DataFrame({"patient": ["a", "a", "b", "c", "d"], "score": [1.0, 3.0, 4.0, 6.0, 8.0]})
    >>> out = mean_shift(frame, "score", "patient", n_resamples=200)
    >>> out["estimate"][0], out["n"][0], bool(out["ci_low"][0] < 5.0 < out["ci_high"][0])
    (5.0, 4, True)
    """
    keys = by_columns(by)
    fm, boot = subject_bootstrap(
        data, "mean_shift", dv, subject, keys,
        confidence=confidence, n_resamples=n_resamples, seed=seed, method=method,
    )  # fmt: skip
    columns = {"estimate": boot.estimate, "ci_low": boot.ci_low, "ci_high": boot.ci_high, "n": boot.n}
    return finish(fm.cells, keys, columns, method=f"cluster bootstrap ({method})", name="mean_shift")


def sbs(
    data: pl.DataFrame,
    dv: str = "delta",
    subject: str = "face_id",
    by: By = ("model_id", "feature_key", "variation_value"),
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    method: CIMethod = "bca",
    zero_method: ZeroMethod = "wilcox",
    family: By = None,
) -> pl.DataFrame:
    r"""Stylistic Bias Score per group (seed 000 Eq. 2/4) with its face-clustered CI and the WSRT.

    .. math::

        \mathrm{SBS}_g = \frac{1}{|F_g|}\sum_{f \in F_g} \bar\Delta_{fg}, \qquad
        \Delta_i(x_v) = \varphi_i(x_v) - \varphi_i(x_b),

    :math:`\bar\Delta_{fg}` face :math:`f`'s mean Δ in the group (summed exactly, as the engine).
    As the design's ``result_sbs`` table: the interval is the face-level cluster bootstrap
    (:func:`mean_shift`'s; every face of the frame drawn, one draw shared by all groups) and
    ``statistic``/``p`` the Wilcoxon signed-rank test of the per-face means against 0 (scipy's
    statistic, min(R+, R−)); ``n`` is the faces with a Δ in the group. ``p_adj`` is BH over the
    rows, or within ``family``.

    Parameters
    ----------
    data : polars.DataFrame
        Rows of the ``delta`` view (``study.delta()``), or any frame of differences.
    dv, subject, by
        Outcome, cluster and grouping columns.
    confidence, n_resamples, seed, method
        Bootstrap settings (the design's defaults).
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        Zero handling of the WSRT (scipy's).
    family : str or sequence of str, optional
        ``by`` columns within which BH adjusts.

    References
    ----------
    .. [1] seed 000 Eq. 2 (Δ), Eq. 4 (SBS), §4.4 (WSRT on per-face mean Δ, BH), Figs. 3–4 (CI).
    .. [2] Wilcoxon, F. (1945). *Biometrics Bulletin* 1, 80–83.

    Examples
    --------
    >>> frame = pl.DataFrame({"face_id": ["f1", "f2", "f3", "f4"] * 2, "delta": [0.1, 0.2, 0.0, 0.3] * 2,
    ...                       "style": ["bold"] * 4 + ["plain"] * 4})
    >>> out = sbs(frame, by="style", n_resamples=200)
    >>> out.select("style", "estimate", "statistic", "n").rows()
    [('bold', 0.15, 0.0, 4), ('plain', 0.15, 0.0, 4)]
    """
    keys = by_columns(by)
    fm, boot = subject_bootstrap(
        data, "sbs", dv, subject, keys,
        confidence=confidence, n_resamples=n_resamples, seed=seed, method=method,
    )  # fmt: skip
    statistic, p, _, _ = one_sample_test(fm.values, test="rank", zero_method=zero_method)
    columns = {
        "estimate": boot.estimate,
        "ci_low": boot.ci_low,
        "ci_high": boot.ci_high,
        "statistic": statistic,
        "p": p,
        "n": boot.n,
    }
    return finish(
        fm.cells, keys, columns, method=f"sbs: cluster bootstrap ({method}) + wilcoxon",
        name="sbs", family=family,
    )  # fmt: skip
