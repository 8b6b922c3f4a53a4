"""The release's feature and whitelist files, read as they are, plan the expected variations.

``fixtures/release_features/`` holds a few entries of the release's two files in their own
structure (``SOURCE.md`` there says which and why only a few).
"""

from __future__ import annotations

from pathlib import Path

from cueshift.designs import load_study
from cueshift.stimuli.run import BuildOptions, plan_build
from tests.stimuli.studies import write_study

FIXTURES = Path(__file__).parent / "fixtures" / "release_features"
INLINE = '[build.variations]\nfeatures = {eyewear = ["Sunglasses"], accessories = ["Cap"]}\n'
#: Written out by hand from the two fixture files: the whitelisted values the features file has,
#: facial hair for male bases only, make-up for female ones (the default restrictions).
MALE = [
    ("facial_hair_male", "Clean-shaven", "face"),
    ("facial_hair_male", "Full beard", "face"),
    ("eyewear", "Sunglasses", "face"),
    ("fashion_style", "Casual", "body"),
    ("fashion_style", "Vintage / Retro", "body"),
]
FEMALE = [
    ("eyewear", "Sunglasses", "face"),
    ("makeup_female", "Light", "face"),
    ("makeup_female", "Heavy", "face"),
    ("fashion_style", "Casual", "body"),
    ("fashion_style", "Vintage / Retro", "body"),
]


def test_the_release_files_plan_the_whitelisted_restricted_variations(tmp_path: Path) -> None:
    path = write_study(tmp_path, count=4, base="{}", edit="{}")
    text = path.read_text(encoding="utf-8")
    assert INLINE in text
    files = (
        f'[build.variations]\nfeatures_file = "{(FIXTURES / "variation_features.json").as_posix()}"\n'
        f'whitelist_file = "{(FIXTURES / "variation_features_whitelist.json").as_posix()}"\n'
    )
    path.write_text(text.replace(INLINE, files), encoding="utf-8")
    plan = plan_build(load_study(path), BuildOptions(progress=False))
    assert len(plan.bases) == 4
    for base in plan.bases:
        made = [(s.feature_key, s.value, s.framing) for s in plan.variations if s.parent_id == base.image_id]
        assert made == (MALE if base.cell["gender"] == "male" else FEMALE), base.cell
    assert len(plan.variations) == 2 * len(MALE) + 2 * len(FEMALE)
