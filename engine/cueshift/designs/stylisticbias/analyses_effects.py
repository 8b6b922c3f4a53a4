"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): crossed random
effects (faces and scenarios) and the bootstrap intervals of Table 4's contrast, partial eta^2
and R2.

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations
