"""Simulated study tables with planted effects, for tests and benchmarks (never shipped)."""
