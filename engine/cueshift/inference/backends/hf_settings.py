"""Settings of the transformers backend (``[models.settings]`` of a ``backend = "transformers"`` model),
and the device and dtype they pick."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cueshift.errors import ConfigError
from cueshift.study.config import ModelConfig

Mode = Literal["generate", "score"]


class TransformersSettings(BaseModel):
    """``[models.settings]`` of a ``backend = "transformers"`` model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode = "score"
    device: Literal["auto", "cuda", "mps", "cpu"] = "auto"
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    #: score mode: suffix rows per forward pass; generate mode: rows per ``generate`` call
    #: (1 = one call per judgment, the per-prompt loop; answers are the same either way);
    #: "auto" (the default): from the CUDA card's total memory less the weights (never the memory
    #: free at the moment, D56), so on a GPU one image's 300 prompts share a call, or calls of equal
    #: size (32 on the CPU; see :mod:`.hf_batch_size`)
    batch_size: Annotated[int, Field(ge=1)] | Literal["auto"] = "auto"
    #: generate mode, batched: decode on a pre-allocated key/value cache, rows padded to
    #: bucketed lengths (:mod:`.hf_static`; same answers)
    static_cache: bool = False
    #: with ``static_cache``: torch.compile the decoding step (also on the CPU)
    compile: bool = False
    #: score mode, and generate mode batched without ``static_cache``: every row attends to ONE copy
    #: of the image prefix's key/value cache, merged with its own suffix by log-sum-exp (cascade
    #: attention, :mod:`.hf_shared_prefix`; same answers); False, or an architecture outside
    #: ``SHARED_PREFIX_TYPES``: the prefix's cache copied per row
    shared_prefix_attention: bool = True
    #: with ``shared_prefix_attention``: decode on fixed-shape buffers, the decoding step captured
    #: as a CUDA graph on CUDA (eagerly elsewhere; same answers; :mod:`.hf_graph_decode`)
    cuda_graph: bool = False
    temperature: float = Field(default=0.2, ge=0.0)
    max_new_tokens: int = Field(default=16, ge=1)
    #: generate mode: override the checkpoint's top_k / top_p (0 / 1.0 = pure temperature sampling)
    top_k: int | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    trust_remote_code: bool = False
    #: text before the scored answer, e.g. " " for models that answer " (a)"
    answer_prefix: str = ""
    #: score mode: reuse the image prefix's key/value cache (False: one full pass per prompt)
    shared_prefix: bool = True
    #: e.g. "sdpa", "flash_attention_2"; None = the transformers default
    attn_implementation: str | None = None
    #: ``--executor ray``: GPUs each replica (Ray actor) of this model reserves when the
    #: device is cuda or auto (e.g. 2 for a model sharded over two GPUs, 0.5 for two per GPU)
    gpus_per_replica: float = Field(default=1.0, gt=0.0)

    @model_validator(mode="after")
    def _compile_needs_static_cache(self) -> TransformersSettings:
        if self.compile and not self.static_cache:
            raise ValueError("compile = true needs static_cache = true")
        if self.cuda_graph and (self.static_cache or not self.shared_prefix_attention):
            needs = "shared_prefix_attention = true and static_cache = false"
            raise ValueError(f"cuda_graph = true needs {needs}")
        return self


def parse_settings(model: ModelConfig) -> TransformersSettings:
    """Validate ``model.settings``; a bad value raises a one-line :class:`ConfigError`."""
    try:
        return TransformersSettings.model_validate(model.settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "<settings>"  # not the union's branch name
        raise ConfigError(f"model {model.model_id!r}: settings.{field}: {err['msg']}") from None


def pick_device(name: str) -> str:
    """The torch device of ``settings.device`` (``auto``: cuda, else mps, else cpu).

    Raises
    ------
    ConfigError
        The named device is not available.
    """
    import torch

    if name == "auto":
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        return "mps" if mps is not None and mps.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("settings.device = 'cuda' but torch sees no CUDA device")
    if name == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ConfigError("settings.device = 'mps' but torch sees no MPS device")
    return name


def pick_dtype(name: str, device: str) -> Any:
    """The torch dtype of ``settings.dtype`` (``auto``: bfloat16, else float16, on cuda; float16 on
    mps; float32 on the cpu)."""
    import torch

    if name == "auto":
        if device == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float16 if device == "mps" else torch.float32
    return getattr(torch, name)


__all__ = ["Mode", "TransformersSettings", "parse_settings", "pick_device", "pick_dtype"]
