r"""What a transformers judgment's numbers mean: answers from log-probabilities, φ at any
temperature, and the RNG seed of each sampled judgment (see :mod:`cueshift.inference.backends.hf`)."""

from __future__ import annotations

import hashlib
import math

import numpy as np


def phi_at_temperature(p_favorable: float | np.ndarray, temperature: float) -> float | np.ndarray:
    r"""Probability of the favorable answer when sampling at ``temperature`` between the two answers.

    Parameters
    ----------
    p_favorable
        The stored score-mode probability :math:`\sigma(\ell_\text{fav} - \ell_\text{unfav})` (T = 1).
    temperature
        :math:`T \ge 0`; 0 means greedy decoding.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma(\operatorname{logit}(p) / T)`; for :math:`T = 0`, 1 if :math:`p > 1/2`,
        0 if :math:`p < 1/2` and 1/2 on a tie.

    Examples
    --------
    >>> round(phi_at_temperature(0.6, 0.2), 4)  # sigma(log(1.5) / 0.2)
    0.8836
    >>> phi_at_temperature(0.6, 0.0)
    1.0
    """
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    p = np.asarray(p_favorable, dtype=float)
    if temperature == 0:
        out = np.where(p > 0.5, 1.0, np.where(p < 0.5, 0.0, 0.5))
    else:
        with np.errstate(divide="ignore"):
            logit = np.log(p) - np.log1p(-p)
        out = 1.0 / (1.0 + np.exp(-logit / temperature))
    return float(out) if out.ndim == 0 else out


def judgment_seed(seed: int, image_id: str, scenario_id: str, ordering: int) -> int:
    """The RNG seed of one generate-mode judgment (stable across runs, platforms and batches)."""
    key = f"{seed}\x1f{image_id}\x1f{scenario_id}\x1f{ordering}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") & (2**63 - 1)


def pair_seed(seed: int, left_image_id: str, right_image_id: str, scenario_id: str) -> int:
    """The RNG seed of one pairwise trial (the order of the two images matters)."""
    return judgment_seed(seed, f"{left_image_id}\x1e{right_image_id}", f"pair\x1f{scenario_id}", 0)


def rating_seed(seed: int, image_id: str, attribute: str) -> int:
    """The RNG seed of one rating request."""
    return judgment_seed(seed, image_id, f"rating\x1f{attribute}", 0)


def answer_from_logprobs(logp_a: float, logp_b: float) -> tuple[str, float | None, float]:
    """Greedy answer, P(a | a or b) and the mass on neither, from the two answers' log-probabilities.

    Returns
    -------
    tuple
        ``(response_text, p_a, p_neither)``; ``p_a`` is None when neither answer has any
        probability (both log-probabilities are -inf).
    """
    neither = min(1.0, max(0.0, 1.0 - math.exp(logp_a) - math.exp(logp_b)))
    if math.isinf(logp_a) and math.isinf(logp_b):
        return "tie", None, neither
    diff = logp_a - logp_b
    p_a = 1.0 / (1.0 + math.exp(-diff)) if diff >= 0 else math.exp(diff) / (1.0 + math.exp(diff))
    text = "(a)" if diff > 0 else "(b)" if diff < 0 else "tie"
    return text, p_a, neither


__all__ = ["answer_from_logprobs", "judgment_seed", "pair_seed", "phi_at_temperature", "rating_seed"]
