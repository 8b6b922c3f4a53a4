"""``cueshift audit``, ``analyze --min-identity`` and ``analyze --audit strict`` end to end with the
REAL face models (dlib's HOG detector and ResNet recogniser; no random stand-in) on a study folder
of real photographs with planted edits.

Two bases, scikit-image's astronaut (Eileen Collins) and matplotlib's Grace Hopper; their
variations (each its own attribute, so each one's fate shows in ``result_sbs``):

- identity kept: the astronaut resized to 60 % and back, each face JPEG'd, each face mirrored;
- identity lost: each base with the *other* person swapped in;
- no face: the astronaut's lower body, the face cropped away;
- several faces: both people side by side;
- relit: the astronaut's face darkened by 12 L* (CIELAB), once as ``lighting`` (the ITA° move
  fails ``ita_bound``) and once as ``skin_tone`` (a skin-tone cue: the same move passes).

The face-recognition distances are checked against dlib's own API called here; what
``--min-identity`` and ``--audit strict`` drop against the planted sets (``result_sbs`` counts the
faces left per variation), the CLIP drops against transformers' ``CLIPModel`` computed here.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pytest

pytest.importorskip("dlib", reason="dlib (the 'faces' extra) is not installed")
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
color = pytest.importorskip("skimage.color", reason="scikit-image (the 'faces' extra)")

from PIL import Image  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from cueshift.cli import app  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import build_tiny_clip, save_tiny_clip  # noqa: E402
from tests.hardening.failing import one_line  # noqa: E402
from tests.inference.real_faces import RGB, astronaut, grace_hopper, jpeg, resized  # noqa: E402

RUNNER = CliRunner()
#: variation id -> (feature_key, variation_value); ``a-*`` vary the astronaut, ``g-*`` Grace Hopper.
PLANTED = {
    "a-resize": ("size", "60%"),
    "a-jpeg": ("compression", "JPEG"),
    "g-jpeg": ("compression", "JPEG"),
    "a-mirror": ("pose", "mirrored"),
    "g-mirror": ("pose", "mirrored"),
    "a-swap": ("person", "swapped"),
    "g-swap": ("person", "swapped"),
    "a-crop": ("crop", "no face"),
    "a-pair": ("company", "two people"),
    "a-relight": ("lighting", "darker"),
    "a-skin": ("skin_tone", "darker"),
}
SAME_PERSON = {"a-resize", "a-jpeg", "g-jpeg", "a-mirror", "g-mirror", "a-relight", "a-skin"}
OTHER_PERSON = {"a-swap", "g-swap"}
NO_FACE, SEVERAL_FACES = {"a-crop"}, {"a-pair"}
#: What the face models cannot call the same person: --min-identity's face drops.
FACE_DROPS = OTHER_PERSON | NO_FACE | SEVERAL_FACES
ITA_BOUND, RELIGHT_L = 8.0, -12.0
DEMOGRAPHICS = {
    "a": ("middle-aged adult", "female", "White", "normal"),
    "g": ("elderly", "female", "White", "normal"),
}
COLUMNS = ("image_id", "face_id", "path", "role", "base_image_id", "feature_key", "variation_value")


def _square(rgb: RGB) -> RGB:
    return np.asarray(Image.fromarray(rgb).resize((512, 512), Image.Resampling.LANCZOS), dtype=np.uint8)


def _relit(rgb: RGB, shift: float) -> RGB:
    """``rgb`` with the astronaut's face region's CIELAB lightness moved by ``shift``."""
    lab = color.rgb2lab(rgb)
    lab[60:180, 170:280, 0] += shift
    return np.asarray(np.clip(np.round(color.lab2rgb(lab) * 255), 0, 255), dtype=np.uint8)


def _side_by_side(left: RGB, right: RGB) -> RGB:
    canvas = np.full((512, 512, 3), 128, dtype=np.uint8)
    canvas[128:384, :256], canvas[128:384, 256:] = left[::2, ::2], right[::2, ::2]
    return canvas


def _images() -> dict[str, RGB]:
    a, g = astronaut(), _square(grace_hopper())
    relit = _relit(a, RELIGHT_L)
    return {
        "a0": a, "g0": g, "a-resize": _square(resized(a, 0.6)), "a-jpeg": jpeg(a, 40),
        "g-jpeg": jpeg(g, 75), "a-mirror": a[:, ::-1].copy(), "g-mirror": g[:, ::-1].copy(),
        "a-swap": g, "g-swap": a, "a-crop": _square(a[260:]), "a-pair": _side_by_side(a, g),
        "a-relight": relit, "a-skin": relit,
    }  # fmt: skip


@dataclass(frozen=True)
class Planted:
    folder: Path
    study: Path
    encoder: Path
    audit_stdout: str
    audit_exit: int
    before_audit: str


def _write_study(folder: Path, encoder: Path) -> Path:
    rows = []
    for image_id, rgb in _images().items():
        Image.fromarray(rgb).save(folder / f"{image_id}.png")
        face = image_id[0]
        key, value = PLANTED.get(image_id, ("", ""))
        role, base = ("variation", f"{face}0") if key else ("base", "")
        rows.append([image_id, face, f"{image_id}.png", role, base, key, value, *DEMOGRAPHICS[face]])
    with (folder / "faces.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*COLUMNS, "age", "gender", "ethnicity", "body_type"])
        writer.writerows(rows)
    whitelist = "".join(f'{key} = ["{value}"]\n' for key, value in dict(PLANTED.values()).items())
    study = folder / "study.toml"
    study.write_text(
        f'name = "real-faces"\ndatabase = "{(folder / "study.duckdb").as_posix()}"\nseeds = [1]\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{(folder / "faces.csv").as_posix()}"\n'
        "placebos = false\n"
        f'[variations.whitelist]\n{whitelist}[quality]\nencoder = "{encoder.as_posix()}"\n'
        "[audit]\ncue_threshold = -1.0\n"  # the tiny random CLIP's cue lift says nothing: never fail it
        f'[audit.faces]\ndetector = "dlib-hog"\nrecognizer = "dlib-resnet"\nita_bound = {ITA_BOUND}\n'
        'skin_tone_cues = ["skin_tone"]\nidentity_filter = true\n[[models]]\nmodel_id = "sim"\n',
        encoding="utf-8",
    )
    return study


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    folder = tmp_path_factory.mktemp("real-faces")
    encoder = save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)
    study = _write_study(folder, encoder)
    assert RUNNER.invoke(app, ["infer", "--study", str(study), "--no-progress"]).exit_code == 0
    before = one_line(RUNNER.invoke(app, ["analyze", "--study", str(study), "--min-identity", "0.5"]))
    audited = RUNNER.invoke(app, ["audit", "--study", str(study), "--no-progress"])
    return Planted(folder, study, encoder, audited.stdout, audited.exit_code, before)


def _rows(planted: Planted, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(planted.folder / "study.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def _analyze(planted: Planted, *options: str) -> str:
    result = RUNNER.invoke(
        app, ["analyze", "--study", str(planted.study), "--resamples", "100", "--no-progress", *options]
    )
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result.stdout


def _faces_left(planted: Planted) -> dict[tuple[str, str], int]:
    """Faces per (attribute, value) in the latest analysis (``result_sbs``, one model)."""
    rows = _rows(
        planted,
        "SELECT variation_category, variation_value, n FROM result_sbs "
        "WHERE level = 'variation_value' AND model_id = 'sim'",
    )
    return {(str(k), str(v)): int(str(n)) for k, v, n in rows}


def _expected_faces(dropped: set[str]) -> dict[tuple[str, str], int]:
    expected: dict[tuple[str, str], int] = {}
    for image_id, cell in PLANTED.items():
        if image_id not in dropped:
            expected[cell] = expected.get(cell, 0) + 1
    return expected


def _table_row(stdout: str, first: str) -> list[int]:
    """The integers of the console table row whose first cell is ``first``."""
    for line in stdout.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if cells and cells[0] == first:
            return [int(c.replace(",", "")) for c in cells if c.replace(",", "").isdigit()]
    raise AssertionError(f"no row {first!r} in:\n{stdout}")


def test_min_identity_before_the_audit_is_one_line(planted: Planted) -> None:
    assert "identity_filter = true" in planted.before_audit
    assert (
        "11 of 11 variations" in planted.before_audit and "run `cueshift audit` first" in planted.before_audit
    )


def test_the_audit_counts_the_planted_findings_by_group(planted: Planted) -> None:
    out = planted.audit_stdout
    assert planted.audit_exit == 0, out
    assert "face models (dlib-hog): 2 of 11 pairs without exactly one face on each image" in out
    # variations, no face, several, identity, skin tone (identity: the largest of two faces is Grace)
    assert _table_row(out, "person") == [2, 0, 0, 2, 2]
    assert _table_row(out, "crop") == [1, 1, 0, 0, 0]
    assert _table_row(out, "company") == [1, 0, 1, 1, 1]
    assert _table_row(out, "lighting") == [1, 0, 0, 0, 1]
    assert _table_row(out, "skin_tone") == [1, 0, 0, 0, 0]
    assert _table_row(out, "compression") == [2, 0, 0, 0, 0]
    assert _table_row(out, "White") == [11, 1, 1, 3, 4]  # ethnicity x gender: one group here


def test_the_stored_verdicts_are_the_planted_ones(planted: Planted) -> None:
    rows = _rows(planted, "SELECT image_id, measure, difference, failed, reason FROM edit_audit")
    verdict = {(str(i), str(m)): (float(str(d)), bool(f), r) for i, m, d, f, r in rows}
    for image_id in SAME_PERSON | OTHER_PERSON:
        distance, failed, _ = verdict[(image_id, "face_identity_distance")]
        assert failed == (image_id in OTHER_PERSON) == (distance > 0.6), (image_id, distance)
        assert not verdict[(image_id, "face_count")][1]
    assert verdict[("a-crop", "face_count")][2] == "no face on the variation"
    assert ("a-crop", "face_identity_distance") not in verdict  # no face: no distance, a finding
    assert verdict[("a-pair", "face_count")][2] == "several faces (2) on the variation"
    relight, skin = verdict[("a-relight", "skin_ita")], verdict[("a-skin", "skin_ita")]
    assert relight[0] < -ITA_BOUND and relight[1]  # darker: ITA° falls past the bound, fails
    assert skin[0] == pytest.approx(relight[0]) and not skin[1]  # the same move as the cue passes
    for image_id in SAME_PERSON - {"a-relight", "a-skin"}:
        assert abs(verdict[(image_id, "skin_ita")][0]) < ITA_BOUND and not verdict[(image_id, "skin_ita")][1]


def test_distances_match_dlib_called_directly(planted: Planted) -> None:
    import importlib.util

    import dlib

    spec = importlib.util.find_spec("face_recognition_models")
    assert spec is not None and spec.submodule_search_locations
    models = Path(next(iter(spec.submodule_search_locations))) / "models"
    detector = dlib.get_frontal_face_detector()
    aligner = dlib.shape_predictor(str(models / "shape_predictor_5_face_landmarks.dat"))
    network = dlib.face_recognition_model_v1(str(models / "dlib_face_recognition_resnet_model_v1.dat"))

    @functools.cache
    def descriptor(image_id: str) -> np.ndarray:
        with Image.open(planted.folder / f"{image_id}.png") as image:
            rgb = np.ascontiguousarray(np.asarray(image.convert("RGB")))
        face = max(detector(rgb, 1), key=lambda rect: rect.area())
        return np.asarray(network.compute_face_descriptor(rgb, aligner(rgb, face)))

    query = "SELECT image_id, difference FROM edit_audit WHERE measure = 'face_identity_distance'"
    stored = {str(image_id): float(str(d)) for image_id, d in _rows(planted, query)}
    for image_id in sorted(SAME_PERSON | OTHER_PERSON):
        expected = float(np.linalg.norm(descriptor(image_id) - descriptor(f"{image_id[0]}0")))
        assert stored[image_id] == pytest.approx(expected, abs=1e-4), image_id


def _clip_cosines(planted: Planted) -> dict[str, float]:
    """Each variation's cosine with its base under transformers' CLIPModel (the saved tiny CLIP)."""
    model, processor = build_tiny_clip(0)
    model.eval()
    names = sorted(PLANTED)
    bases = [f"{name[0]}0" for name in names]
    pictures = [Image.open(planted.folder / f"{n}.png").convert("RGB") for n in (*names, *bases)]
    with torch.no_grad():
        pixels = processor(images=pictures, return_tensors="pt")["pixel_values"]
        vectors = model.visual_projection(model.vision_model(pixel_values=pixels).pooler_output)
    vectors = torch.nn.functional.normalize(vectors, dim=-1).numpy()
    return {n: float(vectors[i] @ vectors[len(names) + i]) for i, n in enumerate(names)}


def test_min_identity_drops_exactly_the_face_failures_and_the_low_cosines(planted: Planted) -> None:
    out = _analyze(planted, "--min-identity", "-1")  # no cosine is below -1: the face models alone
    assert (
        "--min-identity -1: 4 of 11 variations dropped from the analyses: 0 by CLIP cosine < -1, "
        "4 by face recognition (2 at dlib-resnet distance > 0.6, 2 without one face on each image), 0 by both"
    ) in out
    assert _faces_left(planted) == _expected_faces(FACE_DROPS)

    cosines = _clip_cosines(planted)
    low = sorted(cosines.values())[:3]  # a threshold between the 3rd and 4th lowest cosine
    above = min(c for c in cosines.values() if c > low[-1])
    assert above - low[-1] > 1e-4  # far from either: the encoders agree on the side
    threshold = round((low[-1] + above) / 2, 6)
    by_clip = {n for n, c in cosines.items() if c < threshold}
    out = _analyze(planted, "--min-identity", f"{threshold}")
    dropped = by_clip | FACE_DROPS
    assert (
        f"{len(dropped)} of 11 variations dropped from the analyses: 3 by CLIP cosine < {threshold:g}, "
        f"4 by face recognition (2 at dlib-resnet distance > 0.6, 2 without one face on each image), "
        f"{len(by_clip & FACE_DROPS)} by both"
    ) in out
    assert _faces_left(planted) == _expected_faces(dropped)


def test_audit_strict_drops_the_face_and_skin_tone_failures(planted: Planted) -> None:
    failed = FACE_DROPS | {"a-relight"}
    extra = {
        str(i) for (i,) in _rows(planted, "SELECT DISTINCT image_id FROM edit_audit WHERE failed")
    } - failed
    assert extra == set()  # the pixel and CLIP checks add no failure of their own here
    out = _analyze(planted, "--audit", "strict")
    assert "5 of 11 variations failed the audit (left out of the analyses)" in out
    assert _faces_left(planted) == _expected_faces(failed)
    assert ("skin_tone", "darker") in _faces_left(planted)  # skin tone is its cue: kept
