"""The rows of ``result_audit_sensitivity`` assembled: the per-face means of every set (every edit,
the audited ones) × model × attribute from one pass over the Δ rows, the columns of each set, the
variation counts, and the table with its schema and the changes against ``all_sbs``."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.stylisticbias.stats._audit_bounds import BOUND_COLUMNS
from cueshift.stats import POOLED, FaceSums, coarsen

#: The robustness columns of the ``all`` and ``audited`` SBS (``<set>_<column>``).
_ROBUSTNESS = ("partial_r2", "rv", "rv_alpha")


def _face_means(fine: FaceSums) -> tuple[pl.DataFrame, F64]:
    """Per-face means of every row of the table, from one pass over the Δ rows: ``set`` (every
    edit, or the audited ones: the fine cells that did not fail) × model (and pooled) × attribute."""
    passed = ~fine.cells["failed"].to_numpy()
    audited = FaceSums(
        fine.faces, fine.cells.filter(passed), fine.sums[:, passed], fine.counts[:, passed], fine.scale, {}
    )
    frames, blocks = [], []
    for name, sums in (("all", fine), ("audited", audited)):
        for keys in (["model_id", "feature_key"], ["feature_key"]):
            fm = coarsen(sums, keys)
            cells = fm.cells.select(keys)
            if "model_id" not in keys:
                cells = cells.with_columns(model_id=pl.lit(POOLED))
            frames.append(cells.select(set=pl.lit(name), model_id="model_id", feature_key="feature_key"))
            blocks.append(fm.values)
    return pl.concat(frames), np.ascontiguousarray(np.hstack(blocks))


def _set_columns(sbs: pl.DataFrame, name: str) -> dict[str, float | None]:
    """``<name>_sbs, <name>_ci_low, <name>_ci_high`` and the robustness columns of one row (null
    when the set is empty)."""
    row = sbs.filter(pl.col("set") == name)
    columns = ("sbs", "ci_low", "ci_high", *_ROBUSTNESS)
    if row.height == 0:
        return {f"{name}_{c}": None for c in columns}
    return {f"{name}_{c}": _number(row[c][0]) for c in columns}


def _counts(variations: pl.DataFrame) -> dict[str, int]:
    """Variations of a row (one row each), those that failed the audit, those kept, the faces."""
    n_failed = int(variations["failed"].sum())
    return {
        "n_variations": variations.height,
        "n_failed": n_failed,
        "n_audited": variations.height - n_failed,
        "n_faces": variations["face_id"].n_unique(),
    }


def _number(value: object) -> float | None:
    """A finite float, else ``None``."""
    number = float(value)  # type: ignore[arg-type]
    return number if np.isfinite(number) else None


def _frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """The table from its rows, with the changes against ``all_sbs``."""
    floats = ("all", "audited", "adjusted")
    schema: dict[str, pl.DataType | type[pl.DataType]] = {"model_id": pl.String, "feature_key": pl.String}
    for name in floats:
        schema |= {f"{name}_sbs": pl.Float64, f"{name}_ci_low": pl.Float64, f"{name}_ci_high": pl.Float64}
    for count in ("n_variations", "n_failed", "n_audited", "n_adjusted", "n_faces", "df"):
        schema[count] = pl.Int64
    schema |= {"confounds": pl.String, "statistic": pl.Float64, "p": pl.Float64}
    schema |= {f"{name}_{c}": pl.Float64 for name in floats[:2] for c in _ROBUSTNESS}
    for name in floats[:2]:
        schema |= {f"{name}_bound_{c}": pl.String if c == "confound" else pl.Float64 for c in BOUND_COLUMNS}
    schema |= {"ci_method": pl.String, "audit": pl.String}
    frame = pl.DataFrame(rows, schema=schema).with_columns(
        change_audited=pl.col("audited_sbs") - pl.col("all_sbs"),
        change_adjusted=pl.col("adjusted_sbs") - pl.col("all_sbs"),
    )
    order = [*list(schema)[:11], "change_audited", "change_adjusted", *list(schema)[11:]]
    return frame.select(order).sort(pl.col("model_id") == POOLED, "model_id", "feature_key")
