"""``cueshift prereg`` from Python: freeze a study's analysis plan into a canonical TOML file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cueshift.api._locate import DEFAULT
from cueshift.errors import ConfigError


def prereg(
    study: str | Path = DEFAULT,
    out: str | Path = "plan.toml",
    *,
    resamples: int | None = None,
    seed: int | None = None,
    test: str | None = None,
    ci: str | None = None,
    phi: str | None = None,
    min_identity: float | None = None,
    models: str | Sequence[str] | None = None,
    compat: str | None = None,
    generalise: str | None = None,
    audit: str | None = None,
    force: bool = False,
) -> str:
    """Freeze the plan of analysing ``study`` with these ``analyze`` options into ``out``.

    The plan (docs/prereg.md) holds the design, the study as parsed (scenarios, attributes,
    prompt and parser, seeds, models, smallest effects of interest), every declared analysis with
    its statistic and correction family, these options (left out: the design's default), α, and
    the SHA-256 of the study and of its image set; the file is canonical TOML whose first line is
    the SHA-256 of the rest. ``cueshift.analyze(..., prereg=out)`` runs exactly it.

    Returns
    -------
    str
        The plan's SHA-256 (hex).

    Raises
    ------
    ConfigError
        A bad option (as ``analyze`` words it), a bad study file, or ``out`` existing without ``force``.

    Examples
    --------
    >>> import tempfile
    >>> import cueshift as cs
    >>> folder = Path(tempfile.mkdtemp())
    >>> digest = cs.prereg("default", folder / "plan.toml", resamples=200, seed=7)
    >>> (folder / "plan.toml").read_text().splitlines()[0] == f'sha256 = "{digest}"'
    True
    >>> cs.prereg("default", folder / "plan.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: ...plan.toml: exists (force=True / --force replaces it)
    """
    from cueshift.designs import AnalysisRequest, load_study

    target = Path(out)
    if target.exists() and not force:
        raise ConfigError(f"{target}: exists (force=True / --force replaces it)")
    spec = load_study(study)  # a bad study file is one line before the analysis machinery loads (D93)
    from cueshift.execution.analysis_run import check_options
    from cueshift.execution.prereg import freeze_plan, write_plan
    from cueshift.store.model_subset import parse_models

    request = AnalysisRequest(
        seed=seed, resamples=resamples, test=test, ci=ci, models=tuple(parse_models(models)), phi=phi,
        min_identity=min_identity, compat=compat, generalise=generalise, audit=audit,
    )  # fmt: skip
    check_options(spec, request)  # one line, as analyze words it, before anything is written
    return write_plan(freeze_plan(spec, request), target)


__all__ = ["prereg"]
