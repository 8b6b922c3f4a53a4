"""Fixtures of the ``cueshift plan`` tests: the pilot study database of the power tests."""

from tests.power.conftest import pilot_db

__all__ = ["pilot_db"]
