"""A SYNTHETIC clean answer set in the StylisticBias release's own layout (for
``compat_side_by_side.py``): images and metadata under ``output/final_dataset``, one judgment file
per model × image × scenario × prompt ordering under ``output/judgements``.

Every answer is a clean ``(a)`` or ``(b)`` and ``chosen_option`` the descriptor it names (what the
release's ``parse_choice`` stores) — or, with ``messy``, that share of the answers is hedged,
refused, wordy or echoed, and ``chosen_option`` is what the release's own ``parse_choice`` (passed
in as ``read``) makes of it, ``"unknown"`` included. Faces get their variations unevenly — some
on every face, some on two or three, some only on one gender — so that cells of fewer than 3
faces, and cells without faces, occur as they do in the release's data.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE

MODELS = ("judge-a", "judge-b")
AGES = ("young adult", "middle-aged adult", "elderly")
ETHNICITIES = ("Asian", "African", "European", "Middle Eastern", "Latino")
BODIES = ("thin", "normal", "obese")


def variations_of(face: int, gender: str) -> list[tuple[str, str, str]]:
    """(feature, value, framing) of face ``face``'s variations (uneven on purpose)."""
    out = [("eyewear", "Sunglasses", "face"), ("tattoos", "Facial tattoo", "face")]
    out.append(
        ("facial_hair_male", "Full beard", "face") if gender == "male" else ("makeup_female", "Heavy", "face")
    )
    if face % 3 == 0:
        out.append(("skin_irregularities", "Freckles", "face"))
    if face in (0, 1):
        out.append(("hair_color", "Gray", "face"))  # two faces: no test in the release
    if face in (2, 3, 4):
        out.append(("accessories", "Cap", "face"))  # three faces: the smallest tested cell
    if face % 2 == 0:
        out.append(("fashion_style", "Casual", "body"))
    return out


#: The release's ``parse_choice(model_output, option_a, option_b)``.
Reader = Callable[[str, str, str], str]


def messy_answer(letter: str, options: dict[str, str], prompt: str, k: int) -> str:
    """The ``k``-th kind of messy answer meaning ``letter`` (some mean nothing)."""
    other = "b" if letter == "a" else "a"
    kinds = (
        f"Answer: ({letter})",
        f"({letter}) or ({other})",
        "I cannot tell from a photo",
        letter.upper(),
        options[letter],
        "I cannot tell",
        f"[INST] {prompt} [/INST] ({letter})",
        f"({other}). Not ({letter})",
        "Not sure",  # no letter at all: the release stores "unknown"
    )
    return kinds[k % len(kinds)]


def _answers(
    folder: Path,
    chars: dict[str, Any],
    i: int,
    p: float,
    rng: np.random.Generator,
    *,
    seeds: int,
    messy: float,
    read: Reader | None,
) -> int:
    """The judgment files of the image whose judgment folder is ``folder`` (named as the image)
    in scenario ``i`` (0-based): each prompt ordering × seed answered favourably with probability
    ``p``; returns how many."""
    scenario = STYLISTICBIAS_25[i]
    for order in range(4):
        ordering = ORDERING_BY_ID[order + 1]
        options = ordering.descriptor_by_letter(scenario)
        prompt = ordering.render(RELEASED_TEMPLATE, scenario)
        fav = ordering.favorable_letter
        for seed in range(seeds):
            letter = fav if rng.random() < p else ("b" if fav == "a" else "a")
            raw, chosen = f"({letter})", options[letter]
            if read is not None and rng.random() < messy:
                raw = messy_answer(letter, options, prompt, int(rng.integers(1 << 30)))
                chosen = read(raw, options["a"], options["b"])
            record = {
                "face_image_name": f"{folder.name}.png",
                "characteristics": chars,
                "order": order,
                "seed": seed,
                "prompt": prompt,
                "timestamp": "2025-04-01T12:00:00.000000",
                "options": options,
                "chosen_option": chosen,
                "raw_output": raw,
            }
            name = f"{folder.name}_scenario{i + 1}_order{order}_seed{seed}.json"
            (folder / name).write_text(json.dumps(record, indent=2))
    return 4 * seeds


def write_tree(
    root: Path, n_faces: int, seed: int = 0, *, seeds: int = 1, messy: float = 0.0, read: Reader | None = None
) -> int:
    """The release tree under ``root`` (``seeds`` answers per prompt ordering; a ``messy`` share of
    them read by ``read``); returns the number of judgment files written."""
    rng = np.random.default_rng(seed)
    final = root / "output" / "final_dataset"
    n_files = 0
    scenario_shift = rng.normal(0, 0.15, len(STYLISTICBIAS_25))
    for f in range(n_faces):
        face = f"face_{f}_20250301_1015{f % 60:02d}_{f:08x}"
        demo = {"age": AGES[f % 3], "gender": ("male", "female")[(f // 3) % 2],
                "ethnicity": ETHNICITIES[f % 5], "body_type": BODIES[(f // 2) % 3]}  # fmt: skip
        (final / face).mkdir(parents=True)
        images: list[tuple[str, dict[str, Any], float]] = [(face, demo, 0.0)]
        for k, (feature, value, framing) in enumerate(variations_of(f, str(demo["gender"]))):
            chars = {"base": demo, "variation": {feature: value}, "prompt": f"The same person, {value}"}
            images.append((f"{face}_{framing}_{k}_20250302_0930{k:02d}_{k:08x}", chars, rng.normal(0, 0.2)))
        face_shift = rng.normal(0, 0.1)
        for stem, chars, effect in images:
            Image.new("RGB", (8, 8), (f % 256, len(stem) % 256, 9)).save(final / face / f"{stem}.png")
            meta = {"image_path": f"/elsewhere/{stem}.png", "characteristics": chars}
            (final / face / f"{stem}_metadata.json").write_text(json.dumps(meta))
            for m, model in enumerate(MODELS):
                folder = root / "output" / "judgements" / model / face / stem
                folder.mkdir(parents=True)
                for i, shift in enumerate(scenario_shift):
                    p = float(np.clip(0.5 + face_shift + effect * (1 + m) + shift, 0.03, 0.97))
                    n_files += _answers(folder, chars, i, p, rng, seeds=seeds, messy=messy, read=read)
    return n_files
