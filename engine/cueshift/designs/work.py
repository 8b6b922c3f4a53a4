"""Work units: what a design asks its models, described for the one runner (:mod:`cueshift.execution.runner`).

A design's ``workload(study)`` returns a :class:`Workload`:

- the **dimension rows** every run (and every shard) writes first (images, scenarios, ...);
- the :class:`StudyContext` the backends may look up;
- one :class:`UnitKind` per kind of question — forced-choice judgments, two-image trials,
  ratings — saying which table stores its answers under which key, which backend method
  answers a batch, and how the raw answers are parsed into rows;
- the rows stored without asking any model (human ratings), written once.

The runner does the rest the same way for every design: it plans per model what is not
stored yet, keeps the units of its shard, asks in batches, writes each batch in one
transaction and records the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import polars as pl

from cueshift.inference.backends import Backend, BackendAnswers, StudyContext
from cueshift.study.config import ModelConfig

#: ``(model, backend) -> units``: every unit one model should answer (stored ones included).
PlanUnits = Callable[[ModelConfig, Backend], pl.DataFrame]
#: ``(batch, answers, model_id, run_id) -> rows`` of the unit kind's table.
ParseAnswers = Callable[[pl.DataFrame, BackendAnswers, str, str], pl.DataFrame]


@dataclass(frozen=True)
class UnitKind:
    """One kind of question a design asks each model.

    Attributes
    ----------
    name
        What the units are called in progress bars and messages (``"judgments"``).
    table
        The table the answers are stored in.
    key
        Columns identifying a unit in ``table`` (its primary key).
    model_column
        The column of ``key`` that names the model (``model_id``; ``rater_id`` for ratings).
    method
        The backend method that answers a batch (``judge``, ``judge_pairs``, ``rate``).
    units
        Every unit of one model: a frame with the ``key`` columns other than ``model_column``,
        ``shard_by``, and whatever else the backend and the parser read, in asking order.
    parse
        Raw answers to rows of ``table``, strictly parsed.
    shard_by
        The column whose value assigns a unit to a shard (units sharing it stay together).
    columns
        The columns of a batch handed to the backend (default: all of them).
    request
        The batch as the backend receives it (e.g. with a ``prompt`` column added).
    missing_method
        The advice when a model's backend lacks ``method``.
    """

    name: str
    table: str
    key: tuple[str, ...]
    model_column: str
    method: str
    units: PlanUnits
    parse: ParseAnswers
    shard_by: str
    columns: tuple[str, ...] | None = None
    request: Callable[[pl.DataFrame], pl.DataFrame] | None = None
    missing_method: str = ""


@dataclass(frozen=True)
class StoredRows:
    """Rows a run stores without asking a model (e.g. human ratings): only those whose primary
    key is not stored yet are written, and a shard writes those whose ``shard_by`` it owns."""

    table: str
    rows: pl.DataFrame
    shard_by: str


@dataclass(frozen=True)
class Workload:
    """Everything one run of a design asks and stores.

    Attributes
    ----------
    context
        What the backends may look up (images, scenarios, the prompt template).
    dimensions
        ``table -> (rows, key column)`` written first, in order (every shard writes all of
        them; a stored row that differs is an error). The ``model`` table is the runner's.
    units
        The kinds of questions, asked in this order for each model.
    stored
        Rows stored once without asking (after the questions).
    """

    context: StudyContext
    dimensions: Mapping[str, tuple[pl.DataFrame, str]]
    units: tuple[UnitKind, ...]
    stored: tuple[StoredRows, ...] = field(default=())


__all__ = ["ParseAnswers", "PlanUnits", "StoredRows", "UnitKind", "Workload"]
