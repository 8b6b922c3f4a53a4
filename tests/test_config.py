"""Study files: defaults, and one-line errors naming the file and field."""

from __future__ import annotations

import pytest

from cueshift.errors import ConfigError
from cueshift.study.config import load_study


def test_embedded_default_study_is_the_paper_protocol():
    study = load_study("default")
    assert study.seeds == [1, 2, 3]
    assert study.prompt.orderings == [1, 2, 3, 4]
    assert study.models[0].backend == "simulated"
    assert sum(len(v) for v in study.variations.whitelist.values()) == 34


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('name = "x"\n[[models]]\nmodel_id = "m"\n[benchmark]\nsize = -3\n', "benchmark.size"),
        ('name = "x"\nseeds = [1, 1]\n[[models]]\nmodel_id = "m"\n', "seeds"),
        ('name = "x"\n[prompt]\norderings = [5]\n[[models]]\nmodel_id = "m"\n', "prompt.orderings"),
        ('name = "x"\n[scenarios]\nonly = ["nope"]\n[[models]]\nmodel_id = "m"\n', "scenarios"),
        ('name = "x"\n[scenarios]\nset = "nope"\n[[models]]\nmodel_id = "m"\n', "scenarios.set"),
        ('name = "x"\nbatch_size = 0\n[[models]]\nmodel_id = "m"\n', "batch_size"),
        ('name = "x"\n', "models"),
        ('name = "x"\ncolour = 1\n[[models]]\nmodel_id = "m"\n', "colour"),
        ('name = "x"\n[prompt]\ntemplate = "no slots"\n[[models]]\nmodel_id = "m"\n', "prompt.template"),
        ('name = "x"\n[benchmark]\nkind = "manifest"\n[[models]]\nmodel_id = "m"\n', "benchmark"),
    ],
)
def test_invalid_values_name_file_and_field_on_one_line(tmp_path, body, field):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ConfigError) as info:
        load_study(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message and f"'{field}" in message


def test_broken_toml_and_missing_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_study(path)
    with pytest.raises(ConfigError, match="no such study file"):
        load_study(tmp_path / "absent.toml")
