r"""Logistic models of paired choices: a logistic regression (statsmodels), Wald inference on one
coefficient, and the Bradley–Terry model with a position term (seed 002)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats as sps

from cueshift._types import F64


@dataclass(frozen=True)
class LogisticFit:
    """Coefficients, their covariance, and whether the fit is (quasi-)separated."""

    params: F64
    cov: F64
    separated: bool


def logistic_fit(y: F64, x: F64, weights: F64 | None = None) -> LogisticFit:
    r"""Maximum-likelihood logistic regression :math:`\operatorname{logit} P(y = 1) = x\beta`.

    ``statsmodels.api.GLM`` with the binomial family (``freq_weights`` = ``weights``). A fit that
    fails (perfect separation, singular design) gives NaN coefficients; a coefficient beyond
    :math:`|\beta| > 15` or a non-finite covariance marks the fit ``separated`` (the MLE does not
    exist and the Wald inference would be meaningless).
    """
    import statsmodels.api as sm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = sm.GLM(y, x, family=sm.families.Binomial(), freq_weights=weights).fit()
        except Exception:  # perfect separation or a singular design
            k = x.shape[1]
            return LogisticFit(np.full(k, np.nan), np.full((k, k), np.nan), True)
    params, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
    separated = bool(np.any(np.abs(params) > 15) or not np.all(np.isfinite(cov)))
    return LogisticFit(params, cov, separated)


@dataclass(frozen=True)
class WaldResult:
    """Standard error, interval, z and two-sided p of one coefficient (``None``: undefined)."""

    se: float | None
    ci_low: float | None
    ci_high: float | None
    statistic: float | None
    p_value: float | None


def wald_test(estimate: float, variance: float, confidence: float = 0.95) -> WaldResult:
    r"""Wald interval and test of :math:`H_0: \beta = 0`:
    :math:`\hat\beta \pm z_{1-\alpha/2}\,\widehat{se}`, :math:`z = \hat\beta/\widehat{se}`,
    :math:`p = 2\bar\Phi(|z|)`, with :math:`\widehat{se} = \sqrt{\widehat{\operatorname{Var}}\hat\beta}`.
    Everything ``None`` when the variance is negative, zero or not finite.

    Examples
    --------
    >>> result = wald_test(1.0, 0.25)
    >>> result.se, result.statistic, round(result.ci_low, 4)
    (0.5, 2.0, 0.02)
    """
    se = math.sqrt(variance) if variance >= 0 else math.nan
    if not (math.isfinite(se) and se > 0):
        return WaldResult(None, None, None, None, None)
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    return WaldResult(
        se,
        float(estimate - z * se),
        float(estimate + z * se),
        float(estimate / se),
        float(2 * sps.norm.sf(abs(estimate / se))),
    )


@dataclass(frozen=True)
class BradleyTerryFit:
    """Position term :math:`h` and centred strengths :math:`\\theta` with their variances."""

    position: float
    position_var: float
    strengths: F64
    strength_vars: F64
    separated: bool


def bradley_terry_fit(
    left: NDArray[np.int64],
    right: NDArray[np.int64],
    left_won: F64,
    n_stimuli: int,
    *,
    prior_games: float = 1.0,
) -> BradleyTerryFit:
    r"""Bradley–Terry strengths with a position (home) term from paired choices.

    .. math::

        \operatorname{logit} P(\text{left wins}) = h + \theta_{\text{left}} - \theta_{\text{right}},

    fitted by maximum likelihood (:func:`logistic_fit`). ``prior_games`` > 0 adds, for every
    stimulus, that many virtual games against a virtual opponent of strength 0, half won and
    half lost (a weak shrinkage toward equal strength that keeps estimates finite when a
    stimulus wins or loses every trial); 0 gives the plain MLE with the last stimulus as
    reference. Strengths are centred (:math:`\sum_j \theta_j = 0`) with the variances of the
    transformed covariance :math:`C V C^\top`, :math:`C = I - \tfrac{1}{m}J`.

    Parameters
    ----------
    left, right : ndarray of int
        Stimulus index (0 … ``n_stimuli`` − 1) shown left and right in each trial.
    left_won : ndarray of float
        1.0 where the left stimulus won, else 0.0.
    n_stimuli : int
        Number of stimuli :math:`m`.
    prior_games : float
        Virtual games per stimulus (0: none).

    References
    ----------
    .. [1] Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs.
       *Biometrika* 39, 324–345.
    .. [2] Agresti, A. (2013). *Categorical Data Analysis*, 3rd ed., §11.6 (home advantage).
    """
    n, m = left_won.size, n_stimuli
    x = np.zeros((n, m))
    x[np.arange(n), left] += 1.0
    x[np.arange(n), right] -= 1.0
    if prior_games > 0:
        virtual = np.vstack([np.eye(m), np.eye(m)])
        design = np.vstack([np.column_stack([np.ones(n), x]), np.column_stack([np.zeros(2 * m), virtual])])
        y_all = np.concatenate([left_won, np.ones(m), np.zeros(m)])
        weights = np.concatenate([np.ones(n), np.full(2 * m, prior_games / 2)])
        fit = logistic_fit(y_all, design, weights)
        full, vfull = fit.params[1:], fit.cov[1:, 1:]
    else:
        fit = logistic_fit(left_won, np.column_stack([np.ones(n), x[:, :-1]]))
        full = np.append(fit.params[1:], 0.0)
        vfull = np.zeros((m, m))
        vfull[:-1, :-1] = fit.cov[1:, 1:]
    c = np.eye(m) - np.ones((m, m)) / m
    vc = c @ vfull @ c.T
    return BradleyTerryFit(
        float(fit.params[0]), float(fit.cov[0, 0]), c @ full, np.diag(vc).copy(), fit.separated
    )
