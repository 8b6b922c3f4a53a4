"""The release's φ (``cueshift analyze --compat release``): which answers it counts and how it reads them.

The release's ``evaluate_mllm_outputs.py`` takes φ as the favorable answers over **all** answers
of a cell ("unknown" counts as not favorable), and reads each answer from the ``chosen_option``
its judgment pipeline stored. For answers imported with ``cueshift import judgments`` that reading
is in ``release_judgment`` (``release_letter``); where ``chosen_option`` is empty the release reads
the first ``(a)``/``(b)`` of the raw output instead, and leaves the answer out of the cell when
there is none. Answers judged by cueshift itself (no ``release_judgment`` row) keep cueshift's
reading (``outcome``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import duckdb

from cueshift.designs.stylisticbias.inputs import Inputs
from cueshift.stats import NotApplicable
from cueshift.study.scenarios import ORDERINGS
from cueshift.views import read_base_phi, read_delta

#: The release's fallback when ``chosen_option`` is empty (``_extract_choice``): the first marker.
MARKER = r"\((a|b)\)"


def _phi_sql(*, all_answers: bool, release_reading: bool) -> str:
    """``SELECT`` of the ``phi`` columns with the release's denominator and/or reading."""
    favorable = ", ".join(f"({o.ordering}, '{o.favorable_letter}')" for o in ORDERINGS)
    if release_reading:
        chosen = "nullif(trim(r.chosen_option), '') IS NOT NULL"
        marker = f"nullif(lower(regexp_extract(j.response_text, '{MARKER}', 1, 'i')), '')"
        letter = f"CASE WHEN {chosen} THEN r.release_letter ELSE {marker} END"
        read = "r.run_id IS NOT NULL"
        fav = f"CASE WHEN {read} THEN coalesce({letter} = f.letter, false) ELSE j.outcome = 'favorable' END"
        valid = f"CASE WHEN {read} THEN {letter} IS NOT NULL ELSE j.outcome <> 'invalid' END"
        counted = f"NOT {read} OR {chosen} OR {marker} IS NOT NULL"
        source = (
            "main.judgment j LEFT JOIN main.release_judgment r "
            "USING (model_id, image_id, scenario_id, ordering, seed) "
            f"LEFT JOIN (VALUES {favorable}) f(ordering, letter) ON j.ordering = f.ordering"
        )
    else:
        fav, valid, counted, source = (
            "j.outcome = 'favorable'",
            "j.outcome <> 'invalid'",
            "true",
            "main.judgment j",
        )
    n_valid = "n_total" if all_answers else "n_valid"
    return (
        "WITH answers AS (SELECT j.model_id, j.image_id, j.scenario_id, j.p_favorable, "
        f"{fav} AS favorable, {valid} AS valid, {counted} AS counted FROM {source}), "
        "cells AS (SELECT model_id, image_id, scenario_id, count(*) FILTER (WHERE counted) AS n_total, "
        "count(*) FILTER (WHERE counted AND valid) AS n_valid, "
        "count(*) FILTER (WHERE counted AND favorable) AS n_favorable, avg(p_favorable) AS phi_expected "
        "FROM answers GROUP BY ALL) "
        f"SELECT model_id, image_id, scenario_id, n_total, {n_valid} AS n_valid, n_favorable, "
        f"n_favorable::DOUBLE / nullif({n_valid}, 0) AS phi, phi_expected FROM cells"
    )


@contextmanager
def release_phi(
    con: duckdb.DuckDBPyConnection, *, all_answers: bool = True, release_reading: bool = True
) -> Iterator[None]:
    """Within the block the ``delta`` and ``base_phi`` views read the release's φ (module docstring):
    favorable over **all** counted answers (``all_answers``: ``n_valid`` = ``n_total``, so the
    exact face means stay exact; else over the valid ones) read as the release read them where it
    stored its reading (``release_reading``). A temporary ``phi`` table shadows the view (as
    :func:`cueshift.views.phi_computed_once`); the one that was there before, if any, is restored."""
    had = con.sql("SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name = 'phi'").fetchall()[
        0
    ][0]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE phi AS "
        + _phi_sql(all_answers=all_answers, release_reading=release_reading)
    )
    try:
        yield
    finally:
        if had:
            con.execute("CREATE OR REPLACE TEMP TABLE phi AS SELECT * FROM main.phi")
        else:
            con.execute("DROP TABLE IF EXISTS temp.phi")


def stores_release_reading(con: duckdb.DuckDBPyConnection, models: Sequence[str] = ()) -> bool:
    """Whether any judgment of ``models`` (all when empty) has the release's own reading stored."""
    where = "WHERE model_id IN (SELECT unnest(?))" if models else ""
    params = [list(models)] if models else []
    return bool(con.execute(f"SELECT count(*) FROM release_judgment {where}", params).fetchall()[0][0])


@dataclasses.dataclass(frozen=True)
class ReleasePhis:
    """The run's inputs with the release's φ (``release``: both choices), with only its denominator
    (``denominator``) and with only its reading (``reading``; ``None`` when no answer has the
    release's reading stored: then it is cueshift's φ and ``denominator`` is ``release``)."""

    release: Inputs
    denominator: Inputs
    reading: Inputs | None


def _inputs_with(inputs: Inputs, *, all_answers: bool, release_reading: bool) -> Inputs:
    assert inputs.con is not None
    with release_phi(inputs.con, all_answers=all_answers, release_reading=release_reading):
        delta = read_delta(inputs.con, inputs.models or None)
        base = read_base_phi(inputs.con, inputs.models or None)
    if inputs.quality is not None:
        delta = inputs.quality.kept(delta)
    return dataclasses.replace(inputs, delta=delta, base_phi=base)


def release_inputs(inputs: Inputs) -> ReleasePhis:
    """``inputs`` with Δ and base φ read with the release's φ (and the same ``--min-identity``)."""
    if inputs.con is None:
        raise NotApplicable("needs the study database (the release's phi is recomputed from the answers)")
    denominator = _inputs_with(inputs, all_answers=True, release_reading=False)
    if not stores_release_reading(inputs.con, inputs.models):
        return ReleasePhis(denominator, denominator, None)
    return ReleasePhis(
        _inputs_with(inputs, all_answers=True, release_reading=True),
        denominator,
        _inputs_with(inputs, all_answers=False, release_reading=True),
    )
