"""Which logits warpers a sampled ``generate`` call applies, resolved as transformers resolves them.

:func:`sampling_warpers` rebuilds the warpers (temperature, top-k, top-p, min-p, typical,
epsilon, eta) from the call's keywords, the checkpoint's generation config and transformers'
defaults (:data:`HF_DEFAULTS`), so the per-row sampler of :mod:`.hf_sampler` applies exactly
what ``generate(do_sample=True)`` would; a config it does not reproduce (:data:`UNSUPPORTED`)
gives None and the backend keeps transformers' own sampling.
"""

from __future__ import annotations

from typing import Any

from transformers import (
    EpsilonLogitsWarper,
    EtaLogitsWarper,
    LogitsProcessorList,
    MinPLogitsWarper,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    TypicalLogitsWarper,
)

#: transformers' values for generation parameters that neither the call nor the checkpoint sets
#: (``GenerationConfig`` defaults applied by ``generate``)
HF_DEFAULTS: dict[str, Any] = {"temperature": 1.0, "top_k": 50, "top_p": 1.0, "typical_p": 1.0}
#: settings under which transformers' sampling does something this module does not reproduce
UNSUPPORTED: dict[str, Any] = {
    "num_beams": 1,
    "top_h": None,
    "watermarking_config": None,
    "renormalize_logits": False,
    "guidance_scale": None,
    "num_return_sequences": 1,
}


def _resolved(model: Any, sampling: dict[str, Any], name: str) -> Any:
    """A generation parameter as ``generate`` resolves it: the call, else the checkpoint's
    generation config, else transformers' default."""
    if name in sampling:
        return sampling[name]
    value = getattr(getattr(model, "generation_config", None), name, None)
    return HF_DEFAULTS.get(name) if value is None else value


def sampling_warpers(model: Any, sampling: dict[str, Any]) -> LogitsProcessorList | None:
    """The warpers a sampled ``generate(**sampling)`` call of ``model`` applies, in its order.

    Returns
    -------
    LogitsProcessorList or None
        None when ``model``'s generation config asks for something batched sampling does not
        reproduce (see :data:`UNSUPPORTED`); an empty list when sampling is off.
    """
    config = getattr(model, "generation_config", None)
    for name, neutral in UNSUPPORTED.items():
        value = sampling.get(name, getattr(config, name, None))
        if value is not None and value != neutral and not (name == "guidance_scale" and value == 1):
            return None
    if not sampling.get("do_sample", False):
        return LogitsProcessorList()
    warpers = LogitsProcessorList()
    temperature = _resolved(model, sampling, "temperature")
    if temperature is not None and temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(temperature))
    top_k = _resolved(model, sampling, "top_k")
    if top_k is not None and top_k != 0:
        warpers.append(TopKLogitsWarper(top_k=top_k, min_tokens_to_keep=1))
    top_p = _resolved(model, sampling, "top_p")
    if top_p is not None and top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=top_p, min_tokens_to_keep=1))
    min_p = _resolved(model, sampling, "min_p")
    if min_p is not None:
        warpers.append(MinPLogitsWarper(min_p=min_p, min_tokens_to_keep=1))
    typical_p = _resolved(model, sampling, "typical_p")
    if typical_p is not None and typical_p < 1.0:
        warpers.append(TypicalLogitsWarper(mass=typical_p, min_tokens_to_keep=1))
    epsilon = _resolved(model, sampling, "epsilon_cutoff")
    if epsilon is not None and 0.0 < epsilon < 1.0:
        warpers.append(EpsilonLogitsWarper(epsilon=epsilon, min_tokens_to_keep=1))
    eta = _resolved(model, sampling, "eta_cutoff")
    if eta is not None and 0.0 < eta < 1.0:
        warpers.append(EtaLogitsWarper(epsilon=eta, min_tokens_to_keep=1, device=str(model.device)))
    return warpers


__all__ = ["HF_DEFAULTS", "UNSUPPORTED", "sampling_warpers"]
