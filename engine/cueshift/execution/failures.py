"""What the runner does with requests a backend gave up on (docs/decisions.md#d14).

A backend returns the answers of a batch together with the rows it gave up on
(:attr:`~cueshift.inference.backends.base.BackendAnswers.failures`). The runner stores the
answered rows and records the failed ones in ``request_failure``
(:mod:`cueshift.store.failures`); the failed units stay unanswered, so the next run asks
them again. A unit that has failed in ``max_failed_runs`` runs is left out of the pending units and
reported, so one request that always fails never blocks a study.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import duckdb
import polars as pl

from cueshift.designs.work import UnitKind
from cueshift.inference.backends import BackendAnswers
from cueshift.store.failures import failed_units, failure_frame, unit_keys

#: Runs a unit may fail in before it is no longer asked.
MAX_FAILED_RUNS = 3


def unit_key_columns(kind: UnitKind) -> list[str]:
    """The key columns of ``kind`` besides the model: what names a unit of one model."""
    return [column for column in kind.key if column != kind.model_column]


def drop_given_up(
    con: duckdb.DuckDBPyConnection, kind: UnitKind, pending: pl.DataFrame, model_id: str, max_failed_runs: int
) -> tuple[pl.DataFrame, int]:
    """``pending`` without the units that failed in ``max_failed_runs`` runs or more, and how many
    were left out."""
    if pending.height == 0:
        return pending, 0
    failed = failed_units(con, model_id, kind.table)
    out = failed.filter(pl.col("n_runs") >= max_failed_runs)["unit_key"]
    if out.len() == 0:
        return pending, 0
    keep = ~unit_keys(pending, unit_key_columns(kind)).is_in(out.implode())
    return pending.filter(keep), int(pending.height - keep.sum())


def split_failures(
    kind: UnitKind, batch: pl.DataFrame, answers: BackendAnswers, model_id: str, run_id: str
) -> tuple[pl.DataFrame, BackendAnswers, pl.DataFrame]:
    """The answered rows of ``batch`` with their answers, and the ``request_failure`` rows of
    the others (empty when every row was answered)."""
    failures = answers.failures
    failed_rows = [f.row for f in failures]
    keys = unit_keys(batch[failed_rows], unit_key_columns(kind))
    frame = failure_frame(
        model_id, kind.table, keys, [f.attempts for f in failures], [f.error for f in failures], run_id
    )
    if not failures:
        return batch, answers, frame
    answered = answers.answered_rows()
    return batch[answered], answers.take(answered), frame


@dataclass
class FailureTally:
    """Failures of one run: requests given up on, units left out as given up, errors seen."""

    failed: int = 0
    given_up: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def add(self, frame: pl.DataFrame) -> None:
        self.failed += frame.height
        self.errors.update(frame["error"].to_list())

    def lines(self, max_failed_runs: int) -> list[str]:
        """What to print after the run (nothing when nothing failed)."""
        lines: list[str] = []
        if self.failed:
            common, count = self.errors.most_common(1)[0]
            lines.append(
                f"failed requests: {self.failed:,}, not stored (recorded in request_failure; the next "
                f"run asks them again); most common error ({count:,}x): {common}"
            )
        if self.given_up:
            lines.append(
                f"units not asked: {self.given_up:,}, each failed in {max_failed_runs} runs already "
                "(see the request_failure table)"
            )
        return lines


__all__ = ["MAX_FAILED_RUNS", "FailureTally", "drop_given_up", "split_failures", "unit_key_columns"]
