"""``[models.settings]`` errors: one line naming the model and every bad setting; a misspelt key
gets the closest setting names (issue 30)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from cueshift.errors import ConfigError
from cueshift.inference.backends.model_settings import validate_settings
from cueshift.study.config import ModelConfig


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    concurrency: int = 1
    letter_bias: float = 0.0


def test_every_bad_setting_on_one_line_with_suggestions() -> None:
    model = ModelConfig(model_id="judge", settings={"letter_bias": "x", "concurency": 3})
    with pytest.raises(ConfigError) as info:
        validate_settings(Settings, model)
    assert str(info.value) == (
        "model 'judge': settings.letter_bias: Input should be a valid number, unable to parse string as "
        "a number; settings.concurency: Extra inputs are not permitted (did you mean 'concurrency'?)"
    )
