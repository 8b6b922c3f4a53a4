"""Stored CLIP embeddings of an older encoding are not reused when an old run resumes (follow-up of D50).

Before D50 the CLIP backend encoded the images and probe texts missing from a request together,
and the cache kept those vectors under ``'<checkpoint>@<revision>:<dtype>'``; each input is now
encoded alone. A database of a run before D50 gave its vectors to every resumed run, so one
model's stored scores mixed two encodings. Here a partly judged study database is made old (its
vectors moved to the unversioned key and offset, as a different encoding would be; its runs
without the ``clip_encoding`` entry) and resumed: the new judgments must be the bits a fresh
database stores, the old ones stay as stored, and the run says how many were scored before.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from cueshift.designs.registry import load_study  # noqa: E402
from cueshift.execution.run_options import RunOptions  # noqa: E402
from cueshift.execution.runner import RunSummary, run_study  # noqa: E402
from cueshift.inference.stand_ins import checkpoints  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT  # noqa: E402

pytestmark = pytest.mark.timeout(180)

KEY = "image_id, scenario_id, ordering, seed"


def study_file(tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.toml"
    path.write_text(
        f'name = "enc"\ndatabase = "{(tmp / f"{name}.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "demo"\nsize = 3\ncache_dir = "{(tmp / "faces").as_posix()}"\n'
        '[scenarios]\nonly = ["competent", "wealthy", "honest"]\n'
        f'[[models]]\nmodel_id = "clip"\nbackend = "clip"\ncheckpoint = "{TINY_CLIP_CHECKPOINT}"\n'
        '[models.settings]\ndevice = "cpu"\ntemplates = ["a photo of someone who is {x}"]\n',
        encoding="utf-8",
    )
    return path


def infer(study: Path, limit: int | None = None) -> RunSummary:
    return run_study(load_study(study), RunOptions(progress=False, limit=limit))


def scores(db: Path) -> dict[tuple[object, ...], tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(f"SELECT {KEY}, p_favorable, association, response_text FROM judgment").fetchall()
    return {row[:4]: row[4:] for row in rows}


def make_old(db: Path) -> None:
    """The database as a run before D50 left it: unversioned keys, other vectors, no version recorded."""
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE embedding SET encoder = regexp_replace(encoder, '#encoding=[0-9]+$', ''), "
            "vector = list_transform(vector, lambda x: x + 0.05)"
        )
        con.execute("""UPDATE run SET versions = '{"cueshift": "0.1.0"}'""")


def test_a_resumed_old_run_encodes_again_and_says_what_was_scored_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "STAND_IN_CACHE", tmp_path / "stand-ins")
    fresh = infer(study_file(tmp_path, "fresh"))
    assert fresh.n_written > 4 and not any("encoding" in note for note in fresh.notes)
    reference = scores(fresh.database)

    old_study = study_file(tmp_path, "old")
    partial = infer(old_study, limit=4)
    assert partial.n_written == 4
    make_old(partial.database)
    stored_before = scores(partial.database)

    resumed = infer(old_study)
    assert resumed.n_written == fresh.n_written - 4
    after = scores(partial.database)
    new = {key: value for key, value in after.items() if key not in stored_before}
    assert len(new) == resumed.n_written
    assert new == {key: reference[key] for key in new}  # the bits of a fresh database, not the old vectors
    assert {key: after[key] for key in stored_before} == stored_before  # stored judgments untouched
    with duckdb.connect(str(partial.database), read_only=True) as con:
        encoders = {e for (e,) in con.execute("SELECT DISTINCT encoder FROM embedding").fetchall()}
    assert {e.endswith("#encoding=2") for e in encoders} == {True, False}  # the old vectors are kept
    note = (
        "model 'clip': 4 stored judgments were scored before cueshift recorded the CLIP encoding "
        "version; they may come from the older batched encoding (about 1e-6 from today's) and are kept "
        "as stored; to rescore them all, run the study into a new database (--db)"
    )
    assert [n for n in resumed.notes if "encoding" in n] == [note]

    again = infer(old_study)  # nothing left to ask: the note stays, its count too
    assert again.n_written == 0 and [n for n in again.notes if "encoding" in n] == [note]
