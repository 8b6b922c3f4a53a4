"""The canonical bytes of a preregistered plan: sorted keys, one spelling per value, and the
SHA-256 over those bytes on the file's first line (``sha256 = "<hex>"``, left out of the hash).

>>> text = plan_text({"run": {"seed": 0, "models": ["a", "b"]}, "format": 1})
>>> print(text.split("\\n", 1)[1], end="")
format = 1
<BLANKLINE>
[run]
models = ["a", "b"]
seed = 0
>>> read_plan_text(text, "plan.toml")[0]
{'format': 1, 'run': {'models': ['a', 'b'], 'seed': 0}}
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from typing import Any

from cueshift.errors import ConfigError

_HASH_KEY = "sha256 = "


def _value(value: object) -> str:
    """One TOML value on one line: strings as JSON strings (a TOML basic string), tables inline."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in sorted(value.items())) + "}"
    raise TypeError(f"no TOML spelling for {value!r}")


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _table(data: Mapping[str, Any], prefix: str) -> list[str]:
    scalars = [f"{_key(k)} = {_value(v)}" for k, v in sorted(data.items()) if not isinstance(v, Mapping)]
    lines = ([f"[{prefix}]"] if prefix else []) + scalars
    for key, value in sorted(data.items()):
        if isinstance(value, Mapping):
            lines += ["", *_table(value, f"{prefix}.{_key(key)}" if prefix else _key(key))]
    return lines


def canonical_body(plan: Mapping[str, Any]) -> str:
    """The plan without its hash line: keys sorted at every level, ``None`` values left out."""
    return "\n".join(_table(_without_none(plan), "")).lstrip("\n") + "\n"


def _without_none(value: Any) -> Any:  # noqa: ANN401  (any TOML-able value)
    if isinstance(value, Mapping):
        return {str(k): _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_without_none(v) for v in value]
    return value


def body_hash(body: str) -> str:
    """SHA-256 (hex) of the canonical body's UTF-8 bytes."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def plan_text(plan: Mapping[str, Any]) -> str:
    """The whole plan file: its hash line, then the canonical body."""
    body = canonical_body(plan)
    return f'{_HASH_KEY}"{body_hash(body)}"\n{body}'


def read_plan_text(text: str, source: str) -> tuple[dict[str, Any], str]:
    """The plan and its hash, checked: the first line's hash must be that of the rest, byte for byte.

    Raises
    ------
    ConfigError
        No hash line, or a plan edited after it was frozen (its hash no longer matches).
    """
    first, _, body = text.partition("\n")
    if not first.startswith(_HASH_KEY):
        raise ConfigError(f'{source}: not a preregistered plan (no first line sha256 = "...")')
    stated = first.removeprefix(_HASH_KEY).strip().strip('"')
    if body_hash(body) != stated:
        raise ConfigError(f"{source}: edited after it was frozen (its SHA-256 no longer matches)")
    try:
        return tomllib.loads(body), stated
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None


__all__ = ["body_hash", "canonical_body", "plan_text", "read_plan_text"]
