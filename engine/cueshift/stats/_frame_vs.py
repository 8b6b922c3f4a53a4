r"""Statistics on a frame: Variation Strength (:func:`vs`, seed 000 Eq. 3) per group, over the
design's kernel :func:`~cueshift.stats._vs.variation_strength_kernel`."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.stats._cell_codes import cell_codes, encode_categories
from cueshift.stats._faces import face_matrix
from cueshift.stats._frame_input import By, by_columns, checked_rows, finish, subject_ids
from cueshift.stats._vs import variation_strength_kernel


def vs(
    data: pl.DataFrame,
    dv: str = "phi",
    subject: str = "face_id",
    between: str = "gender",
    by: By = ("model_id",),
    *,
    over: By = "scenario_id",
    ddof: int = 0,
    confidence: float = 0.95,
) -> pl.DataFrame:
    r"""Variation Strength: how far the groups of ``between`` differ in mean ``dv``, per group of ``by``.

    .. math::

        \mathrm{VS} = \frac{1}{|\mathcal S|}\sum_{i \in \mathcal S}
        \operatorname{std}_g\big(\bar y_{i,g}\big),

    :math:`\bar y_{i,g}` the mean over the subjects of group :math:`g` (a subject-level label,
    e.g. a face's gender) of their mean ``dv`` in cell :math:`i` of ``over`` (a scenario), the std
    over the groups present (``ddof``: 0 population, 1 sample). As the design's Table 2
    (``result_table2_vs``): ``estimate`` removes the groups' sampling variance
    (bias-corrected), ``ci_low``/``ci_high`` average the cells' intervals (image of a confidence
    ball for the group means: valid at VS = 0, conservative; :mod:`cueshift.stats._vs`; capped
    at :func:`~cueshift.stats._vs.vs_max` only when every ``dv`` lies in [0, 1], as φ does);
    ``n`` is the subjects with a label and a value. ``over=None``: one cell per group.

    References
    ----------
    .. [1] seed 000 Eq. 3 and Table 2 (Variation Strength).
    .. [2] Searle, S. R., Casella, G. & McCulloch, C. E. (1992). *Variance Components*, §3.5.

    Examples
    --------
    >>> frame = pl.DataFrame({"patient": [f"p{i}" for i in range(8)], "sex": ["f", "m"] * 4,
    ...                       "score": [0.2, 0.8, 0.3, 0.7, 0.2, 0.9, 0.3, 0.8]})
    >>> out = vs(frame, "score", "patient", "sex", by=None, over=None)
    >>> round(out["estimate"][0], 4), out["n"][0]
    (0.2739, 8)
    """
    keys, cells = by_columns(by), by_columns(over)
    if ddof not in (0, 1):
        raise CueshiftError(f"vs: ddof must be 0 or 1, not {ddof!r}")
    if not 0.0 < confidence < 1.0:
        raise CueshiftError(f"vs: confidence must lie strictly between 0 and 1, not {confidence!r}")
    if between in keys or between in cells:
        raise CueshiftError(f"vs: between column {between!r} is also a by or over column")
    rows = checked_rows(data, "vs", dv, [subject, between, *keys, *cells]).filter(
        pl.col(between).is_not_null()
    )
    if rows.height == 0:
        raise CueshiftError(f"vs: no row with a value of {between!r}")
    subjects = subject_ids(rows, "vs", subject)
    labels = rows.select(subject, between).unique()
    if labels[subject].is_duplicated().any():
        raise CueshiftError(f"vs: {between!r} must be one value per subject ({subject!r} has several)")
    groups = sorted(labels[between].unique().to_list())
    label_of = labels.sort(subject)  # one row per subject, in the order of ``subjects``
    codes = encode_categories(label_of[between], groups)
    fm = face_matrix(rows, [*keys, *cells], faces=subjects, value=dv, subject=subject)
    unit, units = cell_codes(fm.cells, keys)
    in_unit_range = bool(rows[dv].min() >= 0.0 and rows[dv].max() <= 1.0)  # type: ignore[operator]
    top = None if in_unit_range else math.inf  # vs_max bounds shares, not other scales
    res = variation_strength_kernel(fm.values, codes, len(groups), unit, ddof=ddof, level=confidence, top=top)
    has_value = ~np.isnan(fm.values)
    n = [int(has_value[:, unit == u].any(axis=1).sum()) for u in range(units.height)]
    columns = {"estimate": res.estimate, "ci_low": res.ci_low, "ci_high": res.ci_high, "n": n}
    out_groups = units.drop("__all") if not keys else units
    return finish(out_groups, keys, columns, method=f"variation strength (ddof={ddof})", name="vs")
