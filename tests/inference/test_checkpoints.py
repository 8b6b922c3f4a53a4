"""A checkpoint that is neither local nor cached fails in seconds, in one line, when no hub can be
reached: no minutes of retries, no warnings (issue 30)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cueshift.errors import ConfigError
from cueshift.inference.backends.checkpoints import checkpoint_source

constants = pytest.importorskip("huggingface_hub.constants")

#: The discard port: nothing listens, a connection is refused at once.
UNREACHABLE = "http://127.0.0.1:9"
FAKE = "nobody-cueshift/no-such-checkpoint"
#: Generous: the probe is one refused connection; before, transformers retried for minutes.
FAIL_WITHIN_S = 10.0


@pytest.fixture
def no_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An unreachable hub and an empty Hugging Face cache (returned)."""
    monkeypatch.setattr(constants, "ENDPOINT", UNREACHABLE)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "hub"


def test_a_local_folder_loads_from_there_without_the_hub(no_hub: Path, tmp_path: Path) -> None:
    assert checkpoint_source("m", str(tmp_path), None) == (str(tmp_path), {"local_files_only": True})


def test_a_cached_hub_id_loads_from_the_cache_without_the_hub(no_hub: Path) -> None:
    snapshot = no_hub / "models--nobody-cueshift--no-such-checkpoint" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (no_hub / "models--nobody-cueshift--no-such-checkpoint" / "refs").mkdir()
    (no_hub / "models--nobody-cueshift--no-such-checkpoint" / "refs" / "main").write_text("abc123")
    assert checkpoint_source("m", FAKE, None) == (FAKE, {"local_files_only": True})


def test_an_unreachable_hub_fails_at_once_naming_checkpoint_and_remedy(no_hub: Path) -> None:
    with pytest.raises(ConfigError) as info:
        checkpoint_source("judge", FAKE, None)
    assert str(info.value).startswith(
        f"model 'judge': cannot load checkpoint '{FAKE}': not a local folder, not in the Hugging Face "
        f"cache, and the hub {UNREACHABLE} cannot be reached ("
    )
    assert str(info.value).endswith(f"(hf download {FAKE})")


def test_hf_hub_offline_fails_without_asking_the_hub(no_hub: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "ENDPOINT", "http://hub.invalid")  # asked, it would fail otherwise
    with pytest.raises(ConfigError, match=r"not in the Hugging Face cache, and HF_HUB_OFFLINE is set: set"):
        checkpoint_source("judge", FAKE, None)


def test_neither_a_folder_nor_a_hub_id(no_hub: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not a local folder and not a hub id \(org/name\)$"):
        checkpoint_source("judge", str(tmp_path / "no" / "such" / "folder"), None)


@pytest.mark.parametrize("backend", ["clip", "transformers"])
def test_the_backends_fail_in_seconds_with_one_line_and_no_retry_warnings(
    no_hub: Path, tmp_path: Path, backend: str, capfd: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from cueshift.inference.backends import backend_spec
    from cueshift.study.config import ModelConfig
    from tests.inference.openai_helpers import make_context

    model = ModelConfig(model_id="judge", backend=backend, checkpoint=FAKE, settings={"device": "cpu"})
    cls, context = backend_spec(backend).backend_class(), make_context(tmp_path)
    capfd.readouterr()
    started = time.monotonic()
    with pytest.raises(ConfigError) as info:
        cls(model, context)
    elapsed = time.monotonic() - started
    assert elapsed < FAIL_WITHIN_S, elapsed
    message = str(info.value)
    assert "\n" not in message and f"'{FAKE}'" in message and f"the hub {UNREACHABLE} cannot" in message
    assert capfd.readouterr() == ("", "")  # no retry warnings
