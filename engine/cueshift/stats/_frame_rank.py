r"""Statistics on a frame: rank tests per group (:func:`wilcoxon`, :func:`kruskal`,
:func:`mann_whitney`) over the engine's kernels (:func:`signed_rank_columns`,
:func:`kruskal_columns`, :func:`mann_whitney_columns`), and :func:`bh`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.errors import CueshiftError
from cueshift.stats._cell_codes import encode_categories
from cueshift.stats._faces import face_matrix
from cueshift.stats._frame_input import (
    By,
    by_columns,
    checked_rows,
    finish,
    groups_of,
    subject_ids,
)
from cueshift.stats._group_rank import kruskal_columns, mann_whitney_columns
from cueshift.stats._multiplicity import bh_by_family
from cueshift.stats._ranks import Alternative, RankTestResult
from cueshift.stats._signed_rank import ZeroMethod, signed_rank_columns


def _padded(values: F64, idx: NDArray[np.int64], n_groups: int) -> F64:
    """``(largest group, n_groups)`` array of each group's values, NaN below its last value."""
    sizes = np.bincount(idx, minlength=n_groups)
    out = np.full((int(sizes.max(initial=0)), n_groups), np.nan)
    order = np.argsort(idx, kind="stable")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    position = np.arange(idx.size) - np.repeat(starts, sizes)
    out[position, idx[order]] = values[order]
    return out


def wilcoxon(
    data: pl.DataFrame,
    dv: str,
    subject: str | None = None,
    by: By = None,
    *,
    zero_method: ZeroMethod = "wilcox",
    alternative: Alternative = "two-sided",
    family: By = None,
) -> pl.DataFrame:
    r"""Wilcoxon signed-rank test of ``dv`` against 0 per group (differences, shifts).

    With ``subject``, each subject's mean of ``dv`` in the group is tested (summed exactly, as the
    engine's per-face mean Δ); without, every row is one observation. With :math:`n` non-zero
    values ranked by :math:`|d|`, :math:`R^\pm = \sum_{d_i \gtrless 0} \operatorname{rank}|d_i|`;
    ``statistic`` is scipy's (:math:`\min(R^+, R^-)` two-sided, :math:`R^+` one-sided), ``p`` exact
    or normal as :func:`scipy.stats.wilcoxon` chooses, ``estimate`` the matched-pairs rank-biserial
    :math:`r = (R^+ - R^-)/(R^+ + R^-)`, ``n`` the values ranked (zeros left out under
    ``'wilcox'``). No non-zero value: null statistic and p.

    References
    ----------
    .. [1] Wilcoxon, F. (1945). *Biometrics Bulletin* 1, 80–83.
    .. [2] Kerby, D. S. (2014). *Comprehensive Psychology* 3, 11.IT.3.1 (rank-biserial r).

    Examples
    --------
    >>> frame = pl.DataFrame({"change": [1.5, 2.0, -0.5, 3.0, 2.5, 4.0]})
    >>> wilcoxon(frame, "change").select("estimate", "statistic", "p", "n").rows()
    [(0.9047619047619048, 1.0, 0.0625, 6)]
    """
    keys = by_columns(by)
    rows = checked_rows(data, "wilcoxon", dv, [subject, *keys])
    if subject is not None:
        fm = face_matrix(rows, keys, faces=subject_ids(rows, "wilcoxon", subject), value=dv, subject=subject)
        values, groups = fm.values, fm.cells
    else:
        idx, groups = groups_of(rows, keys)
        values = _padded(rows[dv].to_numpy(), idx, groups.height)
    res = signed_rank_columns(values, zero_method=zero_method, alternative=alternative)
    return _rank_frame(res, groups, keys, f"wilcoxon signed-rank ({zero_method})", "wilcoxon", family)


def _rank_frame(
    res: RankTestResult, groups: pl.DataFrame, keys: list[str], method: str, name: str, family: By
) -> pl.DataFrame:
    columns = {"estimate": res.effect_size, "statistic": res.statistic, "p": res.p_value, "n": res.n}
    return finish(groups, keys, columns, method=method, name=name, family=family)


def _per_group(
    data: pl.DataFrame,
    name: str,
    dv: str,
    between: str,
    by: By,
    make_test: Callable[[list[object]], Callable[[F64, NDArray[np.int64]], RankTestResult]],
) -> tuple[RankTestResult, pl.DataFrame, list[str]]:
    """Run ``make_test(levels)(values, labels)`` on each group's rows (labels: index of ``between``
    among its sorted ``levels``); rows with a null ``between`` are left out."""
    keys = by_columns(by)
    if between in keys:
        raise CueshiftError(f"{name}: between column {between!r} is also a by column")
    rows = checked_rows(data, name, dv, [between, *keys]).filter(pl.col(between).is_not_null())
    if rows.height == 0:
        raise CueshiftError(f"{name}: no row with a value of {between!r}")
    levels = sorted(rows[between].unique().to_list())
    labels = encode_categories(rows[between], levels)
    test = make_test(levels)
    idx, groups = groups_of(rows, keys)
    values = rows[dv].to_numpy()
    parts = [_fields(test(values[idx == g], labels[idx == g])) for g in range(groups.height)]
    merged = RankTestResult(*(np.concatenate(column) for column in zip(*parts, strict=True)))
    return merged, groups, keys


def _all_tied(values: F64) -> bool:
    return bool(values.size and np.all(values == values[0]))


