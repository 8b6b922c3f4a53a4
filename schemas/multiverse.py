"""The tables ``cueshift multiverse`` writes: ``result_multiverse`` (one row per specification ×
claim), ``result_multiverse_summary`` (one row per claim) and ``result_multiverse_joint`` (the joint
test of each model's SBS, and of each of its attributes', over the specifications). They are not
tables of an analysis of the suite (``cueshift analyze`` neither writes nor drops them);
:func:`validate_multiverse` checks a frame and names the first bad row and field.
"""

from __future__ import annotations

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, pvalue, share
from cueshift.schemas.results import nan_to_null

_KINDS = ("sbs_model", "sbs_attribute", "vs_top", "sbs_category")
_CHOICES = ("parsing", "phi", "invalid", "audit", "generalise", "orderings", "path")


class MultiverseSchema(ResultModel):
    """``result_multiverse``: a claim in one specification. The choice columns hold the
    specification's options (``path = 'release'``: the release's own analysis path, one
    specification whose other choices are the release's; ``parsing = 'release'`` there where its
    reading of the answers is stored); ``estimate`` with its face-level interval (null for
    ``sbs_category``, as Table 3's), ``p``/``p_adj`` (null for ``vs_top``; ``p`` null where the
    release path tests no cell of fewer than 3 faces), the ``verdict`` here and in the reference
    specification (``'+'``, ``'-'``, ``'0'``, or the top VS dimension), ``holds`` when they agree."""

    specification: pl.Int64 = count()
    parsing: str = one_of("strict", "lenient", "release")
    phi: str
    invalid: str = one_of("dropped", "unfavorable")
    audit: str = one_of("keep", "strict")
    generalise: str = one_of("faces", "faces+scenarios")
    orderings: str = one_of("all", "1", "2", "3", "4")
    path: str = one_of("cueshift", "release")
    kind: str = one_of(*_KINDS)
    model_id: str
    subject: str
    claim: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    ci_low: float | None = nullable()
    ci_high: float | None = nullable()
    p: float | None = pvalue()
    p_adj: float | None = pvalue()
    verdict: str | None = nullable()
    reference_verdict: str | None = nullable()
    holds: bool
    is_reference: bool
    n: pl.Int64 = count()


class MultiverseSummarySchema(ResultModel):
    """``result_multiverse_summary``: per claim, the specifications in which it holds (count and
    share), the range of its estimate, and the choice that moves it most (``moved_most``: the
    largest difference in the share holding across its options, ``holds_shift``; ties broken by the
    difference of the mean estimates, ``estimate_shift``; null when no choice has two options; the
    release path counts for ``path`` only), and the claim's verdict on the release path
    (``release_verdict``) and whether it holds there (``holds_release``; both null without it)."""

    kind: str = one_of(*_KINDS)
    model_id: str
    subject: str
    claim: str
    reference_verdict: str | None = nullable()
    n_specifications: pl.Int64 = count()
    n_holds: pl.Int64 = count()
    estimate_min: float | None = nullable()
    estimate_max: float | None = nullable()
    share_holds: float = share()
    holds_shift: float | None = share()
    estimate_shift: float | None = pa.Field(nullable=True, ge=0.0)
    moved_most: str | None = pa.Field(nullable=True, isin=list(_CHOICES))
    release_verdict: str | None = nullable()
    holds_release: bool | None = pa.Field(nullable=True)


class MultiverseJointSchema(ResultModel):
    """``result_multiverse_joint``: the specification curve's joint test of a claim over cueshift's
    specifications (Simonsohn, Simmons & Nelson 2020; docs/multiverse.md): a model's SBS (and the
    pooled one; ``kind = 'sbs_model'``, ``subject = 'all attributes'``) or its SBS of one attribute
    (``kind = 'sbs_attribute'``, ``subject``: the attribute), as ``result_multiverse`` names the
    claim; the ``observed`` ``statistic`` (``median`` estimate, ``n_significant`` specifications in
    the ``dominant_sign``, ``stouffer`` Z), its ``p`` against the forced null ((1 + #as extreme) /
    (1 + ``n_resamples``)) and ``p_adj`` (BH within kind × model × statistic: over a model's
    attributes; a model's SBS is alone, ``p_adj = p``), the ``n_specifications`` and the
    ``n_faces`` it rests on."""

    kind: str = one_of("sbs_model", "sbs_attribute")
    model_id: str
    subject: str
    statistic: str = one_of("median", "n_significant", "stouffer")
    observed: float
    p: float = pa.Field(gt=0.0, le=1.0)
    p_adj: float = pa.Field(gt=0.0, le=1.0)
    dominant_sign: str = one_of("+", "-")
    n_specifications: pl.Int64 = pa.Field(ge=1)
    n_resamples: pl.Int64 = pa.Field(ge=1)
    n_faces: pl.Int64 = count()


#: The tables by name (stored as ``result_<name>``).
MULTIVERSE_SCHEMAS: dict[str, type[ResultModel]] = {
    "multiverse": MultiverseSchema,
    "multiverse_summary": MultiverseSummarySchema,
    "multiverse_joint": MultiverseJointSchema,
}


def validate_multiverse(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Check ``frame`` against :data:`MULTIVERSE_SCHEMAS` ``[name]`` (NaN becomes null first).

    Raises
    ------
    SchemaViolation
        One line naming the table, the first bad row and field and the broken check.
    """
    model = MULTIVERSE_SCHEMAS[name]
    try:
        return model.validate(nan_to_null(frame), lazy=True)
    except pa_errors.SchemaErrors as exc:
        first = exc.failure_cases.row(0, named=True)
        more = f" (+{exc.failure_cases.height - 1} more)" if exc.failure_cases.height > 1 else ""
        where = f"row {first.get('index')}, field {first.get('column')!r}"
        raise SchemaViolation(
            f"result_{name}: {where}: value {first.get('failure_case')!r} breaks {first.get('check')}{more}"
        ) from None


__all__ = [
    "MULTIVERSE_SCHEMAS",
    "MultiverseJointSchema",
    "MultiverseSchema",
    "MultiverseSummarySchema",
    "validate_multiverse",
]
