"""StylisticBias report: the multiverse (``cueshift multiverse``): the specification curve of the
headline claims and the claims that do not hold on every path, read from ``result_multiverse`` and
``result_multiverse_summary``; the joint test's tables are in :mod:`.multiverse_joint`. Nothing is
recomputed here.
"""

from __future__ import annotations

import numpy as np

from cueshift.designs.stylisticbias.multiverse.choices import CHOICES
from cueshift.designs.stylisticbias.report.multiverse_joint import (
    MULTIVERSE_JOINT,
    MULTIVERSE_JOINT_ATTRIBUTES,
)
from cueshift.extras import importing
from cueshift.render import (
    MODELS_FILTER,
    Col,
    FigureSpec,
    Source,
    TableSpec,
    TextSpec,
    fmt_integer,
    percent,
)
from cueshift.stats import MEAN_OF_MODELS, POOLED

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

_MODELS = f"(model_id IN ('{POOLED}', '{MEAN_OF_MODELS}') OR {MODELS_FILTER})"
_REQUIRES = ("result_multiverse", "result_multiverse_summary")


def draw_specification_curve(report: Source) -> Figure | None:
    """Top: the share of the headline claims that hold in each specification, sorted; below: which
    option of each choice the specification takes (the reference path and the release's path
    marked)."""
    rows = report.query(f"""
        SELECT specification, any_value(is_reference) AS is_reference, avg(holds::INTEGER) AS share,
               {", ".join(f"any_value({c}) AS {c}" for c in CHOICES)}
        FROM result_multiverse WHERE {_MODELS}
        GROUP BY specification ORDER BY share, specification""")
    if rows.height == 0:
        return None
    choices = [c for c in CHOICES if rows[c].n_unique() > 1]
    options = [(c, o) for c in choices for o in rows[c].unique(maintain_order=False).sort().to_list()]
    fig = Figure(figsize=(8.0, 2.6 + 0.18 * len(options)))
    top, bottom = fig.subplots(
        2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 0.25 * max(len(options), 1)]}
    )
    x = np.arange(rows.height)
    reference = rows["is_reference"].to_numpy()
    release = (rows["path"] == "release").to_numpy()
    colour = np.where(reference, "#c44e52", np.where(release, "#55a868", "#4c72b0"))
    top.scatter(x, rows["share"].to_numpy(), s=14, color=colour, zorder=3)
    top.set_ylabel("claims holding")
    top.set_ylim(-0.03, 1.03)
    top.axhline(1.0, color="black", linewidth=0.5)
    title = "red: the reference path" + ("; green: the release's path" if release.any() else "")
    top.set_title(f"Specification curve ({title})", fontsize=9)
    for row, (choice, option) in enumerate(options):
        taken = (rows[choice] == option).to_numpy()
        bottom.scatter(x[taken], np.full(taken.sum(), row), s=8, color="#333333", marker="|")
    bottom.set_yticks(range(len(options)), [f"{c}: {o}" for c, o in options], fontsize=7)
    bottom.set_ylim(len(options) - 0.5, -0.5)
    bottom.set_xlabel("specification (sorted by the share of claims holding)")
    fig.tight_layout()
    return fig


MULTIVERSE_FRAGILE = TableSpec(
    key="multiverse_fragile",
    title="Table MV1. Headline claims that do not hold on every analysis path",
    sql=f"""
    SELECT claim, share_holds, n_holds, n_specifications, moved_most,
           CASE WHEN holds_release THEN 'holds' WHEN NOT holds_release
                THEN 'differs (' || coalesce(release_verdict, 'none') || ')' END AS on_release
    FROM result_multiverse_summary WHERE {_MODELS} AND share_holds < 1
    ORDER BY share_holds, claim
    """,
    columns=(
        Col("claim", "Claim (reference path)"),
        Col("share_holds", "Holds", percent(0)),
        Col("n_holds", "Paths", fmt_integer),
        Col("n_specifications", "of", fmt_integer),
        Col("moved_most", "Moved most by"),
        Col("on_release", "Release's path"),
    ),
    notes=(
        "Claims: each attribute's SBS sign and significance (BH-adjusted p < α) per model, each model's "
        "SBS, the demographic dimension with the largest VS, and each Table 3 cell, as the reference "
        "path (every choice's first option) makes them; a claim holds on a path where its verdict is "
        "the same. Moved most by: the choice whose options differ most in the share of paths holding "
        "the claim ('path': cueshift's paths against the release's). Release's path: the claim made "
        "as `analyze --compat release` makes it (its reading of the answers, φ over all answers, "
        "Wilcoxon with no test below 3 faces, BH with untested cells as p = 1), and its verdict "
        "there when it differs (docs/multiverse.md).",
    ),
    requires=_REQUIRES,
    empty="every headline claim holds on every path.",
)


def multiverse_summary(report: Source) -> str:
    """One sentence: how many specifications, how many claims hold on all of them."""
    row = report.query(f"""
        SELECT count(*) AS n, count(*) FILTER (WHERE share_holds = 1) AS held,
               max(n_specifications) AS paths
        FROM result_multiverse_summary WHERE {_MODELS}""").row(0, named=True)
    if not row["n"]:
        return ""
    return (
        f"Over {fmt_integer(row['paths'])} analysis paths, {fmt_integer(row['held'])} of "
        f"{fmt_integer(row['n'])} headline claims hold on every one.\n"
    )


MULTIVERSE_TABLES: tuple[TableSpec, ...] = (MULTIVERSE_FRAGILE, MULTIVERSE_JOINT, MULTIVERSE_JOINT_ATTRIBUTES)
MULTIVERSE_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "multiverse_curve",
        "Figure MV1. Specification curve of the headline claims",
        draw_specification_curve,
        _REQUIRES,
    ),
)
MULTIVERSE_TEXTS: tuple[TextSpec, ...] = (TextSpec("multiverse_summary", multiverse_summary, _REQUIRES),)
