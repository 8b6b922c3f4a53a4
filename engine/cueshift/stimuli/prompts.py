"""The prompt family with slots: templates checked once, then filled per image.

A template names its slots in braces (``{age}``, ``{feature}``); a base prompt may name the grid's
fields, an edit prompt ``{feature}`` and ``{value}``. A slot the stage cannot fill, or a broken
brace, is a one-line :class:`~cueshift.errors.ConfigError` before anything is made.

>>> check_template("[build.prompts] base", "a {age} person", {"age"})
>>> fill("a {age} person", {"age": "elderly"})
'a elderly person'
>>> feature_label("facial_hair_male")
'facial hair'
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping

from cueshift.errors import ConfigError


def slots_of(where: str, template: str) -> set[str]:
    """The slot names of ``template`` (``where`` names it in an error)."""
    try:
        names = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
    except ValueError as exc:
        raise ConfigError(f"{where}: not a prompt template ({exc})") from None
    if "" in names or any(not name.isidentifier() for name in names):
        raise ConfigError(f"{where}: every slot needs a name, e.g. {{age}}")
    return names


def check_template(where: str, template: str, known: Iterable[str]) -> None:
    """Refuse a template that is empty or names a slot outside ``known``.

    Raises
    ------
    ConfigError
        One line naming the template and the slot.
    """
    if not template.strip():
        raise ConfigError(f"{where}: the prompt is empty")
    allowed = set(known)
    unknown = sorted(slots_of(where, template) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown slot {{{unknown[0]}}}; known: {', '.join(sorted(allowed))}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with its slots filled from ``values`` (checked first by :func:`check_template`)."""
    return template.format_map(dict(values))


def feature_label(feature_key: str) -> str:
    """The words of a feature key in a prompt: underscores as spaces, the (M)/(F) suffix dropped."""
    for suffix in ("_male", "_female"):
        if feature_key.endswith(suffix):
            feature_key = feature_key[: -len(suffix)]
    return feature_key.replace("_", " ")


__all__ = ["check_template", "feature_label", "fill", "slots_of"]
