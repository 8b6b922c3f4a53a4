"""Stored judgments do not depend on how the runner's batcher cut the requests (D50).

The study's ``batch_size`` bounds the adaptive batcher (:class:`BatchSizer`): 1 asks one row
per backend call (the simulated judge: 7, to keep it short; the transformers backend: 20, whole
images), a large one everything in one call. A run cut short by ``limit`` and resumed asks in
yet other batches, and reads the first part's embeddings from the database. Every stored value
must be the same, floats by ``==``. Before D50 the CLIP scores failed (all 207 ``p_favorable``
of the one-row run differed), and so did the transformers scores (batches of 20 splitting
images: 19 of 828).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift.designs import load_study
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study

pytestmark = pytest.mark.timeout(300)

KEY = ["model_id", "image_id", "scenario_id", "ordering", "seed"]
SCORES = ["response_text", "p_favorable", "p_neither", "association", "logit_scale"]
CLIP_MODEL = """
[[models]]
model_id = "tiny-clip"
backend = "clip"
checkpoint = "cueshift:tiny-random-clip"
[models.settings]
templates = ["a photo of someone who is {x}", "a close-up photo of a person who is {x}"]
device = "cpu"
batch_size = 4
"""
SIMULATED_MODEL = """
[[models]]
model_id = "sim"
backend = "simulated"
"""
TRANSFORMERS_MODEL = """
[[models]]
model_id = "tiny-llava"
backend = "transformers"
checkpoint = "{checkpoint}"
[models.settings]
mode = "score"
device = "cpu"
dtype = "float32"
batch_size = 32
"""


def study_file(tmp: Path, cache: Path, name: str, batch_size: int, models: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(
        f"""
name = "{name}"
database = "{(tmp / (name + ".duckdb")).as_posix()}"
batch_size = {batch_size}
seeds = [1, 2]
[image_set]
kind = "demo"
size = 2
cache_dir = "{cache.as_posix()}"
[scenarios]
only = ["competent", "wealthy", "honest"]
{models}"""
    )
    return path


def stored(database: Path, columns: list[str]) -> pl.DataFrame:
    with duckdb.connect(str(database), read_only=True) as con:
        table: pl.DataFrame = con.sql(f"SELECT {', '.join(KEY + columns)} FROM judgment").pl()
    return table.sort(KEY)


@pytest.fixture
def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cueshift.inference.stand_ins import checkpoints

    monkeypatch.setattr(checkpoints, "STAND_IN_CACHE", tmp_path / "stand-ins")


SIMULATED_COLUMNS = ["response_text", "outcome", "chosen_letter", "invalid_reason", "latency_ms"]


@pytest.mark.parametrize(
    ("models", "columns", "small", "resumed"),
    [
        pytest.param(CLIP_MODEL, SCORES, 1, 5, id="clip"),
        # counter-based draws keyed by the judgment: no state carried from row to row
        pytest.param(SIMULATED_MODEL, SIMULATED_COLUMNS, 7, 5, id="simulated"),
        # an image's prompts are scored together (padded suffixes): whole images per call, its
        # 12 rows (3 scenarios x 4 orderings) fit in batches of 20 and 30, and limit ends on one
        pytest.param(
            TRANSFORMERS_MODEL, ["response_text", "p_favorable", "p_neither"], 20, 30, id="transformers"
        ),
    ],
)
def test_scores_do_not_depend_on_the_request_batches(
    tmp_path: Path, stand_ins: None, models: str, columns: list[str], small: int, resumed: int
) -> None:
    if models is not SIMULATED_MODEL:
        pytest.importorskip("torch")
        pytest.importorskip("transformers")
    if models is TRANSFORMERS_MODEL:
        from cueshift.inference.stand_ins.tiny import build_tiny_model

        models = models.format(checkpoint=build_tiny_model("llava_next", tmp_path / "ckpt").as_posix())
    cache = tmp_path / "demo"
    whole = run_study(
        load_study(study_file(tmp_path, cache, "whole", 100_000, models)), RunOptions(progress=False)
    )
    rows = run_study(
        load_study(study_file(tmp_path, cache, "rows", small, models)), RunOptions(progress=False)
    )
    resumed_study = load_study(study_file(tmp_path, cache, "resumed", resumed, models))
    cut = run_study(resumed_study, RunOptions(progress=False, limit=whole.n_written // 3))
    rest = run_study(resumed_study, RunOptions(progress=False))
    assert cut.n_written + rest.n_written == whole.n_written == rows.n_written > 0

    reference = stored(whole.database, columns)
    for run in (rows, rest):
        table = stored(run.database, columns)
        assert table.select(KEY).equals(reference.select(KEY))
        for column in columns:  # exact: polars compares floats by value, nulls equal
            same = table[column].eq_missing(reference[column])
            assert same.all(), f"{run.database.stem}: {(~same).sum()} stored {column} values differ"
