"""`cueshift import omi`: the One Million Impressions layout (synthetic fixtures) as a probe study."""

from __future__ import annotations

import tomllib
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from cueshift.designs import load_study
from cueshift.designs.probe.scenarios import OMI_ATTRIBUTES
from cueshift.errors import CueshiftError
from cueshift.images.human_ratings import read_reliability
from cueshift.images.omi import load_omi, omi_image_files
from cueshift.images.omi_ratings import pseudo_raters, read_omi_ratings
from cueshift.imports.omi import import_omi, split_half_table
from cueshift.imports.omi_study import ModelSpec
from cueshift.stats import spearman_brown
from cueshift.study.variations import VariationFilter
from tests.images.omi_layout import write_omi
from tests.scalars import real

SIM = "sim=simulated-designs:cueshift-simulated-v1"


@pytest.fixture
def omi(tmp_path: Path) -> Path:
    return write_omi(tmp_path / "omi")


def test_images_are_one_identity_each_numeric_order(omi: Path) -> None:
    (omi / "images" / "7.jpg").rename(omi / "images" / "7x.jpg")  # a non-numeric stem sorts last
    bench = load_omi(omi, VariationFilter(whitelist={}, rules=[]), progress=False)
    ids = bench.image["image_id"].to_list()
    assert ids[:3] == ["1", "2", "3"] and ids[-1] == "7x" and "10" in ids
    assert (bench.image["role"] == "base").all() and bench.face["source"].unique().to_list() == ["omi"]
    assert bench.face["face_id"].to_list() == ids


def test_numeric_ids_compare_as_numbers(omi: Path) -> None:
    (omi / "images" / "3.jpg").rename(omi / "images" / "003.jpg")
    assert omi_image_files(omi)["3"] == "images/003.jpg"
    (omi / "images" / "3.png").write_bytes((omi / "images" / "003.jpg").read_bytes())
    with pytest.raises(CueshiftError, match="second image of stimulus '3'"):
        omi_image_files(omi)


def test_ratings_kept_left_out_and_pseudo_raters(omi: Path) -> None:
    stimuli = [str(i) for i in range(1, 13)]
    ratings = read_omi_ratings(omi / "attribute_ratings.csv", stimuli=stimuli, attributes=OMI_ATTRIBUTES)
    assert ratings.n_read == 14 * 4 * 8 and ratings.out_of_set == {"1005": 32, "1006": 32}
    assert ratings.long.height == 12 * 4 * 8 and ratings.unrated_images == ()
    cells = ratings.long.group_by("stimulus", "attribute").agg(pl.col("rater").n_unique(), pl.len())
    assert (cells["rater"] == 8).all() and (cells["len"] == 8).all()
    assert sorted(ratings.long["rater"].unique().to_list()) == [f"p00{k}" for k in range(1, 9)]
    raw = pl.read_csv(omi / "attribute_ratings.csv").filter(pl.col("stimulus") <= 12)
    assert sorted(ratings.long["rating"].to_list()) == sorted(raw["rating"].to_list())  # ratings kept as read


def test_pseudo_raters_depend_on_seed_not_on_row_order() -> None:
    frame = pl.DataFrame(
        {
            "stimulus": ["1"] * 6 + ["2"] * 6,
            "attribute": ["age"] * 12,
            "rating": [float(v) for v in range(12)],
        }
    )
    first = pseudo_raters(frame, seed=3)
    assert first.equals(pseudo_raters(frame.reverse(), seed=3))
    assert not first.equals(pseudo_raters(frame, seed=4))
    for (_,), part in first.group_by("stimulus"):
        assert part["rater"].n_unique() == 6


