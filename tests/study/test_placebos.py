"""``[image_set] placebos``: planned by default where the design reads them, opt-out, refused elsewhere."""

from __future__ import annotations

import pytest

from cueshift.designs import load_study
from cueshift.errors import ConfigError
from cueshift.study.config import PLACEBO_DESIGNS, ImageSetConfig, Study
from cueshift.study.variations import PLACEBO_FEATURE_KEY, PLACEBO_VALUES, VariationFilter
from cueshift.views import PLACEBO_FEATURE_KEY as VIEWS_PLACEBO_KEY

MODEL = '[[models]]\nmodel_id = "m"\n'


def study_file(tmp_path, body: str):
    path = tmp_path / "s.toml"
    path.write_text('name = "x"\n' + body + MODEL)
    return load_study(path)


def test_the_default_study_includes_placebos():
    assert load_study("default").image_set.placebos
    assert "stylisticbias" in PLACEBO_DESIGNS


def test_a_stylisticbias_study_plans_them_unless_it_opts_out(tmp_path):
    assert study_file(tmp_path, "[image_set]\nkind = 'demo'\n").image_set.placebos
    assert not study_file(tmp_path, "[image_set]\nplacebos = false\n").image_set.placebos


def test_built_in_code_the_same_default_holds():
    model = {"model_id": "m"}
    assert Study(name="x", models=[model]).image_set.placebos
    explicit = ImageSetConfig(kind="demo", placebos=False)
    assert not Study(name="x", models=[model], image_set=explicit).image_set.placebos
    assert not ImageSetConfig().placebos  # a bare image set (e.g. a design's own) includes none


def test_designs_that_do_not_read_placebos_include_none_and_refuse_them(tmp_path):
    assert not study_file(tmp_path, 'design = "paired"\n').image_set.placebos
    with pytest.raises(ConfigError) as exc:
        study_file(tmp_path, 'design = "paired"\n[image_set]\nplacebos = true\n')
    assert "\n" not in str(exc.value) and "placebos" in str(exc.value) and "s.toml" in str(exc.value)


def test_every_filter_keeps_placebos_and_the_layers_agree_on_the_key():
    from cueshift.power.cubes import PLACEBO_FEATURE_KEY as POWER_KEY

    assert PLACEBO_FEATURE_KEY == VIEWS_PLACEBO_KEY == POWER_KEY
    for flt in (VariationFilter(), VariationFilter(whitelist={}), VariationFilter(whitelist=None, rules=[])):
        for value in PLACEBO_VALUES:
            assert flt.exclusion_reason(PLACEBO_FEATURE_KEY, value, "male") is None
    assert VariationFilter(whitelist={}).exclusion_reason("eyewear", "Sunglasses", "male") is not None
