"""``cueshift multiverse``: planted effects over the specifications, and the reference path equal to
``cueshift analyze``'s stored tables (the same options)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.multiverse import MultiverseConfig
from cueshift.designs.stylisticbias.multiverse.cells import read_cells, specification_rows
from cueshift.designs.stylisticbias.multiverse.choices import specifications
from cueshift.designs.stylisticbias.multiverse.run import run_multiverse
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling
from cueshift.views import read_base_phi, read_delta
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

RESAMPLING = Resampling(resamples=100, seed=3)
#: Shifted in every specification (answers and scores): m-a's SBS of it is negative on every path.
EVERYWHERE = "Acne"
#: Only its invalid answers change: a shift only when they count as unfavourable.
INVALID_ONLY = "Sunglasses"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = store.open_study(tmp_path_factory.mktemp("multiverse") / "study.duckdb")
    write_study(
        connection, simulate_study(SimulationSpec(n_faces=24, models=("m-a", "m-b"), planted=False, seed=5))
    )
    variation = "SELECT image_id FROM image WHERE variation_value = ?"
    connection.execute(
        f"UPDATE judgment SET outcome = 'unfavorable', p_favorable = 0.05, response_text = '(' || "
        f"CASE WHEN ordering IN (1, 2) THEN 'b' ELSE 'a' END || ')', "
        f"chosen_letter = CASE WHEN ordering IN (1, 2) THEN 'b' ELSE 'a' END, invalid_reason = NULL "
        f"WHERE model_id = 'm-a' AND image_id IN ({variation})",
        [EVERYWHERE],
    )
    connection.execute(
        "UPDATE judgment SET outcome = 'invalid', response_text = 'I cannot tell.', chosen_letter = NULL, "
        f"invalid_reason = 'refusal' WHERE model_id = 'm-b' AND seed IN (1, 2) AND image_id IN ({variation})",
        [INVALID_ONLY],
    )
    yield connection
    connection.close()


def _claim(frame: pl.DataFrame, model: str, subject: str) -> dict[str, object]:
    return frame.filter(kind="sbs_attribute", model_id=model, subject=subject).row(0, named=True)


def test_the_reference_rows_are_the_views(con):
    stored = read_cells(con, (), ["greedy"])
    delta, base_phi = specification_rows(stored, specifications(MultiverseConfig())[0])
    assert delta.equals(read_delta(con))
    assert base_phi.equals(read_base_phi(con))


def test_an_effect_on_every_path_holds_in_every_specification(con):
    config = MultiverseConfig(orderings=["all", "2"], generalise=["faces"])
    result = run_multiverse(con, config, resampling=RESAMPLING)
    summary = _claim(result.summary, "m-a", EVERYWHERE)
    assert summary["reference_verdict"] == "-"
    # parsing, phi, invalid, orderings (no audit stored), and the release path's one
    assert summary["n_specifications"] == 2 * 2 * 2 * 2 + 1
    assert summary["share_holds"] == 1.0
    assert summary["holds_release"] is True
    assert result.notes and "audit" in result.notes[0]


def test_an_effect_under_one_choice_is_moved_most_by_it(con):
    config = MultiverseConfig(phi=["greedy"], orderings=["all", "3"])
    result = run_multiverse(con, config, resampling=RESAMPLING)
    summary = _claim(result.summary, "m-b", INVALID_ONLY)
    assert summary["reference_verdict"] == "0"
    assert summary["moved_most"] == "invalid"
    assert summary["holds_shift"] == 1.0
    # half of cueshift's 16 paths; the release path counts invalid answers as unfavourable too
    assert summary["share_holds"] == 8 / 17
    assert (summary["release_verdict"], summary["holds_release"]) == ("-", False)
    counted = result.claims.filter(
        kind="sbs_attribute", model_id="m-b", subject=INVALID_ONLY, invalid="unfavorable"
    )
    assert (counted["verdict"] == "-").all()


def test_the_reference_specification_equals_analyze(con):
    analyzed = run_analyses(con, RESAMPLING, only=["sbs", "table2_vs"], progress=False, workers=1)
    result = run_multiverse(con, MultiverseConfig(phi=["greedy"], orderings=["all"]), resampling=RESAMPLING)
    reference = result.claims.filter(pl.col("is_reference"), kind="sbs_attribute")
    stored = store.query(con, "SELECT * FROM result_sbs WHERE level = 'variation_value'")
    assert analyzed["sbs"].height == store.query(con, "SELECT count(*) AS n FROM result_sbs")["n"].item()
    joined = reference.join(
        stored, left_on=["model_id", "subject"], right_on=["model_id", "variation_value"], suffix="_analyze"
    )
    assert joined.height == reference.height == stored.height
    for column in ("estimate", "ci_low", "ci_high", "p", "p_adj"):
        assert joined[column].to_list() == joined[f"{column}_analyze"].to_list(), column
    vs = store.query(con, "SELECT model_id, dimension, estimate FROM result_table2_vs")
    top = vs.sort("estimate", descending=True).group_by("model_id", maintain_order=True).first()
    claimed = result.claims.filter(pl.col("is_reference"), kind="vs_top")
    assert dict(claimed.select("model_id", "verdict").iter_rows()) == dict(
        top.select("model_id", "dimension").iter_rows()
    )


def test_no_judgments_is_one_line(con):
    with pytest.raises(CueshiftError, match="^no judgments stored: run `cueshift infer` first$"):
        run_multiverse(con, MultiverseConfig(), models=("nope",))


class _Source:
    """The report's reads over a plain connection (every model)."""

    def __init__(self, con) -> None:
        self.con = con
        self.models = ["m-a", "m-b"]

    def query(self, sql, params=None):
        return store.query(self.con, sql.replace("$models", "['m-a', 'm-b']"))

    def has(self, *names):
        return True


