"""The multiverse's choices reduced to what the stored judgments can realise: the edit audit
choice without a stored audit, φ options read from scores without stored scores (each left out with
a note), an ordering option without stored answers (refused)."""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.multiverse.cells import StoredCells
from cueshift.designs.stylisticbias.multiverse.choices import MultiverseConfig
from cueshift.errors import CueshiftError
from cueshift.views import parse_phi


def effective_config(
    config: MultiverseConfig, stored: StoredCells
) -> tuple[MultiverseConfig, tuple[str, ...]]:
    """``config`` with what the stored judgments cannot realise left out, and a note for each.

    The audit choice is reduced to ``keep`` when no edit audit is stored; φ options read from
    scores are left out when a model stored none (generate-mode backends).

    Raises
    ------
    CueshiftError
        An ordering option without stored answers.
    """
    notes: list[str] = []
    update: dict[str, list[str]] = {}
    if stored.failed_edits is None and config.audit != ["keep"]:
        update["audit"] = ["keep"]
        notes.append("no edit audit stored: the choice 'audit' is left out (run `cueshift audit` first)")
    unscored = _unscored_models(stored.cells)
    scored = [p for p in config.phi if parse_phi(p).temperature is not None]
    if scored and unscored:
        kept = [p for p in config.phi if p not in scored] or ["greedy"]
        update["phi"] = kept
        notes.append(
            f"model(s) {', '.join(unscored)} stored no scores (generate-mode backends): "
            f"phi = {', '.join(scored)} left out"
        )
    present = {str(o) for o in stored.cells["ordering"].unique().to_list()}
    missing = [o for o in config.orderings if o != "all" and o not in present]
    if missing:
        raise CueshiftError(
            f"[multiverse] orderings: {', '.join(missing)} has no stored answers "
            f"(orderings stored: {', '.join(sorted(present))})"
        )
    return (config.model_copy(update=update) if update else config), tuple(notes)


def _unscored_models(cells: pl.DataFrame) -> list[str]:
    answers = pl.col("n_favorable") + pl.col("n_unfavorable") + pl.col("n_invalid")
    totals = cells.group_by("model_id").agg(unscored=(answers - pl.col("n_scored")).sum())
    return sorted(totals.filter(pl.col("unscored") > 0)["model_id"].to_list())


__all__ = ["effective_config"]
