"""A manifest study of three people for the counterfactual-quality tests: each a base and two
variations (``eyewear`` Sunglasses, ``hair_style`` Mohawk, a few pixels each), one variation
(:data:`SWAPPED`) another picture: the planted identity failure. Shared by
``tests/images/test_quality_cli.py`` and ``tests/audit/face_filter_study.py``."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from PIL import Image

COLUMNS = ("image_id", "face_id", "path", "role", "base_image_id", "feature_key", "variation_value")
DEMOGRAPHICS = {"age": "young adult", "gender": "female", "ethnicity": "Asian", "body_type": "thin"}
#: The planted counterfactual failure: this variation shows another picture, not its base.
SWAPPED = "q2"


def write_quality_study(folder: Path, encoder: Path, *, quality: bool = True, extra: str = "") -> Path:
    """The images, ``faces.csv`` and ``s.toml`` in ``folder``: ``[quality]`` with ``encoder`` unless
    not ``quality``, then ``extra`` (more study sections)."""
    rng = np.random.default_rng(5)
    rows = []
    for person in ("p", "q", "r"):
        base = rng.integers(0, 255, size=(32, 32, 3), dtype=np.uint8)
        for image_id, key, value in ((f"{person}0", "", ""), (f"{person}1", "eyewear", "Sunglasses"),
                                     (f"{person}2", "hair_style", "Mohawk")):  # fmt: skip
            pixels = base.copy()
            if key:
                pixels[:3, :3] = 255 if key == "eyewear" else 0  # a small cue
            if image_id == SWAPPED:
                pixels = rng.integers(0, 255, size=(32, 32, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(folder / f"{image_id}.png")
            role, base_id = ("variation", f"{person}0") if key else ("base", "")
            rows.append(
                [image_id, person, f"{image_id}.png", role, base_id, key, value, *DEMOGRAPHICS.values()]
            )
    with (folder / "faces.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([*COLUMNS, *DEMOGRAPHICS])
        writer.writerows(rows)
    section = f'[quality]\nencoder = "{encoder.as_posix()}"\nthresholds = [0.5, 0.99]\n' if quality else ""
    path = folder / "s.toml"
    path.write_text(
        f'name = "s"\ndatabase = "{(folder / "s.duckdb").as_posix()}"\nseeds = [1]\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{(folder / "faces.csv").as_posix()}"\n'
        f"placebos = false\n{section}{extra}"
        '[[models]]\nmodel_id = "sim"\n[models.settings]\n'
        'variation_effects = { "hair_style=Mohawk" = 1.5 }\n',
        encoding="utf-8",
    )
    return path
