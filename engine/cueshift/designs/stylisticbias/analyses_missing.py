"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): missing
answers: invalid and refusal rates per group x variation x model, and their shifts.

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations
