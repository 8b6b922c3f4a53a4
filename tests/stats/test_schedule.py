"""Analyses two at a time (``run_suite(workers=2)``): the same tables as one at a time, an analysis
starts after the ones it reads and sees no other result, analyses that read the database never
overlap, and an error stops the run with nothing written."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pandera.polars as pa
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.schemas.results import RESULT_SCHEMAS
from cueshift.stats import Declarations, Resampling, RunChoices, RunSettings, run_suite
from cueshift.stats._schedule import _kernels_thread_safe
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

SETTINGS = RunSettings(n_resamples=0, seed=None, test="exact")


class _X(pa.DataFrameModel):
    x: float


@pytest.fixture
def declare() -> Iterator[object]:
    """``declare(name, compute, suite, **options)`` declares a test analysis in ``suite`` with a
    one-column schema, withdrawn from the result check after the test."""
    names: list[str] = []

    def _declare(name: str, compute, suite: Declarations, **options) -> None:
        RESULT_SCHEMAS[name] = _X
        names.append(name)
        suite(name, description="d", source="s", grouping="g", statistic="t", family="f", **options)(compute)

    yield _declare
    for name in names:
        RESULT_SCHEMAS.pop(name, None)


def _frame(value: float) -> pl.DataFrame:
    return pl.DataFrame({"x": [value]})


def test_two_at_a_time_gives_the_tables_of_one_at_a_time(tmp_path):
    """Every table of the seed 000 suite (with placebos, invalid answers and the release-mode
    tables, which read the database and earlier results) equals the sequential run's."""
    con = store.open_study(tmp_path / "study.duckdb")
    spec = SimulationSpec(n_faces=30, models=("m-a", "m-b"), seed=4, placebos=True, invalid_rate=0.05)
    write_study(con, simulate_study(spec))
    settings = Resampling(resamples=200, seed=3), RunChoices(compat="release")
    one = run_analyses(con, *settings, progress=False, write=False, workers=1)
    two = run_analyses(con, *settings, progress=False, write=False, workers=2)
    con.close()
    assert list(two) == list(one) and len(one) > 30  # same tables, in declaration order
    for name, frame in one.items():
        assert two[name].equals(frame, null_equal=True), name


def test_an_analysis_starts_after_what_it_reads_and_sees_nothing_else(tmp_path, declare):
    suite = Declarations("test-schedule-after")
    order: list[str] = []

    def slow(ctx):
        time.sleep(0.3)
        order.append("slow")
        return _frame(1.0)

    def reader(ctx):
        order.append("reader")
        return _frame(ctx.results["_t_slow"]["x"][0] + 1)

    declare("_t_slow", slow, suite)
    declare("_t_reader", reader, suite, after=("_t_slow",))
    con = store.open_study(tmp_path / "a.duckdb")
    out = run_suite(con, suite, None, SETTINGS, workers=2, write=False)
    assert order == ["slow", "reader"] and out["_t_reader"]["x"][0] == 2.0

    def sneak(ctx):
        return ctx.results.get("_t_slow", _frame(0.0))

    declare("_t_sneak", sneak, suite)
    with pytest.raises(RuntimeError, match="without declaring it in after="):
        run_suite(con, suite, None, SETTINGS, workers=2, write=False)
    with pytest.raises(RuntimeError, match="without declaring it"):  # sequential runs check it too
        run_suite(con, suite, None, SETTINGS, workers=1, write=False)
    con.close()


def test_after_must_name_an_analysis_declared_before():
    part = Declarations("x")
    part(
        "_t_orphan", description="", source="", grouping="", statistic="", family="", after=("_t_not_there",)
    )(lambda ctx: None)
    with pytest.raises(ValueError, match="not declared before it"):
        Declarations("x", part)
    with pytest.raises(ValueError, match="not declared before it"):
        run_suite(None, part, None, SETTINGS, write=False)  # type: ignore[arg-type]


@pytest.mark.skipif(not _kernels_thread_safe(), reason="numba's threading layer runs one analysis at a time")
def test_database_analyses_never_overlap_and_others_run_beside_them(tmp_path, declare):
    suite = Declarations("test-schedule-database")
    spans: dict[str, tuple[float, float]] = {}

    def timed(name: str):
        def compute(ctx):
            started = time.perf_counter()
            time.sleep(0.25)
            spans[name] = (started, time.perf_counter())
            return _frame(1.0)

        return compute

    declare("_t_db1", timed("db1"), suite, database=True)
    declare("_t_db2", timed("db2"), suite, database=True)
    declare("_t_pure", timed("pure"), suite)
    con = store.open_study(tmp_path / "d.duckdb")
    run_suite(con, suite, None, SETTINGS, workers=2, write=False)
    con.close()
    (a0, a1), (b0, b1), (p0, p1) = spans["db1"], spans["db2"], spans["pure"]
    assert a1 <= b0 or b1 <= a0  # one database reader at a time
    assert p0 < max(a1, b1) and min(a0, b0) < p1  # the other analysis ran beside one of them


def test_an_error_stops_the_run_and_nothing_is_written(tmp_path, declare):
    suite = Declarations("test-schedule-error")
    finished = threading.Event()

    def slow(ctx):
        time.sleep(0.3)
        finished.set()
        return _frame(1.0)

    def broken(ctx):
        raise ValueError("broken analysis")

    declare("_t_slow_ok", slow, suite)
    declare("_t_broken", broken, suite)
    con = store.open_study(tmp_path / "e.duckdb")
    with pytest.raises(ValueError, match="broken analysis"):
        run_suite(con, suite, None, SETTINGS, workers=2)
    assert finished.is_set()  # the analysis beside it ended before the error was raised
    tables = {r[0] for r in con.sql("SHOW TABLES").fetchall()}
    con.close()
    assert not {t for t in tables if t.startswith("result_")}
