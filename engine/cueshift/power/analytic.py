r"""Normal-theory power of the tests the designs run, BH through the expected number of true
effects, minimum detectable effects and expected interval half-widths.

Every function takes arrays and broadcasts, so a whole family (hundreds of tests) is one call.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from cueshift._types import F64

#: Asymptotic relative efficiency of the rank tests (WSRT, Mann–Whitney, Kruskal–Wallis) to their
#: normal-theory counterparts under normal data: :math:`3/\pi` (Lehmann 1975, §2.4).
RANK_ARE = 3.0 / np.pi


def _phi2_equal(h: F64, rho: float) -> F64:
    r""":math:`\Phi_2(h, h; \rho) = \Phi(h) - 2T\big(h, \sqrt{(1-\rho)/(1+\rho)}\big)` (Owen 1956)."""
    return np.asarray(special.ndtr(h) - 2.0 * special.owens_t(h, np.sqrt((1.0 - rho) / (1.0 + rho))))


def _phi2(h: F64, k: F64, rho: float) -> F64:
    r""":math:`\Phi_2(h, k; \rho)` by Owen's T (Owen 1956, Eq. 3.1); ``h, k`` nonzero."""
    s = np.sqrt(1.0 - rho**2)
    out = (
        0.5 * special.ndtr(h)
        + 0.5 * special.ndtr(k)
        - special.owens_t(h, (k - rho * h) / (h * s))
        - special.owens_t(k, (h - rho * k) / (k * s))
    )
    return np.asarray(np.where(h * k > 0, out, out - 0.5))


