"""Result tables of the StylisticBias design: the edit audit carried into the results
(``cueshift analyze --audit``), each attribute's SBS with every edit, with the audited edits
only, and adjusted for the measured unintended changes."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_stylisticbias_base import Result


class AuditSensitivitySchema(Result):
    """``result_audit_sensitivity``: per model (and pooled) × attribute (``feature_key``), the
    face-level SBS over every edit (``all_*``), over the edits that passed the edit audit
    (``audited_*``) and adjusted for the measured unintended changes (``adjusted_*``, a
    face-weighted regression of Δ on the confound differences with face-clustered errors), with
    intervals; the changes against ``all_sbs``; the variations, those that failed and the faces;
    the confound measures the adjustment used and their joint face-clustered Wald test
    (``statistic`` χ², ``df``, ``p``: do the unintended changes move Δ at all?); and, for the SBS
    over every edit and over the audited ones, what the audit cannot see (Cinelli & Hazlett 2020,
    in the face-level model of the SBS): the partial R² of the cue with the judgment
    (``<set>_partial_r2``), the robustness value (``<set>_rv``: the share of the residual
    variance of both cue and judgment an unmeasured side effect of the edit must explain to erase
    the SBS) and ``<set>_rv_alpha`` (to make it non-significant at 1 − the interval's level); and
    the benchmark for those: in the face-level model holding the measured side effects (its SBS
    ``<set>_bound_from``), the SBS and interval net of an unmeasured side effect as strong as the
    measured one that moves it most (``<set>_bound_confound``; partial R² ``<set>_bound_r2dz``
    with the cue, ``<set>_bound_r2yz`` with the judgment): ``<set>_bound_sbs``,
    ``<set>_bound_ci_low``, ``<set>_bound_ci_high`` (D46)."""

    model_id: str
    feature_key: str
    all_sbs: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    all_ci_low: float | None = pa.Field(nullable=True)
    all_ci_high: float | None = pa.Field(nullable=True)
    audited_sbs: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    audited_ci_low: float | None = pa.Field(nullable=True)
    audited_ci_high: float | None = pa.Field(nullable=True)
    adjusted_sbs: float | None = pa.Field(nullable=True)
    adjusted_ci_low: float | None = pa.Field(nullable=True)
    adjusted_ci_high: float | None = pa.Field(nullable=True)
    change_audited: float | None = pa.Field(nullable=True)
    change_adjusted: float | None = pa.Field(nullable=True)
    n_variations: pl.Int64 = pa.Field(ge=0)
    n_failed: pl.Int64 = pa.Field(ge=0)
    n_audited: pl.Int64 = pa.Field(ge=0)
    n_adjusted: pl.Int64 = pa.Field(ge=0)
    n_faces: pl.Int64 = pa.Field(ge=0)
    confounds: str
    statistic: float | None = pa.Field(nullable=True, ge=0.0)
    df: pl.Int64 = pa.Field(ge=0)
    p: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    all_partial_r2: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    all_rv: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    all_rv_alpha: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    audited_partial_r2: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    audited_rv: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    audited_rv_alpha: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    all_bound_confound: str | None = pa.Field(nullable=True)
    all_bound_from: float | None = pa.Field(nullable=True)
    all_bound_r2dz: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    all_bound_r2yz: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    all_bound_sbs: float | None = pa.Field(nullable=True)
    all_bound_ci_low: float | None = pa.Field(nullable=True)
    all_bound_ci_high: float | None = pa.Field(nullable=True)
    audited_bound_confound: str | None = pa.Field(nullable=True)
    audited_bound_from: float | None = pa.Field(nullable=True)
    audited_bound_r2dz: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    audited_bound_r2yz: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    audited_bound_sbs: float | None = pa.Field(nullable=True)
    audited_bound_ci_low: float | None = pa.Field(nullable=True)
    audited_bound_ci_high: float | None = pa.Field(nullable=True)
    ci_method: str = pa.Field(isin=["bca", "percentile"])
    audit: str = pa.Field(isin=["strict", "report"])


#: These result tables by name (the table is ``result_<name>``).
AUDIT_RESULTS: dict[str, type[ResultModel]] = {"audit_sensitivity": AuditSensitivitySchema}
