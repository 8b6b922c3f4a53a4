r"""Power of one attribute's SBS test against the number of faces, for several effect sizes.

At each number of faces :math:`F` the test runs at the level BH reaches in the study's family of
values (:func:`~cueshift.power.analytic.bh_threshold` with the anticipated effects at :math:`F`). The
analytic curve is :func:`~cueshift.power.analytic.wsrt_power`; the simulated one draws, per replicate,
a study of :math:`F` faces whose values are the curve's effect sizes (each repeated
:data:`REPEATS` times, with the model's components) through the same φ-level draws and the same
signed-rank test as :mod:`cueshift.power.simulate`.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.extras import importing
from cueshift.power.analytic import bh_threshold, wsrt_power
from cueshift.power.components import PlanInputs
from cueshift.power.families import Targets
from cueshift.power.model import StudyModel, study_model
from cueshift.power.one_sample_sets import TestSet, attribute_sets
from cueshift.power.progress import SILENT, Progress
from cueshift.power.protocol import Protocol
from cueshift.power.replicates import batch_size, draw_batch
from cueshift.power.simulate import Simulations
from cueshift.stats import one_sample_test

#: Columns per effect size in a simulated curve study (more columns, less Monte Carlo error).
REPEATS = 8
#: The plan's note where :func:`figure_available` is false.
FIGURE_SKIPPED = (
    "power-curve figure skipped: it needs the 'report' extra (matplotlib is not installed): "
    "pip install 'cueshift[report]'; the curve's table (plan_curve) is written"
)
#: The progress task of the curve's simulated studies.
CURVE_TASK = "power curve"


def faces_grid(planned: int, points: int = 10) -> list[int]:
    """``points`` face counts from a tenth of the planned faces (at least 10) to twice the plan."""
    lo, hi = max(10, planned // 10), max(2 * planned, 20)
    grid = np.unique(np.round(np.geomspace(lo, hi, points)).astype(int))
    return [int(g) for g in grid]


def curve_effects(target: float) -> list[float]:
    """Half, once and twice the target effect."""
    return [round(target * k, 6) for k in (0.5, 1.0, 2.0)]


def _family_power(ts: TestSet, level: float) -> F64:
    return wsrt_power(ts.mean, ts.sd, ts.n, level)


def curve_model(sm: StudyModel, model_index: int, effects: Sequence[float]) -> StudyModel:
    """A one-model study whose values are ``effects`` × :data:`REPEATS`, every face getting each."""
    j = model_index
    beta = np.repeat(np.asarray(effects, dtype=np.float64), REPEATS)[None, :]
    n_c, n_f = beta.shape[1], sm.n_faces
    slope = np.sqrt(np.nanmedian(sm.slope_sd[j] ** 2 + np.nan_to_num(np.nanvar(sm.gamma[j], axis=1))))
    return replace(
        sm,
        models=(sm.models[j],),
        values=[f"{e}#{r}" for e in effects for r in range(REPEATS)],
        applies=np.ones((n_f, n_c), dtype=bool),
        beta=beta,
        gamma=np.zeros((1, n_c, n_f)),
        slope_sd=np.full((1, n_c), slope),
        slope_corr=np.eye(1),
        fs_sd=sm.fs_sd[j : j + 1],
        scenario_dev=np.zeros((1, n_c, sm.scenarios)),
        p0=sm.p0[j : j + 1],
        base_sd=sm.base_sd[j : j + 1],
        prompts=sm.prompts[j : j + 1],
        score=sm.score[j : j + 1],
        invalid=sm.invalid[j : j + 1],
        serving_sd=sm.serving_sd[j : j + 1],
        phi_error=sm.phi_error[j : j + 1],
    )


def power_curve(
    protocol: Protocol,
    inputs: PlanInputs,
    targets: Targets,
    simulations: Simulations = Simulations(),
    *,
    faces: Sequence[int] | None = None,
    effects: Sequence[float] | None = None,
    model_id: str | None = None,
    progress: Progress = SILENT,
) -> pl.DataFrame:
    """Analytic and simulated power of one value's SBS test per number of faces and effect size
    (``simulations.n`` simulated studies per point, drawn from ``simulations.seed`` in batches;
    ``progress`` gets the task ``power curve``'s studies done over all points).

    Returns
    -------
    polars.DataFrame
        ``model_id, units, effect, alpha_level, power, power_sim, power_sim_se, n_sims, seconds``.
    """
    faces = list(faces or faces_grid(protocol.n_faces))
    effects = list(effects or curve_effects(targets.effect))
    model_id = model_id or protocol.models[0]
    n_sims = simulations.n
    rng = np.random.default_rng(simulations.seed)
    rows = []
    points_done, total = 0, n_sims * len(faces)
    progress.step(CURVE_TASK, 0, total)
    for n_faces in faces:
        start = time.perf_counter()
        sm = study_model(protocol.with_faces(n_faces), inputs)
        j = sm.models.index(model_id)
        ts = attribute_sets(sm)[j]
        level = bh_threshold(partial(_family_power, ts), len(ts.labels), targets.q)
        curve = curve_model(sm, j, effects)
        sd = float(
            curve.slope_sd[0, 0] ** 2 + (curve.fs_sd[0] ** 2 + 2 * curve.phi_error[0]) / curve.scenarios
        )
        analytic = wsrt_power(np.asarray(effects), np.sqrt(sd), n_faces, level)
        shares = _shares(curve, rng, n_sims, level, len(effects), progress, (points_done, total))
        points_done += n_sims
        power_sim: F64 = shares.mean(axis=0)
        power_se: F64 = (
            shares.std(axis=0, ddof=1) / np.sqrt(n_sims) if n_sims > 1 else np.full(len(effects), np.nan)
        )
        seconds = time.perf_counter() - start
        for k, effect in enumerate(effects):
            rows.append(
                {
                    "model_id": model_id,
                    "units": n_faces,
                    "effect": effect,
                    "alpha_level": level,
                    "power": float(analytic[k]),
                    "power_sim": float(power_sim[k]),
                    "power_sim_se": float(power_se[k]),
                    "n_sims": n_sims,
                    "seconds": seconds,
                }
            )
    return pl.DataFrame(rows).with_columns(pl.col("units", "n_sims").cast(pl.Int64))


def _shares(
    curve: StudyModel,
    rng: np.random.Generator,
    n_sims: int,
    level: float,
    n_effects: int,
    progress: Progress,
    position: tuple[int, int],
) -> F64:
    """Per replicate, each effect's share of rejecting columns (``n_sims × effects``), batch by batch."""
    # the columns share base φ, so the Monte Carlo error comes from the spread of these shares,
    # not a binomial count
    shares = np.zeros((n_sims, n_effects))
    done = 0
    while done < n_sims:
        reps = min(batch_size(curve, n_sims), n_sims - done)
        means = draw_batch(curve, rng, reps).means[:, 0]  # R × columns × faces
        p = one_sample_test(means.reshape(-1, curve.n_faces).T)[1].reshape(reps, n_effects, REPEATS)
        shares[done : done + reps] = (p <= level).mean(axis=2)
        done += reps
        progress.step(CURVE_TASK, position[0] + done, position[1])
    return shares


def figure_available() -> bool:
    """Whether :func:`curve_figure` can draw (matplotlib, of the ``report`` extra, is installed);
    checked before any simulation, so a missing extra skips the figure instead of the plan."""
    return importlib.util.find_spec("matplotlib") is not None


def curve_figure(curve: pl.DataFrame, planned: int, target_power: float) -> bytes:
    """The power curve as a PNG: analytic lines, simulated points with ±2 SE, the planned faces."""
    import io

    with importing("report", "the plan's power-curve figure"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=150)
    for (effect,), part in curve.sort("units").group_by("effect", maintain_order=True):
        x = part["units"].to_numpy()
        (line,) = ax.plot(x, part["power"].to_numpy(), label=f"|Δ| = {effect:g}")
        ax.errorbar(
            x,
            part["power_sim"].to_numpy(),
            yerr=2 * part["power_sim_se"].to_numpy(),
            fmt="o",
            ms=3,
            color=line.get_color(),
            capsize=2,
        )
    ax.axvline(planned, color="grey", ls=":", lw=1)
    ax.axhline(target_power, color="grey", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("faces")
    ax.set_ylabel("power (BH within the values)")
    ax.set_title("SBS of one attribute: analytic (lines) and simulated (points ±2 SE)", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


__all__ = [
    "CURVE_TASK",
    "FIGURE_SKIPPED",
    "REPEATS",
    "curve_effects",
    "curve_figure",
    "curve_model",
    "faces_grid",
    "figure_available",
    "power_curve",
]
