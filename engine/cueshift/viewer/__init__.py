"""`cueshift view`: the faces, prompts and raw answers behind every number, in a browser.

A small Starlette application with server-rendered Jinja2 pages (see ``docs/view.md`` for the
choice), over a **read-only** connection to one study database:

=====================  ===================================================================
page                   what it shows
=====================  ===================================================================
``/``                  models with answer counts and invalid rates; SBS/|SBS| ranking of
                       attributes with CIs; the cumulative-|SBS| Pareto; the noise floor
                       (placebos in view; the stored floor summarised per model)
``/attribute``         Δ per scenario with face-level CIs; demographic group × model;
                       base/variation examples: the largest increase, the median, the
                       largest decrease of a face's mean Δ
``/faces``, ``/face``  the identities; one face's base and variations, φ per scenario
``/judgments``         one image × scenario: exact prompts, raw answers, parses, P(favorable)
``/design/<d>/<p>``    the pages a design declares (``Design.viewer``): seed 002's trials,
                       both images and the choice (``/pairwise`` redirects there); seed 004's
                       model score vs human rating per attribute (``/probe``)
``/failed``            the edits that failed the audit: base and variation, the failed measures;
                       the robustness (RV, bound) of the audit run's shifts
``/compare``           two models: paired SBS difference per attribute and scenario, with CI;
                       the faces on which they disagree most, both models' φ
=====================  ===================================================================

Every page takes ``model``, ``category`` and ``group`` (``dimension:value``) from its URL.
:func:`start_viewer` serves it in a background thread and returns a :class:`ViewerServer`; the
command line and :func:`cueshift.api.view` (which imports this package when called) use it.
"""

from __future__ import annotations

from cueshift.extras import importing

with importing("view", "cueshift view"):  # starlette, uvicorn, jinja2
    from cueshift.viewer.app import build_viewer, create_app
    from cueshift.viewer.server import ViewerServer, start_viewer
    from cueshift.viewer.viewer import Viewer

__all__ = ["Viewer", "ViewerServer", "build_viewer", "create_app", "start_viewer"]
