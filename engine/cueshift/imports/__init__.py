"""Importers of data users already have: the One Million Impressions ratings as a probe study
(:mod:`.omi`) and judgments made with the StylisticBias release code (:mod:`.judgments`).

This package sits at the ``designs`` layer: it reads with ``images/``, parses with ``infer/``,
computes with ``stats/`` and writes through ``store/``, and it builds studies with the design
registry. The command line reaches it as ``cueshift import omi`` and ``cueshift import judgments``.
"""
