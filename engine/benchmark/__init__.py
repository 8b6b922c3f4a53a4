"""Image sets: the embedded demo faces, the StylisticBias release layout, a generic manifest.

Each loader returns a :class:`Benchmark` with ``identity`` and ``image`` frames shaped
like the tables of the same names (``schemas/tables.py``), with the study's variation
filter already applied (``evaluated`` / ``exclusion_reason``).
"""
