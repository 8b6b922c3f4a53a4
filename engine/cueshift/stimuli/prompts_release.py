"""The release's prompt builders as a prompt family: ``[build.prompts] family = "release"``.

``cueshift build --prompts release`` (``cs.build(..., prompts="release")``) picks it too.

The seed's release (github.com/timo-cavelius/StylisticBias, ``generation/``) writes a base prompt
from the face's characteristics (``prompt_generator.generate_prompt``) and an edit prompt from
the base's gender and one variation (``banana_pipeline.build_face_prompt``, or
``build_body_prompt`` for ``fashion_style``); the gender is read from the base's metadata
(``infer_gender``: ``"female"`` in the value before ``"male"``, else ``"unknown"``). These
functions write the same text for the same base cell and variation, quirks included: a value
of a feature key the release does not know is left out of its prompt, and so is a
gender-restricted feature on a base of the other gender. :func:`check_release_family` refuses
a study whose variations would meet those quirks, since the edit would not ask for its cue.
``tests/stimuli/test_prompts_release.py`` checks the text against the release functions' output.

>>> release_gender({"gender": "Female"})
'female'
>>> release_face_prompt("male", "eyewear", "Sunglasses").split(". ")[-2]
'eyewear: Sunglasses'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from cueshift.errors import ConfigError
from cueshift.study.config import Study

#: The face feature keys the release's edit prompt names (in its order), and the gendered ones.
FACE_KEYS: Final = (
    "skin_irregularities",
    "hair_color",
    "hair_length",
    "hair_style",
    "eyewear",
    "piercings",
    "tattoos",
)
MALE_KEYS: Final = {"facial_hair_male": "Facial hair"}
FEMALE_KEYS: Final = {"makeup_female": "Makeup", "lip_makeup_female": "Lip makeup"}
#: Every key the release's builders put into a prompt (``fashion_style``: the full-body prompt).
RELEASE_KEYS: Final = frozenset({*FACE_KEYS, *MALE_KEYS, *FEMALE_KEYS, "accessories", "fashion_style"})


def release_gender(cell: Mapping[str, str]) -> str:
    """The release's ``infer_gender`` of a base whose characteristics are ``cell``."""
    for key in ("gender", "sex"):
        value = cell.get(key)
        if isinstance(value, str):
            if "female" in value.lower():
                return "female"
            if "male" in value.lower():
                return "male"
    return "unknown"


def release_base_prompt(cell: Mapping[str, str]) -> str:
    """The release's ``generate_prompt`` of a grid cell (its defaults for a missing field)."""
    age, gender = cell.get("age", "adult"), cell.get("gender", "person")
    ethnicity, body_type = cell.get("ethnicity", ""), cell.get("body_type", "normal")
    return (
        f"Photorealistic studio portrait of an average-looking {body_type} build "
        f"{age} {gender} person with {ethnicity} facial features. "
        "Front-facing, neutral expression, head-and-shoulders framing. "
        "Bare face with uncovered ears, no earings, no jewelry, "
        "no accessories, no glasses, no headwear. "
        "Plain white studio backdrop, soft even lighting, no dramatic shadows. "
        "Natural skin texture with visible pores, minor blemishes, slight facial asymmetry, "
        "real-world imperfections, non-model appearance, realistic proportions. "
        "Documentary-style photography, not fashion, not advertising."
    )


def release_face_prompt(gender: str, feature_key: str, value: str) -> str:
    """The release's ``build_face_prompt`` of one variation ``{feature_key: value}``."""
    person = gender if gender != "unknown" else "person"
    parts = [
        f"A portrait photograph of the same {person} as the reference image, facing the camera, "
        "neutral expression.",
        "Plain white background, even studio lighting.",
    ]
    if value and feature_key in FACE_KEYS:
        parts.append(f"{feature_key.replace('_', ' ')}: {value}.")
    gendered = {"male": MALE_KEYS, "female": FEMALE_KEYS}.get(gender, {})
    if value and feature_key in gendered:
        parts.append(f"{gendered[feature_key]}: {value}.")
    if value and feature_key == "accessories":
        parts.append(f"Accessories: {value}.")
    parts.append("Keep the face identity consistent with the reference image.")
    return " ".join(parts)


def release_body_prompt(gender: str, style: str) -> str:
    """The release's ``build_body_prompt`` of a ``fashion_style`` variation."""
    person = gender if gender != "unknown" else "person"
    return " ".join(
        [
            f"Generate a full-body portrait photograph of a {person}, "
            "standing in neutral pose, facing camera.",
            f"Wearing {style} clothing/outfit.",
            "Same face and facial features as the reference image to maintain identity consistency.",
            "Plain white background, even studio lighting, professional photography style.",
            "Show the complete body from head to feet wearing the specified fashion style.",
            "Keep the face identity consistent with the reference image.",
        ]
    )


def release_variation_prompt(cell: Mapping[str, str], feature_key: str, value: str) -> str:
    """The release's edit prompt of the base ``cell`` for the variation ``{feature_key: value}``."""
    gender = release_gender(cell)
    if feature_key == "fashion_style":
        return release_body_prompt(gender, value or "casual")
    return release_face_prompt(gender, feature_key, value)


def check_release_family(feature_keys: list[str]) -> None:
    """Refuse feature keys the release's prompts would leave out (the edit would not name its cue).

    Raises
    ------
    ConfigError
        One line naming the first such key and the keys the release knows.
    """
    unknown = [key for key in feature_keys if key not in RELEASE_KEYS]
    if unknown:
        raise ConfigError(
            f"[build.prompts] family = 'release': the release's prompts leave feature {unknown[0]!r} out "
            f"(they name only {', '.join(sorted(RELEASE_KEYS))}); use the default family for new cues"
        )


def with_prompt_family(study: Study, family: str | None) -> Study:
    """``study`` with ``[build.prompts] family`` set to ``family`` (``None``: as the study says).

    Raises
    ------
    ConfigError
        A family other than ``default`` or ``release``.
    """
    if family is None or study.build is None:
        return study
    if family not in ("default", "release"):
        raise ConfigError(f"--prompts {family!r}: choose default or release")
    prompts = study.build.prompts.model_copy(update={"family": family})
    return study.model_copy(update={"build": study.build.model_copy(update={"prompts": prompts})})


__all__ = [
    "RELEASE_KEYS",
    "check_release_family",
    "release_base_prompt",
    "release_body_prompt",
    "release_face_prompt",
    "release_gender",
    "release_variation_prompt",
    "with_prompt_family",
]