def wsrt_power(
    effect: ArrayLike, sd: ArrayLike, n: ArrayLike, alpha: ArrayLike, *, exact: bool = True
) -> F64:
    r"""Power of the two-sided Wilcoxon signed-rank test of :math:`n` differences
    :math:`D \sim N(\mu, \sigma^2)` at level :math:`\alpha` (normal approximation).

    With :math:`T^+ = \sum_i 1[D_i > 0] + \sum_{i<j} 1[D_i + D_j > 0]`,
    :math:`p_1 = P(D>0) = \Phi(a)`, :math:`p_2 = P(D_1 + D_2 > 0) = \Phi(\sqrt2 a)`,
    :math:`p_3 = P(D_1+D_2>0, D_1+D_3>0) = \Phi_2(\sqrt2a, \sqrt2a; \tfrac12)` and
    :math:`p_4 = P(D_1 > 0, D_1+D_2>0) = \Phi_2(a, \sqrt2 a; 1/\sqrt2)`, :math:`a = \mu/\sigma`:

    .. math::

        E T^+ = n p_1 + \tbinom n2 p_2, \quad
        \operatorname{Var} T^+ = n p_1 q_1 + \tbinom n2 p_2 q_2 + n(n-1)(n-2)(p_3 - p_2^2)
            + 2n(n-1)(p_4 - p_1 p_2),

    and :math:`\text{power} = \Phi\big((|E T^+ - E_0| - z_{1-\alpha/2}\sigma_0)/\sigma_1\big)
    + \Phi\big((-|E T^+ - E_0| - z_{1-\alpha/2}\sigma_0)/\sigma_1\big)` with the null moments
    :math:`E_0 = n(n+1)/4`, :math:`\sigma_0^2 = n(n+1)(2n+1)/24` (above 50 differences; up to
    50 the study's test is exact and its exact critical values replace :math:`E_0 \mp z\sigma_0`,
    continuity-corrected; ``exact=False`` for a test that always uses the normal approximation,
    as :func:`cueshift.stats.wilcoxon_signed_rank` does). At :math:`\mu = 0` the power is the
    test's size. For small :math:`a` the noncentrality is
    :math:`\sqrt{3n/\pi}\, a` (Noether 1987): the WSRT's efficiency :math:`3/\pi` to the t-test.

    References
    ----------
    .. [1] Lehmann, E. L. (1975). *Nonparametrics: Statistical Methods Based on Ranks*, §4.2.
    .. [2] Noether, G. E. (1987). Sample size determination for some common nonparametric tests.
       *JASA* 82, 645–647.
    .. [3] Owen, D. B. (1956). Tables for computing bivariate normal probabilities.
       *Ann. Math. Statist.* 27, 1075–1090.
    """
    mu, sigma = np.asarray(effect, dtype=np.float64), np.asarray(sd, dtype=np.float64)
    n_, level = np.asarray(n, dtype=np.float64), np.asarray(alpha, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(sigma > 0, mu / np.where(sigma > 0, sigma, 1.0), np.sign(mu) * 1e6)
    a = np.where(a == 0, 1e-9, np.clip(a, -40.0, 40.0))
    r2 = np.sqrt(2.0) * a
    p1, p2 = special.ndtr(a), special.ndtr(r2)
    p3 = _phi2_equal(r2, 0.5)
    p4 = _phi2(a, r2, 1.0 / np.sqrt(2.0))
    pairs = n_ * (n_ - 1.0) / 2.0
    mean1 = n_ * p1 + pairs * p2
    var1 = (
        n_ * p1 * (1 - p1)
        + pairs * p2 * (1 - p2)
        + n_ * (n_ - 1) * (n_ - 2) * (p3 - p2**2)
        + 2 * n_ * (n_ - 1) * (p4 - p1 * p2)
    )
    mean0, sd0 = n_ * (n_ + 1) / 4.0, np.sqrt(n_ * (n_ + 1) * (2 * n_ + 1) / 24.0)
    sd1 = np.sqrt(np.maximum(var1, 1e-300))
    low, high = _rejection_bounds(n_ if exact else np.full_like(n_, np.inf), level, mean0, sd0)
    power = special.ndtr((low - mean1) / sd1) + special.ndtr((mean1 - high) / sd1)
    return np.asarray(np.where(n_ >= 1, np.clip(power, 0.0, 1.0), np.nan), dtype=np.float64)


#: Up to this many differences the signed-rank test of the study is exact (no ties or zeros).
EXACT_MAX_N = 50


@lru_cache(maxsize=1)
def _null_cdfs() -> list[F64]:
    """Exact null CDF of :math:`T^+` for :math:`n = 0..50` (counts of sign assignments)."""
    cdfs: list[F64] = []
    counts = np.array([1.0])
    for n in range(EXACT_MAX_N + 1):
        if n:
            grown = np.zeros(counts.size + n)
            grown[: counts.size] += counts
            grown[n:] += counts
            counts = grown
        cdfs.append(np.cumsum(counts) / counts.sum())
    return cdfs


def _rejection_bounds(n: F64, alpha: F64, mean0: F64, sd0: F64) -> tuple[F64, F64]:
    r"""Where the two-sided test rejects, as continuity-corrected bounds on :math:`T^+`: below
    ``low`` or above ``high``. Up to :data:`EXACT_MAX_N` differences the exact null quantile
    (the study's exact test: :math:`T^+ \le c` with :math:`2F_0(c) \le \alpha`), beyond it
    :math:`E_0 \mp z_{1-\alpha/2}\sigma_0`."""
    z = special.ndtri(1.0 - alpha / 2.0)
    low, high = mean0 - z * sd0, mean0 + z * sd0
    n_b, a_b, low, high = (
        np.atleast_1d(x).astype(np.float64) for x in np.broadcast_arrays(n, alpha, low, high)
    )
    shape = np.broadcast(n, alpha, mean0).shape
    n_f, a_f, low, high = n_b.ravel(), a_b.ravel(), low.ravel().copy(), high.ravel().copy()
    cdfs = _null_cdfs()
    for i in np.flatnonzero((n_f >= 1) & (n_f <= EXACT_MAX_N) & (n_f == np.round(n_f))):
        k = int(n_f[i])
        c = int(np.searchsorted(cdfs[k], a_f[i] / 2.0 + 1e-12, side="right")) - 1  # 2F(c) <= alpha
        low[i], high[i] = c + 0.5, k * (k + 1) / 2.0 - c - 0.5
    return low.reshape(shape), high.reshape(shape)


def kruskal_power(noncentrality: ArrayLike, groups: ArrayLike, alpha: ArrayLike) -> F64:
    r"""Power of the Kruskal–Wallis test (Mann–Whitney for two groups) of :math:`k` groups.

    :math:`H` is referred to :math:`\chi^2_{k-1}`; under a shift alternative it is approximately
    noncentral :math:`\chi^2_{k-1}(\lambda)` with
    :math:`\lambda = \frac{3}{\pi}\sum_g n_g(\mu_g - \bar\mu)^2/\sigma^2` for normal data
    (Andrews 1954; the ANOVA noncentrality times the efficiency :math:`3/\pi`).

    References
    ----------
    .. [1] Andrews, F. C. (1954). Asymptotic behavior of some rank tests for analysis of variance.
       *Ann. Math. Statist.* 25, 724–736.
    """
    lam, df = np.asarray(noncentrality, dtype=np.float64), np.asarray(groups, dtype=np.float64) - 1.0
    crit = stats.chi2.isf(np.asarray(alpha, dtype=np.float64), df)
    return np.asarray(np.where(df >= 1, stats.ncx2.sf(crit, df, np.maximum(lam, 1e-12)), np.nan))


def bh_threshold(family_power: Callable[[float], F64], m: int, q: float, *, iterations: int = 200) -> float:
    r"""The per-test level at which Benjamini–Hochberg at FDR :math:`q` rejects in a family of :math:`m`.

    BH rejects :math:`H_i` when :math:`p_i \le q R/m`, :math:`R` the number of rejections. Replacing
    :math:`R` by its expectation :math:`E R(t) = \sum_i \pi_i(t)` (the null tests contribute
    :math:`m_0 t`, the true effects their power) gives the fixed point
    :math:`t^* = q\,E R(t^*)/m`, found by iterating from :math:`t = q` (Genovese & Wasserman 2002;
    Jung 2005). BH is never stricter than Bonferroni: :math:`t^* \ge q/m`.

    References
    ----------
    .. [1] Genovese, C. & Wasserman, L. (2002). Operating characteristics and extensions of the FDR
       procedure. *J. R. Stat. Soc. B* 64, 499–517.
    .. [2] Jung, S.-H. (2005). Sample size for FDR-control in microarray data analysis.
       *Bioinformatics* 21, 3097–3104.
    """
    if m <= 1:
        return q
    t = q
    floor = q / m
    for _ in range(iterations):
        nxt = max(floor, q * float(np.sum(family_power(t))) / m)
        if abs(nxt - t) < 1e-12:
            break
        t = nxt
    return t


def bh_level_for_target(m: int, true_effects: int, power: float, q: float) -> float:
    r"""BH's per-test level when ``true_effects`` of ``m`` tests have ``power`` (the MDE's level):
    :math:`t = q(m_0 t + m_1 P)/m`, i.e. :math:`t = q m_1 P / (m - q m_0)`, at least :math:`q/m`."""
    if m <= 1:
        return q
    m1 = min(max(true_effects, 1), m)
    return max(q / m, q * m1 * power / (m - q * (m - m1)))


def solve_increasing(func: Callable[[F64], F64], target: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> F64:
    """Smallest ``x`` in ``[lo, hi]`` with ``func(x) >= target`` for an increasing ``func``, by
    bisection on whole arrays; ``inf`` where even ``hi`` falls short."""
    tgt = np.asarray(target, dtype=np.float64)
    a = np.broadcast_to(np.asarray(lo, dtype=np.float64), np.broadcast(tgt, np.asarray(hi)).shape).copy()
    b = np.broadcast_to(np.asarray(hi, dtype=np.float64), a.shape).copy()
    reachable = func(b) >= tgt
    for _ in range(80):
        mid = 0.5 * (a + b)
        ok = func(mid) >= tgt
        b = np.where(ok, mid, b)
        a = np.where(ok, a, mid)
    return np.asarray(np.where(reachable, b, np.inf), dtype=np.float64)


def normal_half_width(sd: ArrayLike, n: ArrayLike, level: float = 0.95) -> F64:
    r"""Expected half-width of a mean's interval, :math:`z_{(1+\ell)/2}\,\sigma/\sqrt n` (the face-level
    bootstrap interval is this to first order)."""
    z = special.ndtri((1.0 + level) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(z * np.asarray(sd, dtype=np.float64) / np.sqrt(np.asarray(n, dtype=np.float64)))


def wilson_half_width(p: ArrayLike, n: ArrayLike, level: float = 0.95) -> F64:
    r"""Half-width of the Wilson interval at proportion :math:`p` and :math:`n` trials:
    :math:`\frac{z}{1 + z^2/n}\sqrt{p(1-p)/n + z^2/(4n^2)}` (Wilson 1927)."""
    z = special.ndtri((1.0 + level) / 2.0)
    p_, n_ = np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(z / (1 + z**2 / n_) * np.sqrt(p_ * (1 - p_) / n_ + z**2 / (4 * n_**2)))


def binomial_power(p: ArrayLike, n: ArrayLike, alpha: ArrayLike) -> F64:
    r"""Exact power of the two-sided exact binomial test of :math:`H_0: p = 1/2` with :math:`n` trials.

    For :math:`p_0 = 1/2` the null is symmetric and the test rejects when
    :math:`k \le c` or :math:`k \ge n - c`, :math:`c` the largest count with
    :math:`2F_{1/2}(c) \le \alpha`; power :math:`= F_p(c) + 1 - F_p(n - c - 1)`.
    """
    p_, n_ = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64))
    level = np.broadcast_to(np.asarray(alpha, dtype=np.float64), p_.shape)
    c = stats.binom.ppf(level / 2.0, n_, 0.5)
    c = np.where(stats.binom.cdf(c, n_, 0.5) * 2.0 > level, c - 1.0, c)
    power = np.where(c >= 0, stats.binom.cdf(c, n_, p_) + stats.binom.sf(n_ - c - 1.0, n_, p_), 0.0)
    return np.asarray(np.clip(power, 0.0, 1.0), dtype=np.float64)


__all__ = [
    "RANK_ARE",
    "bh_level_for_target",
    "bh_threshold",
    "binomial_power",
    "kruskal_power",
    "normal_half_width",
    "solve_increasing",
    "wilson_half_width",
    "wsrt_power",
]
