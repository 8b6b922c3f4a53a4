"""The edit audit in the paired design's ``cueshift analyze --audit strict|report``.

A filtered photo is the edit of its individual's original; the audit's verdict on it is read from
the stored ``edit_audit`` rows (measured first, as ``cueshift audit`` does, when nothing is
stored): an edit fails when any of its measures failed (the ``edit_verdict`` view's rule).
The paired analyses compare each individual's two photos, so ``strict`` leaves an individual
whose filtered photo failed the audit out of every analysis (both photos); ``report`` keeps them.
"""

from __future__ import annotations

import duckdb
import polars as pl
from rich.console import Console

from cueshift.designs.paired.section import PairedStudy
from cueshift.errors import ConfigError
from cueshift.store import query

#: The audit rows of the study's evaluated filtered photos.
_ROWS = """
SELECT a.* FROM edit_audit AS a JOIN image AS img ON img.image_id = a.image_id
WHERE img.evaluated AND img.role = 'variation' AND img.feature_key = ?
"""


def audited_scores(
    con: duckdb.DuckDBPyConnection,
    study: PairedStudy,
    design: object,
    scores: pl.DataFrame,
    mode: str,
    *,
    console: Console,
    progress: bool,
    write: bool,
) -> pl.DataFrame:
    """``scores`` without the individuals whose filtered photo failed the audit (``strict``), or
    all of them (``report``); prints one line with the count either way.

    Raises
    ------
    ConfigError
        No audit verdict for any filtered photo of the study, even after measuring.
    """
    from cueshift.designs.audit import stored_or_measured

    feature_key = study.paired.filter_feature_key
    stored = query(con, _ROWS, [feature_key])
    rows = stored_or_measured(con, study, design, stored, console=console, progress=progress, write=write)
    verdicts = (
        rows.filter(pl.col("feature_key") == feature_key).group_by("face_id").agg(pl.col("failed").any())
    )
    if verdicts.height == 0:
        raise ConfigError("no edit audit stored for the filtered photos: run `cueshift audit` first")
    failed = verdicts.filter(pl.col("failed"))["face_id"].to_list()
    what = (
        "their individuals are left out of every analysis (--audit strict)"
        if mode == "strict"
        else "kept (--audit report)"
    )
    console.print(
        f"edit audit: {len(failed)} of {verdicts.height} filtered photos failed the audit; {what}",
        markup=False,
    )
    if mode != "strict" or not failed:
        return scores
    return scores.filter(~pl.col("face_id").is_in(failed))


__all__ = ["audited_scores"]
