r"""The noise floor: what |SBS| a variation shows when nothing about the face changed.

Every StylisticBias study includes two placebo variations per base image (a pixel-identical copy and
a lossless re-encode; :mod:`cueshift.images.placebos`). Their true Δ is zero, so their |SBS| at the
unit of attribute |SBS| (the model × value × scenario cell) is what sampling noise, serving
nondeterminism and cache effects alone produce. :func:`noise_floor` summarises it (with the placebo
SBS, whose CI should contain 0); :func:`attributes_vs_floor` (``_noise_attributes.py``) reads
each attribute against it.

Calibration
-----------
*Cell |SBS|.* With :math:`n` faces per cell, a cell's SBS is a mean of :math:`n` per-face
Δ, so under no effect :math:`|\mathrm{SBS}_c| \approx |N(0, \sigma^2_\Delta / n)|` with mean
:math:`\sigma_\Delta\sqrt{2/(\pi n)}`: the floor shrinks as :math:`1/\sqrt n` and grows with the
binomial noise of φ (fewer valid answers) and with serving noise. An attribute's |SBS| (mean of
its cells' |SBS|) has the same expectation as the placebos' mean cell |SBS| when its true Δ is 0
in every cell; ``above_floor`` compares it with the placebos' upper ``quantile`` of *single* cells,
a conservative descriptive bar (a mean of many null cells rarely exceeds a single-cell 95th
percentile).

*Face-level test.* For face :math:`f`, attribute value :math:`v` and model :math:`m`,

.. math::

    d_{fv} = \overline{|\Delta_{f v s}|}_{s} - \overline{|\Delta_{f p s}|}_{p \in P,\, s},

the face's mean |Δ| over the value's scenarios minus its mean |Δ| over the placebos' scenarios.
If the value's images move judgments no more than re-encoding the base does, :math:`d_{fv}` has
mean 0 (both are means of |φ − φ_base| over the same noise), and faces are independent. The
one-sided Wilcoxon signed-rank test of :math:`d_{fv} > 0` across faces assumes more: that
:math:`d_{fv}` is symmetric about 0 (it tests the pseudo-median), which the null does not imply,
since the two means average different numbers of folded terms (the value's scenarios against
twice as many placebo × scenario terms; measured skewness of :math:`d_{fv}` about +0.05, which
puts the pseudo-median slightly below 0, the conservative side). Measured on planted null values
at the design's shape (25 scenarios, both placebos, 12 answers per image × scenario, binomial
judge, logit face and scenario effects N(0, 1)): rejection rate at alpha = 0.05 of 5.3 % over
5,600 simulated judges with 90 faces (Monte Carlo SE 0.3 %) and 4.9 % over 3,000 with 500 faces
(SE 0.4 %); with logit spreads of 2 (many |Δ| = 0) 5.0 % and 3.5 %
(``tests/stats/test_noise.py::test_the_face_level_floor_test_keeps_its_level_at_the_design_shape``).
Sign flips are exact under the same symmetry and otherwise approximate. ``p_adj`` is BH over the values of a
model (seed 000 §4.4's BH). ``passes`` means the cue
moves individual judgments beyond the noise floor in *either* direction (an effect that is
heterogeneous in sign across faces passes while its SBS may be 0); SBS and its test say in which
direction on average. Faces enter once per value; pooled rows average a face's |Δ| over models.

References
----------
.. [1] Lipsitch, M., Tchetgen Tchetgen, E. & Cohen, T. (2010). Negative controls: a tool for
   detecting confounding and bias in observational studies. *Epidemiology* 21, 383–388.
.. [2] Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1, 80–83.
.. [3] Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B* 57, 289–300.
.. [4] seed 000 Eq. 4 (SBS) and §4.4 (face-level WSRT, BH); docs/decisions.md#d1.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.stats._noise_face_tests import (
    ALL_PLACEBOS,
    _floor,
    _select,
    _test_name,
    _tested,
)
from cueshift.designs.stylisticbias.stats._noise_grid import (
    axes_of,
    cell_abs,
    grid_of,
    ratio,
    split_key,
    valid,
)
from cueshift.stats import (
    POOLED,
    Resampling,
    bh_by_family,
    returns,
)


@returns("noise_floor")
def noise_floor(
    placebo: pl.DataFrame,
    *,
    quantile: float = 0.95,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""The placebo SBS and the distribution of placebo cell |SBS|, per model, pooled, per placebo.

    Per model (and ``(pooled)``) × placebo value (and :data:`ALL_PLACEBOS`): ``estimate`` is the
    placebo SBS, :math:`\mathrm{mean}_f \bar\Delta_f` over the face's placebo Δ (true value 0),
    with a face-level cluster bootstrap CI and a two-sided WSRT (or sign flips) of the per-face
    means against 0, ``p_adj`` BH within the model; ``abs_sbs_mean``, ``abs_sbs_quantile`` and
    ``abs_sbs_max`` summarise :func:`cell_abs_sbs` over the row's model × placebo × scenario cells
    (:data:`ALL_PLACEBOS`: the cells of every placebo; pooled rows: every model's cells). See the
    module docstring for the calibration.

    Parameters
    ----------
    placebo : polars.DataFrame
        ``delta`` rows of the placebos (``read_delta(con, placebo=True)``).
    quantile : float
        The floor's upper quantile (default the 95th percentile).
    resampling : Resampling
        Face-level bootstrap and test settings, as :func:`sbs_levels`.
    """
    data = valid(placebo)
    grid = grid_of(data, *axes_of(data))
    cells = cell_abs(grid)
    values = [split_key(v)[1] for v in grid.values]
    keys, columns, floors, n_obs = [], [], [], []
    for model in [*grid.models, POOLED]:
        for value in [*values, ALL_PLACEBOS]:
            part = (_select(grid.models, model), _select(values, value))
            counts = grid.count[part].sum(axis=(0, 1, 2))
            keys.append((model, value))
            columns.append(ratio(grid.delta[part].sum(axis=(0, 1, 2)), counts))
            floors.append(_floor(cells[part], quantile))
            n_obs.append(int(counts.sum()))
    tested = _tested(np.column_stack(columns), resampling, "two-sided")
    out = pl.DataFrame(
        {
            "model_id": [k[0] for k in keys],
            "variation_value": [k[1] for k in keys],
            **{name: tested[name] for name in ("estimate", "ci_low", "ci_high", "statistic", "p")},
            "abs_sbs_mean": [f[0] for f in floors],
            "abs_sbs_quantile": [f[1] for f in floors],
            "abs_sbs_max": [f[2] for f in floors],
            "quantile": quantile,
            "effect_size": tested["effect_size"],
            "test": _test_name(resampling.test),
            "ci_method": resampling.ci_method,
            "n_cells": pl.Series([f[3] for f in floors], dtype=pl.Int64),
            "n": pl.Series(tested["n"]).cast(pl.Int64),
            "n_obs": pl.Series(n_obs, dtype=pl.Int64),
        }
    )
    out = bh_by_family(out, ["model_id"])
    columns_out = [
        "model_id",
        "variation_value",
        "estimate",
        "ci_low",
        "ci_high",
        "statistic",
        "p",
        "p_adj",
    ]
    rest = [c for c in out.columns if c not in columns_out]
    return out.select(*columns_out, *rest).with_columns(pl.col(pl.Float64).fill_nan(None))
