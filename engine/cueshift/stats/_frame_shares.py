r"""Statistics on a frame: a 0/1 outcome's share per group with the Wilson interval
(:func:`wilson`) and the exact binomial test (:func:`binomial`), over the engine's
:func:`~cueshift.stats._proportions.wilson_interval` and
:func:`~cueshift.stats._proportions.binomial_test`."""

from __future__ import annotations

import polars as pl

from cueshift.errors import CueshiftError
from cueshift.stats._frame_input import By, binary_counts, by_columns, checked_rows, finish
from cueshift.stats._proportions import binomial_test, wilson_interval


def wilson(data: pl.DataFrame, dv: str, by: By = None, *, confidence: float = 0.95) -> pl.DataFrame:
    r"""Share of ones of a 0/1 ``dv`` per group with the Wilson score interval.

    .. math::

        \hat p = k/n, \qquad
        \frac{\hat p + \frac{z^2}{2n}}{1 + \frac{z^2}{n}} \pm
        \frac{z}{1 + \frac{z^2}{n}} \sqrt{\frac{\hat p (1 - \hat p)}{n} + \frac{z^2}{4n^2}},

    :math:`z = \Phi^{-1}((1 + \text{confidence})/2)`; rows are observations (``n``), null and
    NaN left out. ``dv`` must hold only 0 and 1 (or booleans).

    References
    ----------
    .. [1] Wilson, E. B. (1927). *JASA* 22, 209–212.

    Examples
    --------
    >>> frame = pl.DataFrame({"cured": [1, 1, 1, 0] * 10})
    >>> out = wilson(frame, "cured")
    >>> out["estimate"][0], round(out["ci_low"][0], 3), round(out["ci_high"][0], 3), out["n"][0]
    (0.75, 0.598, 0.858, 40)
    """
    if not 0.0 < confidence < 1.0:
        raise CueshiftError(f"wilson: confidence must lie strictly between 0 and 1, not {confidence!r}")
    keys = by_columns(by)
    counts = binary_counts(checked_rows(data, "wilson", dv, keys), "wilson", dv, keys)
    bounds = [wilson_interval(k, n, confidence) for k, n in counts.select("k", "n").iter_rows()]
    columns = {
        "estimate": (counts["k"] / counts["n"]).to_numpy(),
        "ci_low": [b[0] for b in bounds],
        "ci_high": [b[1] for b in bounds],
        "n": counts["n"].to_numpy(),
    }
    return finish(counts, keys, columns, method="wilson", name="wilson")


def binomial(
    data: pl.DataFrame, dv: str, by: By = None, p0: float = 0.5, *, family: By = None
) -> pl.DataFrame:
    r"""Exact two-sided binomial test of a 0/1 ``dv``'s share against ``p0``, per group.

    .. math::

        p = \sum_{i:\ P(X = i) \le P(X = k)} \binom{n}{i} p_0^i (1 - p_0)^{n - i},

    the outcomes no more likely than the observed :math:`k` (as :func:`scipy.stats.binomtest`);
    ``estimate`` :math:`k/n`, ``statistic`` :math:`k`, ``n`` the observations.

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). *Biometrika* 26, 404–413 (the exact test).

    Examples
    --------
    >>> frame = pl.DataFrame({"cured": [1, 1, 1, 0] * 10})
    >>> out = binomial(frame, "cured")
    >>> out["statistic"][0], round(out["p"][0], 6)
    (30.0, 0.002221)
    """
    if not 0.0 < p0 < 1.0:
        raise CueshiftError(f"binomial: p0 must lie strictly between 0 and 1, not {p0!r}")
    keys = by_columns(by)
    counts = binary_counts(checked_rows(data, "binomial", dv, keys), "binomial", dv, keys)
    pairs = list(counts.select("k", "n").iter_rows())
    columns = {
        "estimate": (counts["k"] / counts["n"]).to_numpy(),
        "statistic": counts["k"].to_numpy(),
        "p": [binomial_test(k, n, p0) for k, n in pairs],
        "n": counts["n"].to_numpy(),
    }
    return finish(counts, keys, columns, method=f"exact binomial (p0={p0:g})", name="binomial", family=family)
