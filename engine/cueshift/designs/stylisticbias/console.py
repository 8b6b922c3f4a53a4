"""R-style console summary of the stored StylisticBias headline results (CIs and R's significance
codes, drawn from the stored p-values by :func:`cueshift.render.marks.stars`); its sections of SBS
rows, sign reversals and the noise floor are printed by :mod:`.console_sections`."""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import FitTable, console_for
from cueshift.designs.stylisticbias.console_equivalence import print_equivalence
from cueshift.designs.stylisticbias.console_sections import (
    noise_floor,
    plain_ci,
    print_floor,
    print_group_reversals,
    read_table,
    sbs_table,
)
from cueshift.render import (
    ci_label,
    fmt_num,
    fmt_p,
    fmt_percent,
    simulated_models,
    simulated_warning,
    stored_level,
)
from cueshift.render.marks import stars
from cueshift.stats import MEAN_OF_MODELS, POOLED


def generalise_line(con: duckdb.DuckDBPyConnection) -> str:
    """The question the stored SBS intervals answer (``cueshift analyze --generalise``), one line."""
    rows = read_table(con, "result_manifest", "SELECT * FROM {t} WHERE name = 'sbs'")
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
    t5 = read_table(con, "result_table5", "SELECT * FROM {t}")
    if t5 is None:
        console.print("[yellow]no stored results: run the analysis first[/]")
        return
    simulated = simulated_models(con, [str(m) for m in t5["model_id"]])
    if simulated:  # the report's preamble says the same
        console.print(
            "[bold yellow]Simulated judges.[/] " + escape(simulated_warning(simulated)), soft_wrap=True
        )
    sbs = read_table(con, "result_sbs", "SELECT * FROM {t}")
    console.print(generalise_line(con))
    model_p: dict[str, float | None] = {}
    model_abs: dict[str, float | None] = {}
    if sbs is not None:
        model_rows = sbs.filter(pl.col("level") == "model")
        model_p = dict(model_rows.select("model_id", "p_adj").iter_rows())
        model_abs = dict(model_rows.select("model_id", "abs_sbs").iter_rows())
    floor = noise_floor(con)
    tab = FitTable(title="Per-model shifts (Table 5; face-level)", title_justify="left")
    interval = ci_label(stored_level(con, ("result_table5",)))
    columns = ("model", "SBS", interval, "", "|SBS|", "floor", "Cohen's d", "zero", "|Δ|≥0.25", "faces")
    for col in columns:
        tab.add_column(col, justify="left" if col in ("model", "") else "right")
    for r in t5.iter_rows(named=True):
        p = model_p.get(r["model_id"])
        tab.add_row(
            r["model_id"],
            fmt_num(r["estimate"], 4, signed=True),
            plain_ci(r["ci_low"], r["ci_high"], 4),
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
    vs = read_table(con, "result_table2_vs", "SELECT * FROM {t}")
    t9 = read_table(con, "result_table9", "SELECT * FROM {t}")
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
        passing = read_table(con, "result_noise_floor_attributes", "SELECT * FROM {t}")
        if passing is not None:
            values = values.join(
                passing.filter(pl.col("model_id") == POOLED).select("variation_value", "ratio", "passes"),
                on="variation_value",
                how="left",
            )
        sbs_table(
            console, values, "variation_value", f"Strongest attributes (pooled SBS, top {top})", interval
        )
        print_floor(console, floor, passing)
        scen = sbs.filter((pl.col("level") == "scenario") & (pl.col("model_id") == POOLED)).sort("estimate")
        if scen.height:
            picked = pl.concat([scen.head(3), scen.tail(3)]) if scen.height > 6 else scen
            sbs_table(
                console,
                picked,
                "scenario_id",
                "Scenarios with the lowest and highest SBS (Fig. 3; pooled)",
                interval,
            )
    print_group_reversals(console, con)
    lme = read_table(con, "result_mixed_model", "SELECT * FROM {t}")
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
    cross = read_table(con, "result_cross_model", "SELECT * FROM {t}")
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
            f"[bold]Across models (Fig. 5)[/]: per-scenario mean Δ correlate r = "
            f"{_span(fmt_num(r['lo'], 2), fmt_num(r['hi'], 2))}; "
            f"{_span(str(r['rlo']), str(r['rhi']))} sign-reversed scenarios per pair "
            f"({r['evid']} of {r['rsum']} with evidence: both signs significant); category ranking "
            "identical in "
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


def _span(low: str, high: str) -> str:
    """``"low to high"``, or the one value where both print the same (one model pair).

    Examples
    --------
    >>> _span("0.20", "0.20"), _span("3", "11")
    ('0.20', '3 to 11')
    """
    return low if low == high else f"{low} to {high}"


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
