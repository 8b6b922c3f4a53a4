"""The openai-images generator against a local mimic that fails as real image services do."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image

from cueshift.errors import ConfigError
from cueshift.stimuli.generators.base import ImageRequest
from cueshift.stimuli.generators.openai_images import OpenAIImagesGenerator
from cueshift.stimuli.generators.registry import generator_spec
from tests.stimuli.images_server import ImagesServer, png_for, serve

Make = Callable[..., tuple[ImagesServer, str]]
BASE = ImageRequest("base", "a face", seed=7, parent_png=None, width=64, height=32)
KEY = "sk-test-0123456789abcdef"


@pytest.fixture
def servers() -> Iterator[Make]:
    yield from serve()


def _generator(url: str, **settings: Any) -> OpenAIImagesGenerator:
    fast = {"base_url": url, "backoff_initial_s": 0.01, "backoff_max_s": 0.02, **settings}
    return OpenAIImagesGenerator("gpt-image-1", fast)


def _faulty(server: ImagesServer, faults: list[str | None]) -> None:
    """Attempt k of every prompt meets ``faults[k]`` (then success)."""
    server.fault = lambda prompt, attempt: faults[attempt] if attempt < len(faults) else None


def test_a_base_is_a_json_generation_with_model_size_and_key(
    servers: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, url = servers()
    monkeypatch.setenv("IMAGES_KEY", KEY)
    result = _generator(url, api_key_env="IMAGES_KEY", quality="low").generate(BASE)
    assert (result.outcome, result.message) == ("ok", "")
    assert result.png == png_for(
        "a face" + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
    assert server.fields == [
        {"model": "gpt-image-1", "prompt": "a face", "n": 1, "size": "64x32", "quality": "low"}
    ]
    assert server.auth == [f"Bearer {KEY}"]


def test_a_variation_is_a_multipart_edit_carrying_the_base(servers: Make) -> None:
    server, url = servers()
    parent = png_for("the base")
    edit = ImageRequest("variation", "add sunglasses", seed=1, parent_png=parent, width=64, height=64)
    result = _generator(url, size="1024x1024").generate(edit)
    assert result.outcome == "ok"
    assert [hit[1] for hit in server.hits] == ["/v1/images/edits"]
    assert server.images == [parent]
    assert server.fields[0] == {
        "model": "gpt-image-1",
        "prompt": "add sunglasses",
        "n": "1",
        "size": "1024x1024",
    }


def test_a_url_answer_is_downloaded(servers: Make) -> None:
    server, url = servers()
    _faulty(server, ["url"])
    result = _generator(url).generate(BASE)
    assert result.outcome == "ok"
    assert result.png is not None and Image.open(io.BytesIO(result.png)).size == (8, 8)


@pytest.mark.parametrize("status", ["429", "503"])
def test_busy_answers_are_retried_after_their_retry_after(servers: Make, status: str) -> None:
    server, url = servers()
    server.retry_after = "0.4"
    _faulty(server, [status, status])
    result = _generator(url, max_retries=3).generate(BASE)
    assert result.outcome == "ok"
    times = [hit[0] for hit in server.hits]
    assert [hit[2] for hit in server.hits] == [status, status, "ok"]
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= 0.38


def test_a_long_retry_after_is_capped(servers: Make) -> None:
    server, url = servers()
    server.retry_after = "3600"
    _faulty(server, ["429"])
    started = time.monotonic()
    result = _generator(url, retry_after_max_s=0.2).generate(BASE)
    assert result.outcome == "ok"
    assert time.monotonic() - started < 3.0


def test_busy_past_max_retries_is_a_failure_naming_the_last_error(servers: Make) -> None:
    server, url = servers()
    server.retry_after = "0"
    _faulty(server, ["503"] * 10)
    result = _generator(url, max_retries=2).generate(BASE)
    assert result.outcome == "failed"
    assert result.message == "HTTP 503: busy (gave up after 3 attempts)"
    assert len(server.hits) == 3


def test_a_content_policy_refusal_is_refused_and_not_retried(servers: Make) -> None:
    server, url = servers()
    _faulty(server, ["refuse"] * 10)
    result = _generator(url).generate(BASE)
    assert result.outcome == "refused"
    assert result.message == (
        "content_policy_violation: HTTP 400: Your request was rejected as a result of our safety system."
    )
    assert len(server.hits) == 1


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("empty", "empty image payload (no data[0].b64_json or data[0].url)"),
        ("blank", "empty image payload (no data[0].b64_json or data[0].url)"),
        ("garbage", "malformed image payload: data[0].b64_json is not base64"),
        ("notimage", "the image payload is not an image"),
    ],
)
def test_an_empty_or_malformed_payload_is_a_failure_in_one_line(
    servers: Make, fault: str, message: str
) -> None:
    server, url = servers()
    _faulty(server, [fault] * 10)
    result = _generator(url).generate(BASE)
    assert (result.outcome, result.png, result.message) == ("failed", None, message)
    assert len(server.hits) == 1


def test_a_truncated_body_is_retried(servers: Make) -> None:
    server, url = servers()
    _faulty(server, ["truncated"])
    assert _generator(url).generate(BASE).outcome == "ok"
    assert [hit[2] for hit in server.hits] == ["truncated", "ok"]


def test_timeouts_are_retried_then_failed(servers: Make) -> None:
    server, url = servers()
    server.slow_s = 0.6
    _faulty(server, ["slow"] * 10)
    result = _generator(url, timeout_s=0.15, max_retries=1).generate(BASE)
    assert result.outcome == "failed"
    assert result.message == "timed out after 0.15 s (gave up after 2 attempts)"
    assert len(server.hits) == 2


def test_a_timeout_then_an_answer_is_ok(servers: Make) -> None:
    server, url = servers()
    server.slow_s = 0.6
    _faulty(server, ["slow"])
    assert _generator(url, timeout_s=0.15).generate(BASE).outcome == "ok"


def test_an_echoed_key_never_reaches_the_message(servers: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    server, url = servers()
    monkeypatch.setenv("IMAGES_KEY", KEY)
    _faulty(server, ["401"])
    result = _generator(url, api_key_env="IMAGES_KEY").generate(BASE)
    assert result.outcome == "failed"
    assert KEY not in result.message and KEY[-8:] not in result.message
    assert result.message.startswith("HTTP 401: Incorrect API key provided: Bearer [redacted]")


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        ({"base_url": "http://x/v1", "api_key": "sk-1"}, "never store the API key"),
        ({"base_url": "http://x/v1", "sizes": "1"}, "sizes: Extra inputs are not permitted"),
        ({"base_url": "http://x/v1", "size": "big"}, "size: String should match pattern"),
        ({}, "base_url: Field required"),
        ({"base_url": "http://user:pw@x/v1"}, "must not carry credentials"),
        ({"base_url": "http://x/v1", "max_retries": -1}, "max_retries: Input should be greater"),
    ],
)
def test_bad_settings_are_one_line(settings: dict[str, Any], line: str) -> None:
    with pytest.raises(ConfigError, match=line) as caught:
        generator_spec("openai-images").check_settings("gpt-image-1", settings)
    assert "\n" not in str(caught.value)


def test_an_unset_key_variable_is_refused_at_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(ConfigError, match="environment variable NO_SUCH_KEY_VAR is not set"):
        generator_spec("openai-images").build(
            "gpt-image-1", {"base_url": "http://x/v1", "api_key_env": "NO_SUCH_KEY_VAR"}
        )
