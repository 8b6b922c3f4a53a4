"""A backend's ``[models.settings]`` table validated against its pydantic settings model."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from cueshift.errors import ConfigError
from cueshift.study.config import ModelConfig

SettingsT = TypeVar("SettingsT", bound=BaseModel)


def validate_settings(schema: type[SettingsT], model: ModelConfig) -> SettingsT:
    """Validate ``model.settings`` against ``schema``; a bad field raises a one-line :class:`ConfigError`.

    The message names the model, the first bad field and how many more there are, e.g.
    ``model 'sim-judge': settings.letter_bias: Input should be a valid number (+1 more)``.

    Raises
    ------
    ConfigError
        When ``model.settings`` does not validate.
    """
    try:
        return schema.model_validate(model.settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(part) for part in err["loc"]) or "<settings>"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"model {model.model_id!r}: settings.{field}: {err['msg']}{more}") from None


__all__ = ["validate_settings"]
