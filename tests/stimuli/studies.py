"""A tiny build study: a 2 x 2 grid (gender x age), two variations, the demo-faces test double."""

from __future__ import annotations

from pathlib import Path

STUDY = """
name = "built"
database = "{root}/built.duckdb"

[image_set]
kind = "manifest"
manifest = "{root}/set/manifest.csv"

[variations]
whitelist = {{eyewear = ["Sunglasses"], accessories = ["Cap"]}}
rules = []

[[models]]
model_id = "sim-judge"
backend = "simulated"

[build]
count = {count}
max_tries = 3

[build.grid.fields]
gender = ["male", "female"]
age = ["young adult", "elderly"]
ethnicity = ["Asian"]
body_type = ["normal"]

[build.variations]
features = {{eyewear = ["Sunglasses"], accessories = ["Cap"]}}

[[build.generators]]
stage = "base"
generator = "demo-faces"
settings = {base}

[[build.generators]]
stage = "variation"
generator = "{edit_generator}"
model = "{edit_model}"
settings = {edit}
"""


def write_study(
    root: Path,
    *,
    count: int = 6,
    base: str = "{refuse_rate = 0.2}",
    edit: str = "{fail_rate = 0.2, noop_rate = 0.3}",
    edit_generator: str = "demo-faces",
    edit_model: str = "",
    extra: str = "",
) -> Path:
    """The study file under ``root`` (its database and image set there too)."""
    text = STUDY.format(
        root=root.as_posix(),
        count=count,
        base=base,
        edit=edit,
        edit_generator=edit_generator,
        edit_model=edit_model,
    )
    path = root / "study.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path
