"""A build's features file (``[build.variations] features_file``, ``whitelist_file``): the
release's ``config/variation_features.json`` format, one JSON object of feature key -> list of values.
"""

from __future__ import annotations

import json
from pathlib import Path

from cueshift.errors import ConfigError


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


__all__ = ["read_feature_file"]
