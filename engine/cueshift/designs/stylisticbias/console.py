"""R-style console summary of the stored StylisticBias headline results (CIs and R's significance
codes, drawn from the stored p-values by :func:`cueshift.render.marks.stars`)."""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import FitTable, console_for
from cueshift.designs.stylisticbias.console_equivalence import print_equivalence
from cueshift.designs.stylisticbias.stats import ALL_PLACEBOS
from cueshift.render import PLAIN_MINUS, fmt_ci, fmt_num, fmt_p, fmt_percent
from cueshift.render.marks import stars
from cueshift.stats import MEAN_OF_MODELS, POOLED


def _ci(low: float | None, high: float | None, decimals: int = 3) -> str:
    """A plain-text CI of signed bounds (empty when a bound is missing)."""
    return fmt_ci(low, high, decimals, minus=PLAIN_MINUS, missing="")


def _read(con: duckdb.DuckDBPyConnection, table: str, query: str) -> pl.DataFrame | None:
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [table]
    ).fetchall()
    if not exists or exists[0][0] == 0:
        return None
    return pl.from_arrow(con.sql(query.format(t=table)).to_arrow_table())  # type: ignore[return-value]


def generalise_line(con: duckdb.DuckDBPyConnection) -> str:
    """The question the stored SBS intervals answer (``cueshift analyze --generalise``), one line."""
    rows = _read(con, "result_manifest", "SELECT * FROM {t} WHERE name = 'sbs'")
    mode = "faces"
    if rows is not None and "generalise" in rows.columns and rows.height:
        mode = str(rows["generalise"][0])
    if mode == "faces+scenarios":
        return (
            "intervals: --generalise faces+scenarios - SBS rows over scenarios resample faces and "
            "scenarios (the shift for scenarios in general); one-scenario rows and other tables: faces"
        )
    return (
        "intervals: --generalise faces - faces resampled, the study's scenarios fixed "
        "(the shift for these scenarios; --generalise faces+scenarios for scenarios in general)"
    )


