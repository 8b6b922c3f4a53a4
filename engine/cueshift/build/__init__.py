"""``cueshift build``: the study's image set made (base faces, then variations) and judged.

The generators (``generators/``) turn one :class:`~cueshift.build.generators.base.ImageRequest`
into one :class:`~cueshift.build.generators.base.ImageResult`; the build loop (``run.py``) asks
for what is not stored yet, records every call in the study database and writes the image set.
"""
