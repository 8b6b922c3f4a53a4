"""What a page answers when a URL asks for something the study database does not hold."""

from __future__ import annotations


class NotFound(LookupError):
    """An unknown model, scenario, image, face or attribute in the URL (HTTP 404, one line)."""

    status_code = 404


class BadRequest(ValueError):
    """A malformed parameter, e.g. a page number that is not a number (HTTP 400, one line)."""

    status_code = 400
