"""The notes the paired report's tables share: the star legend, whether p is adjusted (the study's
stored ``correction``) and the images each test compares, read at render time."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import MODELS_FILTER, STARS_LEGEND

STARS_NOTE = f"KW H: {STARS_LEGEND}"


def p_note(family: str) -> str:
    """Query of the note saying whether p is adjusted: the study's correction, stored per test."""
    return f"""SELECT CASE max(correction) WHEN 'bh' THEN 'p: Benjamini–Hochberg adjusted within each {family}.'
                ELSE 'p: unadjusted, as in the paper (paired.correction = "none").' END
              FROM result_paired_attractiveness HAVING count(*) > 0"""


def n_note(table: str, where: str = "TRUE") -> str:
    """Query of the note giving the images each test compares (a range where they differ)."""
    return f"""SELECT 'n: ' || min(n) || CASE WHEN min(n) < max(n) THEN '–' || max(n) ELSE '' END
                     || ' images per test (each individual original and filtered).'
              FROM {table} WHERE {MODELS_FILTER} AND {where} HAVING count(*) > 0"""
