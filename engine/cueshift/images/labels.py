"""Demographic and variation labels shared by the loaders (seed 000 Tables 7 and 8).

Loaders are lenient on the spelling of *values* (case, repeated spaces, spaces around
``/``) and map them to the canonical spelling when one matches; unknown values pass
through unchanged (other data sets use other labels).
"""

from __future__ import annotations

import re

from cueshift.study.variations import FEATURE_BY_KEY

#: Demographic attribute space of seed 000 Table 7, in the paper's order.
AGES: tuple[str, ...] = ("young adult", "middle-aged adult", "elderly")
GENDERS: tuple[str, ...] = ("male", "female")
ETHNICITIES: tuple[str, ...] = ("Asian", "African", "European", "Middle Eastern", "Latino")
BODY_TYPES: tuple[str, ...] = ("thin", "normal", "obese")

DEMOGRAPHIC_FIELDS: tuple[str, ...] = ("age", "gender", "ethnicity", "body_type")
_CANONICAL_DEMOGRAPHICS: dict[str, tuple[str, ...]] = {
    "age": AGES,
    "gender": GENDERS,
    "ethnicity": ETHNICITIES,
    "body_type": BODY_TYPES,
}


def _fold(value: str) -> str:
    """Case- and spacing-insensitive comparison key (``'Smart  Casual'`` == ``'smart casual'``)."""
    collapsed = " ".join(value.split())
    return re.sub(r"\s*/\s*", "/", collapsed).casefold()


def _canonical(value: str, known: tuple[str, ...]) -> str:
    folded = _fold(value)
    for candidate in known:
        if _fold(candidate) == folded:
            return candidate
    return " ".join(value.split())


def normalize_demographic(field: str, value: str | None) -> str | None:
    """Canonical spelling of a demographic label; ``None`` / blank stays ``None``.

    Parameters
    ----------
    field
        One of :data:`DEMOGRAPHIC_FIELDS`.
    value
        The label as found in the source.

    Returns
    -------
    str or None
        The Table 7 spelling when the label matches one case-insensitively, else the
        label with its whitespace collapsed. Unknown genders are lower-cased so that
        the gender-specific variation rules compare reliably.
    """
    if value is None or not value.strip():
        return None
    canonical = _canonical(value, _CANONICAL_DEMOGRAPHICS[field])
    return canonical.lower() if field == "gender" else canonical


def normalize_variation_value(feature_key: str, value: str) -> str:
    """Map ``value`` to the FEATURES spelling of ``feature_key`` when it matches leniently."""
    feature = FEATURE_BY_KEY.get(feature_key)
    return _canonical(value, feature.values if feature else ())


def variation_category(feature_key: str) -> str:
    """Display category of a feature (Tables 3 and 11), or the key itself when unknown."""
    feature = FEATURE_BY_KEY.get(feature_key)
    return feature.category if feature else feature_key


def default_framing(feature_key: str | None) -> str:
    """``'body'`` for variations of a full-body feature (fashion), ``'face'`` otherwise."""
    feature = FEATURE_BY_KEY.get(feature_key) if feature_key else None
    return feature.framing if feature else "face"


def slug(value: str) -> str:
    """File-name-safe form of a label.

    ``'Professional / Business formal'`` becomes ``'professional-business-formal'``.
    """
    return re.sub(r"[^a-z0-9]+", "-", value.casefold()).strip("-")
