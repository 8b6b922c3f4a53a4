"""Human facial impressions vs model probes (seed 004), registered as ``design = "probe"``.

``section.py`` declares ``[probe]``, ``plan.py`` the work (judgments of the base faces, human
data), ``design.py`` the design, ``inputs.py`` what its analyses read, ``analyses.py`` its
``result_probe_*`` tables, ``stats.py`` their statistics (the scale OLS in
``scale_regression.py``) and ``report.py`` its report.
"""

from cueshift.designs.probe.design import ProbeDesign
from cueshift.designs.probe.section import ProbeConfig, ProbeStudy, RegisteredModel

DESIGN = ProbeDesign()

__all__ = ["DESIGN", "ProbeConfig", "ProbeDesign", "ProbeStudy", "RegisteredModel"]
