"""The sections of the StylisticBias console summary below its first tables: a table of SBS rows
(the strongest attributes, the extreme scenarios), Table 11's sign reversals between groups and the
noise floor of the placebos; with the reads and the plain-text interval that
:func:`~cueshift.designs.stylisticbias.console.print_headlines` shares with them."""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import FitTable
from cueshift.designs.stylisticbias.group_reversals import COUNTED, REVERSALS_SQL
from cueshift.designs.stylisticbias.stats import ALL_PLACEBOS
from cueshift.render import PLAIN_MINUS, fmt_ci, fmt_num, fmt_p
from cueshift.render.marks import stars


def plain_ci(low: float | None, high: float | None, decimals: int = 3) -> str:
    """A plain-text CI of signed bounds (empty when a bound is missing)."""
    return fmt_ci(low, high, decimals, minus=PLAIN_MINUS, missing="")


def read_table(con: duckdb.DuckDBPyConnection, table: str, query: str) -> pl.DataFrame | None:
    """``query`` with ``{t}`` as ``table``, read into a frame; ``None`` when the table does not exist."""
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [table]
    ).fetchall()
    if not exists or exists[0][0] == 0:
        return None
    return pl.from_arrow(con.sql(query.format(t=table)).to_arrow_table())  # type: ignore[return-value]


def sbs_table(console: Console, rows: pl.DataFrame, key: str, title: str, interval: str) -> None:
    """Print SBS ``rows`` keyed by ``key``: estimate, CI (headed ``interval``, the level's
    :func:`~cueshift.render.ci_label`), stars, |SBS|, the floor where joined, p_adj."""
    with_floor = "ratio" in rows.columns
    tab = FitTable(title=title, title_justify="left")
    floor_columns = ("× floor", "passes") if with_floor else ()
    for col in (key.replace("_", " "), "SBS", interval, "", "|SBS|", *floor_columns, "p_adj", "faces"):
        tab.add_column(col, justify="left" if col in (key.replace("_", " "), "") else "right")
    for r in rows.iter_rows(named=True):
        floor_cells = (
            (fmt_num(r["ratio"], 1), "" if r["passes"] is None else "yes" if r["passes"] else "no")
            if with_floor
            else ()
        )
        tab.add_row(
            escape(str(r[key])),
            fmt_num(r["estimate"], signed=True),
            plain_ci(r["ci_low"], r["ci_high"]),
            stars(r["p_adj"], trend=True),
            fmt_num(r["abs_sbs"]),
            *floor_cells,
            fmt_p(r["p_adj"]),
            str(r["n"]),
        )
    console.print(tab)


def print_group_reversals(console: Console, con: duckdb.DuckDBPyConnection) -> None:
    """Table 11's sign reversals per dimension, pooled over models, in the sentence the report's
    Table 11 note prints (:data:`~cueshift.designs.stylisticbias.group_reversals.REVERSALS_SQL`):
    with evidence (both sides significant, D51), difference only (not counted) and not
    distinguishable. Nothing for a database analysed before ``reversal_evidence`` existed; read from
    ``sign_reversal_both``, so one analysed before D51 reads alike."""
    found = con.execute(
        "SELECT count(*) FROM information_schema.columns "
        "WHERE table_name = 'result_table11' AND column_name = 'reversal_evidence'"
    ).fetchall()
    if not found or found[0][0] == 0:
        return
    rows = read_table(con, "result_table11", REVERSALS_SQL)
    if rows is None or rows.height == 0:  # no variation's groups take both signs: says nothing
        return
    title = f"[bold]Sign reversals between groups (Table 11; {COUNTED})[/]: "
    console.print(title + escape(str(rows["counts"][0])), soft_wrap=True)


def noise_floor(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, float | None]]:
    """The all-placebos row of ``result_noise_floor`` per model (empty without placebos)."""
    rows = read_table(con, "result_noise_floor", "SELECT * FROM {t}")
    if rows is None:
        return {}
    rows = rows.filter(pl.col("variation_value") == ALL_PLACEBOS)
    return {r["model_id"]: r for r in rows.iter_rows(named=True)}


def print_floor(
    console: Console, floor: dict[str, dict[str, float | None]], passing: pl.DataFrame | None
) -> None:
    """One line per model: the placebo SBS (should contain 0), the floor, attributes that pass it."""
    if not floor:
        return
    lines = []
    for model, r in floor.items():
        line = (
            f"{escape(model)}: placebo SBS {fmt_num(r['estimate'], 4, signed=True)} "
            f"{plain_ci(r['ci_low'], r['ci_high'], 4)}; "
            f"|SBS| floor {fmt_num(r['abs_sbs_mean'], 4)} "
            f"(p{100 * (r['quantile'] or 0.95):.0f} {fmt_num(r['abs_sbs_quantile'], 4)})"
        )
        if passing is not None:
            mine = passing.filter(pl.col("model_id") == model)
            line += f"; {int(mine['passes'].sum())}/{mine.height} attributes pass"
        lines.append(line)
    console.print(
        "[bold]Noise floor (placebos: identical copy, lossless re-encode; true Δ = 0)[/]\n  "
        + "\n  ".join(lines)
        + "\n  floor: mean (95th percentile) of placebo cell |SBS|; pass: per-face |Δ| above the"
        + f" face's placebo |Δ| (one-sided {_floor_test(passing)}, BH)"
    )


#: The test of the floor's ``passes`` in words, by the ``test`` ``result_noise_floor_attributes`` stored.
_FLOOR_TESTS = {"wilcoxon": "WSRT", "sign-flip": "sign-flip permutation test"}


def _floor_test(passing: pl.DataFrame | None) -> str:
    """The test that made ``passing`` (``analyze --test``); ``analyze``'s default, WSRT, without it."""
    stored = passing["test"].drop_nulls() if passing is not None and "test" in passing.columns else None
    return _FLOOR_TESTS.get(str(stored[0]), str(stored[0])) if stored is not None and stored.len() else "WSRT"
