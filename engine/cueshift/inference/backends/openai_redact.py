r"""Redacting an API key from any text a server sends back, in any encoding it may echo it in.

Servers echo credentials in error bodies ("Incorrect API key provided: sk-...") and, now and
then, in answers. They do not always echo them raw: a JSON encoder may write ``/`` as ``\/``
or any character as ``\u00XX``, a proxy may percent-encode it (``%2F``, ``%2f``), an HTML
error page may use entities (``&#47;``), and a server that masks keys shows a prefix and a
suffix (``sk-test/SE****0xyz``). :func:`redact` covers all of them with one rule:

    Decode the text's escapes (JSON ``\x`` and ``\uXXXX``, percent-encoding, HTML entities;
    repeatedly, so a JSON-escaped URL-encoded key is found too) into a view that remembers
    where each character came from. In that view, every run of characters that is the key,
    a prefix of it or a suffix of it of at least ``min_partial`` characters (6; the whole
    key when it is shorter) is marked, and the source span of each merged run is replaced
    by ``[redacted]``. This repeats until nothing changes, so the result has no such run
    in any of the views.

What a partially masked echo leaves is what the mask already showed: fewer than
``min_partial`` characters at either end. Base64 forms of the key are not searched (a server
has no reason to echo ``Authorization: Basic``; the backend sends ``Bearer``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: What replaces a redacted span.
REDACTED = "[redacted]"
#: Shortest prefix or suffix of the key that is redacted on its own.
MIN_PARTIAL = 6

#: One escape at the start of a string: JSON (\uXXXX, \/ ...), percent (%XX), HTML entity.
_ESCAPE = re.compile(
    r"\\u([0-9A-Fa-f]{4})|\\([\\/\"'bfnrt])|%([0-9A-Fa-f]{2})|&#[xX]([0-9A-Fa-f]{1,6});|&#([0-9]{1,7});"
    r"|&(amp|lt|gt|quot|apos);"
)
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_TRIGGERS = ("\\", "%", "&")

#: A decoded view: its text, and for each of its characters the source span [start, end).
View = tuple[str, list[tuple[int, int]]]


def _decode_once(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with its escapes decoded once; spans index ``text``."""
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in _TRIGGERS:
            match = _ESCAPE.match(text, i)
            if match is not None:
                decoded, end = _escape_value(text, match)
                chars.append(decoded)
                spans.append((i, end))
                i = end
                continue
        chars.append(text[i])
        spans.append((i, i + 1))
        i += 1
    return "".join(chars), spans


def _escape_value(text: str, match: re.Match[str]) -> tuple[str, int]:
    """The character one escape stands for and where the escape (or escape sequence) ends."""
    uni, simple, pct, hexent, decent, named = match.groups()
    end = match.end()
    if uni is not None:
        code = int(uni, 16)
        if 0xD800 <= code < 0xDC00:  # a surrogate pair: \uD83D\uDE00
            low = _ESCAPE.match(text, end)
            if low is not None and low.group(1) is not None and 0xDC00 <= int(low.group(1), 16) < 0xE000:
                pair = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
                return chr(pair), low.end()
        return chr(code), end
    if simple is not None:
        return _SIMPLE.get(simple, simple), end
    if pct is not None:
        return _percent_value(text, match)
    if hexent is not None or decent is not None:
        code = int(hexent, 16) if hexent is not None else int(decent)
        return (chr(code) if code <= 0x10FFFF else "\ufffd"), end
    return _NAMED[named], end


def _percent_value(text: str, match: re.Match[str]) -> tuple[str, int]:
    """A percent escape; a multi-byte UTF-8 character spans several (``%C3%A9``)."""
    first = int(match.group(3), 16)
    width = 2 if first >> 5 == 0b110 else 3 if first >> 4 == 0b1110 else 4 if first >> 3 == 0b11110 else 1
    if width == 1:
        return chr(first), match.end()
    raw = bytearray([first])
    end = match.end()
    for _ in range(width - 1):
        more = re.match(r"%([0-9A-Fa-f]{2})", text[end : end + 3])
        if more is None:
            return chr(first), match.end()
        raw.append(int(more.group(1), 16))
        end += 3
    try:
        return raw.decode("utf-8"), end
    except UnicodeDecodeError:
        return chr(first), match.end()


def _views(text: str, depth: int = 3) -> list[View]:
    """The raw text and its decoded views (up to ``depth`` rounds of decoding)."""
    views: list[View] = [(text, [(i, i + 1) for i in range(len(text))])]
    current, spans = views[0]
    for _ in range(depth):
        if not any(t in current for t in _TRIGGERS):
            break
        decoded, inner = _decode_once(current)
        if decoded == current:
            break
        spans = [(spans[a][0], spans[b - 1][1]) for a, b in inner]
        current = decoded
        views.append((current, spans))
    return views


def _key_runs(view: str, secret: str, min_partial: int) -> list[tuple[int, int]]:
    """Runs [start, end) of ``view`` that are the key or a prefix/suffix of it (>= ``min_partial``)."""
    m = min(min_partial, len(secret))
    runs: list[tuple[int, int]] = []
    head, tail = secret[:m], secret[-m:]
    start = view.find(head)
    while start >= 0:
        length = m
        while length < len(secret) and start + length < len(view) and view[start + length] == secret[length]:
            length += 1
        runs.append((start, start + length))
        start = view.find(head, start + 1)
    end = view.find(tail)
    while end >= 0:
        stop = end + m
        length = m
        while (
            length < len(secret) and stop - length - 1 >= 0 and view[stop - length - 1] == secret[-length - 1]
        ):
            length += 1
        runs.append((stop - length, stop))
        end = view.find(tail, end + 1)
    return runs


def _merge(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _redact_once(text: str, secret: str, min_partial: int) -> str:
    found: list[tuple[int, int]] = []
    for view, spans in _views(text):
        for start, end in _key_runs(view, secret, min_partial):
            found.append((spans[start][0], spans[end - 1][1]))
    if not found:
        return text
    out: list[str] = []
    at = 0
    for start, end in _merge(found):
        out.append(text[at:start])
        out.append(REDACTED)
        at = end
    out.append(text[at:])
    return "".join(out)


def redact(text: str, secret: str | None, *, min_partial: int = MIN_PARTIAL) -> str:
    """``text`` with every echo of ``secret`` replaced by ``[redacted]`` (see the module notes).

    Parameters
    ----------
    text
        Anything a server sent back: an error body, an answer, a header.
    secret
        The API key; ``None`` or empty: ``text`` is returned as it is.
    min_partial
        The shortest prefix or suffix of the key redacted on its own.

    Returns
    -------
    str
        The redacted text; equal to ``text`` when no echo is found.
    """
    if not secret:
        return text
    for _ in range(8):  # each round removes key material; a fixed point comes fast
        redacted = _redact_once(text, secret, min_partial)
        if redacted == text:
            return text
        text = redacted
    return text


class Redactor:
    """:func:`redact` bound to one key: ``Redactor(key)(text)``."""

    def __init__(self, secret: str | None, *, min_partial: int = MIN_PARTIAL) -> None:
        self._secret = secret or None
        self._min_partial = min_partial

    def __call__(self, text: str) -> str:
        return redact(text, self._secret, min_partial=self._min_partial)


__all__ = ["MIN_PARTIAL", "REDACTED", "Redactor", "redact"]
