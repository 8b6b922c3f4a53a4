"""The runner end to end on the demo image set with the simulated judge.

Resume, sharding and the exactly-once guarantee are checked against an uninterrupted
reference run: the simulated judge is deterministic per judgment, so any lost,
duplicated or altered row shows up as a difference.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift.designs import load_study
from cueshift.errors import CueshiftError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.execution.shard import Shard
from cueshift.store import merge_databases
from tests.scalars import real

COMPARED = [
    "model_id",
    "image_id",
    "scenario_id",
    "ordering",
    "seed",
    "response_text",
    "outcome",
    "chosen_letter",
]
KEY = ["model_id", "image_id", "scenario_id", "ordering", "seed"]


def study_file(
    tmp: Path,
    cache: Path,
    *,
    name: str = "t",
    faces: int = 6,
    batch_size: int = 500,
    settings: str = "seed = 3",
    scenarios: str | None = '["competent", "wealthy", "honest", "stylish"]',
) -> Path:
    path = tmp / f"{name}.toml"
    only = f"only = {scenarios}" if scenarios is not None else ""
    path.write_text(
        f"""
name = "{name}"
database = "{(tmp / (name + ".duckdb")).as_posix()}"
batch_size = {batch_size}
[image_set]
kind = "demo"
size = {faces}
cache_dir = "{cache.as_posix()}"
[scenarios]
{only}
[[models]]
model_id = "sim"
backend = "simulated"
[models.settings]
{settings}
"""
    )
    return path


def judgments(db: Path) -> pl.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        frame: pl.DataFrame = con.sql(f"SELECT {', '.join(COMPARED)} FROM judgment").pl()
        return frame.sort(KEY)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo-cache")


#: faces of the module's reference study (6,624 judgments): resume, limits and kills do not depend
#: on the study's size, only on its being cut into many batches; shards need faces in two of three
#: (``crc32(face_id) % 3``: demo-0001..0003 fall in shard 2, demo-0004 in shard 3, shard 1 stays empty)
FACES = 4


@pytest.fixture(scope="module")
def reference(tmp_path_factory, cache) -> tuple[Path, pl.DataFrame]:
    tmp = tmp_path_factory.mktemp("reference")
    study = load_study(study_file(tmp, cache, faces=FACES))
    summary = run_study(study, RunOptions(progress=False))
    return tmp, judgments(summary.database)


def expected_count(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        (n_images,) = con.execute("SELECT count(*) FROM image WHERE evaluated").fetchall()[0]
    return int(n_images) * 4 * 4 * 3  # scenarios x orderings x seeds


def test_a_run_stores_every_planned_judgment_once_and_resumes_to_nothing(reference, cache):
    tmp, frame = reference
    db = tmp / "t.duckdb"
    assert frame.height == expected_count(db)
    assert frame.select(KEY).is_duplicated().sum() == 0
    again = run_study(load_study(tmp / "t.toml"), RunOptions(progress=False))
    assert again.n_written == 0 and again.n_stored_before == frame.height


def test_a_limited_run_then_a_resume_equals_the_reference(reference, cache, tmp_path):
    study = load_study(study_file(tmp_path, cache, faces=FACES))
    first = run_study(study, RunOptions(progress=False, limit=1234))
    assert first.n_written == 1234
    run_study(study, RunOptions(progress=False))
    assert judgments(first.database).equals(reference[1])


def test_shards_merge_to_the_single_run(reference, cache, tmp_path):
    study = load_study(study_file(tmp_path, cache, faces=FACES))
    shard_dbs = []
    for k in (1, 2, 3):
        summary = run_study(study, RunOptions(progress=False, shard=Shard(k, 3)))
        shard_dbs.append(summary.database)
    sizes = [judgments(db).height for db in shard_dbs]
    assert sum(size > 0 for size in sizes) >= 2 and sum(sizes) == reference[1].height
    merged = tmp_path / "merged.duckdb"
    added = merge_databases(merged, shard_dbs)
    assert added["judgment"] == reference[1].height
    assert judgments(merged).equals(reference[1])
    # merging again adds nothing and duplicates nothing
    assert merge_databases(merged, shard_dbs)["judgment"] == 0
    assert judgments(merged).height == reference[1].height


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    with duckdb.connect(str(db), read_only=True) as con:
        return int(con.execute("SELECT count(*) FROM judgment").fetchall()[0][0])


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _wait_for_commits(db: Path, process: subprocess.Popen[bytes], stale: int | None, commits: int) -> bool:
    """Wait until the run has committed at least ``commits`` times since it started (0: until it
    holds the database); False when it ended first.

    The run publishes its snapshot once it holds the database (a checkpoint: the WAL is removed,
    then a new snapshot file replaces the one a killed run left, ``stale`` its inode); every batch
    it commits after that grows the WAL. A size increase seen between two polls is at least one
    commit. Events, not a time window: the kill lands mid-run however slowly the CLI starts.
    """
    snapshot, wal = db.with_name(db.name + ".snapshot"), db.with_name(db.name + ".wal")
    deadline = time.monotonic() + 300
    opened, seen, size = False, 0, 0
    while not (opened and seen >= commits):
        if process.poll() is not None:
            return False
        assert time.monotonic() < deadline, "no commit of the run seen in 300 s"
        if opened or _inode(snapshot) not in (None, stale):
            opened, grown = True, _size(wal)
            seen, size = seen + (grown > size), max(size, grown)
        time.sleep(0.002)
    return True


def _wait_for_a_checkpoint(db: Path, process: subprocess.Popen[bytes]) -> bool:
    """Wait until the run folds its WAL into the database file (the WAL shrinks or goes: a snapshot
    published mid-run, or closing the database at the end); False when it ended first."""
    wal = db.with_name(db.name + ".wal")
    deadline, size = time.monotonic() + 300, _size(wal)
    while _size(wal) >= size:
        if process.poll() is not None:
            return False
        assert time.monotonic() < deadline, "no checkpoint of the run seen in 300 s"
        size = max(size, _size(wal))
        time.sleep(0.002)
    return True


#: when each ``infer`` of the kill test is SIGKILLed, each run resuming what the one before left
KILL_MOMENTS = ("a few batches in", "on taking over", "in the first half of the rest", "at a checkpoint")


def test_kill_minus_nine_at_random_moments_loses_and_duplicates_nothing(
    reference: tuple[Path, pl.DataFrame], cache: Path, tmp_path: Path
) -> None:
    """Four ``cueshift infer`` processes, each resuming what the one before left, SIGKILLed at
    moments spread over a run (:data:`KILL_MOMENTS`): 1-20 batches in; just after it took over the
    killed run's database (its WAL replayed and checkpointed, its run record written and
    published); after a number of commits drawn from the first half of what is left; at the first
    checkpoint after half of what is left (a snapshot published mid-run, or the close at the end).
    Each kill lands 0-10 ms after its event, in any phase of the batch or checkpoint in flight; a
    run that ends first is not killed. One more run completes the study: the stored rows are
    exactly the reference's."""
    batch = 10  # many small transactions: kills land mid-run
    path = study_file(tmp_path, cache, faces=FACES, batch_size=batch)
    db = tmp_path / "t.duckdb"
    total = reference[1].height
    command = [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"]
    rng = random.Random(20261122)
    mid_run_kills = 0
    for moment in KILL_MOMENTS:
        left = (total - _stored(db)) // batch  # about the commits still to come
        commits = {
            "a few batches in": rng.randint(1, 20),
            "on taking over": 0,
            "in the first half of the rest": rng.randint(1, max(1, left // 2)),
            "at a checkpoint": left // 2,
        }[moment]
        stale = _inode(db.with_name(db.name + ".snapshot"))  # a killed run leaves its snapshot
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not _wait_for_commits(db, process, stale, commits):
            break  # the run ended first: nothing left to kill
        if moment == "at a checkpoint" and not _wait_for_a_checkpoint(db, process):
            break
        time.sleep(rng.uniform(0.0, 0.01))  # any phase of the batch or checkpoint in flight
        process.send_signal(signal.SIGKILL)
        process.wait()
        mid_run_kills += 0 < _stored(db) < total
    assert mid_run_kills >= 1, "no kill landed while judgments were being written"
    final = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    assert judgments(db).equals(reference[1])


def test_planted_variation_effect_is_visible_in_delta(tmp_path, cache):
    settings = (
        "seed = 11\nface_sd = 0.0\nletter_bias = 0.0\nfirst_position_bias = 0.0\ninvalid_rate = 0.0\n"
        "demographic_effects = {}\ncategory_scale = {}\ngroup_variation_effects = []\n"
        'variation_effects = { "fashion_style=Worn / Distressed clothing" = -2.0, '
        '"eyewear=Thick-rimmed" = 1.5 }'
    )
    study = load_study(study_file(tmp_path, cache, faces=6, settings=settings, scenarios=None))
    summary = run_study(study, RunOptions(progress=False))
    with duckdb.connect(str(summary.database), read_only=True) as con:
        mean_delta = dict(
            con.execute("SELECT variation_value, avg(delta) FROM delta GROUP BY variation_value").fetchall()
        )
    assert mean_delta.pop("Worn / Distressed clothing") < -0.2
    assert mean_delta.pop("Thick-rimmed") > 0.15
    # No other variation has a planted effect: its mean delta over 6 faces x 25 scenarios is noise
    # with SE <= sqrt(2 * 0.25 / 12 / 150) = 0.0167; 4.5 SE bounds the max over ~30 variations.
    assert max(abs(v) for v in mean_delta.values()) < 4.5 * 0.0167


def test_cli_rejects_bad_input_with_one_line_and_writes_nothing(tmp_path, cache):
    path = study_file(tmp_path, cache, scenarios='["competent", "not-a-scenario"]')
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not-a-scenario" in lines[0] and str(path) in lines[0]
    assert not (tmp_path / "t.duckdb").exists()


def test_cli_rejects_a_malformed_manifest_and_creates_no_database(tmp_path):
    manifest = tmp_path / "images.csv"
    manifest.write_text("image_id,face_id,path\nx1,p1,x1.png\n")  # most columns missing
    path = tmp_path / "m.toml"
    path.write_text(
        f'name = "m"\ndatabase = "{(tmp_path / "m.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{manifest.as_posix()}"\n'
        '[[models]]\nmodel_id = "sim"\n'
    )
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(manifest) in lines[0]
    assert not (tmp_path / "m.duckdb").exists()


def test_sql_opens_the_database_read_only(reference):
    tmp, frame = reference
    db = tmp / "t.duckdb"
    ok = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "sql", "SELECT count(*) AS n FROM judgment"]
        + ["--db", str(db), "--csv"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0 and ok.stdout.split() == ["n", str(frame.height)]
    write = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "sql", "DELETE FROM judgment", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert write.returncode == 2 and "read-only" in write.stderr.lower()
    assert judgments(db).height == frame.height


def test_a_bad_model_setting_fails_before_the_database_exists(tmp_path, cache):
    path = study_file(tmp_path, cache, settings="letter_bias = 'lots'")
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "letter_bias" in lines[0]
    assert not (tmp_path / "t.duckdb").exists()


def test_a_partial_study_analyses_and_every_table_passes_its_schema(tmp_path, cache):
    """An interrupted study (some faces without any judgment) still analyses cleanly."""
    from cueshift import store
    from cueshift.designs.stylisticbias.analyses import run_analyses
    from cueshift.stats import Resampling

    study = load_study(study_file(tmp_path, cache))
    summary = run_study(study, RunOptions(progress=False, limit=6000))  # about 4 of the 6 faces
    con = store.open_study(summary.database)
    try:
        results = run_analyses(con, Resampling(resamples=200), progress=False)
    finally:
        con.close()
    table9 = results["table9"]
    assert table9.height > 0 and real(table9["n"].max()) <= 4  # at most the study's 4 scenarios were testable


# --------------------------------------------------------------------------- every design shards

STUDIES = Path(__file__).resolve().parents[2] / "studies"
#: (table, key) of every table a design writes, compared between the sharded and the single run.
DESIGN_TABLES = {
    "pairwise": [
        (
            "pairwise_trial",
            "model_id, left_image_id, right_image_id, scenario_id, seed, response_text, winner_image_id",
        ),
        ("rating", "rater_id, rater_kind, image_id, attribute, seed, rating, response_text"),
        ("stimulus", "image_id, cohort, stimulus_group"),
    ],
    "probe": [
        ("judgment", ", ".join(COMPARED)),
        ("rating", "rater_id, rater_kind, image_id, attribute, seed, rating"),
    ],
}


def _design_study(design: str, tmp: Path, name: str):
    import tomllib

    from cueshift.designs import parse_study

    data = tomllib.loads((STUDIES / f"{design}-00{2 if design == 'pairwise' else 4}.toml").read_text())
    data |= {"name": name, "database": str(tmp / f"{name}.duckdb"), "seeds": [0, 1]}
    if design == "pairwise":
        data["pairwise"]["synthetic"] = {
            "races": ["East Asian", "White"],
            "genders": ["female"],
            "per_group": {"western": 2, "local": 3},
            "cache_dir": str(tmp.parent / "pairwise-images"),
        }
        data["pairwise"]["synthetic_humans"]["n_raters"] = 4
        data["models"] = data["models"][:2]
    else:
        data["image_set"] = {"kind": "demo", "size": 12, "cache_dir": str(tmp.parent / "probe-demo")}
        data["scenarios"]["only"] = ["happy", "age", "asian", "alert"]
        data["probe"]["synthetic_humans"]["n_raters"] = 4
        data["models"] = data["models"][:2]
    return parse_study(data, name)


def _rows(db: Path, table: str, columns: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(con.execute(f"SELECT {columns} FROM {table}").fetchall(), key=repr)


@pytest.mark.parametrize("design", ["pairwise", "probe"])
def test_a_sharded_design_run_merges_to_the_single_run(tmp_path, design):
    single_dir, shard_dir = tmp_path / "single", tmp_path / "shards"
    single_dir.mkdir()
    shard_dir.mkdir()
    single = run_study(_design_study(design, single_dir, "s"), RunOptions(progress=False))
    study = _design_study(design, shard_dir, "s")
    summaries = [run_study(study, RunOptions(progress=False, shard=Shard(k, 3))) for k in (1, 2, 3)]
    assert sum(s.n_written for s in summaries) == single.n_written > 0
    assert sum(s.n_written > 0 for s in summaries) >= 2  # the work is really split
    merged = tmp_path / "merged.duckdb"
    added = merge_databases(merged, [s.database for s in summaries])
    for table, columns in DESIGN_TABLES[design]:
        assert added[table] > 0, table
        assert _rows(merged, table, columns) == _rows(single.database, table, columns), table
    assert added["run"] == 3
    # every shard stored its own share of the human ratings once: merging again adds nothing
    assert not any(merge_databases(merged, [s.database for s in summaries]).values())


def test_merge_refuses_conflicting_design_rows(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    first = run_study(_design_study("pairwise", a, "x"), RunOptions(progress=False))
    study = _design_study("pairwise", b, "x")
    run_study(study, RunOptions(progress=False))
    with duckdb.connect(str(study.database_path)) as con:
        con.execute("UPDATE pairwise_trial SET response_text = 'changed' WHERE rowid = 0")
    with pytest.raises(CueshiftError, match="pairwise_trial has key .* different content"):
        merge_databases(tmp_path / "m.duckdb", [first.database, study.database_path])
    assert not (tmp_path / "m.duckdb").exists() or _rows(tmp_path / "m.duckdb", "pairwise_trial", "*") == []
