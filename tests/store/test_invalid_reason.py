"""The parser's reason for refusing an answer is stored in ``judgment.invalid_reason``
(docs/decisions.md#d2)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from cueshift import store
from cueshift.designs import load_study
from cueshift.designs.forced_choice import judgment_rows
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.errors import CueshiftError, SchemaViolation
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.execution.shard import Shard
from cueshift.imports.release_rows import judgment_frames
from cueshift.inference.backends import BackendAnswers
from cueshift.inference.parser import REASONS, parse_answer
from cueshift.schemas.tables import INVALID_REASONS
from cueshift.study.scenarios import ORDERING_BY_ID
from tests import dbrows
from tests.execution.test_runner import study_file

SCENARIO = STYLISTICBIAS_25[0]  # competent / incompetent
TEXTS = ["(a)", "I cannot tell from a photo.", "Competent", "Maybe (b).", "(a) or (b)", "", "Yes", "not (a)"]


def test_the_schema_lists_every_invalid_reason_of_the_parser() -> None:
    assert set(INVALID_REASONS) == set(REASONS) - {"letter", "descriptor"}


def _batch(n: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "image_id": [f"img{i}" for i in range(n)],
            "scenario_id": [SCENARIO.scenario_id] * n,
            "ordering": pl.Series([1 + i % 4 for i in range(n)], dtype=pl.Int32),
            "seed": pl.Series([1] * n, dtype=pl.Int32),
        }
    )


def test_judgment_rows_store_the_reason_of_each_invalid_answer() -> None:
    batch = _batch(len(TEXTS))
    answers = BackendAnswers(response_text=TEXTS, latency_ms=[1.0] * len(TEXTS))
    rows = judgment_rows(batch, answers, model_id="m", run_id="r", scenarios={SCENARIO.scenario_id: SCENARIO})
    store.validate("judgment", rows)
    for text, ordering, reason, outcome in rows.select(
        "response_text", "ordering", "invalid_reason", "outcome"
    ).iter_rows():
        parsed = parse_answer(text, ORDERING_BY_ID[ordering].descriptor_by_letter(SCENARIO))
        assert reason == (None if parsed.valid else parsed.reason)
        assert (outcome == "invalid") == (reason is not None)
    assert rows["invalid_reason"].drop_nulls().to_list() == [
        "refusal", "hedge", "both", "empty", "no_answer", "negated"
    ]  # fmt: skip


@pytest.fixture()
def con(tmp_path):
    con = store.open_study(tmp_path / "store.duckdb")
    store.write_tables(
        con,
        {
            "face": dbrows.faces(("f1", "male", "elderly")),
            "image": dbrows.images(("f1_base", "f1", None, None)),
            "scenario": dbrows.scenarios("kind"),
        },
    )
    yield con
    con.close()


ROWS = [("f1_base", "kind", 1, 1, "favorable"), ("f1_base", "kind", 2, 1, "invalid")]


def test_a_frame_without_the_column_stores_null(con) -> None:
    store.write_tables(con, {"judgment": dbrows.judgments("m", ROWS)})
    assert con.execute("SELECT invalid_reason FROM judgment").fetchall() == [(None,), (None,)]


def test_a_frame_with_reasons_stores_them(con) -> None:
    frame = dbrows.judgments("m", ROWS).with_columns(
        pl.Series("invalid_reason", [None, "refusal"], dtype=pl.String)
    )
    store.write_tables(con, {"judgment": frame})
    stored = con.execute("SELECT outcome, invalid_reason FROM judgment ORDER BY ordering").fetchall()
    assert stored == [("favorable", None), ("invalid", "refusal")]


@pytest.mark.parametrize(
    "reasons", [[None, "sorry"], ["refusal", "refusal"], [None, None]], ids=["unknown", "valid", "missing"]
)
def test_a_reason_that_does_not_match_the_outcome_is_refused(con, reasons) -> None:
    frame = dbrows.judgments("m", ROWS).with_columns(pl.Series("invalid_reason", reasons, dtype=pl.String))
    with pytest.raises(SchemaViolation, match="judgment"):
        store.write_tables(con, {"judgment": frame})
    assert con.execute("SELECT count(*) FROM judgment").fetchone() == (0,)


def test_a_database_of_schema_version_2_is_refused_in_one_line(tmp_path) -> None:
    path = tmp_path / "old.duckdb"
    con = store.open_study(path)
    con.execute("UPDATE cueshift_meta SET value = '2' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(CueshiftError) as caught:
        store.open_study(path)
    message = str(caught.value)
    assert "schema version 2" in message and f"schema version {store.SCHEMA_VERSION}" in message
    assert "\n" not in message


def test_imported_release_judgments_get_our_reasons() -> None:
    texts = ["(b)", "I'm sorry, I can't.", "a or b"]
    n = len(texts)
    matched = pl.DataFrame(
        {
            "model_id": ["m"] * n,
            "image_id": [f"img{i}" for i in range(n)],
            "scenario_id": [SCENARIO.scenario_id] * n,
            "ordering": [1] * n,
            "seed": [1] * n,
            "raw_output": texts,
            "chosen_option": ["b", None, None],
            "file": [f"f{i}.json" for i in range(n)],
            "timestamp": ["t"] * n,
            "option_a": [SCENARIO.favorable] * n,
            "option_b": [SCENARIO.unfavorable] * n,
            "answer_start": [0] * n,  # the whole text is the answer (no echoed prompt)
            "answer_end": [len(text) for text in texts],
        }
    )
    judgments, _ = judgment_frames(matched, [SCENARIO], "run", dt.datetime(2026, 1, 1))
    store.validate("judgment", judgments)
    assert judgments["invalid_reason"].to_list() == [None, "refusal", "both"]


def test_shards_merge_with_their_reasons(tmp_path) -> None:
    def reasons(db) -> pl.DataFrame:
        con = store.open_study(db, read_only=True)
        try:
            query = "SELECT image_id, scenario_id, ordering, seed, outcome, invalid_reason FROM judgment"
            frame: pl.DataFrame = con.sql(query).pl()
            return frame.sort("image_id", "scenario_id", "ordering", "seed")
        finally:
            con.close()

    settings = "seed = 2\ninvalid_rate = 0.3"
    single = run_study(
        load_study(study_file(tmp_path, tmp_path / "c", faces=2, settings=settings)),
        RunOptions(progress=False),
    )
    study = load_study(study_file(tmp_path, tmp_path / "c", name="s", faces=2, settings=settings))
    shards = [run_study(study, RunOptions(progress=False, shard=Shard(k, 2))).database for k in (1, 2)]
    store.merge_databases(tmp_path / "merged.duckdb", shards)
    merged = reasons(tmp_path / "merged.duckdb")
    assert merged.equals(reasons(single.database))
    assert set(merged["invalid_reason"].drop_nulls()) == {"refusal", "hedge", "both"}