def test_the_specification_curve_draws_the_stored_tables(con):
    from cueshift.designs.stylisticbias.report.multiverse import draw_specification_curve
    from cueshift.schemas.multiverse import validate_multiverse

    result = run_multiverse(
        con, MultiverseConfig(phi=["greedy"], orderings=["all", "1"]), resampling=RESAMPLING
    )
    store.replace_results(
        con,
        {
            "multiverse": validate_multiverse("multiverse", result.claims),
            "multiverse_summary": validate_multiverse("multiverse_summary", result.summary),
        },
    )
    figure = draw_specification_curve(_Source(con))
    assert figure is not None
    top, bottom = figure.axes
    # parsing, invalid, generalise, orderings: 2 each, and the release path
    assert len(np.asarray(top.collections[0].get_offsets())) == 17
    assert [t.get_text() for t in bottom.get_yticklabels()] == [
        "parsing: lenient", "parsing: strict", "invalid: dropped", "invalid: unfavorable",
        "generalise: faces", "generalise: faces+scenarios", "orderings: 1", "orderings: all",
        "path: cueshift", "path: release",
    ]  # fmt: skip


def test_lenient_parsing_counts_an_invalid_answer_naming_one_option(tmp_path):
    connection = store.open_study(tmp_path / "lenient.duckdb")
    try:
        write_study(connection, simulate_study(SimulationSpec(n_faces=3, models=("m-a",), seed=2)))
        # ordering 1: (a) is the favourable pole; ordering 3: (b) is
        connection.execute(
            "UPDATE judgment SET outcome = 'invalid', response_text = 'Maybe (a), hard to say.', "
            "chosen_letter = NULL, invalid_reason = 'hedge' WHERE seed = 1 AND ordering IN (1, 3)"
        )
        cells = read_cells(connection, (), ["greedy"]).cells
        by_ordering = cells.group_by("ordering").agg(pl.col("lenient_favorable", "lenient_unfavorable").sum())
        counts = {o: (f, u) for o, f, u in by_ordering.sort("ordering").iter_rows()}
        n_cells = cells.filter(ordering=1).height
        assert counts[1] == (n_cells, 0) and counts[3] == (0, n_cells)
        assert counts[2] == counts[4] == (0, 0)
    finally:
        connection.close()
