"""``--prompts release`` writes the release's prompt text, checked against the release functions' output.

``fixtures/release_prompts.json`` holds what the release's own ``generate_prompt``,
``infer_gender``, ``build_face_prompt`` and ``build_body_prompt`` returned on each case (the
release has no licence, so its code is not vendored; ``fixtures/make_release_prompts.py`` ran it
once from a git mirror and names the commit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

import cueshift as cs
from cueshift.designs import load_study
from cueshift.errors import ConfigError
from cueshift.stimuli.prompts_release import release_base_prompt, release_variation_prompt
from cueshift.stimuli.slots import base_slots, variation_slots
from cueshift.study.build_config import BuildConfig
from tests.stimuli.studies import write_study

CASES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "fixtures" / "release_prompts.json").read_text(encoding="utf-8")
)


def test_the_fixture_names_its_source_and_covers_the_release_configuration() -> None:
    assert CASES["source"] == "https://github.com/timo-cavelius/StylisticBias"
    assert len(CASES["commit"]) == 40
    assert len(CASES["bases"]) >= 90 and len(CASES["variations"]) >= 5 * 53


@pytest.mark.parametrize("case", CASES["bases"], ids=lambda case: "/".join(case["cell"].values()) or "empty")
def test_base_prompts_equal_the_release(case: dict[str, Any]) -> None:
    assert release_base_prompt(case["cell"]) == case["prompt"]


@pytest.mark.parametrize(
    "case",
    CASES["variations"],
    ids=lambda case: f"{case['cell']['gender']}-{case['feature_key']}-{case['value']}",
)
def test_variation_prompts_equal_the_release(case: dict[str, Any]) -> None:
    assert release_variation_prompt(case["cell"], case["feature_key"], case["value"]) == case["prompt"]


def _config(features: dict[str, list[str]] | None = None, **prompts: str) -> BuildConfig:
    fields = {"gender": ["female", "male"], "age": ["elderly"], "ethnicity": ["Asian"], "body_type": ["thin"]}
    return BuildConfig.model_validate(
        {
            "count": 2,
            "grid": {"fields": fields},
            "prompts": prompts,
            "variations": {
                "features": features or {"eyewear": ["Sunglasses"], "fashion_style": ["Streetwear"]}
            },
            "generators": [{"stage": "base", "generator": "demo-faces"}],
        }
    )


def _release_edit(gender: str, key: str, value: str) -> str:
    """The release's edit prompt for a base of ``gender`` (its builders read only the gender)."""
    return next(
        str(c["prompt"])
        for c in CASES["variations"]
        if (c["cell"]["gender"], c["feature_key"], c["value"]) == (gender, key, value)
    )


def _release_base(cell: dict[str, str]) -> str:
    return next(str(c["prompt"]) for c in CASES["bases"] if c["cell"] == cell)


def test_the_release_family_fills_the_slots() -> None:
    config = _config(family="release")
    bases = base_slots(config)
    assert len(bases) == 2
    assert [slot.prompt for slot in bases] == [_release_base(slot.cell) for slot in bases]
    by_id = {slot.image_id: slot.prompt for slot in variation_slots(config, bases)}
    for base in bases:
        gender = base.cell["gender"]
        assert by_id[f"{base.image_id}--eyewear--sunglasses"] == _release_edit(
            gender, "eyewear", "Sunglasses"
        )
        assert by_id[f"{base.image_id}--fashion_style--streetwear"] == _release_edit(
            gender, "fashion_style", "Streetwear"
        )


def test_a_feature_the_release_leaves_out_is_refused() -> None:
    config = _config({"headwear": ["Hijab"]}, family="release")
    with pytest.raises(ConfigError, match="the release's prompts leave feature 'headwear' out"):
        variation_slots(config, base_slots(config))


def test_templates_and_the_release_family_together_are_refused() -> None:
    with pytest.raises(ValueError, match="give templates or it, not both"):
        _config(family="release", base="a {age} face")


def test_cs_build_with_prompts_release_stores_the_release_text(tmp_path: Path) -> None:
    path = write_study(tmp_path, count=4, base="{}", edit="{}")
    summary = cs.build(path, progress=False, prompts="release")
    with duckdb.connect(str(summary.database), read_only=True) as con:
        rows = con.execute(
            "SELECT DISTINCT cell, feature_key, variation_value, prompt FROM generation"
        ).fetchall()
    fields = ("gender", "age", "ethnicity", "body_type")  # the study's grid, in its order
    bases = [
        (dict(zip(fields, cell.split(" / "), strict=True)), prompt)
        for cell, key, _, prompt in rows
        if key is None
    ]
    assert len(bases) == 4
    for cell, prompt in bases:
        assert prompt == _release_base(cell)
    edits = [
        (cell.split(" / ")[0], key, value, prompt) for cell, key, value, prompt in rows if key is not None
    ]
    assert len(edits) == 8
    for gender, key, value, prompt in edits:
        assert prompt == _release_edit(gender, key, value)
    study = load_study(path)
    assert study.build is not None and study.build.prompts.family == "default"  # the option, not the file
