"""Settings of the OpenAI-compatible backend (``[models.settings]`` of a ``backend = "openai"`` model)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cueshift.inference.backends.model_settings import validate_settings
from cueshift.inference.backends.openai_http import Origin
from cueshift.study.config import ModelConfig

#: Request fields set by the backend; ``extra_body`` may not override them.
RESERVED_FIELDS = frozenset(
    {
        "model",
        "messages",
        "temperature",
        "max_tokens",
        "seed",
        "logprobs",
        "top_logprobs",
        "structured_outputs",
        "guided_choice",
    }
)

#: How the forced-choice answer is constrained: not at all, vLLM >= 0.12's ``structured_outputs``
#: ``{"choice": [...]}``, or the ``guided_choice`` of older vLLM (ignored by 0.12 and later).
Constraint = Literal["none", "structured_outputs", "guided_choice"]


class OpenAISettings(BaseModel):
    """``[models.settings]`` of a model with ``backend = "openai"``.

    The served model name is the model's ``checkpoint`` (what the server lists under
    ``/v1/models``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_urls: list[str] = Field(min_length=1, description="e.g. ['http://127.0.0.1:8000/v1']; replicas")
    api_key_env: str | None = Field(
        default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="NAME of the env var holding the key"
    )
    api_key_header: str = Field(
        default="Authorization",
        pattern=r"^[A-Za-z0-9-]+$",
        description="'Authorization' sends 'Bearer <key>'; any other header (e.g. 'api-key') the bare key",
    )
    concurrency: int = Field(default=8, ge=1, le=1024, description="requests in flight at once")
    max_retries: int = Field(default=5, ge=0, le=100, description="further attempts per judgment")
    timeout_s: float = Field(default=60.0, gt=0, description="deadline of one attempt (connect to last byte)")
    backoff_initial_s: float = Field(default=0.5, ge=0, description="first backoff; doubles per attempt")
    backoff_max_s: float = Field(default=30.0, ge=0, description="cap of the exponential backoff")
    retry_after_max_s: float = Field(default=120.0, ge=0, description="cap on an honoured Retry-After")
    down_cooldown_s: float = Field(default=10.0, ge=0, description="avoid a failing endpoint this long")
    mode: Literal["generate", "score"] = Field(
        default="generate",
        description="generate: the sampled protocol, per seed; score: temperature 0, seed 0, logprobs",
    )
    temperature: float = Field(default=0.2, ge=0, le=2, description="generate mode (score mode sends 0)")
    max_tokens: int = Field(default=16, ge=1)
    logprobs: bool = Field(default=True, description="ask for logprobs (score information) when served")
    top_logprobs: int = Field(
        default=20,
        ge=1,
        le=1024,
        description="alternatives per answer token; lowered to the server's limit when it names one "
        "(vLLM --max-logprobs, default 20)",
    )
    constrain: Constraint = Field(
        default="none",
        description="constrain forced-choice answers to `choices`: structured_outputs (vLLM >= 0.12) "
        "or guided_choice (older vLLM); checked on the first answers",
    )
    choices: list[str] = Field(default_factory=lambda: ["(a)", "(b)"], min_length=2)
    constraint_check: int = Field(
        default=16, ge=1, le=10_000, description="first answers that must be one of `choices`"
    )
    image_uuid: bool = Field(
        default=False,
        description="send each image with a stable uuid (its SHA-256) so vLLM reuses its encoder output; "
        "hosted APIs may refuse the field",
    )
    health_check_after: int = Field(
        default=8,
        ge=1,
        le=100_000,
        description="after this many requests in a row failed, check the server still answers; "
        "stop the run if it does not",
    )
    consistency_probe: int = Field(
        default=8, ge=0, le=1000, description="answered requests repeated at the end of a run (0: none)"
    )
    image_first: bool = Field(
        default=True,
        description="image part before the text part: image, instruction, scenario is the order "
        "whose prefix the requests of one image share (prefix caching)",
    )
    image_detail: Literal["auto", "low", "high"] | None = None
    system_prompt: str | None = None
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="further request fields (server-specific)"
    )
    tls_verify: bool = True

    @field_validator("base_urls")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        for url in value:
            try:
                Origin.parse(url)
            except ValueError as exc:
                raise ValueError(f"base URL #{value.index(url) + 1} {exc}") from None
        if len(set(value)) != len(value):
            raise ValueError("base URLs repeat")
        return [url.rstrip("/") for url in value]

    @model_validator(mode="after")
    def _score_needs_logprobs(self) -> OpenAISettings:
        if self.mode == "score" and not self.logprobs:
            raise ValueError("mode 'score' needs logprobs = true")
        return self

    @field_validator("choices")
    @classmethod
    def _choices(cls, value: list[str]) -> list[str]:
        if any(not c.strip() for c in value) or len(set(value)) != len(value):
            raise ValueError("choices must be distinct, non-empty answers")
        return value

    @field_validator("extra_body")
    @classmethod
    def _extra(cls, value: dict[str, Any]) -> dict[str, Any]:
        clash = sorted(RESERVED_FIELDS & value.keys())
        if clash:
            raise ValueError(f"extra_body may not set {', '.join(clash)} (use the settings of that name)")
        return value


def parse_settings(model: ModelConfig) -> OpenAISettings:
    """Validate ``model.settings``; any problem becomes a one-line :class:`ConfigError`."""
    return validate_settings(OpenAISettings, model)


__all__ = ["RESERVED_FIELDS", "OpenAISettings", "parse_settings"]
