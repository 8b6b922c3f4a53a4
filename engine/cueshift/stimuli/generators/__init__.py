"""Image generators for ``cueshift build``: the protocol (``base.py``) and the registry (``registry.py``)."""
