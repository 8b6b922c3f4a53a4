"""The suite's property tests draw the same examples on every run (decision D96); `just fuzz` new ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def _drawn(profile: str | None = None) -> list[list[int]]:
    """The examples one run of a property test sees, under ``profile`` (None: the one loaded)."""
    seen: list[list[int]] = []

    @settings(settings.get_profile(profile) if profile else None, max_examples=20)
    @given(st.lists(st.integers(), max_size=6))
    def record(values: list[int]) -> None:
        seen.append(values)

    record()
    return seen


@pytest.mark.skipif(settings.get_current_profile_name() == "fuzz", reason="`just fuzz` draws new examples")
def test_the_suite_draws_the_same_examples_every_run() -> None:
    first, second = _drawn(), _drawn()
    assert len(first) == 20 and first == second


def test_fuzz_draws_new_examples() -> None:
    drawn = [_drawn("fuzz") for _ in range(3)]
    assert len({repr(run) for run in drawn}) > 1
