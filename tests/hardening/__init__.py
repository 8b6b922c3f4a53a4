"""Hardening cases (docs/decisions.md#d10): each one failed before its fix."""