def test_mixed_rating_types_need_a_choice(tmp_path: Path) -> None:
    root = write_omi(tmp_path / "omi", rating_types=("attribute", "repeat"))
    args = {"stimuli": [str(i) for i in range(1, 13)], "attributes": OMI_ATTRIBUTES}
    with pytest.raises(CueshiftError) as exc:
        read_omi_ratings(root / "attribute_ratings.csv", **args)  # type: ignore[arg-type]  # a dict of two argument types
    assert "field 'rating_type'" in str(exc.value) and "'repeat' (448)" in str(exc.value)
    one = read_omi_ratings(root / "attribute_ratings.csv", rating_types=["repeat"], **args)  # type: ignore[arg-type]  # a dict of two argument types
    assert one.types_kept == ("repeat",) and one.n_other_types == 448 and one.long.height == 384
    pooled = read_omi_ratings(root / "attribute_ratings.csv", rating_types=["all"], **args)  # type: ignore[arg-type]  # a dict of two argument types
    assert pooled.long.height == 768
    with pytest.raises(CueshiftError, match="no ratings of type 'main'"):
        read_omi_ratings(root / "attribute_ratings.csv", rating_types=["main"], **args)  # type: ignore[arg-type]  # a dict of two argument types


def _edit_csv(root: Path, old: str, new: str) -> None:
    path = root / "attribute_ratings.csv"
    path.write_text(path.read_text().replace(old, new, 1))


@pytest.mark.parametrize(
    ("edit", "fragments"),
    [
        (("stimulus,attribute,rating,rating_type", "stimulus,attribute,rating"), ("field 'rating_type'",)),
        (("rating,rating_type", "rating,rating_type,rater"), ("field 'rater'", "unknown column")),
        ((",trustworthy,", ",trustworthiness,"), ("row 1", "field 'attribute'", "'trustworthiness'")),
        (
            (
                ",happy,",
                ",happy,high,",
            ),
            ("unparseable CSV",),
        ),
    ],
)
def test_bad_ratings_file_is_one_line_and_writes_nothing(
    omi: Path, tmp_path: Path, edit: tuple[str, str], fragments: tuple[str, ...]
) -> None:
    _edit_csv(omi, *edit)
    with pytest.raises(CueshiftError) as exc:
        import_omi(omi, tmp_path / "out")
    assert "\n" not in str(exc.value) and "attribute_ratings.csv" in str(exc.value)
    for fragment in fragments:
        assert fragment in str(exc.value)
    assert not (tmp_path / "out").exists()


