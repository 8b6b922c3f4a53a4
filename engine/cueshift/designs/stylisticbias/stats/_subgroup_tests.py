"""Seed 000 Table 9 per crossed subgroup (e.g. age × gender): base-face φ differences between
crossed groups per model × scenario, composed from :func:`demographic_tests` and
:func:`significance_share` with the crossed dimensions of
:mod:`cueshift.designs.stylisticbias.stats._subgroups`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

import polars as pl

from cueshift.designs.stylisticbias.stats._demographic import (
    demographic_tests,
    significance_share,
)
from cueshift.designs.stylisticbias.stats._subgroups import (
    DEFAULT_PAIRS,
    Pair,
    add_crossed_dimensions,
    crossed_name,
)
from cueshift.stats import ALPHA, Resampling, bh_by_family, returns

#: Fewest faces per group for Kruskal–Wallis' chi-square approximation (scipy.stats.kruskal:
#: "each sample must have at least 5 measurements").
MIN_KRUSKAL_GROUP_FACES: Final = 5


@returns("demographic_tests_crossed")
def crossed_demographic_tests(
    base_phi: pl.DataFrame,
    *,
    pairs: Sequence[Pair] = DEFAULT_PAIRS,
    resampling: Resampling = Resampling(),
    min_group_faces: int = MIN_KRUSKAL_GROUP_FACES,
) -> pl.DataFrame:
    r"""Do base-face φ differ between crossed groups? One test per model × scenario × crossed
    dimension, by :func:`demographic_tests` with the crossed dimensions (every crossed dimension
    has more than two groups: Kruskal–Wallis H, or label permutation).

    H is referred to :math:`\chi^2_{k-1}`, which needs about 5 observations per group [1]_: where
    the smallest crossed group has fewer than ``min_group_faces`` faces with φ (``n_group_min``),
    the rank test is replaced by :func:`demographic_tests`' label-permutation test of the group
    means, exact at any group size (``test = 'label-permutation'``, with ``resampling``'s
    resamples and seed). A cell with fewer than two groups, or whose faces all have the same φ
    (H = 0/0), has no test (``untested_reason``).
    ``p_adj``: BH within each model over every crossed dimension × scenario (Table 9: within
    model × dimension), the larger family.

    References
    ----------
    .. [1] Kruskal, W. H. & Wallis, W. A. (1952). Use of ranks in one-criterion variance
       analysis. *JASA* 47, 583–621 (§6: the chi-square approximation for small samples).
    """
    data = add_crossed_dimensions(base_phi.filter(pl.col("phi").is_not_null()), pairs)
    names = [crossed_name(p) for p in pairs if data[crossed_name(p)].null_count() < data.height]
    key = ["model_id", "scenario_id", "dimension"]
    tests = demographic_tests(data, dimensions=names, two_group_dimensions=(), resampling=resampling).join(
        _smallest_groups(data, names), on=key, how="left", maintain_order="left"
    )
    small = tests.filter((pl.col("test") == "kruskal-wallis") & (pl.col("n_group_min") < min_group_faces))
    if not small.is_empty():
        exact = demographic_tests(
            data,
            dimensions=small["dimension"].unique().sort().to_list(),
            two_group_dimensions=(),
            resampling=replace(resampling, test="permutation"),
        )
        replaced = exact.join(small.select(*key, "n_group_min"), on=key).select(tests.columns)
        tests = pl.concat([tests.join(small.select(key), on=key, how="anti"), replaced])
    order = ["model_id", "dimension", "scenario_category", "scenario_id"]
    out = bh_by_family(tests.drop("p_adj").sort(order), ["model_id"]).with_columns(
        untested_reason=pl.when(pl.col("p").is_null()).then(
            pl.when((pl.col("test") == "kruskal-wallis") & (pl.col("df") >= 1))
            .then(pl.lit("every face has the same φ"))  # H = 0/0
            .otherwise(pl.lit("fewer than two crossed groups with φ"))
        )
    )
    return out.select(*[c for c in tests.columns if c != "n_group_min"], "n_group_min", "untested_reason")


def _smallest_groups(data: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    """Faces of the smallest crossed group with φ per model × scenario × crossed dimension."""
    return pl.concat(
        [
            data.filter(pl.col(d).is_not_null())
            .group_by("model_id", "scenario_id", d)
            .agg(pl.col("face_id").n_unique().alias("faces"))
            .group_by("model_id", "scenario_id")
            .agg(pl.col("faces").min().cast(pl.Int64).alias("n_group_min"))
            .with_columns(dimension=pl.lit(d))
            for d in names
        ]
    )


@returns("table9_crossed")
def crossed_significance_share(tests: pl.DataFrame, *, alpha: float = ALPHA) -> pl.DataFrame:
    """Share of scenarios with a significant crossed-group difference per model × crossed dimension
    (Table 9 on :func:`crossed_demographic_tests`; ``n`` counts the tested scenarios), plus the
    ``"(mean of models)"`` rows."""
    return significance_share(tests, alpha=alpha)
