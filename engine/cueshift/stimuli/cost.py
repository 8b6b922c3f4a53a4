r"""What a ``[build]`` costs before anything is made: calls, images, expected retries, price or GPU-seconds.

Per stage, the slots come from the study as ``cueshift build`` plans them (no generator built,
nothing written). A try fails (refused, failed or rejected) with probability :math:`p`; a slot
is tried until kept or ``max_tries`` :math:`T` tries are spent, so

.. math::

    E[\text{tries}] = \sum_{k=0}^{T-1} p^k = \frac{1 - p^T}{1 - p}, \qquad
    P(\text{kept}) = 1 - p^T ,

and a variation is only made for a kept base. :math:`p` is measured, never assumed: the share of
failed tries a build of this study already stored (a ``--limit`` trial build) per stage; without
one, the calls are given as the range from one try per slot to :math:`T`.

An API stage (``openai-images``, or any entry with ``settings.price_per_image``) is priced per
call at ``price_per_image`` (an upper bound: services do not always bill refusals). A local stage
is costed in GPU-seconds from a measured rate: the mean seconds of the ``ok`` tries the study's
database already holds, else a row of :data:`MEASURED` for the same generator and model, else
"no measured rate".

>>> expected_tries(0.5, 3)
1.75
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import duckdb
import polars as pl

from cueshift.stimuli.slots import base_slots, variation_slots
from cueshift.study.config import Study

#: Generators that are paid services.
API_GENERATORS: Final = frozenset({"openai-images"})
#: Measured seconds per image of local generators: (generator, model, stage, seconds, where measured).
#: Only measurements belong here (a benchmark's output); none is shipped yet.
MEASURED: Final[tuple[tuple[str, str, str, float, str], ...]] = ()
COLUMNS: Final = [
    "stage", "generator", "model", "kind", "images", "calls_min", "calls_max", "calls_expected",
    "expected_retries", "fail_share", "fail_source", "cost_unit", "per_call", "cost_min", "cost_max",
    "cost_expected", "rate_source",
]  # fmt: skip


def expected_tries(p: float, max_tries: int) -> float:
    """Expected tries of one slot with failure probability ``p`` per try and at most ``max_tries``."""
    return float(max_tries) if p >= 1.0 else (1.0 - p**max_tries) / (1.0 - p)


def _stored(database: Path) -> dict[str, tuple[int, int, float | None]]:
    """Per stage of an earlier build in ``database``: tries, failed tries, mean seconds of ok tries."""
    if not database.is_file():
        return {}
    with duckdb.connect(str(database), read_only=True) as con:
        tables = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
        if ("generation",) not in tables:
            return {}
        rows = con.execute(
            "SELECT stage, count(*), count(*) FILTER (WHERE outcome <> 'ok'), "
            "avg(seconds) FILTER (WHERE outcome = 'ok') FROM generation GROUP BY stage"
        ).fetchall()
    return {str(s): (int(n), int(bad), None if sec is None else float(sec)) for s, n, bad, sec in rows}


def generation_cost(study: Study, database: Path | None = None) -> pl.DataFrame:
    """The cost of ``study``'s ``[build]``, one row per stage (empty without a ``[build]`` section).

    Parameters
    ----------
    study
        The study; its ``[build]`` section plans the slots.
    database
        Where an earlier (trial) build stored its tries (default: the study's database).

    Raises
    ------
    ConfigError
        A bad grid, prompt family or variation space (as ``cueshift build`` would say).
    """
    config = study.build
    if config is None:
        return pl.DataFrame(schema=dict.fromkeys(COLUMNS, pl.String()))
    stored = _stored(database or study.database_path)
    bases = base_slots(config)
    counts = {"base": len(bases)}
    if config.generator("variation") is not None:
        counts["variation"] = len(variation_slots(config, bases))
    rows, kept_share = [], 1.0
    for stage, images in counts.items():
        entry = config.generator(stage)
        assert entry is not None
        tries, bad, seconds = stored.get(stage, (0, 0, None))
        p = bad / tries if tries else None
        reach = images * kept_share  # a variation is made only for a kept base
        each = expected_tries(p, config.max_tries) if p is not None else None
        calls = None if each is None else reach * each
        price = entry.settings.get("price_per_image")
        api = entry.generator in API_GENERATORS or price is not None
        if api:
            rate, source = None, "price_per_image" if price is not None else "no price_per_image set"
        else:
            rate, source = _rate(entry.generator, entry.model, stage, seconds)
        unit_cost = float(price) if price is not None else rate
        low, high = images, images * config.max_tries
        rows.append(
            {
                "stage": stage,
                "generator": entry.generator,
                "model": entry.model,
                "kind": "api" if api else "local",
                "images": images,
                "calls_min": low,
                "calls_max": high,
                "calls_expected": calls,
                "expected_retries": None if calls is None else calls - reach,
                "fail_share": p,
                "fail_source": f"{tries} stored tries" if tries else "no build yet: calls from min to max",
                "cost_unit": "USD" if api else "GPU-seconds",
                "per_call": unit_cost,
                "cost_min": None if unit_cost is None else low * unit_cost,
                "cost_max": None if unit_cost is None else high * unit_cost,
                "cost_expected": None if unit_cost is None or calls is None else calls * unit_cost,
                "rate_source": source,
            }
        )
        kept_share = 1.0 if p is None else 1.0 - p**config.max_tries
    return pl.DataFrame(rows, infer_schema_length=None).select(COLUMNS)


def _rate(generator: str, model: str, stage: str, stored_seconds: float | None) -> tuple[float | None, str]:
    """Seconds per image of a local stage, and where they come from."""
    if stored_seconds is not None:
        return stored_seconds, "measured: this study's stored ok tries"
    for name, checkpoint, on, seconds, where in MEASURED:
        if (name, checkpoint, on) == (generator, model, stage):
            return seconds, f"measured: {where}"
    return None, "no measured rate (run a --limit build to measure one)"


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}".rstrip("0").rstrip(".")


def cost_lines(frame: pl.DataFrame) -> list[str]:
    """The cost table as one line per stage, for ``cueshift plan``'s output."""
    lines = []
    for row in frame.iter_rows(named=True):
        who = " ".join(part for part in (row["generator"], row["model"]) if part)
        calls = f"{row['calls_min']:,}-{row['calls_max']:,} calls"
        if row["calls_expected"] is not None:
            retries, failed = _number(row["expected_retries"]), f"{row['fail_share']:.0%}"
            calls = (
                f"{_number(row['calls_expected'])} calls expected ({retries} retries; "
                f"{failed} of {row['fail_source']} failed; {calls})"
            )
        else:
            calls += f" ({row['fail_source']})"
        unit = row["cost_unit"]
        if row["per_call"] is None:
            cost = f"{unit}: {row['rate_source']}"
        else:
            span = f"{_number(row['cost_min'])}-{_number(row['cost_max'])}"
            expected = "" if row["cost_expected"] is None else f"{_number(row['cost_expected'])} expected, "
            cost = f"{unit}: {expected}{span} at {_number(row['per_call'])} per call ({row['rate_source']})"
        lines.append(
            f"build {row['stage']} ({who}, {row['kind']}): {row['images']:,} images, {calls}; {cost}"
        )
    return lines


__all__ = ["API_GENERATORS", "COLUMNS", "MEASURED", "cost_lines", "expected_tries", "generation_cost"]
