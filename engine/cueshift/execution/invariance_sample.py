"""The stored judgments ``cueshift check-invariance`` re-asks, and how a re-asked answer is compared.

:func:`stratified_sample` draws, per model, ``size`` stored judgments spread evenly over the strata
scenario category × ordering (every stratum gets its turn before any gets a second row; within a
stratum the order is random under ``seed``). :func:`compare` turns the stored and the re-asked
outcomes of one model and comparison into a row of ``result_invariance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import polars as pl

from cueshift import store
from cueshift.schemas.invariance import INVARIANCE_LEVEL
from cueshift.stats.agreement import cohens_kappa, paired_difference

#: What a sampled row carries: the unit, the stored answer, the face and the stratum.
_SAMPLE_SQL = """
SELECT j.model_id, j.image_id, j.scenario_id, j.ordering, j.seed, j.outcome, j.p_favorable,
       i.face_id, s.category
FROM judgment AS j JOIN image AS i USING (image_id) JOIN scenario AS s USING (scenario_id)
{where}
ORDER BY j.model_id, j.image_id, j.scenario_id, j.ordering, j.seed
"""


def stratified_sample(
    con: duckdb.DuckDBPyConnection, models: Sequence[str], size: int, seed: int
) -> pl.DataFrame:
    """Per model (all when ``models`` is empty), ``size`` stored judgments balanced over scenario
    category × ordering (all of them when fewer are stored), in the judgment table's key order.

    Examples
    --------
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE judgment AS SELECT 'm' AS model_id, 'i' || (r % 3) AS image_id, "
    ...     "'s' || (r % 2) AS scenario_id, 1 + r % 4 AS ordering, 0 AS seed, 'favorable' AS outcome, "
    ...     "NULL::DOUBLE AS p_favorable FROM range(24) t(r)")
    >>> _ = con.execute("CREATE TABLE image AS SELECT 'i' || r AS image_id, 'f' || r AS face_id "
    ...     "FROM range(3) t(r)")
    >>> _ = con.execute("CREATE TABLE scenario AS SELECT 's' || r AS scenario_id, 'c' || r AS category "
    ...     "FROM range(2) t(r)")
    >>> sample = stratified_sample(con, [], 8, seed=0)
    >>> sample.height, sample.n_unique(["category", "ordering"])
    (8, 4)
    """
    where = f"WHERE j.model_id IN ({', '.join('?' for _ in models)})" if models else ""
    stored = store.query(con, _SAMPLE_SQL.format(where=where), list(models))
    rng = np.random.default_rng(seed)
    stratum = ["model_id", "category", "ordering"]
    ranked = stored.with_columns(pl.Series("__u", rng.random(stored.height))).with_columns(
        pl.col("__u").rank("ordinal").over(stratum).alias("__turn")
    )
    picked = ranked.sort("__turn", "__u").group_by("model_id", maintain_order=True).head(size)
    key = ["model_id", "image_id", "scenario_id", "ordering", "seed"]
    return picked.drop("__u", "__turn").sort(key)


def compare(
    sampled: pl.DataFrame,
    reasked: pl.DataFrame,
    *,
    comparison: str,
    mode: str,
    batch_size: int | None,
    bound: float,
    checked: bool,
) -> dict[str, Any]:
    """One ``result_invariance`` row: ``sampled`` (stored ``outcome``, ``p_favorable``, ``face_id``)
    against ``reasked`` (its ``outcome`` and ``p_favorable``, row for row)."""
    before = sampled["outcome"].to_list()
    after = reasked["outcome"].to_list()
    n = len(before)
    identical = sum(a == b for a, b in zip(before, after, strict=True))
    fav_before = [float(o == "favorable") for o in before]
    fav_after = [float(o == "favorable") for o in after]
    diff = paired_difference(fav_before, fav_after, sampled["face_id"].to_list(), level=INVARIANCE_LEVEL)
    p_diffs = (reasked["p_favorable"] - sampled["p_favorable"]).abs().drop_nulls()
    share = identical / n
    return {
        "model_id": str(sampled["model_id"][0]),
        "comparison": comparison,
        "mode": mode,
        "batch_size": batch_size,
        "n": n,
        "n_identical": identical,
        "share_identical": share,
        "kappa": cohens_kappa(before, after),
        "phi_stored": float(np.mean(fav_before)),
        "phi_reasked": float(np.mean(fav_after)),
        "phi_diff": diff.estimate,
        "phi_diff_ci_low": max(diff.ci_low, -1.0) if diff.ci_low == diff.ci_low else None,
        "phi_diff_ci_high": min(diff.ci_high, 1.0) if diff.ci_high == diff.ci_high else None,
        "max_abs_p_diff": float(p_diffs.max()) if p_diffs.len() else None,  # type: ignore[arg-type]
        "bound": bound,
        "checked": checked,
        "flagged": checked and share < bound,
    }


__all__ = ["compare", "stratified_sample"]
