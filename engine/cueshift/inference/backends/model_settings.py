"""A backend's ``[models.settings]`` table validated against its pydantic settings model."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from cueshift.errors import ConfigError
from cueshift.study.config import ModelConfig
from cueshift.study.validation_errors import did_you_mean

SettingsT = TypeVar("SettingsT", bound=BaseModel)


def validate_settings(schema: type[SettingsT], model: ModelConfig) -> SettingsT:
    """Validate ``model.settings`` against ``schema``; bad fields raise a :class:`ConfigError`.

    One line naming the model and every bad field (``; `` between them), a misspelt key with the
    closest setting names, e.g. ``model 'sim-judge': settings.letter_bias: Input should be a valid
    number; settings.seeed: Extra inputs are not permitted (did you mean 'seed'?)``.

    Raises
    ------
    ConfigError
        When ``model.settings`` does not validate.
    """
    try:
        return schema.model_validate(model.settings)
    except ValidationError as exc:
        parts: list[str] = []
        for err in exc.errors():
            field = ".".join(str(part) for part in err["loc"]) or "<settings>"
            hint = did_you_mean(schema, err["loc"]) if err["type"] == "extra_forbidden" else ""
            parts.append(f"settings.{field}: {err['msg']}{hint}")
        raise ConfigError(f"model {model.model_id!r}: {'; '.join(dict.fromkeys(parts))}") from None


__all__ = ["validate_settings"]
