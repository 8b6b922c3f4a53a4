"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): model
comparisons with error bars: paired SBS differences, clustered standard errors, design effects,
sign reversals with evidence.

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations
