"""The StylisticBias design (seed 000), registered as ``design = "stylisticbias"`` (the default).

``design.py`` declares it, ``analyses.py`` its RQ1–RQ3 result tables, ``render/`` its report.
"""

from cueshift.designs.stylisticbias.design import StylisticBiasDesign, StylisticBiasStudy

DESIGN = StylisticBiasDesign()

__all__ = ["DESIGN", "StylisticBiasDesign", "StylisticBiasStudy"]
