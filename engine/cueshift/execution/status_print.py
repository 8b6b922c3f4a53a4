"""``cueshift status`` printed: one line on the latest run, a table row per model, then the
invariance flags (the figures: :mod:`cueshift.execution.status`)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from cueshift._console import FitTable
from cueshift.execution.build_status import build_line
from cueshift.execution.status import StudyStatus
from cueshift.render import fmt_integer, fmt_percent


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


def print_status(status: StudyStatus, console: Console) -> None:
    """Print ``status``: one line on the run, one table row per model."""
    where = f"snapshot of {status.as_of:%Y-%m-%d %H:%M:%S}" if status.snapshot else "database"
    if status.started_at is None:
        console.print(f"{status.database}: no run yet ({where})", markup=False, soft_wrap=True)
    elif status.build is not None:
        line = build_line(
            status.database, status.state, status.started_at, where, status.planned, status.build
        )
        console.print(line, markup=False, soft_wrap=True)
    else:
        rate, eta = status.rate, status.eta_seconds
        parts = [
            f"{status.database}: latest run {status.state} (started {status.started_at:%Y-%m-%d %H:%M:%S}; "
            f"read from its {where})",
            f"planned {fmt_integer(status.planned)}, done {fmt_integer(status.done)}"
            + (f" ({fmt_percent(status.done / status.planned, 1)})" if status.planned else ""),
            f"stored in all {fmt_integer(status.stored)}",
            f"rate {rate:,.1f}/s" if rate is not None else "rate -",
        ]
        if eta is not None:
            parts.append(f"ETA {_duration(eta)}")
        if status.state == "stopped":
            parts.append("run `cueshift infer` again to resume")
        console.print("; ".join(parts), markup=False, soft_wrap=True)
    if status.build is not None:  # a build asks no model: its answers table says nothing new
        return
    table = FitTable("model")
    for number in ("stored", "this run", "failed this run", "failed units (any run)"):
        table.add_column(number, justify="right")
    for model in status.models:
        table.add_row(
            Text(model.model_id),
            fmt_integer(model.stored),
            fmt_integer(model.this_run),
            fmt_integer(model.failed_this_run),
            fmt_integer(model.failed_units),
        )
    console.print(table)
    for line in status.invariance_flags:
        console.print(f"FLAG {line}", markup=False, soft_wrap=True)


__all__ = ["print_status"]
