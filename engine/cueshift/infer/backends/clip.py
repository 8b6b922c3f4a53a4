r"""CLIP bipolar probes as judges (seed 004, Eq. 1), through transformers ``CLIPModel``.

For an image :math:`i` and a scenario with favorable descriptor :math:`x_+` and
unfavorable descriptor :math:`x_-`, each pole's text is rendered through the templates
(default ``"a photo of someone who is {x}"``) and the bipolar association is

.. math::

    m = \cos(\vec i, \vec t_+) - \cos(\vec i, \vec t_-)

(seed 004 Eq. 1/10). To flow through the same φ / Δ views as the generative judges, the
two poles are also read as a two-way zero-shot classifier with the model's own learned
logit scale :math:`s` (``logit_scale.exp()``, 100 for trained CLIP checkpoints):

.. math::

    P(\text{favorable}) = \frac{e^{s\cos(\vec i,\vec t_+)}}{e^{s\cos(\vec i,\vec t_+)}
    + e^{s\cos(\vec i,\vec t_-)}} = \sigma(s\,m).

Several templates are averaged **in embedding space**, as in CLIP's zero-shot prompt
ensembling: each template's text embedding is L2-normalised, the unit vectors of a pole
are averaged, and the mean is normalised again to give :math:`\vec t_\pm`.

The backend is deterministic (``scores = True``) and letter-free
(``uses_orderings = False``): the runner plans ordering 1 and seed 0 only. Each judgment's
``response_text`` is the descriptor of the closer pole (``m >= 0``: favorable), which the
parser reads as a bare descriptor; ``p_favorable`` is :math:`\sigma(s\,m)` and
``p_neither`` is ``None``.

Embeddings are cached in the study database (table ``embedding``: raw projected
features, keyed by model_id and the image_id or the probe text), so a new prompt set
re-scores stored images without running the image encoder again.

Only transformers ``CLIPModel`` checkpoints are supported (open_clip is not). The
reserved checkpoint ``cueshift:tiny-random-clip`` builds a tiny random model in memory
(:mod:`cueshift.infer.backends.clip_tiny`) so the pipeline runs without any download.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import duckdb
import numpy as np
import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cueshift import store
from cueshift.errors import ConfigError, CueshiftError
from cueshift.infer.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.infer.backends.clip_tiny import TINY_CLIP_CHECKPOINT, build_tiny_clip
from cueshift.study.config import ModelConfig

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

DEFAULT_TEMPLATE = "a photo of someone who is {x}"
#: Descriptors that read badly after "someone who is" (nouns): the text put in ``{x}``.
DEFAULT_PHRASES: dict[str, str] = {"Home owner": "a home owner", "Renter": "a renter"}

Kind = Literal["image", "text"]


class ClipSettings(BaseModel):
    """``[models.settings]`` of a model with ``backend = "clip"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    templates: list[str] = Field(
        default_factory=lambda: [DEFAULT_TEMPLATE],
        min_length=1,
        description="probe templates with one {x} slot; several are averaged in embedding space",
    )
    phrases: dict[str, str] = Field(
        default_factory=dict,
        description="descriptor -> text for {x} (default: the descriptor in lower case; see DEFAULT_PHRASES)",
    )
    device: Literal["auto", "cpu", "cuda", "mps"] = "auto"
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = Field(
        default="auto", description="auto: float16 on cuda, float32 elsewhere"
    )
    batch_size: int = Field(default=64, ge=1, description="images or texts per encoder call")
    tiny_seed: int = Field(default=0, ge=0, description=f"weights seed of {TINY_CLIP_CHECKPOINT}")

    @field_validator("templates")
    @classmethod
    def _one_slot(cls, value: list[str]) -> list[str]:
        for template in value:
            if template.count("{x}") != 1:
                raise ValueError(f"template {template!r} must contain {{x}} exactly once")
            try:
                template.format(x="")
            except (IndexError, KeyError, ValueError):
                raise ValueError(f"template {template!r} has braces other than {{x}}") from None
        if len(set(value)) != len(value):
            raise ValueError("templates repeat")
        return value

    def phrase(self, descriptor: str) -> str:
        """The text that fills ``{x}`` for ``descriptor``."""
        return self.phrases.get(descriptor) or DEFAULT_PHRASES.get(descriptor) or descriptor.lower()

    def probe_texts(self, descriptor: str) -> list[str]:
        """One probe text per template."""
        return [template.format(x=self.phrase(descriptor)) for template in self.templates]


def _settings(model: ModelConfig) -> ClipSettings:
    try:
        return ClipSettings.model_validate(model.settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "<settings>"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"model {model.model_id!r}: settings.{field}: {err['msg']}{more}") from None


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (float64)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def pole_vector(text_vectors: Sequence[np.ndarray]) -> np.ndarray:
    """Template ensemble of one pole: the normalised mean of the normalised text embeddings."""
    return _unit(_unit(np.stack(text_vectors)).mean(axis=0))


