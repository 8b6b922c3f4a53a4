"""The study file's ``[image_set]`` section, and ``[benchmark]``, its old name, still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cueshift.designs import load_study
from cueshift.errors import ConfigError
from cueshift.store.fingerprint import definition_hash
from cueshift.study.config import BenchmarkConfig, ImageSetConfig
from cueshift.viewer.roots import configured_folders

BODY = 'name = "x"\n[{section}]\nkind = "demo"\nsize = 7\n[[models]]\nmodel_id = "m"\n'


def _study(tmp_path: Path, section: str) -> Path:
    path = tmp_path / f"{section}.toml"
    path.write_text(BODY.format(section=section))
    return path


def test_the_old_section_name_reads_as_image_set_with_a_warning(tmp_path: Path) -> None:
    new = load_study(_study(tmp_path, "image_set"))
    with pytest.warns(FutureWarning, match=r"\[benchmark\] is the old name"):
        old = load_study(_study(tmp_path, "benchmark"))
    assert old == new and old.image_set.size == 7
    assert old.benchmark is old.image_set  # the attribute's old name, read-only
    assert BenchmarkConfig is ImageSetConfig


def test_both_names_at_once_is_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "both.toml"
    path.write_text(BODY.format(section="image_set") + '[benchmark]\nkind = "demo"\n')
    with pytest.raises(ConfigError, match=r"give only \[image_set\]") as info:
        load_study(path)
    assert "\n" not in str(info.value)


def test_runs_recorded_under_either_key_have_one_fingerprint_and_one_image_root() -> None:
    config = json.loads(load_study("default").model_dump_json())
    assert "image_set" in config and "benchmark" not in config
    old = {("benchmark" if k == "image_set" else k): v for k, v in config.items()}
    assert definition_hash(config) == definition_hash(old)
    assert configured_folders(config) == configured_folders(old) != []
