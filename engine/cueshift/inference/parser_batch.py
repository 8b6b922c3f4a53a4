"""Many responses parsed at once: each distinct (text, descriptor a, descriptor b) once.

:func:`parse_answers` applies :func:`~cueshift.inference.parser.parse_answer` to row-aligned
texts and prompt mappings, for a run's judgments, an import or an upgrade of stored rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cueshift.inference.parser import ParsedAnswer, parse_answer


def parse_answers(
    texts: Sequence[str], descriptors: Sequence[Mapping[str, str]]
) -> tuple[list[str | None], list[str]]:
    """Parse many responses; repeated (text, mapping) pairs are parsed once.

    Real runs repeat a handful of distinct texts ("(a)", "(b)", "Answer: (a)") across
    millions of rows, so the cost is one dictionary look-up per row plus one
    :func:`parse_answer` per distinct (text, descriptor a, descriptor b).

    Parameters
    ----------
    texts
        Raw responses, one per row.
    descriptors
        The ``{'a': ..., 'b': ...}`` mapping of each row's prompt (the same mapping
        object may be passed for many rows).

    Returns
    -------
    letters, reasons
        Row-aligned lists: the letter (or ``None``) and the reason of each row.
    """
    if len(texts) != len(descriptors):
        raise ValueError(f"{len(texts)} texts but {len(descriptors)} descriptor mappings")
    cache: dict[tuple[str, str, str], ParsedAnswer] = {}
    letters: list[str | None] = []
    reasons: list[str] = []
    append_letter = letters.append
    append_reason = reasons.append
    for text, mapping in zip(texts, descriptors, strict=True):
        key = (text, mapping["a"], mapping["b"])
        parsed = cache.get(key)
        if parsed is None:
            parsed = parse_answer(text, mapping)
            cache[key] = parsed
        append_letter(parsed.letter)
        append_reason(parsed.reason)
    return letters, reasons


__all__ = ["parse_answers"]