def print_headlines(con: duckdb.DuckDBPyConnection, console: Console | None = None, *, top: int = 8) -> None:
    """Print the headline results stored by the StylisticBias analyses: per-model SBS (Table 5), VS
    (Table 2) with Table 9 shares, the strongest attributes, the most and least sensitive
    scenarios (Fig. 3), the mixed model (Table 10), and cross-model agreement (Fig. 5) — with
    CIs and R-style stars on BH-adjusted p — then where the full tables live."""
    console = console or console_for()
    t5 = _read(con, "result_table5", "SELECT * FROM {t}")
    if t5 is None:
        console.print("[yellow]no stored results: run the analysis first[/]")
        return
    sbs = _read(con, "result_sbs", "SELECT * FROM {t}")
    console.print(generalise_line(con))
    model_p: dict[str, float | None] = {}
    model_abs: dict[str, float | None] = {}
    if sbs is not None:
        model_rows = sbs.filter(pl.col("level") == "model")
        model_p = dict(model_rows.select("model_id", "p_adj").iter_rows())
        model_abs = dict(model_rows.select("model_id", "abs_sbs").iter_rows())
    floor = _noise_floor(con)
    tab = FitTable(title="Per-model shifts (Table 5; face-level)", title_justify="left")
    columns = ("model", "SBS", "95% CI", "", "|SBS|", "floor", "Cohen's d", "zero", "|Δ|≥0.25", "faces")
    for col in columns:
        tab.add_column(col, justify="left" if col in ("model", "") else "right")
    for r in t5.iter_rows(named=True):
        p = model_p.get(r["model_id"])
        tab.add_row(
            r["model_id"],
            fmt_num(r["estimate"], 4, signed=True),
            _ci(r["ci_low"], r["ci_high"], 4),
            stars(p, trend=True),
            fmt_num(model_abs.get(r["model_id"]), 4),
            fmt_num(floor.get(r["model_id"], {}).get("abs_sbs_mean"), 4),
            fmt_num(r["cohens_d"], signed=True),
            fmt_num(r["zero_share"]),
            fmt_num(r["large_share"]),
            str(r["n"]),
        )
    console.print(tab)
    if floor:
        console.print(
            "  floor: mean |SBS| of the placebo cells (identical copy, lossless re-encode; true Δ = 0)"
        )
    vs = _read(con, "result_table2_vs", "SELECT * FROM {t}")
    t9 = _read(con, "result_table9", "SELECT * FROM {t}")
    if vs is not None:
        share = (
            {}
            if t9 is None
            else {(r["model_id"], r["dimension"]): r["estimate"] for r in t9.iter_rows(named=True)}
        )
        dims = vs["dimension"].unique(maintain_order=True).to_list()
        tab = FitTable(
            title="Variation Strength of base faces (Table 2) [% scenarios significant, Table 9]",
            title_justify="left",
        )
        tab.add_column("model")
        for d in dims:
            tab.add_column(d, justify="right")
        for model in vs["model_id"].unique(maintain_order=True).to_list():
            row = [model]
            for d in dims:
                v = vs.filter((pl.col("model_id") == model) & (pl.col("dimension") == d))["estimate"]
                s = share.get((model, d))
                value = fmt_num(None if v.is_empty() else v[0])  # one group: no VS
                row.append(value + (f" [{fmt_percent(s)}]" if s is not None else ""))
            tab.add_row(*row)
        console.print(tab)
    if sbs is not None:
        values = (
            sbs.filter((pl.col("level") == "variation_value") & (pl.col("model_id") == POOLED))
            .with_columns(pl.col("estimate").abs().alias("__abs"))
            .sort("__abs", descending=True)
            .head(top)
        )
        passing = _read(con, "result_noise_floor_attributes", "SELECT * FROM {t}")
        if passing is not None:
            values = values.join(
                passing.filter(pl.col("model_id") == POOLED).select("variation_value", "ratio", "passes"),
                on="variation_value",
                how="left",
            )
        _sbs_table(console, values, "variation_value", f"Strongest attributes (pooled SBS, top {top})")
        _print_floor(console, floor, passing)
        scen = sbs.filter((pl.col("level") == "scenario") & (pl.col("model_id") == POOLED)).sort("estimate")
        if scen.height:
            picked = pl.concat([scen.head(3), scen.tail(3)]) if scen.height > 6 else scen
            _sbs_table(
                console, picked, "scenario_id", "Scenarios with the lowest and highest SBS (Fig. 3; pooled)"
            )
    _print_group_reversals(console, con)
    lme = _read(con, "result_mixed_model", "SELECT * FROM {t}")
    if lme is not None and lme.height:
        parts = []
        for r in lme.iter_rows(named=True):
            if r["test"] == "wald-F":
                parts.append(
                    f"{r['term']}: F({fmt_num(r['df'], 0)}, {fmt_num(r['df_resid'], 0)}) = "
                    f"{fmt_num(r['statistic'], 1)}, p = {fmt_p(r['p'])} "
                    f"{stars(r['p'], trend=True)}, η²p = {fmt_num(r['estimate'])}"
                )
            else:
                parts.append(f"{r['term']} = {fmt_num(r['estimate'])}")
        console.print("[bold]Mixed model (Table 10; random intercept per face)[/]\n  " + "\n  ".join(parts))
    cross = _read(con, "result_cross_model", "SELECT * FROM {t}")
    if cross is not None and cross.height:
        r = cross.select(
            pl.col("estimate").min().alias("lo"),
            pl.col("estimate").max().alias("hi"),
            pl.col("n_sign_reversed").min().alias("rlo"),
            pl.col("n_sign_reversed").max().alias("rhi"),
            pl.col("n_sign_reversed").sum().alias("rsum"),
            pl.col("n_reversed_significant").sum().alias("evid"),
            pl.col("category_ranking_preserved").mean().alias("kept"),
        ).row(0, named=True)
        console.print(
            f"[bold]Across models (Fig. 5)[/]: per-scenario mean Δ correlate r = {fmt_num(r['lo'], 2)} to "
            f"{fmt_num(r['hi'], 2)}; {r['rlo']} to {r['rhi']} sign-reversed scenarios per pair "
            f"({r['evid']} of {r['rsum']} with evidence); category ranking identical in "
            f"{fmt_percent(r['kept'])} of pairs"
        )
    print_equivalence(con, console)
    found = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    path = found[0] if found else None
    console.print(
        f"\nSignif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1 (BH-adjusted). "
        f"'{MEAN_OF_MODELS}' and '{POOLED}' rows average / pool models."
    )
    console.print(
        f"Full tables: result_* in {escape(path[0]) if path and path[0] else 'the study database'} "
        "(SELECT * FROM result_manifest lists them)."
    )


