"""The build loop: every image slot not finished yet is made, try by try, each try stored at once.

Guarantees (those of ``cueshift infer``, :mod:`cueshift.execution.runner`):

* **Exactly once.** A try's image file is written under its content hash, then its
  ``generation`` row is committed in its own transaction (key: image, try). A killed build
  loses at most the try in flight, which the next run makes again with the same seed; a
  stored try is never made again.
* **Resume.** A slot is finished when its last try is ``ok`` or it has ``max_tries`` tries.
* **Shards.** ``--shard K/N`` keeps the faces whose stable hash falls in shard K (a base and its
  variations together) and writes to its own database file; ``cueshift merge`` joins them.
* **Nothing written on bad input.** The grid, the prompt family, the features and the
  generators' settings are checked, and the generators built, before the database is opened.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from rich.console import Console

from cueshift.errors import ConfigError
from cueshift.execution.progress import progress_bar
from cueshift.execution.shard import UNSHARDED, Shard
from cueshift.stimuli.audit_gate import EditGate
from cueshift.stimuli.features import feature_space
from cueshift.stimuli.files import content_path, store_png
from cueshift.stimuli.generators.base import ImageGenerator, ImageRequest, ImageResult
from cueshift.stimuli.generators.registry import generator_spec
from cueshift.stimuli.records import SlotState, Try, stored_states, write_try
from cueshift.stimuli.slots import Slot, base_slots, variation_slots
from cueshift.study.build_config import BuildConfig
from cueshift.study.config import Study


@dataclass(frozen=True)
class BuildOptions:
    """How a build runs: database (default: the study's), shard, ``limit`` (base faces), progress."""

    database: Path | None = None
    shard: Shard = UNSHARDED
    limit: int | None = None
    progress: bool = True


@dataclass
class BuildPlan:
    """The slots of this build (after ``--limit`` and ``--shard``) and where its files go."""

    config: BuildConfig
    bases: list[Slot]
    variations: list[Slot]
    root: Path
    manifest: Path
    generators: dict[str, ImageGenerator] = field(default_factory=dict)


def build_config_of(study: Study) -> BuildConfig:
    """The study's ``[build]`` section (one line when it has none, or its image set is no manifest)."""
    if study.build is None:
        raise ConfigError(f"study {study.name!r} has no [build] section: nothing to make")
    if study.image_set.kind != "manifest" or study.image_set.manifest is None:
        raise ConfigError(
            "[image_set]: cueshift build writes the set a manifest names: "
            "set kind = 'manifest' and manifest = '<folder>/manifest.csv'"
        )
    return study.build


def plan_build(study: Study, options: BuildOptions) -> BuildPlan:
    """Every slot this build makes, checked, and the generators built (nothing written)."""
    config = build_config_of(study)
    if options.limit is not None and options.limit < 1:
        raise ConfigError(f"--limit {options.limit}: must be at least 1")
    bases = base_slots(config)[: options.limit]
    bases = [slot for slot, own in zip(bases, _owned(options.shard, bases), strict=True) if own]
    variation = config.generator("variation")
    variations = variation_slots(config, bases) if variation is not None else []
    manifest = Path(str(study.image_set.manifest))
    plan = BuildPlan(config, bases, variations, manifest.parent, manifest)
    for entry in config.generators:
        spec = generator_spec(entry.generator)
        if entry.stage not in spec.stages:
            raise ConfigError(
                f"[[build.generators]]: {entry.generator!r} cannot make the {entry.stage} stage"
            )
        spec.check_settings(entry.model, entry.settings)
    if config.generator("base") is None:
        raise ConfigError("[[build.generators]]: no generator for the base stage")
    for entry in config.generators:  # built last: weights load only for a sound study
        plan.generators[entry.stage] = generator_spec(entry.generator).build(entry.model, entry.settings)
    return plan


def _owned(shard: Shard, bases: list[Slot]) -> list[bool]:
    if shard.count == 1 or not bases:
        return [True] * len(bases)
    import polars as pl

    return [bool(v) for v in shard.owns(pl.Series([slot.face_id for slot in bases])).to_list()]


def seed_of(build_seed: int, image_id: str, number: int) -> int:
    """The seed of try ``number`` of an image (a new one each try; the same on every run)."""
    return random.Random(f"{build_seed}|{image_id}|{number}").randrange(2**31)


class Maker:
    """Makes the slots of ``plan`` into ``con`` (run ``run_id``), auditing edits with ``gate``."""

    def __init__(self, plan: BuildPlan, con: duckdb.DuckDBPyConnection, run_id: str, gate: EditGate) -> None:
        self.plan, self.con, self.run_id, self.gate = plan, con, run_id, gate
        self.states: dict[str, SlotState] = stored_states(con)
        self.n_tries = 0

    def finished(self, slot: Slot) -> bool:
        state = self.states.get(slot.image_id)
        return state is not None and (state.outcome == "ok" or state.tries >= self.plan.config.max_tries)

    def kept(self, image_id: str) -> str | None:
        """The hash of the slot's kept image, if it has one."""
        state = self.states.get(image_id)
        return state.sha256 if state is not None and state.outcome == "ok" else None

    def make(self, slot: Slot) -> None:
        """Tries until the slot is kept or ``max_tries`` are spent (a variation of a lost base: none)."""
        parent_png: bytes | None = None
        parent_path: Path | None = None
        if slot.parent_id is not None:
            parent_sha = self.kept(slot.parent_id)
            if parent_sha is None:
                return
            parent_path = content_path(self.plan.root, parent_sha)
            parent_png = parent_path.read_bytes()
        generator = self.plan.generators[slot.stage]
        config = self.plan.config
        while not self.finished(slot):
            state = self.states.get(slot.image_id)
            number = (state.tries if state else 0) + 1
            seed = seed_of(config.seed, slot.image_id, number)
            request = ImageRequest(slot.stage, slot.prompt, seed, parent_png, config.width, config.height)  # type: ignore[arg-type]
            started = time.perf_counter()
            result = _call(generator, request)
            seconds = result.seconds or time.perf_counter() - started
            outcome: str = result.outcome
            message, sha256 = result.message, None
            if outcome == "ok":
                png = result.png or b""
                if not _is_image(png):
                    outcome, message = "failed", "the generator returned no readable image"
                else:
                    sha256, path = store_png(self.plan.root, png)
                    if parent_path is not None and self.gate.active:
                        same = slot.framing == "face"
                        reason = self.gate.reason(
                            parent_path, path, str(slot.feature_key), str(slot.value), same
                        )
                        if reason:
                            outcome, message = "rejected", reason
            attempt = Try(
                slot, generator.name, generator.model, seed, number, outcome, message, sha256, seconds
            )
            write_try(self.con, attempt, self.run_id)
            self.n_tries += 1
            self.states[slot.image_id] = SlotState(number, outcome, sha256)


def _call(generator: ImageGenerator, request: ImageRequest) -> ImageResult:
    """The generator's answer; an exception it should have returned is a failed try."""
    try:
        return generator.generate(request)
    except Exception as exc:  # noqa: BLE001 - a generator bug must not lose the build
        return ImageResult("failed", None, f"{type(exc).__name__}: {exc}".splitlines()[0][:500], 0.0)


def _is_image(png: bytes) -> bool:
    import io

    from PIL import Image, UnidentifiedImageError

    if not png:
        return False
    try:
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
    except (OSError, UnidentifiedImageError, SyntaxError, ValueError):
        return False
    return True


def make_all(plan: BuildPlan, maker: Maker, console: Console | None, progress: bool) -> None:
    """Bases first, then their variations, with a progress bar and ETA over the slots."""
    slots = [*plan.bases, *plan.variations]
    with progress_bar(progress, console) as bar:
        task = bar.add_task("building", total=len(slots), rate="") if bar else None
        started = time.perf_counter()
        for slot in slots:
            maker.make(slot)
            if bar is not None and task is not None:
                rate = f"{maker.n_tries / max(time.perf_counter() - started, 1e-9):.2f} calls/s"
                bar.update(task, advance=1, description=slot.stage, rate=rate)


def features_of(plan: BuildPlan) -> dict[str, list[str]]:
    """The build's feature space (the cue measure's competing values)."""
    return feature_space(plan.config.variations)


__all__ = ["BuildOptions", "BuildPlan", "Maker", "build_config_of", "make_all", "plan_build", "seed_of"]
