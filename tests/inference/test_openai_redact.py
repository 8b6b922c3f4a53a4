"""The one redaction function (:func:`cueshift.inference.backends.openai_redact.redact`), property-tested.

Whatever a server does to the key before it echoes it (JSON escaping, ``\\/``, ``\\uXXXX``,
percent-encoding in either hex case, HTML entities, one encoding inside another, a masked
prefix and suffix), the redacted text holds neither the key nor any prefix or suffix of
six characters or more in any of those forms; text without the key is left as it is.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cueshift.inference.backends.openai_redact import MIN_PARTIAL, REDACTED, Redactor, redact
from tests.key_forms import ENCODINGS, leaks

# API keys: what key generators produce (letters, digits, - _ . / + = ~ :), 8 to 80 characters
KEYS = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=~:"),
    min_size=8,
    max_size=80,
)
# whatever a server writes around the echo
AROUND = st.text(max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=KEYS, before=AROUND, after=AROUND, encoding=st.sampled_from(sorted(ENCODINGS)))
def test_no_form_of_the_key_survives(key: str, before: str, after: str, encoding: str) -> None:
    text = before + ENCODINGS[encoding](key) + after
    redacted = redact(text, key)
    assert not leaks(redacted, key), (encoding, text, redacted)
    assert REDACTED in redacted


@settings(max_examples=200, deadline=None)
@given(key=KEYS, before=AROUND, after=AROUND, head=st.integers(6, 40), tail=st.integers(0, 5))
def test_a_masked_echo_shows_only_what_the_mask_showed(
    key: str, before: str, after: str, head: int, tail: int
) -> None:
    assume(head + tail < len(key))
    echo = key[:head] + "****" + (key[-tail:] if tail else "")
    redacted = redact(before + echo + after, key)
    assert not leaks(redacted, key)


@settings(max_examples=200, deadline=None)
@given(key=KEYS, parts=st.lists(st.sampled_from(sorted(ENCODINGS)), min_size=1, max_size=4), filler=AROUND)
def test_several_echoes_in_several_encodings(key: str, parts: list[str], filler: str) -> None:
    text = filler.join(ENCODINGS[name](key) for name in parts)
    redacted = redact(text, key)
    assert not leaks(redacted, key)
    assert redact(redacted, key) == redacted  # a fixed point


@settings(max_examples=300, deadline=None)
@given(key=KEYS, text=st.text(max_size=200))
def test_text_without_the_key_is_left_alone(key: str, text: str) -> None:
    # every prefix (suffix) of >= 6 characters starts (ends) with the first (last) six
    assume(key[:MIN_PARTIAL] not in text and key[-MIN_PARTIAL:] not in text)
    assume(not any(c in text for c in "\\%&"))  # no escapes that could decode to key material
    assert redact(text, key) == text


def test_worked_examples() -> None:
    key = "sk-test/SECRET-0123456789abcdef0xyz"
    assert redact(f"Incorrect API key provided: {key}.", key) == "Incorrect API key provided: [redacted]."
    assert redact('{"message": "key sk-test\\/SECRET-0123456789abcdef0xyz"}', key) == (
        '{"message": "key [redacted]"}'
    )
    assert redact("?key=sk-test%2FSECRET-0123456789abcdef0xyz&x=1", key) == "?key=[redacted]&x=1"
    assert redact("key sk-test/SE****0xyz", key) == "key [redacted]****0xyz"  # 4 characters: the mask's
    assert redact("tail ...456789abcdef0xyz", key) == "tail ...[redacted]"
    assert redact("(a) because", key) == "(a) because"
    assert redact("sk-tes", key) == "[redacted]" and redact("sk-te", key) == "sk-te"  # 6 is the shortest
    assert redact("anything", None) == "anything" and Redactor("")("x") == "x"
    assert Redactor(key)(key) == REDACTED


@pytest.mark.parametrize("key", ["abc", "a-b-c-d"])
def test_short_keys_are_redacted_whole(key: str) -> None:
    assert redact(f"<{key}>", key) == f"<{REDACTED}>"
