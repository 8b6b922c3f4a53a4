"""Inference: backends answer forced-choice prompts; the runner stores every judgment once."""
