"""The variation space of a build: the features (inline or a release JSON file) less what the study
leaves out (group restrictions, plausibility exclusions, the curation whitelist).

The release's ``config/variation_features.json`` and ``variation_features_whitelist.json`` are read
as they are (``cueshift.study.feature_file``): one JSON object, feature key -> list of values.
"""

from __future__ import annotations

from cueshift.study.build_config import VariationPlan
from cueshift.study.feature_file import read_feature_file
from cueshift.study.variations import FEATURES


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


__all__ = ["allowed", "feature_space"]
