"""Spreading a long query result into a wide table: one display column per value of a column."""

from __future__ import annotations

import polars as pl

from cueshift.render._cells import Cell, Col, Pivot, Styled, make_cell
from cueshift.render._formats import MISSING

Head = tuple[object, object]  # (spanner value or None, value of ``on``)


def _preset_headers(frame: pl.DataFrame, pivot: Pivot) -> list[Head]:
    """Display columns in the order of ``pivot.order`` (empty: order of first appearance)."""
    if pivot.order is None:
        return []
    spanner = [pivot.spanner] if pivot.spanner else []
    first = frame.group_by(pivot.on, *spanner, maintain_order=True).agg(
        pl.col(pivot.order).min().alias("__key")
    )
    heads = first.sort("__key", maintain_order=True, nulls_last=True)
    return [((r[pivot.spanner] if pivot.spanner else None), r[pivot.on]) for r in heads.iter_rows(named=True)]


def _spanners(headers: list[Head], pivot: Pivot, offset: int) -> tuple[tuple[str, int, int], ...]:
    """Runs of adjacent display columns sharing a spanner value, as ``(label, first, last)``."""
    spans: list[tuple[str, int, int]] = []
    if not pivot.spanner:
        return ()
    for j, (span, _) in enumerate(headers):
        label = pivot.spanner_labels.get(str(span), str(span))
        if spans and spans[-1][0] == label and spans[-1][2] == offset + j - 1:
            spans[-1] = (label, spans[-1][1], offset + j)
        else:
            spans.append((label, offset + j, offset + j))
    return tuple(spans)


def pivot_table(
    frame: pl.DataFrame,
    *,
    key: str,
    title: str,
    columns: tuple[Col, ...],
    pivot: Pivot,
    group: str | None,
    notes: tuple[str, ...],
) -> Styled:
    """The :class:`Styled` table of ``frame`` with ``columns`` as row keys and ``pivot`` spread out.

    Rows keep the order in which their key first appears; a row × display column absent from
    the result shows ``–`` with ``pivot.missing_fill``.
    """
    index = [c.name for c in columns]
    keys: dict[tuple[object, ...], int] = {}
    group_of: list[str | None] = []
    headers: dict[Head, int] = {head: j for j, head in enumerate(_preset_headers(frame, pivot))}
    values: dict[tuple[int, int], tuple[object, object, tuple[object, ...]]] = {}
    for record in frame.iter_rows(named=True):
        row_key = tuple(record[n] for n in index)
        if row_key not in keys:
            keys[row_key] = len(keys)
            label = None if group is None else record[group]
            group_of.append(None if label is None else str(label))
        head = (record[pivot.spanner] if pivot.spanner else None, record[pivot.on])
        if head not in headers:
            headers[head] = len(headers)
        values[(keys[row_key], headers[head])] = (
            record[pivot.value],
            record[pivot.p] if pivot.p else None,
            tuple(record[a] for a in pivot.args),
        )
    rows = []
    for row_key, i in keys.items():
        cells = [make_cell(col.fmt, value) for col, value in zip(columns, row_key, strict=True)]
        for j in range(len(headers)):
            if (i, j) not in values:
                cells.append(Cell(MISSING, fill=pivot.missing_fill))
                continue
            value, p, args = values[(i, j)]
            cells.append(
                make_cell(
                    pivot.fmt,
                    value,
                    args=args,
                    tested=pivot.p is not None,
                    p=p,
                    notation=pivot.notation,
                    fill=pivot.fill,
                )
            )
        rows.append(tuple(cells))
    ordered = list(headers)
    return Styled(
        key=key,
        title=title,
        labels=tuple(c.label for c in columns)
        + tuple(pivot.labels.get(str(on), str(on)) for _, on in ordered),
        align=tuple(c.align for c in columns) + tuple("right" for _ in ordered),
        rows=tuple(rows),
        groups=tuple(group_of) if group else (),
        spanners=_spanners(ordered, pivot, len(columns)),
        notes=notes,
        n_stub=len(columns),
    )
