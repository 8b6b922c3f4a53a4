r"""The simulated judges' randomness: a counter-based hash RNG, every draw a pure function of its key.

A draw is ``f(key)`` for a 64-bit key built by mixing stable hashes of what the draw is
about (settings seed, model, image, scenario, ordering, seed), so it never depends on the
order or batching of the requests, the process or the platform:

.. math::

    k' = \operatorname{splitmix64}(k \oplus x), \qquad
    u = \lfloor k' / 2^{11} \rfloor \, 2^{-53} \in [0, 1),

and normal draws by Box-Muller from two such uniforms. splitmix64 is the output function of
Steele, Lea & Flood (2014), "Fast splittable pseudorandom number generators", OOPSLA.
The simulated judge (:mod:`.backend`), its planted truth (:mod:`.terms`) and the design
judges (:mod:`cueshift.inference.stand_ins.simulated_designs`) all draw through this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

import numpy as np

from cueshift._types import F64, U64

_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX2: Final = np.uint64(0x94D049BB133111EB)
_STREAM_NORMAL_1: Final = np.uint64(0x6666_6666_6666_6666)
_STREAM_NORMAL_2: Final = np.uint64(0x7777_7777_7777_7777)


def splitmix64(x: U64) -> U64:
    """The splitmix64 finaliser, elementwise (uint64 arithmetic wraps modulo 2**64)."""
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def mix(h: U64, x: U64 | np.uint64) -> U64:
    """Fold ``x`` into the keys ``h``: ``splitmix64(h ^ x)``, elementwise."""
    return splitmix64(h ^ x)


def string_hash(text: str) -> int:
    """A stable 64-bit hash of a string (blake2b; Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def string_hashes(texts: Sequence[str | None]) -> U64:
    """:func:`string_hash` of each text (``None`` hashes as a reserved marker)."""
    return np.array([string_hash("\x00<null>" if t is None else t) for t in texts], dtype=np.uint64)


def uniform(h: U64) -> F64:
    """Uniform on [0, 1) from the top 53 bits."""
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def standard_normal(h: U64) -> F64:
    """Exact N(0, 1) draws by Box-Muller from two hash-derived uniforms."""
    u1 = uniform(mix(h, _STREAM_NORMAL_1))
    u2 = uniform(mix(h, _STREAM_NORMAL_2))
    return np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2.0 * np.pi * u2)


def seed_key(seed: int, tag: int) -> U64:
    """The root key of one stream: ``splitmix64(seed * 0x100000001B3 + tag)``, one element."""
    return splitmix64(np.array([(seed * 0x100000001B3 + tag) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))


__all__ = [
    "F64",
    "U64",
    "mix",
    "seed_key",
    "splitmix64",
    "standard_normal",
    "string_hash",
    "string_hashes",
    "uniform",
]
