"""``[build]`` in the paired, pairwise and probe designs (docs/decisions.md D76): a built image set
is judged where the design can judge it, and a section whose images would never be judged is
refused in one line, before anything is made.

Before D76 a paired study built with variations of another key than ``[paired]
filter_feature_key`` judged every image and wrote paired tables of dashes; a paired study's other
variations were judged and never read; ``[build]`` or ``[image_set]`` beside a synthetic section
were parsed and silently replaced; a probe study built edits it never judges.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from cueshift.cli import app

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ROOT / "studies"

PAIRED = """
name = "paired-built"
design = "paired"
database = "{root}/paired.duckdb"
seeds = [0]

[image_set]
kind = "manifest"
manifest = "{root}/set/manifest.csv"

[scenarios]
set = "attractiveness-91"
only = ["{scenario}"]

[prompt]
orderings = [1, 2]

[paired]
filter_feature_key = "beauty_filter"

[[models]]
model_id = "sim-llava"
backend = "simulated"

[build]
count = 4

[build.grid.fields]
gender = ["male", "female"]
age = ["young adult", "elderly"]
ethnicity = ["Asian"]
body_type = ["normal"]

[build.variations]
features = {features}

[[build.generators]]
stage = "base"
generator = "demo-faces"

[[build.generators]]
stage = "variation"
generator = "demo-faces"
"""


def _paired(root: Path, features: str) -> Path:
    from cueshift.designs.registry import scenario_sets

    scenario = scenario_sets()["attractiveness-91"][0].scenario_id
    path = root / "study.toml"
    text = PAIRED.format(root=root.as_posix(), scenario=scenario, features=features)
    path.write_text(text, encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output.strip()


def _one_line(code: int, output: str, *words: str) -> str:
    assert code == 2, output
    lines = output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_a_built_paired_study_judges_the_originals_and_their_filtered_photos(tmp_path: Path) -> None:
    study = _paired(tmp_path, '{beauty_filter = ["Beautified"]}')
    code, output = _run("build", "--study", str(study), "--no-progress")
    assert code == 0, output
    code, output = _run("infer", "--study", str(study), "--no-progress")
    assert code == 0, output
    with duckdb.connect(str(tmp_path / "paired.duckdb"), read_only=True) as con:
        judged = con.sql(
            "SELECT i.role, i.feature_key, count(*) FROM judgment j JOIN image i USING (image_id) "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    # 4 bases and 4 filtered photos x 1 scenario x 2 orderings x 1 seed
    assert judged == [("base", None, 8), ("variation", "beauty_filter", 8)]
    code, output = _run("analyze", "--study", str(study))
    assert code == 0, output
    with duckdb.connect(str(tmp_path / "paired.duckdb"), read_only=True) as con:
        means = con.sql("SELECT mean_filtered FROM result_paired_attractiveness").fetchall()
    assert means and all(mean is not None for (mean,) in means)


def test_a_paired_image_set_without_filtered_photos_is_refused_before_a_write(tmp_path: Path) -> None:
    """A manifest (built or not) whose variations are of another key: nothing to pair."""
    manifest_study = _paired(tmp_path, '{beauty_filter = ["Beautified"]}')
    code, output = _run("build", "--study", str(manifest_study), "--no-progress")
    assert code == 0, output
    manifest = tmp_path / "set" / "manifest.csv"
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace("beauty_filter", "eyewear"), encoding="utf-8"
    )
    before = (tmp_path / "paired.duckdb").read_bytes()
    code, output = _run("infer", "--study", str(manifest_study), "--no-progress")
    _one_line(code, output, str(manifest), "'beauty_filter'", "'eyewear'")
    assert (tmp_path / "paired.duckdb").read_bytes() == before


def test_other_variations_of_a_paired_image_set_are_kept_not_judged(tmp_path: Path) -> None:
    study = _paired(tmp_path, '{beauty_filter = ["Beautified"]}')
    assert _run("build", "--study", str(study), "--no-progress")[0] == 0
    manifest = tmp_path / "set" / "manifest.csv"
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    extra = next(line for line in lines if ",beauty_filter," in line)
    lines.append(
        extra.replace("--beauty_filter--", "--eyewear--", 1).replace(",beauty_filter,", ",eyewear,", 1)
    )
    manifest.write_text("".join(lines), encoding="utf-8")
    code, output = _run("infer", "--study", str(study), "--no-progress")
    assert code == 0, output
    with duckdb.connect(str(tmp_path / "paired.duckdb"), read_only=True) as con:
        kept = con.sql(
            "SELECT evaluated, exclusion_reason FROM image WHERE feature_key = 'eyewear'"
        ).fetchall()
        judged = con.sql(
            "SELECT count(*) FROM judgment JOIN image USING (image_id) WHERE feature_key = 'eyewear'"
        ).fetchall()
    assert kept == [(False, "not the paired filter 'beauty_filter'")]
    assert judged == [(0,)]


@pytest.mark.parametrize(
    "features", ['{eyewear = ["Sunglasses"]}', '{beauty_filter = ["B"], eyewear = ["S"]}']
)
def test_a_paired_build_of_other_features_is_refused_before_anything_is_made(
    features: str, tmp_path: Path
) -> None:
    study = _paired(tmp_path, features)
    _one_line(*_run("build", "--study", str(study), "--no-progress"), "[build.variations]", "'beauty_filter'")
    assert not (tmp_path / "set").exists() and not (tmp_path / "paired.duckdb").exists()


def _paired_with_file(root: Path, features: dict[str, list[str]]) -> Path:
    """The paired study with ``features_file`` = a JSON file of ``features``."""
    path = root / "features.json"
    path.write_text(json.dumps(features), encoding="utf-8")
    study = _paired(root, "{}")
    text = study.read_text(encoding="utf-8").replace("features = {}", f'features_file = "{path.as_posix()}"')
    study.write_text(text, encoding="utf-8")
    return study


@pytest.mark.parametrize("keys", [["eyewear"], ["beauty_filter", "eyewear"]])
def test_a_paired_features_file_of_other_keys_is_refused_when_the_study_is_read(
    keys: list[str], tmp_path: Path
) -> None:
    study = _paired_with_file(tmp_path, {key: ["A value"] for key in keys})
    for command in (("build", "--no-progress"), ("infer", "--no-progress"), ("plan",)):
        output = _run(command[0], "--study", str(study), *command[1:])
        assert "features.json" in _one_line(*output, "features_file", "'beauty_filter'")
    assert not (tmp_path / "set").exists() and not (tmp_path / "paired.duckdb").exists()


def test_a_paired_features_file_of_the_filter_key_builds(tmp_path: Path) -> None:
    study = _paired_with_file(tmp_path, {"beauty_filter": ["Beautified"]})
    code, output = _run("build", "--study", str(study), "--no-progress")
    assert code == 0, output
    manifest = (tmp_path / "set" / "manifest.csv").read_text(encoding="utf-8")
    assert "beauty_filter" in manifest and manifest.count("\n") == 1 + 4 + 4, manifest


def _with(study: str, section: str, folder: Path) -> Path:
    """``studies/<study>.toml`` with ``section`` added before its first ``[[models]]``."""
    head, models, rest = (STUDIES / f"{study}.toml").read_text(encoding="utf-8").partition("[[models]]")
    path = folder / f"{study}.toml"
    path.write_text(f"{head}\n{section}\n{models}{rest}", encoding="utf-8")
    return path


BUILD = '[build]\ncount = 2\n[[build.generators]]\nstage = "base"\ngenerator = "demo-faces"\n'
IMAGE_SET = '[image_set]\nkind = "manifest"\nmanifest = "set/manifest.csv"\n'


@pytest.mark.parametrize(
    ("study", "section", "synthetic"),
    [
        ("paired-001", BUILD, "[paired.synthetic]"),
        ("paired-001", IMAGE_SET, "[paired.synthetic]"),
        ("pairwise-002", BUILD, "[pairwise.synthetic]"),
        ("pairwise-002", IMAGE_SET, "[pairwise.synthetic]"),
    ],
)
def test_a_section_a_synthetic_image_set_replaces_is_refused(
    study: str, section: str, synthetic: str, tmp_path: Path
) -> None:
    path = _with(study, section, tmp_path)
    named = section.splitlines()[0]
    _one_line(*_run("show-study", "--study", str(path)), path.name, named, synthetic)


def test_a_probe_build_of_edits_it_never_judges_is_refused(tmp_path: Path) -> None:
    edits = BUILD + '[[build.generators]]\nstage = "variation"\ngenerator = "demo-faces"\n'
    path = _with("probe-004", edits, tmp_path)
    _one_line(*_run("show-study", "--study", str(path)), "'variation'", "base faces only")
    assert _run("show-study", "--study", str(_with("probe-004", BUILD, tmp_path)))[0] == 0


GRID = """
[build]
count = {count}
[build.grid.fields]
gender = ["male", "female"]
age = ["young adult", "elderly"]
ethnicity = ["Asian", "White"]
body_type = ["normal"]
[[build.generators]]
stage = "base"
generator = "demo-faces"
"""


def _built(study: str, root: Path, edit: Callable[[str], str], count: int) -> Path:
    """``studies/<study>.toml`` on a built image set of ``count`` base faces under ``root``."""
    head, models, rest = (STUDIES / f"{study}.toml").read_text(encoding="utf-8").partition("[[models]]")
    head = edit(head).replace(f'name = "{study}"', f'name = "built"\ndatabase = "{root.as_posix()}/b.duckdb"')
    image_set = f'[image_set]\nkind = "manifest"\nmanifest = "{root.as_posix()}/set/manifest.csv"\n'
    path = root / "study.toml"
    path.write_text(f"{head}\n{image_set}{GRID.format(count=count)}\n{models}{rest}", encoding="utf-8")
    code, output = _run("build", "--study", str(path), "--no-progress")
    assert code == 0, output
    return path


def _judged_images(root: Path, table: str, column: str) -> int:
    with duckdb.connect(str(root / "b.duckdb"), read_only=True) as con:
        return len(con.sql(f"SELECT DISTINCT {column} FROM {table}").fetchall())


def test_a_pairwise_study_judges_the_built_portraits_its_stimuli_assign(tmp_path: Path) -> None:
    def edit(head: str) -> str:
        head = re.sub(r"\[pairwise\.synthetic(_humans)?\]\n(?:[^\[].*\n|\n)*", "", head)
        head = head.replace('rating_attribute = "western-aesthetic"\n', "").replace("rate_models = true", "")
        return head.replace("[pairwise]\n", f'[pairwise]\nstimuli = "{tmp_path.as_posix()}/stimuli.csv"\n', 1)

    study = _built("pairwise-002", tmp_path, edit, count=4)
    with (tmp_path / "set" / "manifest.csv").open(encoding="utf-8") as manifest:
        rows = list(csv.DictReader(manifest))
    assigned = [
        f"{row['image_id']},{row['gender']},{'western' if row['ethnicity'] == 'White' else 'local'}\n"
        for row in rows
    ]
    (tmp_path / "stimuli.csv").write_text(
        "image_id,cohort,stimulus_group\n" + "".join(assigned), encoding="utf-8"
    )
    for command in ("infer", "analyze"):
        code, output = _run(
            command, "--study", str(study), *(("--no-progress",) if command == "infer" else ())
        )
        assert code == 0, output
    assert _judged_images(tmp_path, "pairwise_trial", "left_image_id") == len(rows) == 4
    assert _judged_images(tmp_path, "result_pairwise_cohort", "cohort") == 2


def test_a_probe_study_judges_the_built_base_faces(tmp_path: Path) -> None:
    def edit(head: str) -> str:
        return re.sub(r'\[image_set\]\nkind = "demo"\nsize = "small"\n', "", head).replace("[1, 2, 3]", "[1]")

    study = _built("probe-004", tmp_path, edit, count=8)
    for command in ("infer", "analyze"):
        code, output = _run(
            command, "--study", str(study), *(("--no-progress",) if command == "infer" else ())
        )
        assert code == 0, output
    assert _judged_images(tmp_path, "judgment", "image_id") == 8
    assert _judged_images(tmp_path, "result_probe_similarity", "model_id") == 4
