"""SYNTHETIC folders in the layout the StylisticBias release code writes: the image set
(``output/final_dataset/<face_stem>/...``) and its judgment files
(``output/judgements/<model>/<face>/<img>/<img>_scenario<i>_order<o>_seed<s>.json``).

The faces are small coloured squares; the metadata and judgment files follow the release's
field names, including its fallbacks: ``image_path`` as the generating machine wrote it (an
absolute path elsewhere, so the sibling ``.png`` is used), ``body_index`` instead of
``body_type``, and a variation's ``base`` given as an object or as the base image's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE

GENERATING_MACHINE = "/home/someone/StylisticBias/output/final_dataset"

CROISSANT_CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
    "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/", "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject", "fileSet": "cr:fileSet",
    "format": "cr:format", "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5", "parentField": "cr:parentField",
    "path": "cr:path", "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex",
    "repeated": "cr:repeated", "replace": "cr:replace", "sc": "https://schema.org/",
    "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField",
    "transform": "cr:transform",
}  # fmt: skip


@dataclass(frozen=True)
class Face:
    """One base face and its variations (feature, value, framing)."""

    stem: str
    demographics: dict[str, object]
    variations: tuple[tuple[str, str, str], ...]


FACES: tuple[Face, ...] = (
    Face(
        "face_0_20250301_101500_1a2b3c4d",
        {"age": "young adult", "gender": "male", "ethnicity": "Asian", "body_type": "thin"},
        (
            ("eyewear", "Sunglasses", "face"),
            ("tattoos", "Facial tattoo", "face"),
            ("fashion_style", "Casual", "body"),
        ),
    ),
    Face(
        "face_1_20250301_101812_5e6f7a8b",
        {"age": "elderly", "gender": "female", "ethnicity": "African", "body_index": 2},
        (("eyewear", "sunglasses", "face"), ("fashion_style", "casual", "body")),
    ),
)  # fmt: skip


def variant_stem(face: Face, k: int, framing: str) -> str:
    return f"{face.stem}_{framing}_{k}_20250302_0930{k:02d}_{k:08x}"


def write_release_images(root: Path, *, croissant: bool = False) -> Path:
    """``root/output/final_dataset`` with :data:`FACES`; returns ``root``."""
    final = root / "output" / "final_dataset"
    for f_index, face in enumerate(FACES):
        folder = final / face.stem
        folder.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (16, 16), (40 * f_index, 90, 120)).save(folder / f"{face.stem}.png")
        base = {
            "image_path": f"{GENERATING_MACHINE}/{face.stem}/{face.stem}.png",
            "characteristics": face.demographics,
            "prompt": "A studio portrait of a person",
            "timestamp": "2025-03-01T10:15:00",
        }
        (folder / f"{face.stem}_metadata.json").write_text(json.dumps(base), encoding="utf-8")
        for k, (feature, value, framing) in enumerate(face.variations):
            stem = variant_stem(face, k, framing)
            Image.new("RGB", (16, 24 if framing == "body" else 16), (30 * k, 20, 200)).save(
                folder / f"{stem}.png"
            )
            characteristics = {
                "base": face.demographics if k % 2 == 0 else f"{face.stem}.png",
                "variation": {feature: value},
                "prompt": f"The same person, {value}",
            }
            meta = {"image_path": f"{face.stem}/{stem}.png" if k == 1 else f"{GENERATING_MACHINE}/{stem}.png",
                    "characteristics": characteristics, "timestamp": "2025-03-02T09:30:00"}  # fmt: skip
            (folder / f"{stem}_metadata.json").write_text(json.dumps(meta), encoding="utf-8")
    if croissant:
        metadata = {
            "@context": CROISSANT_CONTEXT,
            "@type": "sc:Dataset",
            "name": "StylisticBias",
            "description": "Synthetic base faces and single-cue variations (test fixture).",
            "conformsTo": "http://mlcommons.org/croissant/1.0",
            "license": "https://creativecommons.org/licenses/by/4.0/",
            "url": "https://example.org/stylisticbias",
            "version": "1.0.0",
            "citeAs": "StylisticBias test fixture",
            "distribution": [
                {
                    "@type": "cr:FileSet",
                    "@id": "images",
                    "name": "images",
                    "encodingFormat": "image/png",
                    "includes": "output/final_dataset/*/*.png",
                },
            ],  # fmt: skip
        }
        (root / "croissant.json").write_text(json.dumps(metadata), encoding="utf-8")
    return root


def image_stems() -> list[tuple[str, str]]:
    """``(face stem, image stem)`` of every image of :data:`FACES`."""
    stems = []
    for face in FACES:
        stems.append((face.stem, face.stem))
        stems += [(face.stem, variant_stem(face, k, fr)) for k, (_, _, fr) in enumerate(face.variations)]
    return stems


def release_parser(text: str) -> str | None:
    """A crude stand-in for the release's ``chosen_option`` (not its ``parse_choice``, which
    docs/importing.md describes): 'a' whenever a letter a appears, so that readings differ."""
    lowered = text.lower()
    if "a" in lowered:
        return "a"
    return "b" if "b" in lowered else None


def write_release_judgments(
    root: Path,
    *,
    models: Sequence[str] = ("llava-1.5-7b",),
    scenario_indices: Sequence[int] = (0, 1, 2),
    orders: Sequence[int] = (0, 1, 2, 3),
    seeds: Sequence[int] = (0, 1),
    answer: Callable[[str, str, int, int, int], str] | None = None,
    scenario_base: int = 1,
) -> list[Path]:
    """Judgment files for every model × image × scenario × order × seed; returns their paths.

    The release's ``order`` o is prompt ordering o + 1 of seed 000 App. C.2 and its scenario
    numbers start at ``scenario_base``. ``answer(model, image, scenario_index, order, seed)``
    gives the raw output (default: a rotation of clean, ambiguous and wordy answers).
    """
    scenarios = STYLISTICBIAS_25
    answers = ("(a)", "(b)", "Answer: (b)", "I would say (a) or (b)", "B", "I cannot tell from a photo")
    written = []
    for model in models:
        for face, img in image_stems():
            folder = root / "output" / "judgements" / model / face / img
            folder.mkdir(parents=True, exist_ok=True)
            for s_index in scenario_indices:
                scenario = scenarios[s_index]
                for order in orders:
                    ordering = ORDERING_BY_ID[order + 1]
                    options = ordering.descriptor_by_letter(scenario)
                    for seed in seeds:
                        raw = (
                            answer(model, img, s_index, order, seed)
                            if answer
                            else answers[(s_index + order + seed + len(img)) % len(answers)]
                        )
                        record = {
                            "face_image_name": f"{img}.png",
                            "characteristics": {"image": img},
                            "order": order,
                            "seed": seed,
                            "prompt": ordering.render(RELEASED_TEMPLATE, scenario),
                            "timestamp": "2025-04-01T12:00:00",
                            "options": {"a": options["a"], "b": options["b"]},
                            "chosen_option": release_parser(raw),
                            "raw_output": raw,
                        }
                        name = f"{img}_scenario{s_index + scenario_base}_order{order}_seed{seed}.json"
                        (folder / name).write_text(json.dumps(record), encoding="utf-8")
                        written.append(folder / name)
    return written


def release_study(root: Path, tmp: Path, *, models: Sequence[str] = ("llava-1.5-7b",)) -> Path:
    """A stylisticbias study file over the release's images (kind 'stylisticbias', root = checkout)."""
    lines = [
        'name = "release-import"',
        f'database = "{tmp / "release.duckdb"}"',
        "seeds = [0, 1]",
        "[image_set]",
        'kind = "stylisticbias"',
        f'root = "{root}"',
    ]
    for model in models:
        lines += ["[[models]]", f'model_id = "{model}"', 'backend = "simulated"', 'checkpoint = "none"']
    path = tmp / "release-study.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
