"""Checks of study-file values that would otherwise fail only once answers are being stored: the
prompt template (rendered with :meth:`str.format`) and the seeds (stored as 32-bit integers).

Each check raises :class:`ValueError` with a message naming the problem, so the study file's
validators turn it into one line naming the file and field, before anything is written.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, Final

#: The slots a prompt template fills (seed 000 App. C.2), each required exactly as written.
TEMPLATE_SLOTS: Final[tuple[str, ...]] = ("first_letter", "first", "second_letter", "second")

#: The largest seed: ``judgment.seed`` and the other answer tables hold a signed 32-bit INTEGER.
MAX_SEED: Final[int] = 2**31 - 1


def check_template(template: str) -> str:
    """Return ``template`` if :meth:`str.format` fills it with exactly :data:`TEMPLATE_SLOTS`.

    Braces meant literally are doubled (``{{`` and ``}}``), as :meth:`str.format` reads them.

    Raises
    ------
    ValueError
        A lone ``{`` or ``}``, a slot that is not one of :data:`TEMPLATE_SLOTS` (positional
        ``{}`` and ``{0}`` included), a conversion or format spec, or a missing slot.
    """
    try:
        parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ValueError(
            f"template is not a format string ({exc}); a literal brace is written {{{{ or }}}}"
        ) from None
    fields = [field for field, _, _ in parsed]
    for field in fields:
        if field not in TEMPLATE_SLOTS:
            shown = "{" + field + "}"
            raise ValueError(
                f"template has the unknown slot {shown}; slots are "
                + ", ".join("{" + s + "}" for s in TEMPLATE_SLOTS)
                + " (a literal brace is written {{ or }})"
            )
    if any(spec or conv for _, spec, conv in parsed):
        raise ValueError("template slots take no conversion or format spec (write {first}, not {first!r})")
    for slot in TEMPLATE_SLOTS:
        if slot not in fields:
            raise ValueError(f"template lacks the slot {{{slot}}}")
    return template


def check_seeds(seeds: Sequence[int]) -> list[int]:
    """Return ``seeds`` if they are distinct integers in ``0 .. MAX_SEED``.

    Raises
    ------
    ValueError
        A negative seed, a seed above :data:`MAX_SEED`, or a repeated seed.
    """
    for seed in seeds:
        if not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed {seed} is out of range: seeds are integers from 0 to {MAX_SEED:,}")
    if len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct non-negative integers")
    return list(seeds)


def check_no_nul(data: Any) -> Any:
    """Return ``data`` (a section of a study file) if none of its text holds a NUL character.

    No file name, id or prompt holds one, and a path with one fails deep in the operating system.

    Raises
    ------
    ValueError
        Naming the first key whose value (or an item of it) contains a NUL.
    """
    if isinstance(data, dict):
        for key, value in data.items():
            items = value if isinstance(value, list) else [value]
            if any(isinstance(item, str) and "\x00" in item for item in items) or "\x00" in str(key):
                raise ValueError(f"{key!s}: text may not contain a NUL character")
    return data
