"""A key in any spelling: base64 / base64url in every alignment, hex, fragments; no false alarm.

The checks read the masked text back independently of how :mod:`pytest_ragcheck.common.masking`
finds spellings (``tests/leaks.py``): every base64 run is decoded from each of its four
starting characters and every hex run from both, and the decoded bytes must not hold the key.
"""

from __future__ import annotations

import base64
import random
import string
import time

import pytest
from leaks import leaks as leaks_key

from pytest_ragcheck.common import masking
from pytest_ragcheck.common.redact import MARKER, Redactor

KEY = "sk-proj-Qm4xT9qLm2Vb7KdR0pZ8wYc3NfUe6HsJ"
BEARER = f"Bearer {KEY}"


def leaks(text: str, key: str = KEY) -> bool:
    return leaks_key(text, key)


def _encode(value: bytes, alphabet: str, padded: bool) -> str:
    text = base64.b64encode(value).decode()
    if alphabet == "url":
        text = text.replace("+", "-").replace("/", "_")
    return text if padded else text.rstrip("=")


@pytest.mark.parametrize("padded", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("alphabet", ["standard", "url"])
@pytest.mark.parametrize("value", [KEY, BEARER], ids=["key", "authorization"])
@pytest.mark.parametrize("before", ["", "x", "xy", "auth=", '{"k": "'])
@pytest.mark.parametrize("after", ["", "!", '"}'])
def test_base64_of_the_key_is_masked_in_every_alignment(value, alphabet, padded, before, after):
    encoded = _encode((before + value + after).encode(), alphabet, padded)
    assert leaks(encoded)  # the reference decoder does see the key before masking
    masked = Redactor([KEY])(f"400 bad auth {encoded} (retry)")
    assert MARKER in masked
    assert not leaks(masked)
    assert masked.startswith("400 bad auth ")
    assert masked.endswith(" (retry)")


@pytest.mark.parametrize("value", [KEY, BEARER, "ab" + KEY])
@pytest.mark.parametrize("case", [str.lower, str.upper])
def test_hex_of_the_key_is_masked_in_both_cases(value, case):
    encoded = case(value.encode().hex())
    masked = Redactor([KEY])(f"token={encoded};")
    assert MARKER in masked
    assert not leaks(masked)


@pytest.mark.parametrize(
    ("piece", "masked"),
    [
        (KEY[-12:], True),  # "key ending in ..." of a gateway
        (KEY[:12], True),
        (KEY[10:18], True),
        (KEY[5:], True),
        (KEY[8:15], False),  # 7 characters: too short to mean anything
        (KEY[:8], False),  # "sk-proj-": a provider's prefix, no key material
    ],
)
def test_fragments_of_eight_or_more_characters_are_masked(piece, masked):
    text = f"invalid key ending in {piece}, see the console"
    assert (Redactor([KEY])(text) != text) is masked
    if masked:
        assert Redactor([KEY])(text) == f"invalid key ending in {MARKER}, see the console"


def test_a_fragment_is_masked_as_far_as_it_goes_and_no_further():
    text = f"xx{KEY[4:30]}yy and {KEY[20:]}"
    assert Redactor([KEY])(text) == f"xx{MARKER}yy and {MARKER}"


@pytest.mark.parametrize(
    "secret",
    [
        "production-db",  # short: a password, a word
        "/home/runner/work/_temp/gha-creds-1a2b3c4d.json",  # a *_CREDENTIALS file name
        "https://hooks.example.com/services/T000/B000",  # a URL
        "correct horse battery staple",  # prose
    ],
)
def test_short_values_paths_and_prose_mask_only_whole(secret):
    """The rule that keeps fragments from masking ordinary words and paths everywhere."""
    assert not masking.fragment_source(secret)
    redact = Redactor([secret])
    text = f"{secret[:9]} {secret[-9:]} /home/runner/work/_temp/report.json"
    assert redact(text) == text
    assert redact(f"value {secret}.") == f"value {MARKER}."


def test_words_inside_a_key_are_not_key_material():
    secret = "django-insecure-8f#k2lq9x0vz7m4w3n5b6c1d"[:16] + "Xy7pQ2rS9tU4vW1z"
    redact = Redactor([secret])
    text = "an insecure default; see the django-insecure docs"
    assert redact(text) == text
    assert redact(f"leaked {secret[4:20]}") == f"leaked {MARKER}"


def test_keys_issued_by_providers_are_fragment_sources():
    assert masking.fragment_source(KEY)
    assert masking.fragment_source("AKIAIOSFODNN7EXAMPLE")
    assert masking.fragment_source("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl")
    assert masking.fragment_source("dGhpcyBpcyBhIGtleQ+/ab==")


def _random_key(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits
    return rng.choice(["sk-", "sk-ant-", "", "gsk_"]) + "".join(
        rng.choice(alphabet + "-_") for _ in range(rng.randint(16, 120))
    )


def _spelled(kind: str, key: str, value: str, raw: bytes, rng: random.Random) -> str:
    if kind == "b64":
        return base64.b64encode(raw).decode()
    if kind == "b64url":
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if kind in ("hex", "HEX"):
        return raw.hex() if kind == "hex" else raw.hex().upper()
    return value if kind == "plain" else key[-rng.randint(8, len(key)) :]


def test_generated_keys_in_generated_spellings_never_leak():
    rng = random.Random(31)
    words = ["the", "judge", "said", "no", "because", "the", "chunk", "is", "about", "beta"]
    for _ in range(300):
        key = _random_key(rng)
        value = rng.choice([key, f"Bearer {key}"])
        before = "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 5)))
        kind = rng.choice(["b64", "b64url", "hex", "HEX", "plain", "tail"])
        raw = (before + value).encode()
        spelled = _spelled(kind, key, value, raw, rng)
        text = (
            " ".join(rng.choices(words, k=5)) + f" {spelled} " + " ".join(rng.choices(words, k=5))
        )
        masked = Redactor([key])(text)
        assert not leaks(masked, key), (key, kind, text, masked)
        assert masked.startswith(text.split(spelled)[0])  # what came before is kept
        assert MARKER in masked


def test_texts_without_a_key_are_returned_unchanged():
    """No false alarm: prose, ids, random base64 and hex of other data, at any length."""
    rng = random.Random(7)
    keys = [_random_key(rng) for _ in range(5)] + ["hunter22", "production-db"]
    redact = Redactor(keys)
    for _ in range(200):
        noise = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))
        text = rng.choice(
            [
                base64.b64encode(noise).decode(),
                noise.hex(),
                " ".join(
                    rng.choice(["alpha", "doc-12", "0.8333", "Bearer", "sk-"]) for _ in range(50)
                ),
            ]
        )
        assert redact(text) is text


