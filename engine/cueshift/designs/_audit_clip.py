"""The CLIP part of the edit audit: cue detectability, confound probes and identity cosine.

Image vectors come from :class:`~cueshift.inference.identity.IdentityEncoder` and text vectors from
:class:`~cueshift.inference.edit_probes.TextEncoder`, both through the study database's embedding
cache (``write`` false: no cache, nothing stored). The cue prompt of value ``v`` of attribute
``k`` is ``"a photo of a person with <v> <label>"`` (``label`` the attribute's name in seed 000
Table 8, lower case), competing with the attribute's other values (those of Table 8 and those
the study holds); an attribute with a single value competes with ``"a photo of a person"``.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
from rich.console import Console

from cueshift.designs._audit_rows import (
    EditPairs,
    cue_rows,
    identity_rows,
    measure_rows,
    unintended_verdicts,
    with_robust_z,
)
from cueshift.inference.edit_probes import TextEncoder, has_text_tower, prompt_probabilities
from cueshift.inference.identity import IdentityEncoder
from cueshift.stats import row_cosines
from cueshift.store.embedding_cache import DuckDBEmbeddingCache
from cueshift.study.audit import AuditConfig
from cueshift.study.variations import FEATURE_BY_KEY

NEUTRAL_PROMPT = "a photo of a person"


def cue_prompt(feature_key: str, value: str) -> str:
    """The prompt that names value ``value`` of attribute ``feature_key``."""
    feature = FEATURE_BY_KEY.get(feature_key)
    label = feature.category if feature is not None else feature_key.replace("_", " ")
    return f"a photo of a person with {value.lower()} {label.lower()}"


def attribute_values(feature_key: str, observed: list[str]) -> list[str]:
    """The values competing in the cue probe of ``feature_key`` (Table 8's, then the study's)."""
    feature = FEATURE_BY_KEY.get(feature_key)
    known = list(feature.values) if feature is not None else []
    return list(dict.fromkeys([*known, *sorted(observed)]))


def clip_rows(
    con: duckdb.DuckDBPyConnection,
    edits: EditPairs,
    checkpoint: Path,
    config: AuditConfig,
    *,
    console: Console,
    write: bool,
) -> pl.DataFrame:
    """Identity cosine, and with a text tower the cue probability and confound probe rows."""
    pairs = edits.pairs
    cache = DuckDBEmbeddingCache(con) if write else None
    images = IdentityEncoder(checkpoint, cache=cache, batch_size=config.batch_size)
    contents = [*pairs["sha256"], *pairs["base_sha256"]]
    paths = [edits.root / p for p in (*pairs["path"], *pairs["base_path"])]
    vectors = images.vectors(contents, paths)
    variation = np.stack([vectors[k] for k in pairs["sha256"]])
    base = np.stack([vectors[k] for k in pairs["base_sha256"]])
    source = images.encoder
    frames = [identity_rows(pairs, source, row_cosines(variation, base), config)]
    if not has_text_tower(checkpoint):
        console.print(
            f"edit audit: {checkpoint} is a CLIP vision tower only: cue and confound probes skipped",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return pl.concat(frames)
    texts = TextEncoder(checkpoint, cache=cache)
    frames.append(_cue(pairs, texts, variation, base, source, config))
    frames.append(_confounds(pairs, texts, variation, base, source, config))
    return pl.concat(frames)


def _cue(
    pairs: pl.DataFrame,
    texts: TextEncoder,
    variation: np.ndarray,
    base: np.ndarray,
    source: str,
    config: AuditConfig,
) -> pl.DataFrame:
    named = pairs.with_row_index("row").filter(pl.col("variation_value").is_not_null())
    variation, base = variation[named["row"].to_numpy()], base[named["row"].to_numpy()]
    pairs = named.drop("row")
    p_base, p_variation = np.zeros(pairs.height), np.zeros(pairs.height)
    indexed = pairs.with_row_index("row")
    for (key,), part in indexed.group_by("feature_key", maintain_order=True):
        values = attribute_values(str(key), part["variation_value"].unique().to_list())
        prompts = [cue_prompt(str(key), v) for v in values] + ([NEUTRAL_PROMPT] if len(values) == 1 else [])
        text = texts.vectors(prompts)
        matrix = np.stack([text[p] for p in prompts])
        rows = part["row"].to_numpy()
        column = np.array([values.index(v) for v in part["variation_value"]])
        taken = np.arange(rows.size)
        p_base[rows] = prompt_probabilities(base[rows], matrix, texts.logit_scale)[taken, column]
        p_variation[rows] = prompt_probabilities(variation[rows], matrix, texts.logit_scale)[taken, column]
    return cue_rows(pairs, source, p_base, p_variation, config)


def _confounds(
    pairs: pl.DataFrame,
    texts: TextEncoder,
    variation: np.ndarray,
    base: np.ndarray,
    source: str,
    config: AuditConfig,
) -> pl.DataFrame:
    frames = []
    for probe in config.confounds:
        keep = ~pairs["feature_key"].is_in(probe.skip_for).to_numpy()
        if not keep.any():
            continue
        text = texts.vectors(probe.prompts)
        matrix = np.stack([text[p] for p in probe.prompts])
        p_base = prompt_probabilities(base[keep], matrix, texts.logit_scale)[:, 0]
        p_variation = prompt_probabilities(variation[keep], matrix, texts.logit_scale)[:, 0]
        mine = pairs.filter(pl.Series(keep))
        bounds = [config.probe_bound] * mine.height
        frames.append(
            measure_rows(
                mine,
                f"probe_{probe.name}",
                "unintended",
                source,
                p_base,
                p_variation,
                p_variation - p_base,
                bounds,
            )
        )
    if not frames:
        return measure_rows(pairs.head(0), "probe", "unintended", source, None, None, np.zeros(0), [])
    return unintended_verdicts(with_robust_z(pl.concat(frames)), config)


__all__ = ["NEUTRAL_PROMPT", "attribute_values", "clip_rows", "cue_prompt"]
