"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): the noise
floor: placebo variations (pixel-identical copy, lossless re-encode) as a negative control.

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations
