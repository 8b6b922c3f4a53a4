"""Image-set loaders: embedded demo faces, StylisticBias release layout, generic manifest."""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from PIL import Image

from cueshift.errors import ImageSetError
from cueshift.images import ImageSet, load_image_set
from cueshift.images.demo import PAPER_MARGINALS, configuration, face_images, list_demo, render, sample_faces
from cueshift.images.labels import AGES, BODY_TYPES, ETHNICITIES, GENDERS, normalize_variation_value
from cueshift.schemas import FaceSchema, ImageSchema
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import FEATURES, PAPER_RULES, VariationFilter

PAPER_FILTER = VariationFilter()
RULE_REASON = {(rule.feature_key, value): rule.reason for rule in PAPER_RULES for value in rule.values}
CURATION = "curation: not on the whitelist"


def evaluated_variations(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.filter((pl.col("role") == "variation") & pl.col("evaluated"))


def assert_one_line(exc: pytest.ExceptionInfo[ImageSetError], *fragments: str) -> None:
    """The error is one line and names every fragment (file, row, field)."""
    message = str(exc.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


# -- demo: listing (no drawing) ----------------------------------------------------------


def test_configuration_order_covers_the_90_configurations_once() -> None:
    configs = [configuration(i) for i in range(90)]
    assert set(configs) == set(itertools.product(AGES, GENDERS, ETHNICITIES, BODY_TYPES))
    assert configuration(90) == configuration(0)
    first_ten = configs[:10]
    assert {c[1] for c in first_ten} == set(GENDERS) and {c[2] for c in first_ten} == set(ETHNICITIES)


def test_list_small_counts() -> None:
    listed = list_demo("small")
    FaceSchema.validate(listed.face)
    assert listed.face.height == 90
    per_face = (
        listed.image.join(listed.face, on="face_id")
        .group_by("face_id", "gender")
        .agg(
            pl.len().alias("images"),
            (pl.col("evaluated") & (pl.col("role") == "variation")).sum().alias("evaluated"),
        )
    )
    expected = {"male": (1 + 50, 31), "female": (1 + 51, 32)}
    for row in per_face.iter_rows(named=True):
        assert (row["images"], row["evaluated"]) == expected[row["gender"]]
    assert evaluated_variations(listed.image).height == 45 * 31 + 45 * 32


def test_list_paper_counts_and_marginals() -> None:
    listed = list_demo("paper", PAPER_FILTER)
    identity = listed.face
    assert identity.height == 500
    for field, counts in PAPER_MARGINALS.items():
        assert dict(identity[field].value_counts().iter_rows()) == counts
    assert identity.select(pl.struct("age", "gender", "ethnicity", "body_type").n_unique()).item() == 90
    assert listed.image.height == 274 * 51 + 226 * 52
    assert evaluated_variations(listed.image).height == 15_726
    assert listed.image["image_id"].n_unique() == listed.image.height
    # the first 90 faces are the 'small' faces
    assert identity.head(90).equals(list_demo("small").face)


def test_list_int_size_cycles_through_configurations() -> None:
    faces = sample_faces(95)
    assert len(faces) == 95 and faces[-1].face_id == "demo-0095"
    assert (faces[90].age, faces[90].gender, faces[90].ethnicity, faces[90].body_type) == configuration(0)
    assert list_demo(3).face.height == 3


def test_full_variation_space_respects_only_gender() -> None:
    male, female = sample_faces("small")[:2]
    assert (male.gender, female.gender) == ("male", "female")
    keys_male = {i.feature_key for i in face_images(male)}
    keys_female = {i.feature_key for i in face_images(female)}
    assert "facial_hair_male" in keys_male and "makeup_female" not in keys_male
    assert "lip_makeup_female" in keys_female and "facial_hair_male" not in keys_female
    assert len(face_images(male)) - 1 == 55 - 2 - 3 and len(face_images(female)) - 1 == 55 - 4


def test_filter_reasons_on_demo_images() -> None:
    listed = list_demo("small")
    image = listed.image.join(listed.face.select("face_id", "gender"), on="face_id")

    def reasons(feature_key: str, value: str, gender: str) -> set[str | None]:
        rows = image.filter(
            (pl.col("feature_key") == feature_key)
            & (pl.col("variation_value") == value)
            & (pl.col("gender") == gender)
        )
        assert rows.height == 45
        assert (rows["evaluated"] == rows["exclusion_reason"].is_null()).all()
        return set(rows["exclusion_reason"].to_list())

    assert reasons("hair_style", "Braid", "male") == {RULE_REASON[("hair_style", "Braid")]}
    assert reasons("hair_style", "Braid", "female") == {CURATION}
    assert reasons("fashion_style", "Daring / Provocative", "female") == {
        RULE_REASON[("fashion_style", "Daring / Provocative")]
    }
    assert reasons("fashion_style", "Luxury / High fashion", "male") == {
        RULE_REASON[("fashion_style", "Luxury / High fashion")]
    }
    assert reasons("lip_makeup_female", "Neutral", "female") == {
        RULE_REASON[("lip_makeup_female", "Neutral")]
    }
    assert reasons("eyewear", "Thin metal", "male") == {CURATION}
    assert reasons("eyewear", "Sunglasses", "female") == {None}
    bases = image.filter(pl.col("role") == "base")
    assert bases["evaluated"].all() and bases["exclusion_reason"].is_null().all()
    fashion = image.filter(pl.col("feature_key") == "fashion_style")
    assert set(fashion["framing"]) == {"body"} and set(fashion["variation_category"]) == {"Fashion"}
    assert set(image.filter(pl.col("feature_key") != "fashion_style")["framing"]) == {"face"}


def test_filter_without_whitelist_or_rules_evaluates_everything() -> None:
    listed = list_demo(4, VariationFilter(whitelist=None, rules=[]))
    assert listed.image["evaluated"].all()


# -- demo: drawing ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_demo(tmp_path_factory: pytest.TempPathFactory) -> ImageSet:
    cache = tmp_path_factory.mktemp("demo-cache")
    return load_image_set(
        ImageSetConfig(kind="demo", size="small", cache_dir=cache), PAPER_FILTER, progress=False
    )


def test_small_demo_frames_pass_schemas(small_demo: ImageSet) -> None:
    FaceSchema.validate(small_demo.face)
    ImageSchema.validate(small_demo.image)
    assert small_demo.image.columns == list(ImageSchema.to_schema().columns)
    assert small_demo.image.schema["width"] == pl.Int32 and small_demo.image.schema["evaluated"] == pl.Boolean
    assert small_demo.face.height == 90 and small_demo.root.is_absolute()
    assert evaluated_variations(small_demo.image).height == 45 * 31 + 45 * 32


def test_small_demo_files_match_their_rows(small_demo: ImageSet) -> None:
    sizes = {(r["framing"], r["width"], r["height"]) for r in small_demo.image.iter_rows(named=True)}
    assert sizes == {("face", 96, 96), ("body", 96, 160)}
    for row in small_demo.image.sample(40, seed=1).iter_rows(named=True):
        data = (small_demo.root / row["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["sha256"]
        with Image.open(io.BytesIO(data)) as img:
            assert img.size == (row["width"], row["height"])
    assert not list(small_demo.root.rglob("*.tmp"))


def test_variations_differ_from_their_base(small_demo: ImageSet) -> None:
    image = small_demo.image
    base_sha = dict(image.filter(pl.col("role") == "base").select("image_id", "sha256").iter_rows())
    cues = image.filter(
        pl.col("feature_key").is_in(["eyewear", "facial_hair_male", "tattoos", "accessories"])
    )
    assert all(row["sha256"] != base_sha[row["base_image_id"]] for row in cues.iter_rows(named=True))
    assert image.filter(pl.col("role") == "base")["sha256"].n_unique() == 90


def test_demo_render_is_deterministic(tmp_path: Path, small_demo: ImageSet) -> None:
    config = {"kind": "demo", "size": 3}
    first = load_image_set(ImageSetConfig(**config, cache_dir=tmp_path / "a"), PAPER_FILTER, progress=False)
    second = load_image_set(ImageSetConfig(**config, cache_dir=tmp_path / "b"), PAPER_FILTER, progress=True)
    assert first.image.equals(second.image) and first.face.equals(second.face)
    # the first faces of every size are the same faces, drawn the same
    same = small_demo.image.filter(pl.col("face_id").is_in(first.face["face_id"].to_list()))
    assert same.sort("image_id")["sha256"].equals(first.image.sort("image_id")["sha256"])


def test_demo_cache_is_reused_and_repaired(tmp_path: Path) -> None:
    root, facts = render(2, tmp_path, progress=False)
    victim = root / "demo-0001" / "eyewear--sunglasses.png"
    stamp = (root / "demo-0002" / "base.png").stat().st_mtime_ns
    victim.write_bytes(victim.read_bytes()[:40])  # a damaged file
    _, again = render(2, tmp_path, progress=False)
    assert again == facts
    assert hashlib.sha256(victim.read_bytes()).hexdigest() == facts["demo-0001-eyewear-sunglasses"].sha256
    assert (root / "demo-0002" / "base.png").stat().st_mtime_ns == stamp  # untouched face not rewritten


# -- StylisticBias release layout ---------------------------------------------------------


def write_image(
    path: Path, size: tuple[int, int] = (12, 10), color: tuple[int, int, int] = (200, 80, 40)
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path)


def write_meta(path: Path, variation: dict[str, str] | None = None, **overrides: Any) -> None:
    characteristics: dict[str, Any] = {
        "age": "young adult",
        "gender": "male",
        "ethnicity": "Asian",
        "body_type": "thin",
    }
    characteristics.update({k: v for k, v in overrides.items() if k in characteristics})
    data: dict[str, Any] = {"characteristics": characteristics}
    if variation is not None:
        characteristics["variation"] = variation
    data.update({k: v for k, v in overrides.items() if k in ("image", "file_name")})
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def release(tmp_path: Path) -> Path:
    root = tmp_path / "release"
    face = root / "f1"
    write_image(face / "f1.png")
    write_meta(face / "f1_metadata.json")
    write_image(face / "f1_face_eyewear_sunglasses.png", color=(10, 10, 10))
    write_meta(face / "f1_face_eyewear_sunglasses_metadata.json", {"eyewear": "sunglasses"})
    write_image(face / "f1_face_hair_style_braid.webp")
    write_meta(face / "f1_face_hair_style_braid_metadata.json", {"hair_style": "BRAID"}, age="Young Adult")
    write_image(face / "f1_body_fashion_style_casual.jpg", size=(10, 20))
    write_meta(face / "f1_body_fashion_style_casual_metadata.json", {"fashion_style": "casual"})
    face = root / "f2"
    write_image(face / "portrait.png", size=(16, 16))
    write_meta(face / "f2_metadata.json", gender="Female", ethnicity="middle eastern", image="portrait.png")
    write_image(face / "f2_face_lip.jpeg")
    her = {"gender": "female", "ethnicity": "Middle Eastern"}
    write_meta(face / "f2_face_lip_metadata.json", {"lip_makeup_female": "red  LIPSTICK"}, **her)
    write_image(face / "f2_body_daring.png")
    write_meta(face / "f2_body_daring_metadata.json", {"fashion_style": "daring/provocative"}, **her,
               file_name="f2_body_daring.png")  # fmt: skip
    return root


def load_release(root: Path) -> ImageSet:
    return load_image_set(ImageSetConfig(kind="stylisticbias", root=root), PAPER_FILTER, progress=False)


def test_release_rows(release: Path) -> None:
    image_set = load_release(release)
    FaceSchema.validate(image_set.face)
    ImageSchema.validate(image_set.image)
    assert image_set.root == release.absolute()
    identity = {r["face_id"]: r for r in image_set.face.iter_rows(named=True)}
    assert identity["f2"]["gender"] == "female" and identity["f2"]["ethnicity"] == "Middle Eastern"
    assert identity["f1"]["source"] == "stylisticbias"
    rows = {r["image_id"]: r for r in image_set.image.iter_rows(named=True)}
    assert set(rows) == {
        "f1", "f1_face_eyewear_sunglasses", "f1_face_hair_style_braid", "f1_body_fashion_style_casual",
        "f2", "f2_face_lip", "f2_body_daring",
    }  # fmt: skip
    assert rows["f1"]["role"] == "base" and rows["f1"]["base_image_id"] is None and rows["f1"]["evaluated"]
    assert rows["f2"]["path"] == "f2/portrait.png" and (rows["f2"]["width"], rows["f2"]["height"]) == (16, 16)
    sun = rows["f1_face_eyewear_sunglasses"]
    assert (sun["base_image_id"], sun["feature_key"], sun["variation_value"]) == (
        "f1",
        "eyewear",
        "Sunglasses",
    )
    assert (sun["variation_category"], sun["framing"], sun["evaluated"]) == ("Eyewear", "face", True)
    assert (
        sun["sha256"]
        == hashlib.sha256((release / "f1/f1_face_eyewear_sunglasses.png").read_bytes()).hexdigest()
    )
    casual = rows["f1_body_fashion_style_casual"]
    assert (casual["framing"], casual["variation_value"], casual["path"]) == (
        "body",
        "Casual",
        "f1/f1_body_fashion_style_casual.jpg",
    )
    braid = rows["f1_face_hair_style_braid"]
    assert (
        braid["variation_value"] == "Braid"
        and braid["exclusion_reason"] == RULE_REASON[("hair_style", "Braid")]
    )
    assert rows["f2_face_lip"]["variation_value"] == "Red lipstick" and rows["f2_face_lip"]["evaluated"]
    daring = rows["f2_body_daring"]
    assert daring["variation_value"] == "Daring / Provocative" and not daring["evaluated"]


def test_lenient_value_spelling() -> None:
    assert normalize_variation_value("fashion_style", " smart  CASUAL ") == "Smart casual"
    assert (
        normalize_variation_value("fashion_style", "worn/distressed clothing") == "Worn / Distressed clothing"
    )
    assert normalize_variation_value("eyewear", "Monocle") == "Monocle"


SUNGLASSES_META = Path("f1/f1_face_eyewear_sunglasses_metadata.json")


def _malformed_json(root: Path) -> Path:
    (root / SUNGLASSES_META).write_text('{"characteristics": {')
    return root / SUNGLASSES_META


def _missing_demographic(root: Path) -> Path:
    write_meta(root / "f1/f1_metadata.json", gender=None)
    return root / "f1/f1_metadata.json"


def _missing_image(root: Path) -> Path:
    (root / "f1/f1_face_eyewear_sunglasses.png").unlink()
    return root / SUNGLASSES_META


def _corrupt_image(root: Path) -> Path:
    path = root / "f1/f1_face_eyewear_sunglasses.png"
    path.write_bytes(path.read_bytes()[:45])
    return root / SUNGLASSES_META


def _escaping_image_key(root: Path) -> Path:
    write_meta(
        root / "f2/f2_metadata.json", image="../f1/f1.png", gender="female", ethnicity="Middle Eastern"
    )
    return root / "f2/f2_metadata.json"


def _outside_symlink(root: Path) -> Path:
    outside = root.parent / "outside.png"
    write_image(outside)
    target = root / "f1/f1_face_eyewear_sunglasses.png"
    target.unlink()
    target.symlink_to(outside)
    return root / SUNGLASSES_META


def _conflicting_demographics(root: Path) -> Path:
    write_meta(root / SUNGLASSES_META, {"eyewear": "Sunglasses"}, age="elderly")
    return root / SUNGLASSES_META


def _bad_file_name(root: Path) -> Path:
    write_meta(root / "f1/f1_extra_metadata.json")
    return root / "f1/f1_extra_metadata.json"


def _two_variations(root: Path) -> Path:
    write_meta(root / SUNGLASSES_META, {"eyewear": "Sunglasses", "tattoos": "Facial tattoo"})
    return root / SUNGLASSES_META


def _no_base_metadata(root: Path) -> Path:
    (root / "f2/f2_metadata.json").unlink()
    return root / "f2"


# case -> (breaker returning the file the error must name, further fragments)
RELEASE_BREAKS: dict[str, tuple[Callable[[Path], Path], tuple[str, ...]]] = {
    "malformed json": (_malformed_json, ("malformed metadata JSON", "line 1")),
    "missing demographic": (_missing_demographic, ("field 'characteristics.gender'",)),
    "missing image": (_missing_image, ("field 'image'", "no image file")),
    "corrupt image": (
        _corrupt_image,
        ("field 'image'", "f1/f1_face_eyewear_sunglasses.png", "not a decodable"),
    ),
    "escaping image key": (_escaping_image_key, ("field 'image'", "escapes the image-set root")),
    "symlink outside": (_outside_symlink, ("field 'image'", "resolves outside")),
    "conflicting demographics": (_conflicting_demographics, ("field 'age'", "'elderly'", "'young adult'")),
    "bad file name": (_bad_file_name, ("field 'file name'",)),
    "two variations": (_two_variations, ("field 'characteristics.variation'", "exactly one")),
    "no base metadata": (_no_base_metadata, ("field 'metadata'", "f2_metadata.json")),
}


@pytest.mark.parametrize("case", list(RELEASE_BREAKS))
def test_release_bad_input(release: Path, case: str) -> None:
    breaker, fragments = RELEASE_BREAKS[case]
    named_file = breaker(release)
    with pytest.raises(ImageSetError) as exc:
        load_release(release)
    assert_one_line(exc, str(named_file), *fragments)


# -- generic manifest ---------------------------------------------------------------------

MANIFEST_ROWS: list[dict[str, str]] = [
    {"image_id": "a0", "face_id": "a", "path": "img/a0.png", "role": "base", "base_image_id": "",
     "feature_key": "", "variation_value": "", "age": "elderly", "gender": "Female", "ethnicity": "Latino",
     "body_type": "obese"},
    {"image_id": "a1", "face_id": "a", "path": "img/a1.png", "role": "variation", "base_image_id": "a0",
     "feature_key": "fashion_style", "variation_value": "streetwear", "age": "elderly", "gender": "female",
     "ethnicity": "Latino", "body_type": "obese"},
    {"image_id": "a2", "face_id": "a", "path": "./img/a2.png", "role": "variation", "base_image_id": "a0",
     "feature_key": "filter", "variation_value": "beauty", "age": "elderly", "gender": "female",
     "ethnicity": "Latino", "body_type": "obese"},
    {"image_id": "b0", "face_id": "b", "path": "img/b0.png", "role": "base", "base_image_id": "",
     "feature_key": "", "variation_value": "", "age": "", "gender": "male", "ethnicity": "", "body_type": ""},
    {"image_id": "b1", "face_id": "b", "path": "img/b1.png", "role": "variation", "base_image_id": "b0",
     "feature_key": "hair_style", "variation_value": "Bun", "age": "", "gender": "male", "ethnicity": "",
     "body_type": ""},
]  # fmt: skip


def write_manifest(folder: Path, rows: list[dict[str, str]], fmt: str = "csv") -> Path:
    """Write ``rows`` as ``folder/faces.<fmt>`` and the images of :data:`MANIFEST_ROWS` next to it."""
    for row in MANIFEST_ROWS:
        if not (folder / row["path"]).exists():
            write_image(folder / row["path"])
    path = folder / f"faces.{fmt}"
    if fmt == "csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        pl.DataFrame(rows).write_parquet(path)
    return path


def load_manifest_file(path: Path) -> ImageSet:
    return load_image_set(ImageSetConfig(kind="manifest", manifest=path), PAPER_FILTER, progress=False)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_manifest_rows(tmp_path: Path, fmt: str) -> None:
    rows = [dict(r) for r in MANIFEST_ROWS]
    for row in rows:
        row.update(variation_category="", framing="", source="")
    rows[2].update(variation_category="Beauty filter", framing="face", source="")
    image_set = load_manifest_file(write_manifest(tmp_path, rows, fmt))
    FaceSchema.validate(image_set.face)
    ImageSchema.validate(image_set.image)
    assert image_set.root == tmp_path.absolute() and image_set.name == "faces"
    identity = {r["face_id"]: r for r in image_set.face.iter_rows(named=True)}
    assert identity["a"]["gender"] == "female" and identity["a"]["source"] == "faces"
    assert identity["b"]["age"] is None
    image = {r["image_id"]: r for r in image_set.image.iter_rows(named=True)}
    assert image["a1"]["variation_value"] == "Streetwear" and image["a1"]["framing"] == "body"
    assert image["a1"]["variation_category"] == "Fashion" and image["a1"]["evaluated"]
    assert image["a2"]["path"] == "img/a2.png" and image["a2"]["variation_category"] == "Beauty filter"
    assert image["a2"]["exclusion_reason"] == CURATION
    assert image["b1"]["exclusion_reason"] == RULE_REASON[("hair_style", "Bun")]
    assert image["b0"]["base_image_id"] is None and (image["b0"]["width"], image["b0"]["height"]) == (12, 10)


def test_manifest_minimal_columns(tmp_path: Path) -> None:
    image_set = load_manifest_file(write_manifest(tmp_path, MANIFEST_ROWS))
    assert image_set.image.height == 5 and set(image_set.face["source"]) == {"faces"}


def _edit(index: int, **changes: str) -> Callable[[Path], Path]:
    def breaker(folder: Path) -> Path:
        rows = [dict(r) for r in MANIFEST_ROWS]
        rows[index].update(changes)
        return write_manifest(folder, rows)

    return breaker


def _raw_csv(text: str) -> Callable[[Path], Path]:
    def breaker(folder: Path) -> Path:
        path = write_manifest(folder, MANIFEST_ROWS)
        path.write_text(path.read_text() + text)
        return path

    return breaker


def _drop_column(name: str) -> Callable[[Path], Path]:
    def breaker(folder: Path) -> Path:
        return write_manifest(folder, [{k: v for k, v in r.items() if k != name} for r in MANIFEST_ROWS])

    return breaker


def _image_file(index: int, data: Callable[[bytes], bytes]) -> Callable[[Path], Path]:
    def breaker(folder: Path) -> Path:
        path = write_manifest(folder, MANIFEST_ROWS)
        image = folder / MANIFEST_ROWS[index]["path"]
        image.write_bytes(data(image.read_bytes()))
        return path

    return breaker


def _jpeg_truncated(folder: Path) -> Path:
    path = _edit(1, path="img/a1.jpg")(folder)
    buffer = io.BytesIO()
    Image.effect_noise((64, 64), 40).convert("RGB").save(buffer, format="JPEG")
    (folder / "img" / "a1.jpg").write_bytes(buffer.getvalue()[:300])
    return path


def _symlink(folder: Path) -> Path:
    path = _edit(3, path="img/link.png")(folder)
    outside = folder.parent / "elsewhere.png"  # folder is tmp_path / "set"
    write_image(outside)
    (folder / "img" / "link.png").symlink_to(outside)
    return path


# case -> (breaker, row or None, fragments)
MANIFEST_BREAKS: dict[str, tuple[Callable[[Path], Path], int | None, tuple[str, ...]]] = {
    "missing column": (_drop_column("role"), None, ("field 'role'", "missing")),
    "unknown column": (_edit(0, colour="x"), None, ("field 'colour'", "unknown column")),
    "ragged row": (_raw_csv("c0,c,img/c0.png,base,,,,,,,,extra\n"), 6, ("unparseable CSV", "12 fields")),
    "broken quoting": (_raw_csv('c0,c,"img/c0.png"x,base,,,,,,,\n'), 6, ("unparseable CSV",)),
    "unknown role": (_edit(3, role="Base2"), 4, ("field 'role'", "'Base2'")),
    "base with a parent": (_edit(3, base_image_id="a0"), 4, ("field 'base_image_id'", "must be empty")),
    "variation without feature": (_edit(1, feature_key=""), 2, ("field 'feature_key'",)),
    "missing image": (_edit(4, path="img/nope.png"), 5, ("field 'path'", "does not exist")),
    "corrupt image": (
        _image_file(4, lambda b: b"not an image at all"),
        5,
        ("field 'path'", "not a decodable"),
    ),
    "truncated png": (_image_file(0, lambda b: b[: len(b) // 2]), 1, ("field 'path'", "not a decodable")),
    "truncated jpeg": (_jpeg_truncated, 2, ("field 'path'", "not a decodable")),
    "absolute path": (_edit(1, path="/etc/hostname"), 2, ("field 'path'", "absolute")),
    "dot-dot path": (_edit(1, path="img/../../x.png"), 2, ("field 'path'", "'..'")),
    "symlink outside": (_symlink, 4, ("field 'path'", "resolves outside")),
    "duplicate image id": (_edit(4, image_id="a1"), 5, ("field 'image_id'", "duplicate", "row 2")),
    "missing base": (_edit(1, base_image_id="zz"), 2, ("field 'base_image_id'", "'zz'")),
    "base is a variation": (_edit(2, base_image_id="a1"), 3, ("field 'base_image_id'", "not a base")),
    "base of another identity": (_edit(4, base_image_id="a0"), 5, ("field 'base_image_id'", "face")),
    "conflicting demographics": (_edit(1, body_type="thin"), 2, ("field 'body_type'", "'thin'", "'obese'")),
}


@pytest.mark.parametrize("case", list(MANIFEST_BREAKS))
def test_manifest_bad_input(tmp_path: Path, case: str) -> None:
    breaker, row, fragments = MANIFEST_BREAKS[case]
    manifest = breaker(tmp_path / "set")
    with pytest.raises(ImageSetError) as exc:
        load_manifest_file(manifest)
    assert_one_line(exc, str(manifest), *((f"row {row}:",) if row else ()), *fragments)


def test_manifest_bad_files(tmp_path: Path) -> None:
    for name, content, fragment in [
        ("faces.txt", "x", "unsupported manifest format"),
        ("broken.parquet", "not parquet", "unreadable manifest"),
        ("latin.csv", "image_id\n\xe9", "not UTF-8"),
        ("empty.csv", "", "no header row"),
    ]:
        path = tmp_path / name
        path.write_bytes(content.encode("latin-1"))
        with pytest.raises(ImageSetError) as exc:
            load_manifest_file(path)
        assert_one_line(exc, str(path), fragment)
    with pytest.raises(ImageSetError) as exc:
        load_manifest_file(tmp_path / "absent.csv")
    assert_one_line(exc, "absent.csv", "no such manifest")


def test_manifest_parquet_row_numbers(tmp_path: Path) -> None:
    rows = [dict(r) for r in MANIFEST_ROWS]
    rows[3]["role"] = "origin"
    path = write_manifest(tmp_path, rows, "parquet")
    with pytest.raises(ImageSetError) as exc:
        load_manifest_file(path)
    assert_one_line(exc, str(path), "row 4:", "field 'role'")


def test_every_feature_value_round_trips_the_lenient_matcher() -> None:
    for feature in FEATURES:
        for value in feature.values:
            assert normalize_variation_value(feature.feature_key, value.upper()) == value
