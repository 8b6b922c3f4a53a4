"""Study configuration: one TOML file (or the embedded default) describes a whole study.

:class:`Study` holds what every study file has (name, images, scenarios, prompt, seeds,
models). Each study design extends it with its own section (``[paired]``, ``[pairwise]``,
...) in a subclass whose ``design`` is a literal: the subclasses form a discriminated union
on ``design``, assembled by the design registry (:func:`cueshift.designs.load_study`),
which this layer does not know. Here: the common model and its ``[image_set]`` section; the
``[scenarios]`` and ``[prompt]`` sections are :mod:`cueshift.study.scenario_config`'s, reading a
study file and validating data against a model with one-line errors
:mod:`cueshift.study.reading`'s.

Relative paths are resolved against the current working directory.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from cueshift.study._frozen import _Frozen
from cueshift.study.audit import AuditConfig
from cueshift.study.build_config import BuildConfig
from cueshift.study.checks import check_seeds
from cueshift.study.scenario_config import PromptConfig, ScenarioConfig
from cueshift.study.variations import VariationFilter

#: The design of a study file without a ``design`` key (seed 000's StylisticBias protocol).
DEFAULT_DESIGN = "stylisticbias"
#: Designs whose analyses read the noise-floor placebos: their study files include them unless
#: ``[image_set] placebos = false``; any other design refuses ``placebos = true``.
PLACEBO_DESIGNS: frozenset[str] = frozenset({DEFAULT_DESIGN})


#: The study file's section of the images: ``[image_set]``.
IMAGE_SET_SECTION = "image_set"
#: The section's old name, still read, with a :class:`FutureWarning` (docs/decisions.md, "One
#: name per thing").
OLD_IMAGE_SET_SECTION = "benchmark"


class ImageSetConfig(_Frozen):
    """``[image_set]``: where the images come from.

    ``demo``: the embedded synthetic faces, rendered on demand into ``cache_dir``;
    ``stylisticbias``: the release layout under ``root``; ``manifest``: a CSV/Parquet file;
    ``omi``: the One Million Impressions faces under ``root/images``.
    """

    kind: Literal["demo", "stylisticbias", "manifest", "omi"] = "demo"
    size: Literal["small", "paper"] | int = Field(
        default="small", description="demo only: 'small' (90 faces), 'paper' (500 faces) or a face count"
    )
    root: Path | None = None
    manifest: Path | None = None
    cache_dir: Path = Path(".cueshift-cache/demo")
    placebos: bool = Field(
        default=False,
        description="add the noise-floor placebos (an identical copy and a lossless re-encode of every "
        "base image); a study file of a design whose analyses read them gets true unless it says false",
    )

    @field_validator("size")
    @classmethod
    def _positive(cls, value: str | int) -> str | int:
        if isinstance(value, int) and value < 1:
            raise ValueError("must be 'small', 'paper' or a positive face count")
        return value

    @model_validator(mode="after")
    def _source_given(self) -> ImageSetConfig:
        if self.kind == "stylisticbias" and self.root is None:
            raise ValueError("kind 'stylisticbias' needs root = <folder of the release>")
        if self.kind == "omi" and self.root is None:
            raise ValueError("kind 'omi' needs root = <OMI folder with images/>")
        if self.kind == "manifest" and self.manifest is None:
            raise ValueError("kind 'manifest' needs manifest = <file.csv|file.parquet>")
        return self


#: The old name of :class:`ImageSetConfig`, kept for code that imports it.
BenchmarkConfig = ImageSetConfig


def _old_section_renamed(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with a ``[benchmark]`` section (the old name) read as ``[image_set]``, and a warning."""
    if OLD_IMAGE_SET_SECTION not in data:
        return data
    if IMAGE_SET_SECTION in data:
        raise ValueError("[benchmark] is the old name of [image_set]: give only [image_set]")
    warnings.warn(
        "[benchmark] is the old name of the study file's [image_set] section: rename it", FutureWarning, 3
    )
    return {(IMAGE_SET_SECTION if k == OLD_IMAGE_SET_SECTION else k): v for k, v in data.items()}


class ModelConfig(_Frozen):
    """One judge. ``settings`` go to the backend (and into the ``model`` table; no secrets)."""

    model_id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    backend: str = "simulated"
    checkpoint: str = ""
    revision: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)


class Study(_Frozen):
    """What every study file holds; a design's subclass narrows ``design`` and adds its section."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    description: str = ""
    design: str = Field(default=DEFAULT_DESIGN, min_length=1)
    database: Path | None = Field(default=None, description="default: runs/<name>.duckdb")
    image_set: ImageSetConfig = Field(default_factory=ImageSetConfig)
    variations: VariationFilter = Field(default_factory=VariationFilter)
    scenarios: ScenarioConfig = Field(default_factory=ScenarioConfig)
    prompt: PromptConfig = Field(default_factory=PromptConfig)
    seeds: list[int] = Field(default_factory=lambda: [1, 2, 3], min_length=1)
    models: list[ModelConfig] = Field(min_length=1)
    audit: AuditConfig | None = Field(
        default=None, description="the edit audit's checks and bounds (cueshift audit); None: the defaults"
    )
    #: the largest batch (rows per backend call and transaction); batches are sized below it to
    #: take about two seconds each at the measured rate (cueshift.execution.batching)
    batch_size: int = Field(default=250_000, ge=1)
    build: BuildConfig | None = Field(
        default=None, description="how cueshift build makes the image set; None: the study makes none"
    )

    @model_validator(mode="before")
    @classmethod
    def _placebos_by_design(cls, data: Any) -> Any:
        """``[image_set] placebos`` left out: true for a design in :data:`PLACEBO_DESIGNS`, else false
        (a ``[benchmark]`` section, the old name, is read as ``[image_set]``)."""
        if not isinstance(data, dict):
            return data
        data = _old_section_renamed(data)
        design = data.get("design", cls.model_fields["design"].default)
        image_set = data.get(IMAGE_SET_SECTION)
        if isinstance(image_set, ImageSetConfig):
            given = image_set.placebos if "placebos" in image_set.model_fields_set else None
        elif image_set is None or isinstance(image_set, dict):
            given = (image_set or {}).get("placebos")
        else:
            return data  # not a table: the field's own validation reports it
        if given is None:
            default = design in PLACEBO_DESIGNS
            image_set = (
                image_set.model_copy(update={"placebos": default})
                if isinstance(image_set, ImageSetConfig)
                else {**(image_set or {}), "placebos": default}
            )
            return {**data, IMAGE_SET_SECTION: image_set}
        return data

    @model_validator(mode="after")
    def _placebos_read(self) -> Study:
        if self.image_set.placebos and self.design not in PLACEBO_DESIGNS:
            raise ValueError(
                f"[image_set] placebos = true: the {self.design!r} design's analyses do not read the "
                "noise-floor placebos; leave it out"
            )
        return self

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, value: list[int]) -> list[int]:
        return check_seeds(value)

    @field_validator("models")
    @classmethod
    def _unique_models(cls, value: list[ModelConfig]) -> list[ModelConfig]:
        ids = [m.model_id for m in value]
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(
                f"model_id {', '.join(map(repr, twice))} given twice: give each [[models]] table its own"
            )
        return value

    @property
    def benchmark(self) -> ImageSetConfig:
        """The old name of :attr:`image_set` (read-only; ``model_copy`` updates ``image_set``)."""
        return self.image_set

    @property
    def database_path(self) -> Path:
        return self.database or Path("runs") / f"{self.name}.duckdb"
