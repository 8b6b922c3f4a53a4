"""The stimuli a study judges, made: ``cueshift build`` (base faces, then single-cue variations).

The generators (``generators/``) turn one :class:`~cueshift.stimuli.generators.base.ImageRequest`
into one :class:`~cueshift.stimuli.generators.base.ImageResult`; the build loop (``run.py``) asks
for what is not stored yet, records every call in the study database's ``generation`` table and
writes the image set. From Python: ``cs.build(...)`` (:func:`cueshift.api.build`).
"""