def _sbs_table(console: Console, rows: pl.DataFrame, key: str, title: str) -> None:
    with_floor = "ratio" in rows.columns
    tab = FitTable(title=title, title_justify="left")
    floor_columns = ("× floor", "passes") if with_floor else ()
    for col in (key.replace("_", " "), "SBS", "95% CI", "", "|SBS|", *floor_columns, "p_adj", "faces"):
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
            _ci(r["ci_low"], r["ci_high"]),
            stars(r["p_adj"], trend=True),
            fmt_num(r["abs_sbs"]),
            *floor_cells,
            fmt_p(r["p_adj"]),
            str(r["n"]),
        )
    console.print(tab)


def _print_group_reversals(console: Console, con: duckdb.DuckDBPyConnection) -> None:
    """Table 11's sign reversals per dimension: with evidence (both sides significant, or the
    groups' difference) and the sign changes not distinguishable from noise (nothing for a
    database analysed before ``reversal_evidence`` existed)."""
    found = con.execute(
        "SELECT count(*) FROM information_schema.columns "
        "WHERE table_name = 'result_table11' AND column_name = 'reversal_evidence'"
    ).fetchall()
    if not found or found[0][0] == 0:
        return
    rows = _read(
        con,
        "result_table11",
        """SELECT dimension, count(DISTINCT variation_value) FILTER (WHERE sign_reversal) AS evidence,
                  count(DISTINCT variation_value) FILTER (WHERE sign_reversal_both) AS both_sides,
                  count(DISTINCT variation_value) FILTER (WHERE reversal_evidence = 'not distinguishable')
                      AS unclear
           FROM {t} GROUP BY dimension ORDER BY dimension""",
    )
    if rows is None or rows.height == 0:
        return
    parts = [
        f"{escape(str(r['dimension']))}: {r['evidence']} with evidence ({r['both_sides']} both sides "
        f"significant), {r['unclear']} not distinguishable"
        for r in rows.iter_rows(named=True)
        if r["evidence"] or r["unclear"]  # a dimension without sign changes says nothing
    ]
    if parts:
        title = "[bold]Sign reversals between groups (Table 11)[/]: "
        console.print(title + "; ".join(parts), soft_wrap=True)


def _noise_floor(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, float | None]]:
    """The all-placebos row of ``result_noise_floor`` per model (empty without placebos)."""
    rows = _read(con, "result_noise_floor", "SELECT * FROM {t}")
    if rows is None:
        return {}
    rows = rows.filter(pl.col("variation_value") == ALL_PLACEBOS)
    return {r["model_id"]: r for r in rows.iter_rows(named=True)}


def _print_floor(
    console: Console, floor: dict[str, dict[str, float | None]], passing: pl.DataFrame | None
) -> None:
    """One line per model: the placebo SBS (should contain 0), the floor, attributes that pass it."""
    if not floor:
        return
    lines = []
    for model, r in floor.items():
        line = (
            f"{escape(model)}: placebo SBS {fmt_num(r['estimate'], 4, signed=True)} "
            f"{_ci(r['ci_low'], r['ci_high'], 4)}; "
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
        + " face's placebo |Δ| (one-sided WSRT, BH)"
    )


def print_compat(results: dict[str, pl.DataFrame], console: Console) -> None:
    """Say that replication mode (``--compat release``) is on, where its tables are, and how many
    cells differ from the default tables by which of the release's choices."""
    from cueshift.designs.stylisticbias.compat import CHOICES

    released = sorted(f"result_{name}" for name in results if name.startswith("release_"))
    differences = results.get("compat_differences")
    console.print(
        "compat release: ON - the seed release's own choices reproduced beside the default tables in "
        + (", ".join(released) or "no table"),
        markup=False,
        soft_wrap=True,
    )
    if differences is None:
        return
    table = FitTable(title=f"Cells where --compat release differs from the default ({differences.height:,})")
    table.add_column("release choice")
    table.add_column("cells", justify="right")
    counts = differences.group_by("choice").len().sort("len", "choice", descending=[True, False])
    for choice, n in counts.iter_rows():
        named = " + ".join(CHOICES.get(c, c) for c in str(choice).split("+"))
        table.add_row(escape(named), f"{n:,}")
    console.print(table)
