"""What a page answers when a URL asks for something the study database does not hold.

Defined below the viewer (:mod:`cueshift.designs.page_helpers`) so that a design's own page
functions raise the same errors; the viewer answers them as a one-line page with their status.
"""

from __future__ import annotations

from cueshift.designs.page_helpers import BadRequest, NotFound

__all__ = ["BadRequest", "NotFound"]
