"""The ``generation`` table of a build: what is stored per image slot, and one try written."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift import store
from cueshift.schemas.generation import GENERATION_DTYPES
from cueshift.stimuli.slots import Slot


@dataclass(frozen=True)
class SlotState:
    """The tries stored for one image slot: how many, and the last one's outcome and hash."""

    tries: int
    outcome: str
    sha256: str | None


def stored_states(con: duckdb.DuckDBPyConnection) -> dict[str, SlotState]:
    """Every slot with a stored try, by image id."""
    rows = con.execute(
        "SELECT image_id, max(try), arg_max(outcome, try), arg_max(sha256, try) FROM generation GROUP BY 1"
    ).fetchall()
    return {str(i): SlotState(int(n), str(o), None if s is None else str(s)) for i, n, o, s in rows}


@dataclass(frozen=True)
class Try:
    """One call's record (the slot, the generator, what came back)."""

    slot: Slot
    backend: str
    model: str
    seed: int
    number: int
    outcome: str
    message: str
    sha256: str | None
    seconds: float


def write_try(con: duckdb.DuckDBPyConnection, attempt: Try, run_id: str) -> None:
    """Store one try in its own transaction (validated against ``schemas/generation.py``)."""
    slot = attempt.slot
    row = {
        "image_id": slot.image_id,
        "parent_id": slot.parent_id,
        "stage": slot.stage,
        "backend": attempt.backend,
        "model": attempt.model,
        "prompt": slot.prompt,
        "seed": attempt.seed,
        "try": attempt.number,
        "outcome": attempt.outcome,
        "message": attempt.message,
        "sha256": attempt.sha256,
        "seconds": max(attempt.seconds, 0.0),
        "cell": slot.cell_label,
        "feature_key": slot.feature_key,
        "variation_value": slot.value,
        "run_id": run_id,
    }
    store.write_tables(con, {"generation": pl.DataFrame([row], schema=GENERATION_DTYPES)})


__all__ = ["SlotState", "Try", "stored_states", "write_try"]
