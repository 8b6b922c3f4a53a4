"""The console lines after ``cueshift analyze --audit``: the least robust significant shift, its
robustness values and its benchmark bound are those of the stored ``result_audit_sensitivity``
row a direct SQL query picks (the reported set of the mode: audited edits under strict), and the
report's robustness sentence prints the same numbers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from rich.console import Console

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console_audit import print_audit
from cueshift.designs.stylisticbias.design import StylisticBiasDesign
from cueshift.designs.stylisticbias.edit_audit import read_edit_audit
from cueshift.render import MarkdownOutput, Report, fmt_effect, fmt_percent
from cueshift.stats import Resampling
from cueshift.store import write_tables
from tests.audit_results.planted import audit_rows, stored_variations
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

MODELS = ["m-a", "m-b"]
#: The least robust significant shift of the reported set ``{s}``, chosen in SQL.
LEAST_SQL = """
    SELECT model_id, feature_key, {s}_rv AS rv, {s}_rv_alpha AS rv_alpha, {s}_bound_from AS bound_from,
           {s}_bound_confound AS bound_confound, {s}_bound_sbs AS bound_sbs,
           {s}_bound_ci_low AS bound_ci_low, {s}_bound_ci_high AS bound_ci_high,
           (SELECT count(*) FROM result_audit_sensitivity WHERE all_rv IS NOT NULL) AS n_shifts,
           (SELECT count(*) FROM result_audit_sensitivity WHERE all_rv IS NOT NULL AND {s}_rv_alpha > 0)
               AS n_significant
    FROM result_audit_sensitivity WHERE all_rv IS NOT NULL AND {s}_rv_alpha > 0
    ORDER BY {s}_rv, model_id, feature_key LIMIT 1
"""


def _plain(text: str) -> str:
    """The report's typographic minus as the console's ASCII one."""
    return text.replace("−", "-")


@pytest.fixture()
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = store.open_study(tmp_path / "study.duckdb")
    write_study(con, simulate_study(SimulationSpec(n_faces=16, models=tuple(MODELS), seed=6)))
    variations = stored_variations(con).sort("image_id")
    rng = np.random.default_rng(2)
    probes = {m: rng.normal(0.1, 0.5, variations.height) for m in ("expression", "lighting")}
    failed = set(variations["image_id"].sample(fraction=0.2, seed=1))
    write_tables(con, {"edit_audit": audit_rows(variations, failed, probes)})
    yield con
    con.close()


@pytest.mark.parametrize(("mode", "column"), [("strict", "audited"), ("report", "all")])
def test_the_console_names_the_least_robust_shift_as_stored(
    con: duckdb.DuckDBPyConnection, mode: str, column: str
) -> None:
    audit = read_edit_audit(con, mode)
    results = run_analyses(
        con, Resampling(resamples=100), only=["audit_sensitivity"], progress=False, audit=audit
    )
    console = Console(record=True, width=400)
    print_audit(audit, results["audit_sensitivity"], console)
    said = console.export_text()
    least = con.sql(LEAST_SQL.format(s=column)).pl().row(0, named=True)
    assert least["bound_sbs"] is not None  # the planted probes give the shift a bound
    model = "pooled over models" if least["model_id"] == "(pooled)" else least["model_id"]
    numbers = (
        f"{least['n_significant']} of {least['n_shifts']} attribute shifts significant; least robust "
        f"{least['feature_key']} ({model}): RV {fmt_percent(least['rv'], 1)}, "
        f"RV_alpha {fmt_percent(least['rv_alpha'], 1)}; net of the measured side effects "
        f"{_plain(fmt_effect(least['bound_from'], 4))}, with an unmeasured one as strong as "
        f"{least['bound_confound']} {_plain(fmt_effect(least['bound_sbs'], 4))}"
    )
    assert numbers in said
    if least["bound_ci_low"] is not None:
        low, high = (_plain(fmt_effect(least[f"bound_ci_{e}"], 4)) for e in ("low", "high"))
        assert f"{numbers} [{low}, {high}]" in said
    # the report prints the same shift with the same numbers
    shown = Report(con, Path("study.duckdb"), MODELS, MODELS, StylisticBiasDesign().report()).outputs(
        "edit_audit"
    )
    text = _plain("".join(o.text for o in shown if isinstance(o, MarkdownOutput)))
    assert f"({least['feature_key']}, {model}) is erased" in text
    assert f"explains {fmt_percent(least['rv'], 1)} of the residual variance" in text
    assert f"would leave it at {_plain(fmt_effect(least['bound_sbs'], 4))}" in text


def test_no_significant_shift_is_one_clause(con: duckdb.DuckDBPyConnection) -> None:
    audit = read_edit_audit(con, "report")
    results = run_analyses(
        con, Resampling(resamples=100), only=["audit_sensitivity"], progress=False, audit=audit
    )
    none = results["audit_sensitivity"].with_columns(all_rv_alpha=pl.lit(0.0), audited_rv_alpha=pl.lit(0.0))
    n = con.sql("SELECT count(*) FROM result_audit_sensitivity WHERE all_rv IS NOT NULL").fetchall()[0][0]
    console = Console(record=True, width=400)
    print_audit(audit, none, console)
    said = console.export_text()
    assert f"robustness: none of the {n} attribute shifts is significant" in said
    assert "least robust" not in said
