"""Settings of the ``openai-images`` generator (``settings`` of a ``[[build.generators]]`` entry).

The API key is never part of a study: ``api_key_env`` names the environment variable that holds
it, read when the generator is built.

>>> parse_settings("gpt-image-1", {"base_url": "http://127.0.0.1:8000/v1"}).max_retries
3
>>> parse_settings("gpt-image-1", {"base_url": "ftp://x"})
Traceback (most recent call last):
cueshift.errors.ConfigError: openai-images settings: base_url 'ftp://x' must start with http:// or https://
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cueshift.errors import ConfigError
from cueshift.inference.backends.openai_http import Origin
from cueshift.inference.backends.openai_settings import OpenAISettings

#: Error codes with which image services refuse a prompt (OpenAI DALL-E, gpt-image-1, Azure).
REFUSAL_CODES = frozenset({"content_policy_violation", "moderation_blocked", "content_filter"})


class ImagesSettings(BaseModel):
    """``settings`` of ``generator = "openai-images"`` (the entry's ``model`` is the API's model)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(description="e.g. 'https://api.openai.com/v1' or a local server's /v1")
    api_key_env: str | None = Field(
        default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="NAME of the env var holding the key"
    )
    size: str | None = Field(
        default=None,
        pattern=r"^(auto|[0-9]+x[0-9]+)$",
        description="'1024x1024'; default: [build] width x height",
    )
    quality: str | None = Field(default=None, description="'standard', 'hd', 'low', 'medium', 'high' ...")
    response_format: Literal["b64_json", "url"] | None = Field(
        default=None, description="sent only when set (gpt-image-1 refuses the field; DALL-E takes it)"
    )
    send_seed: bool = Field(default=False, description="send the try's seed (servers that honour one)")
    timeout_s: float = Field(default=120.0, gt=0, description="seconds one attempt may wait on the socket")
    max_retries: int = Field(default=3, ge=0, le=20, description="further attempts on 429/5xx/timeouts")
    backoff_initial_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    retry_after_max_s: float = Field(default=60.0, ge=0, description="cap on an honoured Retry-After")
    price_per_image: float | None = Field(
        default=None, ge=0, description="USD per image, for `cueshift plan` (no price: not priced)"
    )
    tls_verify: bool = True

    def origin(self) -> Origin:
        """The parsed base URL."""
        return Origin.parse(self.base_url)

    def backoff(self) -> OpenAISettings:
        """The retry timings as :func:`~cueshift.inference.backends.openai_retry.backoff_delay` reads them."""
        return OpenAISettings(
            base_urls=[self.base_url],
            backoff_initial_s=self.backoff_initial_s,
            backoff_max_s=self.backoff_max_s,
            retry_after_max_s=self.retry_after_max_s,
        )


def parse_settings(model: str, settings: Mapping[str, object]) -> ImagesSettings:
    """The entry's settings, checked (nothing is called).

    Raises
    ------
    ConfigError
        One line naming the field: an unknown or missing key, a stored key, a bad URL or value.
    """
    if "api_key" in settings:
        raise ConfigError("openai-images settings: never store the API key; name its env var in api_key_env")
    if not model:
        raise ConfigError("openai-images: set the entry's model (e.g. model = 'gpt-image-1')")
    try:
        parsed = ImagesSettings.model_validate(dict(settings))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "settings"
        raise ConfigError(f"openai-images settings: {where}: {error['msg']}") from None
    try:
        parsed.origin()
    except ValueError as exc:
        raise ConfigError(f"openai-images settings: base_url {parsed.base_url!r} {exc}") from None
    return parsed


__all__ = ["REFUSAL_CODES", "ImagesSettings", "parse_settings"]
