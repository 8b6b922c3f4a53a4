"""REML fit of a linear model with random intercepts per face and, crossed with them, per level of a
second factor (e.g. scenario), from per-face sufficient statistics (fast enough to refit per
bootstrap replicate)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from cueshift._types import F64, I64


@dataclass(frozen=True)
class FaceBlocks:
    r"""Per-face sufficient statistics of :math:`y = X\beta + Z_f u + Z_o v + \varepsilon`.

    With :math:`U_i = (z_{o,i}, x_i, y_i)` (the crossed factor's indicator, the fixed-effect row
    and the response), ``cross[f]`` :math:`=\sum_{i\in f} U_i U_i^\top`, ``sums[f]``
    :math:`=\sum_{i\in f} U_i` and ``counts[f]`` the rows of face :math:`f`; ``n_other``
    columns of the crossed factor (0: faces only), then ``names`` the fixed effects;
    ``y_range[f]`` the least and greatest :math:`y_i` of face :math:`f` (whether the values of a
    set of faces are all equal is decided on them exactly, never on a spread from the sums)."""

    cross: F64
    sums: F64
    counts: F64
    n_other: int
    names: tuple[str, ...]
    y_range: F64


@dataclass(frozen=True)
class RemlFit:
    """REML estimates: fixed effects and their covariance, variances of the face and crossed
    intercepts and of the residual, rows ``n``, ``var_fixed`` = var(Xβ̂) (``ddof``)."""

    beta: F64
    cov_beta: F64
    var_face: float
    var_other: float
    var_resid: float
    theta: F64
    n: float
    var_fixed: float
    converged: bool


def face_blocks(
    y: F64, fixed: F64, faces: I64, n_faces: int, other: I64 | None, n_other: int, names: tuple[str, ...]
) -> FaceBlocks:
    """Sufficient statistics of :class:`FaceBlocks` from rows (``faces``/``other``: integer codes)."""
    indicator = np.zeros((y.size, n_other))
    if other is not None and n_other:
        indicator[np.arange(y.size), other] = 1.0
    rows = np.column_stack([indicator, fixed, y])
    order = np.argsort(faces, kind="stable")
    bounds = np.searchsorted(faces[order], np.arange(n_faces + 1))
    m = rows.shape[1]
    cross, sums = np.zeros((n_faces, m, m)), np.zeros((n_faces, m))
    y_range = np.full((n_faces, 2), np.nan)
    for f in range(n_faces):
        block = rows[order[bounds[f] : bounds[f + 1]]]
        cross[f], sums[f] = block.T @ block, block.sum(axis=0)
        if block.shape[0]:
            y_range[f] = block[:, -1].min(), block[:, -1].max()
    counts = np.diff(bounds).astype(np.float64)
    return FaceBlocks(cross, sums, counts, n_other, names, y_range)


@dataclass(frozen=True)
class WeightedBlocks:
    """The face blocks summed under face weights, with faces of equal row count pooled:
    ``total`` = Σ w_f cross_f; per distinct count ``sizes[k]``: ``size_weight[k]`` = Σ w_f and
    ``outer[k]`` = Σ w_f sums_f sums_fᵀ over its faces (the deviance then costs O(K m²) per
    evaluation for K distinct counts, not O(faces · m²))."""

    total: F64
    sizes: F64
    size_weight: F64
    outer: F64
    n: float
    n_other: int
    n_fixed: int


def weighted_blocks(blocks: FaceBlocks, weights: F64) -> WeightedBlocks:
    """:class:`WeightedBlocks` of ``blocks`` under face ``weights``."""
    sizes, which = np.unique(blocks.counts, return_inverse=True)
    outer = np.stack(
        [
            (blocks.sums[which == k].T * weights[which == k]) @ blocks.sums[which == k]
            for k in range(sizes.size)
        ]
    )
    return WeightedBlocks(
        total=np.tensordot(weights, blocks.cross, axes=1),
        sizes=sizes.astype(np.float64),
        size_weight=np.bincount(which, weights=weights, minlength=sizes.size).astype(np.float64),
        outer=outer,
        n=float(weights @ blocks.counts),
        n_other=blocks.n_other,
        n_fixed=blocks.sums.shape[1] - blocks.n_other - 1,
    )


def _profile(theta: F64, wb: WeightedBlocks) -> tuple[float, F64, F64, float]:
    r"""Profiled REML deviance at relative standard deviations :math:`\theta` (Bates et al. 2015,
    eq. 42): the face intercepts are eliminated per face in closed form
    (:math:`\sum_f w_f [S_f - \theta_u^2 c_f c_f^\top/(\theta_u^2 n_f + 1)]`), the crossed ones and
    the fixed effects by a Cholesky factor. Returns (deviance, β̂, (XᵀV⁻¹X)⁻¹/σ², σ̂²)."""
    q, n_fixed = wb.n_other, wb.n_fixed
    t_face, t_other = theta[0], (theta[1] if theta.size > 1 else 0.0)
    shrink = t_face**2 / (t_face**2 * wb.sizes + 1.0)
    m = wb.total.shape[0]
    reduced = wb.total - (shrink @ wb.outer.reshape(shrink.size, m * m)).reshape(m, m)
    logdet = float(np.sum(wb.size_weight * np.log1p(t_face**2 * wb.sizes)))
    rest = reduced[q:, q:]
    if q:
        cross = t_other * reduced[q:, :q]
        a = t_other**2 * reduced[:q, :q] + np.eye(q)
        logdet += 2.0 * float(np.sum(np.log(np.diag(np.linalg.cholesky(a)))))
        rest = rest - cross @ np.linalg.solve(a, cross.T)
    xx, xy, yy = rest[:n_fixed, :n_fixed], rest[:n_fixed, -1], rest[-1, -1]
    logdet_x = 2.0 * float(np.sum(np.log(np.diag(np.linalg.cholesky(xx)))))
    unscaled = np.asarray(np.linalg.inv(xx), dtype=np.float64)
    beta = unscaled @ xy
    r2 = max(float(yy - xy @ beta), 1e-300)
    dof = wb.n - n_fixed
    deviance = logdet + logdet_x + dof * (1.0 + np.log(2.0 * np.pi * r2 / dof))
    return deviance, beta, unscaled, r2 / dof


def reml_fit(
    blocks: FaceBlocks,
    weights: F64 | None = None,
    start: F64 | None = None,
    *,
    tol: float = 1e-10,
    ddof: int = 1,
) -> RemlFit:
    r"""REML fit of the random-intercept model of ``blocks`` (faces, plus the crossed factor when
    ``n_other`` > 0); ``weights`` are face multiplicities (a face drawn :math:`k` times by a
    bootstrap enters as :math:`k` independent faces); ``tol`` is the optimiser's tolerance on
    :math:`s = \sqrt\theta` and the deviance; ``ddof`` that of ``var_fixed``.

    The relative standard deviations :math:`\theta = (\sigma_u, \sigma_v)/\sigma` minimise the
    profiled REML deviance

    .. math::

        d(\theta) = \log|L_\theta|^2 + \log|R_X|^2
            + (n - p)\left[1 + \log\frac{2\pi r^2_\theta}{n - p}\right]

    over :math:`s` with :math:`\theta = s^2` (Brent's method for faces alone, Nelder-Mead with
    the crossed factor); then :math:`\hat\sigma^2 = r^2_\theta/(n-p)`,
    :math:`\hat\sigma^2_u = \hat\sigma^2\theta_u^2`,
    :math:`\widehat{\mathrm{Cov}}(\hat\beta) = \hat\sigma^2 (R_X^\top R_X)^{-1}`.

    References
    ----------
    .. [1] Bates, D., Mächler, M., Bolker, B. & Walker, S. (2015). Fitting linear mixed-effects
       models using lme4. *J. Stat. Softw.* 67(1), §3.
    """
    w = np.ones(blocks.counts.size) if weights is None else np.asarray(weights, dtype=np.float64)
    wb = weighted_blocks(blocks, w)
    n_theta = 2 if blocks.n_other else 1
    x0 = np.ones(n_theta) if start is None else np.asarray(start, dtype=np.float64)
    if n_theta == 1:  # Brent on s with θ = s² (unconstrained, even in s): a few dozen evaluations
        root = float(np.sqrt(x0[0])) or 1.0
        scalar = optimize.minimize_scalar(
            lambda s: _profile(np.array([s * s]), wb)[0],
            bracket=(0.5 * root, root),
            method="brent",
            tol=tol,
        )
        theta, converged = np.array([float(scalar.x) ** 2]), bool(scalar.success)
    else:  # Nelder-Mead on s (θ = s²): a third of L-BFGS-B's time with numerical gradients here
        result = optimize.minimize(
            lambda s: _profile(s * s, wb)[0],
            np.sqrt(x0),
            method="Nelder-Mead",
            options={"xatol": tol, "fatol": tol, "maxiter": 2000},
        )
        theta, converged = np.asarray(result.x, dtype=np.float64) ** 2, bool(result.success)
    _, beta, unscaled, sigma2 = _profile(theta, wb)
    q = blocks.n_other
    n = float(np.sum(w * blocks.counts))
    fixed = slice(q, blocks.sums.shape[1] - 1)
    fitted_sum = float((w @ blocks.sums[:, fixed]) @ beta)
    fitted_sq = float(beta @ wb.total[fixed, fixed] @ beta)
    var_fixed = max((fitted_sq - fitted_sum**2 / n) / (n - ddof), 0.0)
    return RemlFit(
        beta=beta,
        cov_beta=sigma2 * unscaled,
        var_face=sigma2 * theta[0] ** 2,
        var_other=sigma2 * theta[1] ** 2 if n_theta > 1 else 0.0,
        var_resid=sigma2,
        theta=theta,
        n=n,
        var_fixed=var_fixed,
        converged=converged,
    )
