"""``cueshift check-invariance`` and :func:`cueshift.check_invariance`: do stored answers depend on
batching? A stratified sample of stored judgments is asked again (docs/invariance.md):

``one_at_a_time``
    each judgment alone (one row per call; the transformers backend with ``batch_size = 1``);
``batched``
    as the run asked: every unit of a sampled judgment's image in one call, in asking order, with
    the run's settings (the transformers backend batches an image's prompts ``batch_size`` rows
    per forward pass or ``generate`` call);
``score``
    for a transformers run in ``generate`` mode, score mode's greedy answer (reported, not held to
    the bound: a sampled answer may differ from the greedy one by design).

Same seeds as stored, so a seeded generate run must give identical answers. ``result_invariance``
is replaced in one transaction (a failing check writes nothing); ``status`` and the report flag a
model whose ``one_at_a_time`` or ``batched`` share of identical answers is below ``bound``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from cueshift import store
from cueshift.designs.registry import design_of
from cueshift.designs.work import UnitKind
from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution.invariance_sample import compare, stratified_sample
from cueshift.inference.backends import Backend, backend_spec
from cueshift.schemas.invariance import validate_invariance
from cueshift.store.damage import verify_blocks
from cueshift.study.config import ModelConfig, Study

#: Default share of identical answers below which a model is flagged.
DEFAULT_BOUND = 0.99
#: Default judgments sampled per model.
DEFAULT_SAMPLE = 200


def check_invariance_study(
    path: Path,
    study: Study,
    *,
    models: Sequence[str] = (),
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
    bound: float = DEFAULT_BOUND,
    note: Callable[[str], None] = lambda line: None,
) -> tuple[Path, pl.DataFrame]:
    """Re-ask a stratified sample of ``path``'s judgments and store ``result_invariance``.

    Parameters
    ----------
    path, study
        The study database and the study whose models answered it.
    models
        The model subset (empty: every model of the study with judgments).
    sample, seed
        Judgments per model (balanced over scenario category × ordering) and the sampling seed.
    bound
        Flag a model whose share of identical answers is below this.
    note
        Gets a line for each thing the user should know.

    Returns
    -------
    (Path, polars.DataFrame)
        The database written and ``result_invariance``.
    """
    from cueshift.store.analysis_target import analysis_target
    from cueshift.store.model_subset import check_models

    if sample < 1:
        raise ConfigError(f"--sample {sample}: use 1 or more")
    if seed < 0:
        raise ConfigError(f"--seed {seed}: use 0 or more")
    if not 0.0 < bound <= 1.0:
        raise ConfigError(f"--bound {bound}: use a share in (0, 1]")
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    con = store.open_study(path, read_only=True, announce=False)
    try:
        verify_blocks(con, path)  # a damaged block: refused before a model is loaded and asked (D79)
        sampled = stratified_sample(con, check_models(con, path, list(models) or None), sample, seed)
    finally:
        con.close()
    configs = {m.model_id: m for m in study.models}
    for model_id in sorted(set(sampled["model_id"]) - set(configs)):
        note(f"model {model_id!r}: not in study {study.name!r}, not re-asked")
    sampled = sampled.filter(pl.col("model_id").is_in(list(configs)))
    if sampled.height == 0:
        raise CueshiftError(f"{path}: no stored judgments of the study's models to re-ask")
    workload = design_of(study).workload(study, progress=False)
    kind = next((k for k in workload.units if k.table == "judgment"), None)
    if kind is None:
        raise ConfigError(f"cueshift check-invariance: design {study.design!r} stores no judgments")
    rows: list[dict[str, Any]] = []
    for (model_id,), part in sampled.group_by("model_id", maintain_order=True):
        note(f"model {model_id!r}: re-asking {part.height} stored judgments")
        rows += _check_model(configs[str(model_id)], kind, workload.context, part, bound)
    nullable = {"batch_size": pl.Int64, "kappa": pl.Float64, "max_abs_p_diff": pl.Float64}
    bounds = {"phi_diff_ci_low": pl.Float64, "phi_diff_ci_high": pl.Float64}
    frame = validate_invariance(pl.DataFrame(rows, schema_overrides={**nullable, **bounds}))
    target, line = analysis_target(path)
    if line is not None:
        note(line)
    con = store.open_study(target)
    try:
        store.replace_results(con, {"invariance": frame})
    finally:
        con.close()
    return target, frame


def _variant(model: ModelConfig, **settings: Any) -> ModelConfig:
    """``model`` with ``settings`` overriding its own (transformers only; others as they are)."""
    if model.backend != "transformers":
        return model
    return model.model_copy(update={"settings": {**model.settings, **settings}})


def _check_model(
    model: ModelConfig, kind: UnitKind, context: Any, part: pl.DataFrame, bound: float
) -> list[dict[str, Any]]:
    mode = str(model.settings.get("mode", "score")) if model.backend == "transformers" else model.backend
    setting = model.settings.get("batch_size", "auto") if model.backend == "transformers" else None
    plans: list[tuple[str, ModelConfig, int | None, bool]] = [
        ("one_at_a_time", _variant(model, batch_size=1), 1, True),
        ("batched", model, setting if isinstance(setting, int) else None, True),
    ]
    if model.backend == "transformers" and mode == "generate":
        plans.append(("score", _variant(model, mode="score", batch_size=1), 1, False))
    key = [c for c in kind.key if c != kind.model_column]
    rows = []
    units: pl.DataFrame | None = None  # the run's units (its mode's seeds), from the first plan
    for comparison, config, rows_per_call, checked in plans:
        backend = backend_spec(config.backend).build(config, context)
        try:
            if units is None:
                units = kind.units(config, backend)
                units = units.select(list(kind.columns) if kind.columns is not None else units.columns)
            wanted = part.select(key).cast({c: units.schema[c] for c in key})
            alone = comparison != "batched"
            answers = pl.concat(list(_ask_all(backend, kind, config.model_id, units, wanted, alone=alone)))
        finally:
            backend.close()
        reasked = wanted.join(answers.unique(key, keep="first"), on=key, how="left", maintain_order="left")
        if reasked["outcome"].null_count():
            raise CueshiftError(
                f"model {model.model_id!r}: {reasked['outcome'].null_count()} sampled judgments are no "
                "longer units of the study (changed seeds or scenarios?); "
                "check the database against its study file"
            )
        rows.append(
            compare(part, reasked, comparison=comparison, mode=mode, batch_size=rows_per_call,
                    bound=bound, checked=checked)
        )  # fmt: skip
    return rows


def _ask_all(
    backend: Backend, kind: UnitKind, model_id: str, units: pl.DataFrame, wanted: pl.DataFrame, *, alone: bool
) -> Iterator[pl.DataFrame]:
    """The answers (key, ``outcome``, ``p_favorable``) to ``wanted``: one unit per call when
    ``alone``, else every unit of each wanted image in one call (in asking order)."""
    key = list(wanted.columns)
    if alone:
        one = [wanted.slice(i, 1) for i in range(wanted.height)]
        batches = [units.join(row, on=key, how="semi", maintain_order="left") for row in one]
    else:
        images = wanted["image_id"].unique(maintain_order=True).to_list()
        batches = [units.filter(pl.col("image_id") == image) for image in images]
    for batch in batches:
        asked = kind.request(batch) if kind.request is not None else batch
        answers = getattr(backend, kind.method)(asked)
        if answers.failures:
            failed = answers.failures[0].error
            raise CueshiftError(f"model {model_id!r}: {failed} (while re-asking; nothing written)")
        parsed = kind.parse(batch, answers, model_id, "check-invariance")
        yield parsed.select(*key, "outcome", "p_favorable")


__all__ = ["DEFAULT_BOUND", "DEFAULT_SAMPLE", "check_invariance_study"]
