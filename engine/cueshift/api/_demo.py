"""A study file to try the API on: the embedded demo faces judged by the simulated model (no GPU)."""

from __future__ import annotations

from pathlib import Path


def write_demo_study(folder: str | Path, *, name: str = "demo", faces: int = 2) -> Path:
    """Write ``<folder>/<name>.toml``: the default design on ``faces`` demo faces, one simulated judge.

    Its database is ``<folder>/<name>.duckdb`` and the rendered faces go to ``<folder>/cache``;
    ``cs.infer`` fills it in about a second (20,700 answers for two faces).

    Parameters
    ----------
    folder
        Where the study file, its database and the image cache go (created).
    name
        Study name and file stem.
    faces
        Demo faces (base identities) to judge.

    Returns
    -------
    Path
        The study file.

    Examples
    --------
    >>> import tempfile
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(tempfile.mkdtemp())
    >>> study_file.name
    'demo.toml'
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(
        f"name = {_toml(name)}\n"
        f"database = {_toml((folder / f'{name}.duckdb').as_posix())}\n"
        f'[image_set]\nkind = "demo"\nsize = {int(faces)}\n'
        f"cache_dir = {_toml((folder / 'cache').as_posix())}\n"
        '[[models]]\nmodel_id = "sim"\nbackend = "simulated"\n',
        encoding="utf-8",
    )
    return path


def _toml(text: str) -> str:
    """``text`` as a TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
