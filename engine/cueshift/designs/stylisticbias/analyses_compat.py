"""Replication-mode tables (``cueshift analyze --compat release``; :mod:`.compat`): run after the
default tables, only in that mode, each written as ``result_release_<table>``, and the cells where
the two modes differ."""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.compat import (
    CHOICES,
    DIFFERENCE_SCHEMA,
    TABLE_CELLS,
    Variants,
    cell_differences,
    release_inputs,
    release_table_rows,
    release_tables,
)
from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.stats import Declarations, NotApplicable, RunSettings

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


def _release_mode(settings: RunSettings) -> bool:
    return settings.compat == "release"


def _variants(ctx: Context) -> dict[str, Variants]:
    """The release tables of this run (computed by the first replication-mode analysis, kept in
    the run's context for the others)."""

    def compute() -> dict[str, Variants]:
        default = {name: ctx.results[name] for name in TABLE_CELLS if name in ctx.results}
        return release_tables(default, ctx.inputs, release_inputs(ctx.inputs))

    return ctx.once("release tables", compute)


def _release(name: str, ctx: Context) -> pl.DataFrame:
    variants = _variants(ctx).get(name)
    if variants is None:
        raise NotApplicable(f"no default {name} in this run to reproduce")
    return release_table_rows(name, variants[0])


_CHOICE_OF = {
    "table5": "phi_denominator, release_reading, cohens_d_rows, sbs_rows",
    "table2_vs": "phi_denominator, release_reading, vs_ddof",
    "table3": "phi_denominator, release_reading, min_faces, untestable_p1, table3_family",
    "table11": "phi_denominator, release_reading, min_faces, untestable_p1",
}

for _name, _choices in _CHOICE_OF.items():

    def _compute(ctx: Context, name: str = _name) -> pl.DataFrame:
        return _release(name, ctx)

    DECLARED(
        f"release_{_name}",
        description=f"{_name} as the seed release computes it ({_choices}; --compat release)",
        source="judgment (release phi), " + ("base_phi" if _name == "table2_vs" else "delta"),
        grouping=", ".join(TABLE_CELLS[_name][0]),
        statistic=f"as result_{_name}",
        family="untested cells as p = 1" if "untestable_p1" in _choices else "as the default table",
        when=_release_mode,
        after=tuple(TABLE_CELLS),
        database=True,
    )(_compute)


@DECLARED(
    "compat_differences",
    description="Each result cell where --compat release differs from the default, and the choice causing it",
    source=", ".join(f"result_{n}, result_release_{n}" for n in TABLE_CELLS),
    grouping="table x key x column",
    statistic="release - default; " + "; ".join(f"{k}: {v}" for k, v in CHOICES.items()),
    family="none",
    when=_release_mode,
    after=(*TABLE_CELLS, *(f"release_{name}" for name in _CHOICE_OF)),
    database=True,
)
def _differences(ctx: Context) -> pl.DataFrame:
    variants = _variants(ctx)
    parts = [cell_differences(name, ctx.results[name], v) for name, v in variants.items()]
    return pl.concat(parts) if parts else pl.DataFrame(schema=DIFFERENCE_SCHEMA)
