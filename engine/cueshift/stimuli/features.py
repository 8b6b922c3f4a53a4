"""The variation space of a build: the features (inline or a release JSON file) less what the study
leaves out (group restrictions, plausibility exclusions, the curation whitelist).

The release's ``config/variation_features.json`` and ``variation_features_whitelist.json`` are read
as they are: one JSON object, feature key -> list of values.
"""

from __future__ import annotations

import json
from pathlib import Path

from cueshift.errors import ConfigError
from cueshift.study.build_config import VariationPlan
from cueshift.study.variations import FEATURES


def read_feature_file(path: Path) -> dict[str, list[str]]:
    """A JSON object of feature key -> list of value strings.

    Raises
    ------
    ConfigError
        A missing or malformed file (one line naming it and the key).
    """
    if not path.is_file():
        raise ConfigError(f"{path}: no such features file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected an object of feature key -> list of values")
    for key, values in data.items():
        if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
            raise ConfigError(f"{path}: key {key!r}: expected a non-empty list of value strings")
    return {str(key): list(values) for key, values in data.items()}


def feature_space(plan: VariationPlan) -> dict[str, list[str]]:
    """The features and values to make, whitelist applied (default: seed 000 Table 8's 55 values)."""
    if plan.features_file is not None:
        features = read_feature_file(plan.features_file)
    elif plan.features is not None:
        features = {key: list(values) for key, values in plan.features.items()}
    else:
        features = {f.feature_key: list(f.values) for f in FEATURES}
    whitelist = read_feature_file(plan.whitelist_file) if plan.whitelist_file is not None else plan.whitelist
    if whitelist is not None:
        features = {k: [v for v in vs if v in whitelist.get(k, [])] for k, vs in features.items()}
    return {key: values for key, values in features.items() if values}


def allowed(plan: VariationPlan, feature_key: str, value: str, base: dict[str, str]) -> bool:
    """Whether ``base`` (its grid values) gets the variation: restrictions, then exclusions."""
    for field, values in plan.restrictions.get(feature_key, {}).items():
        if field in base and base[field] not in values:
            return False
    return not any(
        rule.feature_key == feature_key and value in rule.values and rule.gender in (None, base.get("gender"))
        for rule in plan.exclusions
    )


__all__ = ["allowed", "feature_space", "read_feature_file"]
