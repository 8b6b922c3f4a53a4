"""What a result name means, from Python: :func:`describe` (``cs.describe("table3")``)."""

from __future__ import annotations

from cueshift.errors import CueshiftError


def describe(name: str) -> str:
    """The one-line description of result ``name``: what the table ``result_<name>`` holds.

    The line is the ``description`` its analysis is declared with (the same text
    ``result_manifest.description`` and the viewer show); no database is read.

    Parameters
    ----------
    name
        A result name (``"table3"``, as :meth:`Study.result_names` lists it) or its table
        (``"result_table3"``).

    Returns
    -------
    str
        The description.

    Raises
    ------
    CueshiftError
        No design declares a result of that name (the message lists the declared ones).

    Examples
    --------
    >>> import cueshift as cs
    >>> cs.describe("table11_crossed")
    'Table 11 per crossed subgroup (age_x_gender): mean Delta per variation x crossed group'
    >>> cs.describe("table99")
    Traceback (most recent call last):
    ...
    cueshift.errors.CueshiftError: no result 'table99'; declared results: sbs, table2_vs, ...
    """
    from cueshift.designs.descriptions import result_description, result_descriptions

    found = result_description(name)
    if found is None:
        known = ", ".join(result_descriptions()["name"])
        raise CueshiftError(f"no result {name!r}; declared results: {known}")
    return found
