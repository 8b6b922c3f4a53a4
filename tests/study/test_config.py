"""Study files: defaults, the design union, and one-line errors naming the file and field."""

from __future__ import annotations

import pytest

from cueshift.designs import designs, load_study
from cueshift.designs.paired.section import PairedStudy
from cueshift.errors import ConfigError


def test_embedded_default_study_is_the_paper_protocol():
    study = load_study("default")
    assert study.seeds == [1, 2, 3]
    assert study.prompt.orderings == [1, 2, 3, 4]
    assert study.models[0].backend == "simulated"
    assert study.variations.whitelist is not None
    assert sum(len(v) for v in study.variations.whitelist.values()) == 34


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('name = "x"\n[[models]]\nmodel_id = "m"\n[image_set]\nsize = -3\n', "image_set.size"),
        ('name = "x"\nseeds = [1, 1]\n[[models]]\nmodel_id = "m"\n', "seeds"),
        ('name = "x"\n[prompt]\norderings = [5]\n[[models]]\nmodel_id = "m"\n', "prompt.orderings"),
        ('name = "x"\n[scenarios]\nonly = ["nope"]\n[[models]]\nmodel_id = "m"\n', "scenarios"),
        ('name = "x"\n[scenarios]\nset = "nope"\n[[models]]\nmodel_id = "m"\n', "scenarios.set"),
        ('name = "x"\nbatch_size = 0\n[[models]]\nmodel_id = "m"\n', "batch_size"),
        ('name = "x"\n', "models"),
        ('name = "x"\ncolour = 1\n[[models]]\nmodel_id = "m"\n', "colour"),
        ('name = "x"\n[prompt]\ntemplate = "no slots"\n[[models]]\nmodel_id = "m"\n', "prompt.template"),
        ('name = "x"\n[image_set]\nkind = "manifest"\n[[models]]\nmodel_id = "m"\n', "image_set"),
        ('name = "x"\ndesign = "nope"\n[[models]]\nmodel_id = "m"\n', "design"),
        ('name = "x"\n[paired]\n[[models]]\nmodel_id = "m"\n', "paired"),
        ('name = "x"\ndesign = "pairwise"\n[[models]]\nmodel_id = "m"\n', "pairwise"),
        ('name = "x"\ndesign = "paired"\n[paired]\nalpha = 2\n[[models]]\nmodel_id = "m"\n', "paired.alpha"),
    ],
)
def test_invalid_values_name_file_and_field_on_one_line(tmp_path, body, field):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ConfigError) as info:
        load_study(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message and (f"'{field}" in message or f"[{field}]: " in message)  # a table: [name]


def test_broken_toml_and_missing_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_study(path)
    with pytest.raises(ConfigError, match="no such study file"):
        load_study(tmp_path / "absent.toml")


def test_every_design_is_a_member_of_the_study_union(tmp_path):
    assert list(designs())[:1] == ["stylisticbias"]
    assert set(designs()) >= {"stylisticbias", "paired", "pairwise", "probe"}
    for name, design in designs().items():
        assert design.name == name
        assert design.study_model.model_fields["design"].default == name
    path = tmp_path / "paired.toml"
    path.write_text('name = "x"\ndesign = "paired"\n[[models]]\nmodel_id = "m"\n')
    study = load_study(path)
    assert type(study) is designs()["paired"].study_model
    assert isinstance(study, PairedStudy)
    assert study.paired.correction == "none"  # the section's defaults apply
    assert type(load_study("default")) is designs()["stylisticbias"].study_model