def bipolar(image: np.ndarray, plus: np.ndarray, minus: np.ndarray) -> np.ndarray:
    """Seed 004 Eq. 1: ``cos(image, plus) - cos(image, minus)`` per image row."""
    image = _unit(np.atleast_2d(image))
    return image @ _unit(plus) - image @ _unit(minus)


def favorable_probability(m: np.ndarray, logit_scale: float) -> np.ndarray:
    """Two-way softmax of the poles at the model's logit scale: ``sigmoid(logit_scale * m)``."""
    return 0.5 * (1.0 + np.tanh(0.5 * logit_scale * np.asarray(m, dtype=np.float64)))


class ClipBackend(Backend):
    """Bipolar CLIP probes with P(favorable) from the model's two-way softmax.

    Parameters
    ----------
    model
        ``checkpoint``: a local directory or hub id of a transformers CLIP checkpoint
        (hub ids only where the hub is reachable), or ``cueshift:tiny-random-clip``;
        ``settings`` validate as :class:`ClipSettings`.
    context
        Images and scenarios; ``context.con`` (when not ``None``) caches embeddings.
    loaded
        An already built ``(CLIPModel, CLIPProcessor)`` pair to use instead of loading
        ``checkpoint`` (tests, notebooks); it is moved to the chosen device and dtype.

    Attributes
    ----------
    images_encoded, texts_encoded : int
        How many images / probe texts went through the encoders (cache misses).
    """

    name: ClassVar[str] = "clip"
    scores: ClassVar[bool] = True
    uses_orderings: ClassVar[bool] = False

    def __init__(
        self, model: ModelConfig, context: StudyContext, *, loaded: tuple[Any, Any] | None = None
    ) -> None:
        super().__init__(model, context)
        self.settings = _settings(model)
        self.clip_model, self.processor, self.device, self.dtype = self._load(loaded)
        self.logit_scale = float(self.clip_model.logit_scale.detach().float().exp().item())
        self.embed_dim = int(self.clip_model.config.projection_dim)
        self.images_encoded = 0
        self.texts_encoded = 0
        self._memory: dict[Kind, dict[str, np.ndarray]] = {"image": {}, "text": {}}  # unit float32

    # ---- loading

    def _load(self, loaded: tuple[Any, Any] | None) -> tuple[Any, Any, torch.device, torch.dtype]:
        try:
            import torch
            from transformers import CLIPModel, CLIPProcessor
        except ImportError as exc:
            raise ConfigError(
                f"backend 'clip' needs torch and transformers (pip install 'cueshift[models]'): {exc}"
            ) from None
        s, checkpoint = self.settings, self.model.checkpoint
        if not checkpoint:
            raise ConfigError(f"model {self.model.model_id!r}: checkpoint must name a CLIP checkpoint")
        device_name = s.device
        if device_name == "auto":
            if torch.cuda.is_available():
                device_name = "cuda"
            elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
                device_name = "mps"
            else:
                device_name = "cpu"
        dtype_name = s.dtype if s.dtype != "auto" else ("float16" if device_name == "cuda" else "float32")
        device, dtype = torch.device(device_name), getattr(torch, dtype_name)
        if loaded is not None:
            model, processor = loaded
        elif checkpoint == TINY_CLIP_CHECKPOINT:
            model, processor = build_tiny_clip(s.tiny_seed)
        else:
            try:
                model = CLIPModel.from_pretrained(checkpoint, revision=self.model.revision)
                processor = CLIPProcessor.from_pretrained(checkpoint, revision=self.model.revision)
            except (OSError, ValueError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ConfigError(
                    f"model {self.model.model_id!r}: cannot load CLIP checkpoint {checkpoint!r}: {first}"
                ) from None
        model = model.to(device=device, dtype=dtype).eval()
        return model, processor, device, dtype

    # ---- judging

    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Score every row of ``batch`` (its ordering and seed do not change the answer)."""
        started = time.perf_counter()
        m = self.associations(batch)
        if m.size == 0:
            return BackendAnswers(response_text=[], latency_ms=[], p_favorable=[], p_neither=[])
        p = favorable_probability(m, self.logit_scale)
        answer = [
            scenario.favorable if mi >= 0 else scenario.unfavorable
            for scenario, mi in zip(
                (self.context.scenarios[sid] for sid in batch["scenario_id"]), m, strict=True
            )
        ]
        latency = (time.perf_counter() - started) * 1000.0 / len(m)  # the batch's time, shared
        return BackendAnswers(
            response_text=answer,
            latency_ms=[latency] * len(m),
            p_favorable=[float(x) for x in p],
            p_neither=[None] * len(m),
        )

    def associations(self, batch: pl.DataFrame) -> np.ndarray:
        """Seed 004 Eq. 1 ``m`` of every row of ``batch`` (columns image_id, scenario_id)."""
        rows = batch.select("image_id", "scenario_id").rows()
        if not rows:
            return np.zeros(0)
        s = self.settings
        texts = {
            sid: (s.probe_texts(sc.favorable), s.probe_texts(sc.unfavorable))
            for sid, sc in ((sid, self.context.scenarios[sid]) for sid in dict.fromkeys(r[1] for r in rows))
        }
        images = self.vectors("image", list(dict.fromkeys(r[0] for r in rows)))
        probes = self.vectors(
            "text", list(dict.fromkeys(t for pair in texts.values() for pole in pair for t in pole))
        )
        poles = {
            sid: (pole_vector([probes[t] for t in plus]), pole_vector([probes[t] for t in minus]))
            for sid, (plus, minus) in texts.items()
        }
        image = _unit(np.stack([images[iid] for iid, _ in rows]))
        plus = np.stack([poles[sid][0] for _, sid in rows])
        minus = np.stack([poles[sid][1] for _, sid in rows])
        return np.einsum("ij,ij->i", image, plus) - np.einsum("ij,ij->i", image, minus)  # Eq. 1 row-wise

    # ---- embeddings and their cache

    def vectors(self, kind: Kind, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Unit embeddings of image_ids or probe texts: memory, then the database, then the encoder."""
        memory = self._memory[kind]
        missing = [k for k in keys if k not in memory]
        if missing and self.context.con is not None:
            for key, raw in self._read_cache(kind, missing).items():
                memory[key] = _unit(raw).astype(np.float32)
            missing = [k for k in missing if k not in memory]
        for start in range(0, len(missing), self.settings.batch_size):
            chunk = missing[start : start + self.settings.batch_size]
            raw = self._encode_images(chunk) if kind == "image" else self._encode_texts(chunk)
            self._write_cache(kind, chunk, raw)
            for key, row in zip(chunk, raw, strict=True):
                memory[key] = _unit(row).astype(np.float32)
        return {k: memory[k] for k in keys}

    def _encode_images(self, image_ids: list[str]) -> np.ndarray:
        import torch
        from PIL import Image

        pictures = []
        for image_id in image_ids:
            with Image.open(self.context.images[image_id].path) as img:
                pictures.append(img.convert("RGB"))
        inputs = self.processor(images=pictures, return_tensors="pt")
        pixels = inputs["pixel_values"].to(device=self.device, dtype=self.dtype)
        with torch.inference_mode():
            features = _features(self.clip_model.get_image_features(pixel_values=pixels))
        self.images_encoded += len(image_ids)
        return features.float().cpu().numpy()

    def _encode_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        inputs = self.processor(text=texts, return_tensors="pt", padding=True, truncation=True)
        inputs = {k: v.to(self.device) for k, v in inputs.items() if k in ("input_ids", "attention_mask")}
        with torch.inference_mode():
            features = _features(self.clip_model.get_text_features(**inputs))
        self.texts_encoded += len(texts)
        return features.float().cpu().numpy()

    def _read_cache(self, kind: Kind, keys: list[str]) -> dict[str, np.ndarray]:
        assert self.context.con is not None
        rows = self.context.con.execute(
            "SELECT item_key, vector FROM embedding WHERE model_id = ? AND kind = ? "
            "AND item_key IN (SELECT unnest(?::VARCHAR[]))",
            [self.model.model_id, kind, keys],
        ).fetchall()
        if not rows:
            return {}
        vectors = np.asarray([vector for _, vector in rows], dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.embed_dim:
            raise CueshiftError(
                f"embedding: model {self.model.model_id!r} has {kind} vectors of another size stored than "
                f"the {self.embed_dim}-d ones its checkpoint gives; use a new database for a changed model"
            )
        return {key: vector for (key, _), vector in zip(rows, vectors, strict=True)}

    def _write_cache(self, kind: Kind, keys: list[str], raw: np.ndarray) -> None:
        con = self.context.con
        if con is None:
            return
        new_rows = pl.DataFrame(  # scanned by name below
            {
                "model_id": [self.model.model_id] * len(keys),
                "kind": [kind] * len(keys),
                "item_key": keys,
                "vector": pl.Series(
                    [row.tolist() for row in raw.astype(np.float32)], dtype=pl.List(pl.Float32)
                ),
            }
        )
        new_rows = store.validate("embedding", new_rows)  # noqa: F841  (scanned by name below)
        try:
            con.execute(
                "INSERT INTO embedding (model_id, kind, item_key, vector) "
                "SELECT model_id, kind, item_key, vector FROM new_rows ON CONFLICT DO NOTHING"
            )
        except duckdb.Error as exc:  # the cache only saves time: go on without it
            log.warning("embedding cache not written (%s)", str(exc).splitlines()[0])


def _features(output: Any) -> torch.Tensor:
    """Projected features from ``get_*_features`` (a tensor before transformers 5, an output object since)."""
    import torch

    if isinstance(output, torch.Tensor):
        return output
    return output.pooler_output
