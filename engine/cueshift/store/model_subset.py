"""The model subset a command is given (``--models``, ``models=``): parsed, and checked against
the models with answers in the study database before anything is printed or written."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError


def parse_models(models: str | Iterable[str] | None) -> list[str]:
    """The model subset as a list: ``"a, b"``, ``["a", "b"]`` or ``["a,b", "c"]`` (``--models``
    repeated, each comma-separated); empty or ``None`` means every model. Each id once, in order.

    >>> parse_models("sim-judge, sim-judge-b")
    ['sim-judge', 'sim-judge-b']
    >>> parse_models(["a,b", "c", "a"])
    ['a', 'b', 'c']
    >>> parse_models(None)
    []
    """
    if models is None:
        return []
    items = [models] if isinstance(models, str) else list(models)
    parts = (part.strip() for item in items for part in item.split(","))
    return list(dict.fromkeys(part for part in parts if part))


def answered_models(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The ids of the models with answers in the study database, sorted: forced-choice judgments,
    pairwise trials (seed 002) and model ratings (seed 004), whichever tables it has."""
    present = {
        row[0]
        for row in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = 'main'"
        ).fetchall()
    }
    answered = ["SELECT model_id FROM judgment"] if "judgment" in present else []
    if "pairwise_trial" in present:
        answered.append("SELECT model_id FROM pairwise_trial")
    if "rating" in present:
        answered.append("SELECT rater_id FROM rating WHERE rater_kind = 'model'")
    if not answered:
        return []
    union = " UNION ALL ".join(answered)
    return [str(row[0]) for row in con.execute(f"SELECT DISTINCT * FROM ({union}) ORDER BY 1").fetchall()]


def unknown_models_line(unknown: Sequence[str], path: str | Path, available: Sequence[str]) -> str:
    """The one line naming the unknown models and listing the models present.

    >>> unknown_models_line(["nope"], "runs/default.duckdb", ["sim-judge", "sim-judge-b"])
    "unknown model 'nope' in runs/default.duckdb; models: sim-judge, sim-judge-b"
    """
    named = ", ".join(repr(m) for m in unknown)
    which = "model" if len(unknown) == 1 else "models"
    return f"unknown {which} {named} in {path}; models: {', '.join(available) or 'none yet'}"


def check_models(
    con: duckdb.DuckDBPyConnection, path: str | Path, models: str | Iterable[str] | None
) -> list[str]:
    """The subset ``models`` names (empty: every model), each a model with answers in ``con``.

    Raises
    ------
    CueshiftError
        A model without answers in the database, named with the models present.
    """
    wanted = parse_models(models)
    if not wanted:
        return []
    available = answered_models(con)
    unknown = [m for m in wanted if m not in available]
    if unknown:
        raise CueshiftError(unknown_models_line(unknown, path, available))
    return wanted


__all__ = ["answered_models", "check_models", "parse_models", "unknown_models_line"]
