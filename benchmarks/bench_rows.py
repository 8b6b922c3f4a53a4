"""Judgment rows the storage benchmarks write (``bench_ingest.py``, ``bench_backend_hf.py``): a
frame of ``n`` rows, and the seed 000 protocol's rows at paper scale as a function of a range."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import numpy as np
import polars as pl
import repo_root  # noqa: F401  (the repository root on sys.path: tests.simulate)

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25


def judgment_frame(n: int) -> pl.DataFrame:
    """``n`` judgment rows : 100 rows per image, real scenario ids."""
    rng = np.random.default_rng(1)
    idx = np.arange(n)
    letters = np.where(rng.random(n) < 0.5, "a", "b")
    return pl.DataFrame(
        {
            "model_id": ["tiny"] * n,
            "image_id": [f"img{i // 100:06d}" for i in idx],
            "scenario_id": [STYLISTICBIAS_25[(i // 4) % 25].scenario_id for i in idx],
            "ordering": pl.Series((idx % 4 + 1).tolist(), dtype=pl.Int32),
            "seed": pl.Series([0] * n, dtype=pl.Int32),
            "response_text": [f"({c})" for c in letters],
            "outcome": np.where(letters == "a", "favorable", "unfavorable").tolist(),
            "chosen_letter": letters.tolist(),
            "p_favorable": rng.random(n),
            "p_neither": rng.random(n) * 0.01,
            "latency_ms": rng.random(n) * 5,
            "created_at": pl.Series([dt.datetime(2026, 1, 1)] * n, dtype=pl.Datetime("us")),
            "run_id": ["bench"] * n,
        }
    )


PAPER_MODELS = ("gemma-3", "gemma-4", "internvl3", "llava-v1.6", "pixtral", "qwen3")


def paper_rows(faces: int) -> tuple[Callable[[int, int], pl.DataFrame], int, int]:
    """The seed 000 protocol's judgment rows as a function of (first row, count); total, images."""
    from tests.simulate.study import SimulationSpec, simulate_study

    sim = simulate_study(SimulationSpec(n_faces=faces, models=PAPER_MODELS, seed=2026))
    images = sim.tables["image"].filter(pl.col("evaluated"))["image_id"]
    scenarios = pl.Series([s.scenario_id for s in STYLISTICBIAS_25])
    models = pl.Series(list(PAPER_MODELS))
    per_model = images.len() * 300

    def rows(lo: int, n: int) -> pl.DataFrame:
        i = pl.int_range(lo, lo + n, dtype=pl.Int64, eager=True)
        fav = (i * 2654435761 % 1000) < 500
        return pl.DataFrame(
            {
                "model_id": models.gather(i // per_model),
                "image_id": images.gather((i // 300) % images.len()),
                "scenario_id": scenarios.gather((i // 12) % 25),
                "ordering": ((i // 3) % 4 + 1).cast(pl.Int32),
                "seed": (i % 3 + 1).cast(pl.Int32),
                "response_text": pl.Series(["(a)"] * n),
                "outcome": pl.Series(["favorable"] * n).zip_with(fav, pl.Series(["unfavorable"] * n)),
                "chosen_letter": pl.Series(["a"] * n, dtype=pl.String),
                "p_favorable": pl.Series([None] * n, dtype=pl.Float64),
                "p_neither": pl.Series([None] * n, dtype=pl.Float64),
                "latency_ms": pl.Series([1.0] * n),
                "created_at": pl.Series([dt.datetime(2026, 1, 1)] * n, dtype=pl.Datetime("us")),
                "run_id": pl.Series(["bench"] * n),
            }
        )

    return rows, per_model * len(PAPER_MODELS), images.len()
