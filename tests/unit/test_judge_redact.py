"""The one redaction step: which values are secrets and how every spelling of them is masked."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from pytest_ragcheck.common import redact as r
from pytest_ragcheck.judge.cache import VerdictCache
from pytest_ragcheck.judge.prompts import PROMPTS

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """No secret from the machine running the tests, and none remembered by earlier tests."""
    for name in list(__import__("os").environ):
        if name.upper().endswith(r.SECRET_SUFFIXES):
            monkeypatch.delenv(name)
    monkeypatch.setattr(r, "_remembered", set())
    monkeypatch.delitem(sys.modules, "litellm", raising=False)


@pytest.mark.parametrize(
    "name",
    ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_AD_TOKEN", "WATSONX_APIKEY", "HF_TOKEN",
     "AWS_SECRET_ACCESS_KEY", "AZURE_CLIENT_SECRET", "my_proxy_password"],
)  # fmt: skip
def test_credential_environment_variables_are_masked(monkeypatch, name):
    monkeypatch.setenv(name, KEY)
    assert (
        r.redact(f"Incorrect API key provided: {KEY}.")
        == f"Incorrect API key provided: {r.MARKER}."
    )


def test_other_variables_and_short_values_are_left_alone(monkeypatch):
    monkeypatch.setenv("HOME_DIR_NAME", KEY)  # not named like a credential
    monkeypatch.setenv("FEATURE_TOKEN", "true")  # too short to be a key
    text = f"value {KEY} is true"
    assert r.redact(text) == text
    assert r.known_secrets() == frozenset()


def test_url_user_info_and_key_parameters_are_secrets():
    url = "https://judge:hunter22@proxy.example/v1?api_key=abcdef123456&region=eu&token=tok987654"
    assert r.url_secrets(url) == {"judge", "hunter22", "abcdef123456", "tok987654"}
    assert r.url_secrets("http://127.0.0.1:8000/v1") == set()
    assert r.url_secrets(None) == set()
    r.remember(api_base=url)
    text = "failed at https://judge:hunter22@proxy.example/v1?api_key=abcdef123456&region=eu"
    redacted = r.redact(text)
    assert "hunter22" not in redacted
    assert "abcdef123456" not in redacted
    assert "region=eu" in redacted
    assert "judge:" in redacted  # shorter than MIN_SECRET: not treated as a secret


def test_remembered_keys_and_litellm_attributes(monkeypatch):
    r.remember(api_key="configured-key-123")
    fake = types.ModuleType("litellm")
    fake.api_key = "litellm-global-456"  # type: ignore[attr-defined]
    fake.anthropic_key = "anthropic-789xyz"  # type: ignore[attr-defined]
    fake.model_list = "not-a-key-at-all"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", fake)
    assert r.known_secrets() == {"configured-key-123", "litellm-global-456", "anthropic-789xyz"}


def test_quoted_escaped_and_cut_off_spellings_are_masked(monkeypatch):
    secret = 'k3y/with+odd"chars'
    monkeypatch.setenv("PROXY_API_KEY", secret)
    assert r.redact("url ?key=k3y%2Fwith%2Bodd%22chars") == f"url ?key={r.MARKER}"
    assert r.redact(json.dumps({"error": f"bad key {secret}"})) == json.dumps(
        {"error": f"bad key {r.MARKER}"}
    )
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    # what clipping a long message to a width leaves of the key: its start, then an ellipsis
    assert r.redact(f"Incorrect API key provided: {KEY[:12]}…") == (
        f"Incorrect API key provided: {r.MARKER}…"
    )
    assert r.redact(f"key {KEY[:9]}... and more") == f"key {r.MARKER}... and more"
    assert r.redact("ends with sk-t…") == "ends with sk-t…"  # too short a piece to mean anything


def test_redact_data_walks_json_like_values(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    data = {"a": [KEY, 1, None, {"b": (f"x{KEY}y",)}], KEY: 2.5}
    assert r.redact_data(data) == {
        "a": [r.MARKER, 1, None, {"b": (f"x{r.MARKER}y",)}],
        r.MARKER: 2.5,
    }
    assert r.redact_data(data) is not data


def test_nothing_to_mask_returns_the_same_objects():
    data = {"a": ["b"]}
    assert r.redact_data(data) is data
    assert r.redact("") == ""


def test_the_longest_secret_wins_when_one_contains_another(monkeypatch):
    monkeypatch.setenv("A_API_KEY", "abcdef")
    monkeypatch.setenv("B_API_KEY", "abcdefghij")
    assert r.redact("abcdefghij abcdef") == f"{r.MARKER} {r.MARKER}"


def test_a_cache_entry_never_stores_an_echoed_key(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cache = VerdictCache(tmp_path)
    prompt = PROMPTS["relevance"]
    key = "ab" + "0" * 62
    problem = cache.put(
        prompt,
        key,
        model="openai/judge-test",
        api_base="http://127.0.0.1:9/v1",
        sampling={"temperature": 0.0},
        inputs={"query": "q", "chunk": "c"},
        answer={"verdict": "yes", "reason": f"the proxy says {KEY}"},
    )
    assert problem is None
    text = cache.path(prompt, key).read_text(encoding="utf-8")
    assert KEY not in text
    assert cache.get(prompt, key).answer == {
        "verdict": "yes",
        "reason": f"the proxy says {r.MARKER}",
    }
