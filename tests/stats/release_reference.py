"""Independent re-computations of the release's rules (φ, Δ, Wilcoxon, BH): the tests' references."""

from __future__ import annotations

import re
from collections import defaultdict

import duckdb
import polars as pl
from scipy import stats as scipy_stats

from cueshift.study.scenarios import ORDERING_BY_ID


def release_phi_reference(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """φ per model × image × scenario as ``evaluate_mllm_outputs.py`` counts it: the stored
    chosen_option, else the raw output's first (a)/(b) marker, else the answer left out; our
    reading (outcome) for answers without a stored one; favorable over every counted answer."""
    rows = con.sql(
        "SELECT j.model_id, j.image_id, j.scenario_id, j.ordering, j.outcome, j.response_text, "
        "r.run_id IS NOT NULL AS stored, r.chosen_option, r.release_letter "
        "FROM judgment j LEFT JOIN release_judgment r USING (model_id, image_id, scenario_id, ordering, seed)"
    ).pl()
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for row in rows.iter_rows(named=True):
        cell = counts[(row["model_id"], row["image_id"], row["scenario_id"])]
        if not row["stored"]:
            favorable = row["outcome"] == "favorable"
        elif row["chosen_option"] is not None and row["chosen_option"].strip():
            favorable = row["release_letter"] == ORDERING_BY_ID[row["ordering"]].favorable_letter
        else:
            marker = re.search(r"\((a|b)\)", row["response_text"].strip(), flags=re.IGNORECASE)
            if not marker:
                continue
            favorable = marker.group(1).lower() == ORDERING_BY_ID[row["ordering"]].favorable_letter
        cell[0] += favorable
        cell[1] += 1
    return pl.DataFrame(
        [(*k, f / n if n else None) for k, (f, n) in counts.items()],
        schema={"model_id": pl.String, "image_id": pl.String, "scenario_id": pl.String, "phi": pl.Float64},
        orient="row",
    )


def release_deltas(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The release's paired Δ rows (``paired_deltas.csv``) with the base face's labels."""
    phi = release_phi_reference(con)
    images = con.sql(
        "SELECT i.image_id, i.base_image_id, i.face_id, i.variation_category, i.variation_value, "
        "f.age, f.gender, f.ethnicity, f.body_type FROM image i JOIN face f USING (face_id) "
        "WHERE i.role = 'variation' AND i.evaluated"
    ).pl()
    base = phi.rename({"image_id": "base_image_id", "phi": "phi_base"})
    return (
        phi.join(images, on="image_id")
        .join(base, on=["model_id", "base_image_id", "scenario_id"])
        .with_columns(delta=pl.col("phi") - pl.col("phi_base"))
        .filter(pl.col("delta").is_not_null())
    )


def bh_correct(p_values: list[float]) -> list[float]:
    """The release's ``bh_correct``, as written there."""
    n = len(p_values)
    indexed = sorted(enumerate(p_values), key=lambda x: x[1])
    adj = [1.0] * n
    prev = 1.0
    for rank, (i, p) in enumerate(reversed(indexed), 1):
        a = min(p * n / (n - rank + 1), prev)
        prev = a
        adj[i] = a
    return adj


def wilcoxon_vs_zero(values: list[float]) -> float:
    """The release's ``wilcoxon_vs_zero``: no test below 3 face means."""
    if len(values) < 3:
        return float("nan")
    try:
        return float(scipy_stats.wilcoxon(values, zero_method="wilcox", alternative="two-sided").pvalue)
    except ValueError:
        return float("nan")


def face_means(rows: pl.DataFrame) -> list[float]:
    """Each face's mean Δ over ``rows`` (the release's face means)."""
    return rows.group_by("face_id").agg(pl.col("delta").mean())["delta"].to_list()
