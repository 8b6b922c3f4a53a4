"""Sharded builds end to end: two shards, ``cueshift merge``, one unsharded build that makes nothing
and writes the full manifest; then the set's Croissant record read back with the project's reader."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from cueshift.images.manifest import read_manifest_table
from cueshift.stimuli.output import PROVENANCE_COLUMNS
from tests.stimuli.studies import write_study

COUNT = 6  # bases; 2 variations each


def _generation(db: Path) -> pl.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        frame: pl.DataFrame = con.sql("SELECT * EXCLUDE (run_id) FROM generation ORDER BY image_id, try").pl()
    return frame


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two shards built and merged, then the unsharded build: the study's folder."""
    root = tmp_path_factory.mktemp("shards")
    path = write_study(root, count=COUNT)
    runner = CliRunner()
    for shard in ("1/2", "2/2"):
        done = runner.invoke(app, ["build", "--study", str(path), "--shard", shard, "--no-progress"])
        assert done.exit_code == 0, done.output
    assert not (root / "set" / "manifest.csv").exists()  # a shard writes only its own manifest
    shards = [root / f"built.shard-{k}-of-2.duckdb" for k in (1, 2)]
    done = runner.invoke(app, ["merge", str(root / "built.duckdb"), *map(str, shards)])
    assert done.exit_code == 0, done.output
    done = runner.invoke(app, ["build", "--study", str(path), "--no-progress"])
    assert done.exit_code == 0, done.output
    return root


def test_each_shard_writes_its_own_manifest_of_its_own_faces(merged: Path) -> None:
    faces = []
    for k in (1, 2):
        manifest = read_manifest_table(merged / "set" / f"manifest.shard-{k}-of-2.csv")
        shard_faces = set(manifest["face_id"])
        made = _generation(merged / f"built.shard-{k}-of-2.duckdb")
        assert shard_faces <= {i.split("--")[0] for i in made["image_id"]}
        faces.append(shard_faces)
    assert not faces[0] & faces[1] and faces[0] and faces[1]  # a split, both shards used


def test_the_merged_build_makes_nothing_and_lists_every_kept_image_once(merged: Path) -> None:
    shard_rows = pl.concat([_generation(merged / f"built.shard-{k}-of-2.duckdb") for k in (1, 2)])
    rows = _generation(merged / "built.duckdb")
    assert rows.sort("image_id", "try").equals(shard_rows.sort("image_id", "try"))  # no try made again
    assert rows.select("image_id", "try").is_unique().all()
    kept = rows.filter(pl.col("outcome") == "ok")
    manifest = read_manifest_table(merged / "set" / "manifest.csv")
    assert manifest["image_id"].is_unique().all()
    shard_manifests = pl.concat(
        [read_manifest_table(merged / "set" / f"manifest.shard-{k}-of-2.csv") for k in (1, 2)]
    )
    assert sorted(manifest["image_id"]) == sorted(shard_manifests["image_id"])
    bases = {i for i in kept["image_id"] if "--" not in i}
    expected = bases | {i for i in kept["image_id"] if i.split("--")[0] in bases}
    assert set(manifest["image_id"]) == expected
    for row in manifest.iter_rows(named=True):
        assert (merged / "set" / row["path"]).is_file()
        (made,) = kept.filter(pl.col("image_id") == row["image_id"]).iter_rows(named=True)
        assert (row["seed"], row["tries"]) == (str(made["seed"]), str(made["try"]))
        assert row["path"].endswith(f"{made['sha256']}.png")


def test_the_croissant_record_reads_back_every_image_and_its_provenance(merged: Path) -> None:
    pytest.importorskip("mlcroissant")
    import mlcroissant as mlc

    from cueshift.images.croissant import read_croissant

    release = merged / "set" / "release"
    info = read_croissant(release / "croissant.json")
    assert info.name == "built" and info.record_sets == ("images",)
    records = list(mlc.Dataset(jsonld=str(release / "croissant.json")).records("images"))
    manifest = read_manifest_table(merged / "set" / "manifest.csv")
    assert len(records) == manifest.height
    by_id = {row["image_id"]: row for row in manifest.iter_rows(named=True)}
    assert {bytes(r["images/image_id"]).decode() for r in records} == set(by_id)
    for record in records:
        row = by_id[bytes(record["images/image_id"]).decode()]
        for column in PROVENANCE_COLUMNS:
            assert bytes(record[f"images/{column}"]).decode() == row[column], column
        image = release / bytes(record["images/path"]).decode()
        assert image.read_bytes() == (merged / "set" / row["path"]).read_bytes()
