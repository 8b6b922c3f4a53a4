"""A ``cueshift build`` run as ``cueshift status`` shows it (:mod:`cueshift.execution.status`).

A build records a ``run`` row like ``infer`` does, marked by ``"stage": "build"`` in its
``versions`` JSON (:data:`cueshift.store.runs.BUILD_STAGE`); its progress is read from the
``generation`` table: slots kept of those planned, slots given up, the run's tries by outcome.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

import duckdb

from cueshift.render import fmt_integer, fmt_percent
from cueshift.store.runs import BUILD_STAGE


@dataclass(frozen=True)
class BuildStatus:
    """A build run's figures, from ``generation``: slots kept in all (at most those planned),
    slots given up (``max_tries`` spent, none kept) and the run's tries by outcome."""

    kept: int
    given_up: int
    tries: int
    refused: int
    failed: int
    rejected: int


def is_build(versions: str | None) -> bool:
    """Whether a ``run`` row's ``versions`` JSON marks a ``cueshift build``."""
    try:
        found = json.loads(versions or "{}")
    except ValueError:
        return False
    return isinstance(found, dict) and found.get("stage") == BUILD_STAGE


def read_build(con: duckdb.DuckDBPyConnection, run_id: str, planned: int, config: str | None) -> BuildStatus:
    """The figures of build run ``run_id`` from ``generation`` (see :class:`BuildStatus`)."""
    try:
        max_tries = int(json.loads(config or "{}")["build"]["max_tries"])
    except (ValueError, KeyError, TypeError):
        max_tries = 0  # unknown: no slot counted as given up
    kept, given_up = con.execute(
        "SELECT count(*) FILTER (WHERE kept), count(*) FILTER (WHERE NOT kept AND tries >= ?) FROM ("
        "SELECT image_id, bool_or(outcome = 'ok') AS kept, max(try) AS tries FROM generation GROUP BY 1)",
        [max_tries if max_tries > 0 else 2**31],
    ).fetchone() or (0, 0)
    tries, refused, failed, rejected = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE outcome = 'refused'), "
        "count(*) FILTER (WHERE outcome = 'failed'), count(*) FILTER (WHERE outcome = 'rejected') "
        "FROM generation WHERE run_id = ?",
        [run_id],
    ).fetchone() or (0, 0, 0, 0)
    return BuildStatus(
        min(int(kept), planned), int(given_up), int(tries), int(refused), int(failed), int(rejected)
    )


def build_line(
    database: Path, state: str, started_at: dt.datetime, where: str, planned: int, build: BuildStatus
) -> str:
    """The status line of a build run: the database, its state and start, where it was read
    (``where``), slots kept of those ``planned``, slots given up and the run's tries by outcome."""
    parts = [
        f"{database}: latest run is a build, {state} (started {started_at:%Y-%m-%d %H:%M:%S}; "
        f"read from its {where})",
        f"slots kept {fmt_integer(build.kept)} of {fmt_integer(planned)} planned"
        + (f" ({fmt_percent(build.kept / planned, 1)})" if planned else ""),
        f"given up {fmt_integer(build.given_up)}",
        f"tries this run {fmt_integer(build.tries)} (refused {fmt_integer(build.refused)}, "
        f"failed {fmt_integer(build.failed)}, rejected {fmt_integer(build.rejected)})",
    ]
    if state == "stopped":
        parts.append("not finished: still running, or run `cueshift build` again to resume")
    return "; ".join(parts)


__all__ = ["BuildStatus", "build_line", "is_build", "read_build"]
