"""A study whose model cannot be loaded writes nothing (issue: placebos before the model check).

Before the fix ``cueshift infer`` of a demo study with a transformers model whose checkpoint is
neither a folder, nor cached, nor on a reachable hub built the image set first, writing 108 demo
faces and placebos under the image cache, and only then failed while building the backend. The
preflight (``execution/preflight.py``) now checks the extra and the checkpoint before the design
plans. These tests failed before the fix (files under ``tmp_path``).
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from huggingface_hub import constants

import cueshift as cs
from cueshift import extras
from cueshift.errors import CueshiftError, MissingExtra
from tests.cli.untouched import error_line, run

#: A hub id one letter short of a real checkpoint (the newcomer's typo).
TYPO = "Qwen/Qwen2.5-VL-7B-Instruc"


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No hub and an empty Hugging Face cache (outside ``tmp_path``): the checkpoint is refused at once."""
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path_factory.mktemp("hf-cache")))


def _study(folder: Path, backend: str = "transformers", checkpoint: str = TYPO) -> Path:
    """A two-face demo study of one model, its database and image cache inside ``folder``."""
    path = folder / "badckpt.toml"
    path.write_text(
        f'name = "badckpt"\ndatabase = "{(folder / "runs" / "b.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "demo"\nsize = 2\ncache_dir = "{(folder / "cache").as_posix()}"\n'
        f'[[models]]\nmodel_id = "x"\nbackend = "{backend}"\ncheckpoint = "{checkpoint}"\n',
        encoding="utf-8",
    )
    return path


def _written(folder: Path, study: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p != study]


@pytest.mark.usefixtures("offline")
@pytest.mark.parametrize("backend", ["transformers", "clip"])
def test_cli_unloadable_checkpoint_is_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    monkeypatch.chdir(tmp_path)  # the default .cueshift-cache is here too
    study = _study(tmp_path, backend)
    line = error_line(run("infer", "--study", study, "--no-progress"))
    assert line.startswith("error: model 'x': cannot load ") and repr(TYPO) in line
    assert "HF_HUB_OFFLINE is set" in line
    assert _written(tmp_path, study) == []


@pytest.mark.usefixtures("offline")
def test_api_unloadable_checkpoint_raises_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    study = _study(tmp_path)
    with pytest.raises(
        CueshiftError, match=r"^model 'x': cannot load checkpoint 'Qwen/Qwen2\.5-VL-7B-Instruc"
    ):
        cs.infer(study, progress=False)
    assert _written(tmp_path, study) == []


def test_api_missing_models_extra_raises_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(extras.MODULES, "models", ("torch", "cueshift_no_such_module"))
    study = _study(tmp_path, checkpoint=str(tmp_path))  # a folder: only the extra is missing
    with pytest.raises(MissingExtra, match="cueshift_no_such_module") as raised:
        cs.infer(study, progress=False)
    assert "\n" not in str(raised.value) and "'models'" in str(raised.value)
    assert _written(tmp_path, study) == []


@pytest.mark.usefixtures("offline")
def test_a_remote_ray_cluster_checks_settings_only(tmp_path: Path) -> None:
    """The cluster's machines have their own checkpoints: the driver does not look for them."""
    from cueshift.designs import load_study
    from cueshift.execution.preflight import check_study_inputs

    study = load_study(_study(tmp_path))
    check_study_inputs(study, loads_here=False)
    with pytest.raises(CueshiftError, match="cannot load checkpoint"):
        check_study_inputs(study)


def _served_study(folder: Path, url: str, settings: str = "") -> Path:
    """A two-face demo study of one model behind an OpenAI-compatible ``url``, inside ``folder``."""
    path = _study(folder, "openai", "tiny-vlm")
    path.write_text(
        path.read_text(encoding="utf-8")
        + f'[models.settings]\nbase_urls = ["{url}"]\ntimeout_s = 1.0\n{settings}',
        encoding="utf-8",
    )
    return path


def test_cli_unreachable_server_is_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the demo faces and placebos were written and every request failed after its retries."""
    monkeypatch.chdir(tmp_path)
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    study = _served_study(tmp_path, url)
    line = error_line(run("infer", "--study", study, "--no-progress"))
    reason = "connection refused (GET <base URL>/models; nothing written)"
    assert line == f"error: model 'x': cannot reach {url}: {reason}"
    assert _written(tmp_path, study) == []


def test_api_unset_key_variable_raises_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CUESHIFT_PREFLIGHT_UNSET", raising=False)
    study = _served_study(tmp_path, "http://127.0.0.1:9/v1", 'api_key_env = "CUESHIFT_PREFLIGHT_UNSET"\n')
    with pytest.raises(CueshiftError, match=r"^model 'x': environment variable CUESHIFT_PREFLIGHT_UNSET"):
        cs.infer(study, progress=False)
    assert _written(tmp_path, study) == []