def test_non_numeric_rating_names_its_row(omi: Path) -> None:
    lines = (omi / "attribute_ratings.csv").read_text().splitlines()
    stimulus, attribute, _, kind = lines[5].split(",")
    lines[5] = f"{stimulus},{attribute},lots,{kind}"
    (omi / "attribute_ratings.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(CueshiftError, match=r"row 5: field 'rating': 'lots' is not a number"):
        read_omi_ratings(omi / "attribute_ratings.csv", stimuli=["1"], attributes=OMI_ATTRIBUTES)


def test_reliability_scale(omi: Path, tmp_path: Path) -> None:
    percent = tmp_path / "percent.csv"
    percent.write_text("attribute,reliability\ntrustworthy,81.5\nhappy,95\n")
    with pytest.raises(
        CueshiftError, match=r"row 1: field 'reliability': 81.5 is outside -1 to 1; it looks like a 0-100"
    ):
        read_reliability(percent)
    result = import_omi(omi, tmp_path / "out", reliability=percent, models=[ModelSpec.parse(SIM)])
    assert result.reliability_converted and result.reliability_file is not None
    stored = pl.read_csv(result.reliability_file)
    assert stored["reliability"].to_list() == pytest.approx([0.815, 0.95])
    unit = tmp_path / "unit.csv"
    unit.write_text("attribute,reliability\ntrustworthy,0.8\nhappy,0.95\n")
    kept = import_omi(omi, tmp_path / "out2", reliability=unit, models=[ModelSpec.parse(SIM)])
    assert not kept.reliability_converted
    bad = tmp_path / "bad.csv"
    bad.write_text("attribute,reliability\ntrustworthy,150\nhappy,0.95\n")
    with pytest.raises(CueshiftError, match="150 is outside -1 to 1"):
        import_omi(omi, tmp_path / "out3", reliability=bad)
    assert not (tmp_path / "out3").exists()


def test_split_half_columns_are_labelled_and_consistent(omi: Path) -> None:
    ratings = read_omi_ratings(
        omi / "attribute_ratings.csv", stimuli=[str(i) for i in range(1, 13)], attributes=OMI_ATTRIBUTES
    )
    one = split_half_table(ratings.long, n_splits=1, seed=0)
    assert one.columns == ["attribute", "raw_r", "spearman_brown", "n_raters", "n_splits"]
    for row in one.iter_rows(named=True):
        assert row["spearman_brown"] == pytest.approx(spearman_brown(row["raw_r"]))  # one split: SB of r
        assert row["spearman_brown"] > row["raw_r"] > 0.5
    noisy = write_omi(omi.parent / "noisy", consistency=0.05, seed=1)
    low = read_omi_ratings(noisy / "attribute_ratings.csv", stimuli=[str(i) for i in range(1, 13)],
                           attributes=OMI_ATTRIBUTES)  # fmt: skip
    assert real(split_half_table(low.long, n_splits=5, seed=0)["raw_r"].mean()) < real(one["raw_r"].mean())


def test_import_writes_a_runnable_probe_study(omi: Path, tmp_path: Path) -> None:
    out = tmp_path / "study"
    result = import_omi(omi, out, name="omi-test", models=[ModelSpec.parse(SIM)])
    study = load_study(result.study_file)
    assert study.design == "probe" and study.image_set.kind == "omi" and study.image_set.root == omi
    data = tomllib.loads(result.study_file.read_text())
    assert data["probe"]["human_ratings"] == str(out / "human_ratings.csv")
    assert pl.read_csv(out / "human_ratings.csv").columns == ["stimulus", "attribute", "rater", "rating"]
    with pytest.raises(CueshiftError, match="already exists; pass --force"):
        import_omi(omi, out, models=[ModelSpec.parse(SIM)])
    runner = CliRunner()
    infer = runner.invoke(app, ["infer", "--study", str(result.study_file), "--no-progress"])
    assert infer.exit_code == 0, infer.output
    analyze = runner.invoke(app, ["analyze", "--study", str(result.study_file), "--no-progress"])
    assert analyze.exit_code == 0, analyze.output
    import duckdb

    con = duckdb.connect(str(out / "omi-test.duckdb"), read_only=True)
    try:
        rows = con.sql("SELECT attribute, raw_r, estimate, n_raters FROM result_probe_reliability").pl()
    finally:
        con.close()
    assert rows.height == 4 and (rows["n_raters"] == 8).all()
    assert (rows["estimate"] > rows["raw_r"]).all()  # Spearman-Brown above the uncorrected r


def test_cli_import_omi(omi: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["import", "omi", str(omi), "--out", str(tmp_path / "o"), "--model", SIM])
    assert ok.exit_code == 0, ok.output
    assert "left out: 64 ratings of 2 stimuli without an image (1005, 1006)" in ok.output
    assert "split-half r (uncorrected)" in ok.output and "Spearman-Brown" in ok.output
    bad = runner.invoke(app, ["import", "omi", str(tmp_path / "nowhere"), "--out", str(tmp_path / "p")])
    assert bad.exit_code == 2 and "no such folder" in bad.output and "Traceback" not in bad.output
    wrong = runner.invoke(app, ["import", "omi", str(omi), "--out", str(tmp_path / "q"), "--model", "clip"])
    assert wrong.exit_code == 2 and "ID=BACKEND" in wrong.output


def test_an_unknown_backend_is_refused_before_anything_is_written(omi: Path, tmp_path: Path) -> None:
    """infer's line at import time, not a study file written for infer to refuse later."""
    model = "x=clpi:openai/clip-vit-base-patch32"
    args = ["import", "omi", str(omi), "--out", str(tmp_path / "o"), "--model", model]
    refused = CliRunner().invoke(app, args)
    said = "model 'x': backend: unknown backend 'clpi' (did you mean 'clip'?)"
    assert refused.exit_code == 2 and said in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "o").exists()
