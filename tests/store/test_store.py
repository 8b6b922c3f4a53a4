"""Writes pass their pandera schema first; a bad batch writes nothing."""

from __future__ import annotations

import polars as pl
import pytest

from cueshift import store
from cueshift.errors import CueshiftError, SchemaViolation
from cueshift.store.keys import check_unique_keys
from tests import dbrows


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


def _count(con, table: str) -> int:
    (count,) = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert isinstance(count, int)
    return count


GOOD = [("f1_base", "kind", 1, 1, "favorable"), ("f1_base", "kind", 2, 1, "unfavorable")]


@pytest.mark.parametrize(
    ("column", "value", "field"),
    [
        ("outcome", "maybe", "outcome"),
        ("ordering", 0, "ordering"),
        ("p_favorable", 1.5, "p_favorable"),
        ("latency_ms", -1.0, "latency_ms"),
    ],
)
def test_a_bad_value_rejects_the_whole_batch_with_a_one_line_error(con, column, value, field):
    frame = dbrows.judgments("m", GOOD)
    dtype = frame.schema[column]
    frame = frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 1)
        .then(pl.lit(value, dtype=dtype))
        .otherwise(pl.col(column))
        .alias(column)
    )
    with pytest.raises(SchemaViolation) as info:
        store.write_tables(con, {"judgment": frame})
    message = str(info.value)
    assert "\n" not in message and message.startswith("judgment:") and field in message
    assert _count(con, "judgment") == 0


def test_letter_must_agree_with_outcome(con):
    frame = dbrows.judgments("m", GOOD).with_columns(pl.lit(None, dtype=pl.String).alias("chosen_letter"))
    with pytest.raises(SchemaViolation, match="letter_matches_outcome"):
        store.write_tables(con, {"judgment": frame})


def test_an_unknown_column_is_rejected(con):
    frame = dbrows.judgments("m", GOOD).with_columns(pl.lit(1).alias("extra"))
    with pytest.raises(SchemaViolation):
        store.write_tables(con, {"judgment": frame})
    assert _count(con, "judgment") == 0


def test_one_invalid_table_in_a_batch_writes_no_table(con):
    good_face = dbrows.faces(("f9", "female", "elderly"))
    bad_judgments = dbrows.judgments("m", GOOD).with_columns(pl.lit("??").alias("outcome"))
    with pytest.raises(SchemaViolation):
        store.write_tables(con, {"face": good_face, "judgment": bad_judgments})
    assert _count(con, "face") == 1


def test_a_judgment_stored_twice_is_refused_before_it_is_used(con):
    """judgment has no primary-key index (store/keys.py): a writer that ignores the plan can store a
    key twice, and check_unique_keys (run by analyze and merge) refuses it, naming the key."""
    store.write_tables(con, {"judgment": dbrows.judgments("m", GOOD)})
    check_unique_keys(con)  # unique so far
    again = dbrows.judgments("m", GOOD[:1] + [("f1_base", "kind", 3, 1, "favorable")])
    store.write_tables(con, {"judgment": again})
    with pytest.raises(CueshiftError, match="judgment stores the key .*ordering=1, seed=1.*once") as e:
        check_unique_keys(con)
    assert "\n" not in str(e.value) and "image_id='f1_base'" in str(e.value)


def test_a_primary_key_clash_still_aborts_the_whole_batch(con):
    store.write_tables(con, {"scenario": dbrows.scenarios("kind2")})
    with pytest.raises(CueshiftError, match="(?i)duplicate|constraint"):
        store.write_tables(con, {"scenario": dbrows.scenarios("kind3", "kind2")})
    assert _count(con, "scenario") == 2  # kind3 of that batch is not written either


def test_duplicates_within_a_batch_are_caught_before_the_database(con):
    with pytest.raises(SchemaViolation, match="unique_key"):
        store.write_tables(con, {"judgment": dbrows.judgments("m", GOOD + GOOD[:1])})


def test_dimension_upsert_refuses_a_changed_definition(con):
    store.upsert_dimension(con, "scenario", dbrows.scenarios("kind"), "scenario_id")  # same rows: no-op
    changed = dbrows.scenarios("kind").with_columns(pl.lit("Behavioral").alias("category"))
    with pytest.raises(CueshiftError, match="category"):
        store.upsert_dimension(con, "scenario", changed, "scenario_id")


def test_a_database_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / "old.duckdb"
    con = store.open_study(path)
    con.execute("UPDATE cueshift_meta SET value = '0' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(CueshiftError, match="schema version 0") as info:
        store.open_study(path)
    assert "\n" not in str(info.value)
    foreign = tmp_path / "foreign.duckdb"
    import duckdb

    duckdb.connect(str(foreign)).execute("CREATE TABLE t (x INTEGER)").close()
    with pytest.raises(CueshiftError, match="no cueshift schema version"):
        store.open_study(foreign)
    reopened = store.open_study(tmp_path / "new.duckdb")  # a new file is created and stamped
    assert reopened.execute("SELECT value FROM cueshift_meta").fetchone() == (store.SCHEMA_VERSION,)
    reopened.close()
