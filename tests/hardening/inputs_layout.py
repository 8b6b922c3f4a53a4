"""A tiny manifest image set and one study file per design, for the input-validation tests.

Each study reads only small local files (a 4-image manifest, CSVs), so ``cueshift infer`` on a
good one finishes in about a second; a test breaks one input and checks that nothing is written.
"""

from __future__ import annotations

import csv
from pathlib import Path

from PIL import Image

#: Two identities, each a base and one variation (a beauty filter: seed 001's condition).
MANIFEST_ROWS: tuple[dict[str, str], ...] = tuple(
    {
        "image_id": image_id, "face_id": person, "path": f"img/{image_id}.png", "role": role,
        "base_image_id": base, "feature_key": key, "variation_value": value, "age": "young adult",
        "gender": gender, "ethnicity": "Asian", "body_type": "",
    }
    for person, gender in (("p", "female"), ("q", "male"))
    for image_id, role, base, key, value in (
        (f"{person}0", "base", "", "", ""),
        (f"{person}1", "variation", f"{person}0", "beauty_filter", "Beautified"),
    )
)  # fmt: skip

#: Each design's section and models (the attribute scenarios of probe; stimuli of pairwise).
DESIGN_BODY: dict[str, str] = {
    "stylisticbias": 'design = "stylisticbias"\nseeds = [1]\n[scenarios]\nonly = ["trustworthy"]\n',
    "paired": 'design = "paired"\nseeds = [1]\n[scenarios]\nset = "attractiveness-91"\n',
    "pairwise": 'design = "pairwise"\nseeds = [0]\n[pairwise]\nstimuli = "{folder}/stimuli.csv"\n',
    "probe": 'design = "probe"\nseeds = [1]\n[scenarios]\nset = "omi-34"\n'
    '[probe]\nhuman_ratings = "{folder}/ratings.csv"\nreliability = "{folder}/reliability.csv"\n',
}
BACKEND: dict[str, str] = {
    "stylisticbias": "simulated",
    "paired": "simulated",
    "pairwise": "simulated-designs",
    "probe": "simulated",
}
DESIGNS: tuple[str, ...] = tuple(DESIGN_BODY)


def write_manifest(folder: Path, rows: tuple[dict[str, str], ...] = MANIFEST_ROWS) -> Path:
    """``folder/faces.csv`` with ``rows`` and a small PNG per row."""
    for number, row in enumerate(MANIFEST_ROWS):
        image = folder / row["path"]
        image.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (16, 16), (40 * number, 90, 200 - 30 * number)).save(image)
    path = folder / "faces.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_side_files(folder: Path) -> None:
    """The pairwise stimuli and the probe ratings and reliabilities of :data:`MANIFEST_ROWS`."""
    (folder / "stimuli.csv").write_text(
        "image_id,cohort,stimulus_group\np0,A,western\nq0,A,local\n", encoding="utf-8"
    )
    (folder / "ratings.csv").write_text(
        "stimulus,attribute,rater,rating\n"
        + "".join(f"{s},trustworthy,r{r},{3 + r}\n" for s in ("p0", "q0") for r in (1, 2)),
        encoding="utf-8",
    )
    (folder / "reliability.csv").write_text("attribute,reliability\ntrustworthy,0.8\n", encoding="utf-8")


def study_file(
    folder: Path, design: str, *, extra: str = "", model: str = "", backend: str | None = None
) -> Path:
    """``folder/s.toml``: the design on :data:`MANIFEST_ROWS`; ``extra``: more sections after the
    design's, ``model``: more lines of its one model (keys, then ``[models.settings]``)."""
    write_manifest(folder)
    write_side_files(folder)
    body = DESIGN_BODY[design].format(folder=folder.as_posix())
    path = folder / "s.toml"
    path.write_text(
        f'name = "s"\ndatabase = "{(folder / "s.duckdb").as_posix()}"\n{body}{extra}\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{(folder / "faces.csv").as_posix()}"\n'
        f'[[models]]\nmodel_id = "m"\nbackend = "{backend or BACKEND[design]}"\n{model}',
        encoding="utf-8",
    )
    return path
