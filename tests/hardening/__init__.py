"""Hardening cases of issue 12: each one failed before its fix."""
