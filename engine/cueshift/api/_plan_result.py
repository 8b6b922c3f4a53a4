"""What :func:`cueshift.api.plan_study` returns: the plan's tidy frames, and the build cost the
command writes before an image set exists."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.errors import CueshiftError

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class Plan:
    """What ``cueshift plan`` computes, prints and writes, as tidy frames (``schemas/plan.py``).

    Attributes
    ----------
    design, source, notes
        The study's design, where the inputs came from (a pilot or the defaults), notes for the reader.
    power
        ``plan_power``: one row per test × protocol variant (``protocol = 'planned'`` first).
    components, cost, curve
        ``plan_components`` (variance components used), ``plan_cost`` (per model),
        ``plan_curve`` (power against faces; empty where not drawn).
    build_cost
        The ``[build]`` section's calls and price per stage (empty without ``[build]``).
    figure
        The power curve as PNG bytes (None where not drawn).
    files
        The files written under ``out``.
    planned
        False where the study's image set is not built yet: only ``build_cost`` is planned (the
        other frames are empty), as the command says ("plan again after `cueshift build`").
    """

    design: str
    source: str
    power: pl.DataFrame
    components: pl.DataFrame
    cost: pl.DataFrame
    curve: pl.DataFrame
    build_cost: pl.DataFrame
    figure: bytes | None = None
    notes: tuple[str, ...] = ()
    files: list[Path] = field(default_factory=list)
    planned: bool = True


def empty_plan_table(name: str) -> pl.DataFrame:
    """An empty frame with the columns of the plan table ``name``."""
    import polars as pl

    from cueshift.schemas.plan import PLAN_SCHEMAS

    return pl.DataFrame(schema={c: s.dtype.type for c, s in PLAN_SCHEMAS[name].to_schema().columns.items()})


def write_build_cost(frame: pl.DataFrame, folder: Path) -> Path:
    """``plan_build_cost.csv`` under ``folder`` (created), as the command writes it; its path."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CueshiftError(f"{folder}: cannot create the folder ({exc.strerror})") from None
    frame.write_csv(folder / "plan_build_cost.csv")
    return folder / "plan_build_cost.csv"


__all__ = ["Plan"]
