"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): crossed
demographic subgroups (e.g. age x gender) and per-model versions of Tables 2, 3, 9 and 11.

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations
