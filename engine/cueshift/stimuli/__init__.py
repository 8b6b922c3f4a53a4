"""``cueshift build``: the study's image set made (base faces, then variations) and judged.

The generators (``generators/``) turn one :class:`~cueshift.build.generators.base.ImageRequest`
into one :class:`~cueshift.build.generators.base.ImageResult`; the build loop (``run.py``) asks
for what is not stored yet, records every call in the study database and writes the image set.

``cs.build(...)`` is the Python API's function (:func:`cueshift.api.build`). Importing this
package makes ``cueshift.build`` name the package, so the package is callable and hands the
call to that function: ``cs.build(study)`` works whether or not the package was imported.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`cueshift.api.build`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from cueshift.api import build

        return build(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
