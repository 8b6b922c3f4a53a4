"""The forms in which a server may echo an API key, and a search for any of them in a text.

Used by the redaction property tests (``tests/inference/test_openai_redact.py``) and the key-leak
hardening tests (``tests/hardening/test_api_key_leaks.py``).
"""

from __future__ import annotations

import html
import json
import urllib.parse
from collections.abc import Callable

from cueshift.inference.backends.openai_redact import MIN_PARTIAL


def json_escaped(s: str) -> str:
    return json.dumps(s)[1:-1]


def json_slashes(s: str) -> str:
    return json.dumps(s)[1:-1].replace("/", "\\/")


def json_unicode(s: str) -> str:
    return "".join(c if c.isalnum() else f"\\u{ord(c):04x}" for c in s)


def url_upper(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def url_lower(s: str) -> str:
    quoted = urllib.parse.quote(s, safe="")
    out, i = [], 0
    while i < len(quoted):
        if quoted[i] == "%":
            out.append(quoted[i : i + 3].lower())
            i += 3
        else:
            out.append(quoted[i])
            i += 1
    return "".join(out)


def url_everything(s: str) -> str:
    return "".join(f"%{b:02X}" for b in s.encode())


def html_entities(s: str) -> str:
    return "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in s)


def json_of_url(s: str) -> str:
    return json_slashes(url_upper(s))


def url_of_json(s: str) -> str:
    return url_upper(json_slashes(s))


ENCODINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "json": json_escaped,
    "json \\/": json_slashes,
    "json \\u": json_unicode,
    "url": url_upper,
    "url lower-case hex": url_lower,
    "url every byte": url_everything,
    "html entities": html_entities,
    "json of url": json_of_url,
    "url of json": url_of_json,
    "html escape": html.escape,
}


def leaks(text: str, key: str) -> list[str]:
    """Every form of the key, or of a prefix/suffix of >= MIN_PARTIAL characters, found in ``text``."""
    found = []
    for name, encode in ENCODINGS.items():
        for n in range(MIN_PARTIAL, len(key) + 1):
            for piece in {key[:n], key[-n:]}:
                if encode(piece) in text:
                    found.append(f"{name}: {piece!r}")
    return found