def kruskal(data: pl.DataFrame, dv: str, between: str, by: By = None, *, family: By = None) -> pl.DataFrame:
    r"""Kruskal–Wallis H test of ``dv`` across the groups of ``between``, per group of ``by``.

    .. math::

        H = \frac{\frac{12}{N(N+1)} \sum_g R_g^2 / n_g - 3(N+1)}{1 - \sum_j (t_j^3 - t_j)/(N^3 - N)}
        \sim \chi^2_{k-1},

    as :func:`scipy.stats.kruskal` (rows are observations); ``estimate`` is
    :math:`\varepsilon^2 = H/(N-1)`, ``n`` = :math:`N`. Fewer than two groups with values, or every
    value tied: null statistic, estimate and p.

    References
    ----------
    .. [1] Kruskal, W. H. & Wallis, W. A. (1952). *JASA* 47, 583–621.

    Examples
    --------
    >>> frame = pl.DataFrame({"score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "arm": ["a"] * 3 + ["b"] * 3})
    >>> round(kruskal(frame, "score", "arm")["statistic"][0], 6)
    3.857143
    """

    def make_test(levels: list[object]) -> Callable[[F64, NDArray[np.int64]], RankTestResult]:
        def test(values: F64, labels: NDArray[np.int64]) -> RankTestResult:
            result = kruskal_columns(values, labels, len(levels))
            if _all_tied(values):  # H is 0/0
                undefined = np.full(1, np.nan)
                return RankTestResult(undefined, undefined, result.n, undefined, result.z)
            return result

        return test

    res, groups, keys = _per_group(data, "kruskal", dv, between, by, make_test)
    return _rank_frame(res, groups, keys, "kruskal-wallis h", "kruskal", family)


def _fields(result: RankTestResult) -> tuple[F64, F64, F64, F64, F64]:
    return result.statistic, result.p_value, result.n, result.effect_size, result.z


def mann_whitney(
    data: pl.DataFrame,
    dv: str,
    between: str,
    by: By = None,
    *,
    alternative: Alternative = "two-sided",
    use_continuity: bool = True,
    family: By = None,
) -> pl.DataFrame:
    r"""Mann–Whitney U test of ``dv`` between the two values of ``between``, per group of ``by``.

    :math:`U_1 = R_1 - n_1(n_1+1)/2` of the first value (sorted; ``statistic``, scipy's
    convention), exact or normal with the tie-corrected variance as
    :func:`scipy.stats.mannwhitneyu` chooses; ``estimate`` the rank-biserial correlation
    :math:`2U_1/(n_1 n_2) - 1`, ``n`` = :math:`n_1 + n_2`. A group missing one side: null
    statistic, estimate and p (no test).

    References
    ----------
    .. [1] Mann, H. B. & Whitney, D. R. (1947). *Ann. Math. Stat.* 18, 50–60.

    Examples
    --------
    >>> frame = pl.DataFrame({"score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "arm": ["a"] * 3 + ["b"] * 3})
    >>> mann_whitney(frame, "score", "arm").select("estimate", "statistic", "p").rows()
    [(-1.0, 0.0, 0.1)]
    """

    names: list[object] = []

    def make_test(levels: list[object]) -> Callable[[F64, NDArray[np.int64]], RankTestResult]:
        if len(levels) != 2:
            raise CueshiftError(
                f"mann_whitney: {between!r} must have exactly two values, not {len(levels)} "
                f"({', '.join(map(str, levels[:5]))}); use kruskal for more"
            )
        names.extend(levels)

        def test(values: F64, labels: NDArray[np.int64]) -> RankTestResult:
            return mann_whitney_columns(
                values, labels, use_continuity=use_continuity, alternative=alternative
            )

        return test

    res, groups, keys = _per_group(data, "mann_whitney", dv, between, by, make_test)
    method = f"mann-whitney u ({names[0]} vs {names[1]})"
    return _rank_frame(res, groups, keys, method, "mann_whitney", family)


def bh(data: pl.DataFrame, p: str = "p", family: By = None) -> pl.DataFrame:
    r"""Add ``p_adj``: Benjamini–Hochberg adjusted p-values over all rows, or within ``family``.

    .. math::

        \tilde p_{(i)} = \min_{j \ge i} \min\!\left(1, \frac{m}{j}\, p_{(j)}\right)

    over the :math:`m` non-null p-values of a family, sorted (:func:`bh_adjust`); null p stays
    null. An existing ``p_adj`` column is replaced; rows keep their order.

    References
    ----------
    .. [1] Benjamini, Y. & Hochberg, Y. (1995). *J. R. Stat. Soc. B* 57, 289–300.

    Examples
    --------
    >>> bh(pl.DataFrame({"p": [0.01, 0.04, 0.03]}))["p_adj"].round(3).to_list()
    [0.03, 0.04, 0.04]
    """
    if not isinstance(data, pl.DataFrame) or p not in data.columns:
        raise CueshiftError(f"bh: column {p!r} is not in the frame")
    families = by_columns(family)
    missing = [c for c in families if c not in data.columns]
    if missing:
        raise CueshiftError(f"bh: family column {missing[0]!r} is not in the frame")
    if not data.schema[p].is_numeric():
        raise CueshiftError(f"bh: column {p!r} must be numeric, not {data.schema[p]}")
    values = data[p].cast(pl.Float64).fill_nan(None).drop_nulls()
    if values.len() and (values.min() < 0 or values.max() > 1):  # type: ignore[operator]
        raise CueshiftError(f"bh: column {p!r} holds values outside [0, 1]")
    base = data.drop("p_adj") if "p_adj" in data.columns and p != "p_adj" else data
    return bh_by_family(base, families, p_col=p)