@pytest.mark.parametrize("size", [100, 5_000, 200_000])
def test_short_and_long_texts_mask_alike(size, monkeypatch):
    """The plain-Python search (short texts) and the numpy one (long texts, a block of
    windows at a time) agree."""
    monkeypatch.setattr(masking, "_BLOCK", 4099)
    rng = random.Random(size)
    filler = "é chunk [g=2] 𝄞 " * (size // 16 + 1)
    spelled = [KEY, KEY[-12:], base64.b64encode(f"x{BEARER}".encode()).decode(), KEY.encode().hex()]
    pieces = [filler[: size // 2]]
    for item in spelled:
        pieces += [item, filler[: rng.randint(0, 50)]]
    text = "".join(pieces) + "\ud800" + KEY[:7] + "…"  # a lone surrogate survives
    finder = masking.Finder([KEY])
    raw = text.encode("utf-8", "surrogatepass")
    assert finder._windows_py(raw) == finder._windows_numpy(raw)
    masked = Redactor([KEY])(text)
    assert masked.count(MARKER) == len(spelled) + 1  # and the cut-off start
    assert not leaks(masked)
    assert masked.endswith("\ud800" + MARKER + "…")


def test_report_sized_texts_are_searched_fast():
    """A report's 8 MB JSON text with several credentials set, one of them a long token."""
    rng = random.Random(3)
    keys = [_random_key(rng) for _ in range(6)] + ["eyJ" + "x1Y2z3" * 150]
    redact = Redactor(keys)
    text = '{"id": "q1", "text": "what is alpha [g=2]", "score": 0.8333}, ' * 140_000
    redact(text[:1000])  # the lookup table is built once per set of secrets
    started = time.process_time()  # CPU time: other processes on the machine do not count
    assert redact(text) is text
    spent = time.process_time() - started
    assert spent < 1.0, spent  # about 0.1 s on a laptop


def test_nested_data_is_masked_through_its_json_text():
    encoded = base64.b64encode(BEARER.encode()).decode()
    data = {"errors": [{"message": f"bad auth {encoded}"}], "ok": ["alpha"]}
    masked = Redactor([KEY]).data(data)
    assert masked["errors"][0]["message"].startswith(f"bad auth {MARKER}")
    assert not leaks(masked["errors"][0]["message"])
    assert masked["ok"] == ["alpha"]
