"""Power planning: power, minimum detectable effects and cost of a study before it runs.

The machinery the designs' planners (``designs/<name>/planner.py``) are built from, below
:mod:`cueshift.designs` in the layering; ``cueshift plan`` (:mod:`cueshift.plan`) reaches a design's
planner through the design registry. Two methods check each other: normal theory with estimated
variance components (:mod:`.families`, :mod:`.one_sample_sets`, :mod:`.analytic`) and simulated
studies that run the analyses' own tests (:mod:`.simulate`, :mod:`.study_draws`, :mod:`.model`,
:mod:`.draws`, :mod:`.face_mean_draws`, drawn in batches by :mod:`.replicates`; their numba
kernels' cache and first compilation: :mod:`.kernels`; progress: :mod:`.progress`). The components
come from a pilot study database (:mod:`.pilot`, :mod:`.pilot_inputs`, :mod:`.cubes`,
:mod:`.anova`, :mod:`.estimate`) or the simulated judge's documented defaults (:mod:`.judge`); the
power curve is :mod:`.curve`. Cost: prompts, forward passes, prefill tokens with and without the
shared image prefix, GPU-hours (:mod:`.cost`, :mod:`.throughput`). What a plan is asked and
answers, and what a design offers it, is :mod:`.request`.

The package imports nothing heavy itself: a design's ``planner()`` imports what it uses.
"""

import cueshift._jit  # noqa: F401  (numba's cache folder, before any kernel is decorated)
