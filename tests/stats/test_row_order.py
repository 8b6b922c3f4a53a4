"""Results do not depend on the order of the rows (docs/decisions.md#d4).

Per-face means are summed exactly (Δ and φ as integers over a common denominator), so the same
judgments give bit-identical p-values whatever order DuckDB or a frame holds them in, and two
faces whose means are equal rationals are tied in every order.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.stats import (
    category_demographic_table,
    demographic_tests,
    demographic_variation_table,
    fashion_age_table,
    sbs_levels,
)
from cueshift.stats import Resampling, face_matrix, signed_rank_columns
from cueshift.views import read_base_phi, read_delta
from tests.render.study_db import build_study_db

# Δ = k_v/n_v − k_b/n_b of three scenarios (as the delta view subtracts two φ): 2/12 − 5/11,
# 3/5 − 2/11, 5/11 − 3/9. Their mean is 83/990, but float sums in different orders give two
# doubles 2 ulp apart.
_ROWS = [(2, 12, 5, 11), (3, 5, 2, 11), (5, 11, 3, 9)]
_MEAN = Fraction(83, 990)


def _issue_frame(order: list[int]) -> pl.DataFrame:
    """Faces a and b with the same three Δ rows (b's in ``order``)."""
    rows = []
    for face, idx in (("a", [0, 1, 2]), ("b", order)):
        for i in idx:
            kv, nv, kb, nb = _ROWS[i]
            rows.append((face, f"s{i}", kv / nv, kb / nb, kv / nv - kb / nb, nv, nb))
    return pl.DataFrame(
        rows,
        schema=[
            "face_id",
            "scenario_id",
            "phi_variation",
            "phi_base",
            "delta",
            "n_valid_variation",
            "n_valid_base",
        ],
        orient="row",
    ).with_columns(variation_value=pl.lit("Messy"))


def test_equal_rationals_reached_by_different_sums_are_one_double():
    exact = float(_MEAN)
    values = [kv / nv - kb / nb for kv, nv, kb, nb in _ROWS]
    means = {sum(values[i] for i in order) / 3 for order in permutations(range(3))}
    assert len(means) > 1  # the float-noise case: summation order decides the last bits
    for order in permutations(range(3)):
        fm = face_matrix(_issue_frame(list(order)), ["variation_value"], faces=["a", "b"])
        assert fm.values[:, 0].tolist() == [exact, exact]
    # without count columns the default denominator 27720 = lcm(1..12) holds them too
    no_counts = _issue_frame([2, 1, 0]).drop("n_valid_variation", "n_valid_base")
    fm = face_matrix(no_counts, ["variation_value"], faces=["a", "b"])
    assert fm.values[:, 0].tolist() == [exact, exact]


def test_signed_rank_sees_the_same_ties_in_every_order():
    """Faces a, b (equal means 83/990, the smallest |Δ|) and four others. Tied, a and b have
    mid-rank 1.5 and R+ = 1.5 + 1.5 + 4 + 5 = 12 of the 64 sign vectors' null: P(R+ ≥ 12) =
    26/64, two-sided 13/16 (untied, the exact null of ranks 1..6 gives 27/32)."""
    extra = [("d", 1 / 4), ("e", -1 / 8), ("f", 1 / 3), ("g", -1 / 2)]
    p_values = set()
    for order in permutations(range(3)):
        frame = _issue_frame(list(order))
        more = pl.DataFrame(
            [(f, "s0", 0.5, 0.5 - v, v, 12, 12) for f, v in extra], schema=frame.columns[:-1], orient="row"
        ).with_columns(variation_value=pl.lit("Messy"))
        frame = pl.concat([frame, more])
        faces = sorted(frame["face_id"].unique().to_list())
        fm = face_matrix(frame, ["variation_value"], faces=faces)
        p_values.add(float(signed_rank_columns(fm.values).p_value[0]))
    assert p_values == {13 / 16}


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_study_db(
        tmp_path_factory.mktemp("order") / "study.duckdb", n_faces=12, scenarios_per_category=1, n_seeds=1
    )


def _reinserted(path: Path, out: Path, seed: int) -> Path:
    """A copy of the study whose judgment rows were written back in a random order."""
    out.write_bytes(path.read_bytes())
    con = store.open_study(out)
    try:
        con.execute(
            "CREATE TEMP TABLE shuffled AS SELECT * FROM judgment ORDER BY hash(image_id || ?::VARCHAR)",
            [seed],
        )
        con.execute("DELETE FROM judgment")
        con.execute("INSERT INTO judgment SELECT * FROM shuffled")
    finally:
        con.close()
    return out


def _frames(path: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    con = store.open_study(path)
    try:
        return read_delta(con), read_base_phi(con)
    finally:
        con.close()


def _p_columns(delta: pl.DataFrame, base: pl.DataFrame) -> dict[str, pl.DataFrame]:
    boot = Resampling(resamples=30, seed=3)
    tables = {
        "result_sbs": sbs_levels(delta, resampling=boot),
        "table3": category_demographic_table(delta, resampling=boot),
        "table11": demographic_variation_table(delta, resampling=boot),
        "table4": fashion_age_table(delta, resampling=boot),
        "demographic_tests": demographic_tests(base, resampling=Resampling(resamples=30, seed=3)),
    }
    return {name: t.select(c for c in t.columns if c.startswith("p_")) for name, t in tables.items()}


def test_p_values_are_bit_identical_in_every_row_order(study: Path, tmp_path: Path):
    delta, base = _frames(study)
    assert {"n_valid_variation", "n_valid_base"} <= set(delta.columns) and "n_valid" in base.columns
    # DuckDB: the same judgments inserted in another order read back as the same frames
    again_delta, again_base = _frames(_reinserted(study, tmp_path / "shuffled.duckdb", seed=7))
    assert again_delta.equals(delta) and again_base.equals(base)
    reference = _p_columns(delta, base)
    assert all(t.width > 0 and t.height > 0 for t in reference.values())
    rng = np.random.default_rng(1)
    for _ in range(2):
        shuffled = _p_columns(
            delta[rng.permutation(delta.height).tolist()], base[rng.permutation(base.height).tolist()]
        )
        for name, table in reference.items():
            # NaN == NaN for this comparison: compare the bit patterns
            ours = shuffled[name].select(pl.all().cast(pl.Float64)).to_numpy().view(np.int64)
            assert np.array_equal(ours, table.select(pl.all().cast(pl.Float64)).to_numpy().view(np.int64)), (
                name
            )


@pytest.mark.parametrize(
    ("n_rows", "scale"),
    [(60, 1.0), (20_000, 1.0), (30, 1e6)],  # float adds; int64 adds (sums past 2^52); a coarser grid
)
def test_values_that_are_not_ratios_go_on_the_grid_in_any_order(n_rows, scale):
    """Continuous values (e.g. φ_expected) are snapped to 2^-40 and added exactly: the means are
    bit-identical in every order and within the grid's rounding of the plain mean."""
    rng = np.random.default_rng(n_rows)
    frame = pl.DataFrame(
        {
            "face_id": rng.choice(["a", "b", "c"], n_rows),
            "variation_value": rng.choice(["x", "y"], n_rows),
            "phi_expected": rng.uniform(-1.0, 1.0, n_rows) * scale,
        }
    )
    reference = face_matrix(frame, ["variation_value"], faces=["a", "b", "c"], value="phi_expected").values
    plain = (
        frame.group_by("face_id", "variation_value")
        .agg(pl.col("phi_expected").mean())
        .sort("face_id", "variation_value")
    )
    np.testing.assert_allclose(
        reference.ravel(), plain["phi_expected"].to_numpy(), rtol=1e-12, atol=1e-12 * scale
    )
    for _ in range(3):
        shuffled = frame[rng.permutation(n_rows).tolist()]
        again = face_matrix(shuffled, ["variation_value"], faces=["a", "b", "c"], value="phi_expected").values
        assert again.tobytes() == reference.tobytes()
