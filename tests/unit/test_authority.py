"""Source authority: tables (patterns, files, their messages), sources of hits, the metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck import evaluate, metrics
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.metrics.authority_table import authority_table, host_of, load_authority
from pytest_ragcheck.run.hits import normalize_hits
from pytest_ragcheck.run.sources import SOURCE_KEYS

TABLE = {
    "nih.gov": 1.0,
    "www.nih.gov": 0.9,
    "https://example.org/docs/": 0.8,
    "example.org": 0.3,
    "*": 0.2,
}


@pytest.mark.parametrize(
    ("source", "pattern", "weight"),
    [
        ("https://nih.gov/flu", "nih.gov", 1.0),
        ("https://pubs.NIH.gov/a", "nih.gov", 1.0),  # a subdomain; hosts compare lower-cased
        ("https://www.nih.gov/a", "www.nih.gov", 0.9),  # the longer domain wins
        ("https://a.www.nih.gov/a", "www.nih.gov", 0.9),
        ("https://notnih.gov/a", "*", 0.2),  # a suffix that is not a subdomain
        ("https://example.org/docs/intro", "https://example.org/docs/", 0.8),  # prefix > domain
        ("HTTPS://Example.org/docs/x", "https://example.org/docs/", 0.8),
        ("https://example.org/Docs/x", "example.org", 0.3),  # the path is case-sensitive
        ("http://example.org/docs/x", "example.org", 0.3),  # so is the scheme's prefix
        ("https://user@example.org:8443/x", "example.org", 0.3),
        ("nih.gov/health", "nih.gov", 1.0),  # a bare domain with a path
        ("www.nih.gov", "www.nih.gov", 0.9),
        ("spam.net", "*", 0.2),
        ("docs/guide.md", "*", 0.2),  # a file path: only "*" matches
    ],
)
def test_longest_matching_pattern_wins(source: str, pattern: str, weight: float) -> None:
    match = authority_table(TABLE, "t").weigh(source)
    assert (match.pattern, match.weight) == (pattern, weight)
    assert match.unknown == (pattern == "*")


def test_without_a_star_unknown_sources_weigh_zero() -> None:
    match = authority_table({"nih.gov": 1}, "t").weigh("https://spam.net/x")
    assert (match.pattern, match.weight, match.unknown, match.label) == (
        None,
        0.0,
        True,
        "spam.net",
    )


def test_host_of() -> None:
    assert host_of("https://WWW.Nih.gov./x") == "www.nih.gov"
    assert host_of("nih.gov") == "nih.gov"
    assert host_of("/data/file.pdf") is None
    assert host_of("https://[::1") is None  # an invalid URL is no host, never an exception


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({"nih.gov": 1.5}, "the weight of 'nih.gov' must be a number from 0 to 1, got float 1.5"),
        ({"nih.gov": -0.1}, "got float -0.1"),
        ({"nih.gov": True}, "got bool True"),
        ({"nih.gov": "high"}, "got str 'high'"),
        ({"nih": {"gov": 1.0}}, 'in TOML, quote a key with dots: "nih.gov" = 1.0'),
        (
            {"NIH.gov": 1, "nih.gov": 0.5},
            "the pattern 'nih.gov' is given twice (also as 'NIH.gov')",
        ),
        ({"https://": 1}, "'https://' is not a URL prefix: write scheme://host/path"),
        ({"https:// example.org/": 1}, "is not a URL prefix"),
        ({"://example.org/": 1}, "is not a URL prefix"),
        ({"*.nih.gov": 1}, "'*.nih.gov': write the domain 'nih.gov', which matches its subdomains"),
        ({"nih gov": 1}, "'nih gov' is neither a domain ('nih.gov'), a URL prefix"),
        ({"example.org/docs/": 1}, "is neither a domain"),
        ({"": 1}, "a pattern must be a non-empty string"),
        ({}, "the authority table lists no pattern"),
    ],
)
def test_bad_tables_are_named(table: dict[str, Any], expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        authority_table(table, "authority table sources.json")
    assert str(info.value).startswith("authority table sources.json: ")
    assert expected in str(info.value)


def test_tables_from_files(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"nih.gov": 1.0, "*": 0.25}')
    (tmp_path / "a.toml").write_text('"nih.gov" = 1.0\n"*" = 0.25\n')
    for name in ("a.json", "a.toml"):
        table = load_authority(name, [tmp_path / "missing", tmp_path])  # the first that has it
        assert table.weigh("https://nih.gov").weight == 1.0
        assert table.weigh("spam.net").weight == 0.25
    assert load_authority(str(tmp_path / "a.json"), [Path("/nowhere")]).fallback == 0.25


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("t.json", '{"nih.gov": 1, "nih.gov": 0.2}', "the pattern 'nih.gov' is given twice"),
        ("t.json", '["nih.gov"]', "must hold an object {pattern: weight}, got list"),
        ("t.json", '{"nih.gov": 1,}', "is not valid JSON"),
        ("t.toml", "nih.gov = 1.0\n", 'quote a key with dots: "nih.gov" = 1.0'),
        ("t.toml", '"a.org" = 1\n"a.org" = 2\n', "is not valid TOML"),
        ("t.yaml", "nih.gov: 1\n", "write it as a .json or .toml file"),
        ("t.json", '{"nih.gov": 2}', "authority table t.json: the weight of 'nih.gov'"),
    ],
)
def test_bad_table_files_are_named(tmp_path: Path, name: str, content: str, expected: str) -> None:
    (tmp_path / name).write_text(content)
    with pytest.raises(ConfigError) as info:
        load_authority(name, [tmp_path])
    assert f"authority table {name}" in str(info.value)
    assert expected in str(info.value)


def test_unreadable_table(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"authority table nope\.json: cannot read it"):
        load_authority("nope.json", [tmp_path])
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(ConfigError, match=r"authority table folder\.json: cannot read it"):
        load_authority("folder.json", [tmp_path])


# ----------------------------------------------------------------- the metrics by hand


def test_metrics_computed_by_hand() -> None:
    table = authority_table(TABLE, "t")
    sources = [
        "https://nih.gov/a",  # 1.0
        "https://example.org/blog",  # 0.3: untrusted
        "https://example.org/docs/x",  # 0.8
        "spam.net",  # 0.2: untrusted, unknown
    ]
    assert metrics.authority(sources, table, 1) == 1.0
    assert metrics.authority(sources, table, 2) == pytest.approx(0.65)
    assert metrics.authority(sources, table, 4) == pytest.approx((1.0 + 0.3 + 0.8 + 0.2) / 4)
    assert metrics.authority(sources, table, 10) == pytest.approx(2.3 / 4)  # / hits returned
    assert metrics.untrusted(sources, table, 2) == 0.5
    assert metrics.untrusted(sources, table, 4) == 0.5
    assert metrics.untrusted(sources, table, 4, trusted_min=0.25) == 0.25
    assert metrics.untrusted(sources, table, 4, trusted_min=0.0) == 0.0
    assert metrics.authority([], table, 5) == metrics.untrusted([], table, 5) == 0.0


# ----------------------------------------------------------------- hits' sources


def test_sources_are_read_from_the_hit_then_its_metadata() -> None:
    raw = [
        {"id": "a", "url": "https://nih.gov/a", "metadata": {"source": "ignored"}},
        {"id": "b", "metadata": {"source": "https://example.org/b"}},  # LangChain
        {"id": "c", "meta": {"url": "https://example.org/c"}},  # Haystack
        {"id": "d", "metadata": {"file_path": "/data/d.pdf"}},  # LlamaIndex's reader
        {"id": "e", "domain": "nih.gov"},
        {"id": "f", "text": "no source", "url": "  "},
        "g",
    ]
    hits, _ = normalize_hits(raw, sources=SOURCE_KEYS)
    assert [h.source for h in hits] == [
        "https://nih.gov/a",
        "https://example.org/b",
        "https://example.org/c",
        "/data/d.pdf",
        "nih.gov",
        None,
        None,
    ]
    assert all(h.source is None for h in normalize_hits(raw)[0])  # read only when asked
    keyed, _ = normalize_hits(
        [{"id": "x", "url": "u.org", "metadata": {"link": "l.org"}}], sources=("link",)
    )
    assert keyed[0].source == "l.org"


class _Node:
    def __init__(self, node_id: str, metadata: dict[str, Any]) -> None:
        self.node_id = node_id
        self.metadata = metadata

    def get_content(self) -> str:
        return "text"


class _NodeWithScore:
    def __init__(self, node: _Node, score: float) -> None:
        self.node = node
        self.score = score


def test_sources_of_framework_shaped_hits() -> None:
    hits, _ = normalize_hits(
        [_NodeWithScore(_Node("n1", {"url": "https://nih.gov/x"}), 0.5), (_Node("n2", {}), 0.1)],
        sources=SOURCE_KEYS,
    )
    assert [(h.id, h.source, h.score) for h in hits] == [
        ("n1", "https://nih.gov/x", 0.5),
        ("n2", None, 0.1),
    ]


# ----------------------------------------------------------------- through evaluate()


def _retriever(query: str) -> list[dict[str, Any]]:
    return [
        {"id": "d1", "url": "https://www.nih.gov/flu"},
        {"id": "d2", "metadata": {"source": "https://spam.net/a"}},
        {"id": "d3", "meta": {"url": "https://spam.net/b"}},
        {"id": "d4", "url": "https://example.org/docs/flu"},
    ]


CASES = [{"id": "flu", "query": "flu", "expected_ids": ["d1"]}]


def test_evaluate_with_a_table_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sources.json").write_text(json.dumps(TABLE))
    monkeypatch.chdir(tmp_path)
    result = evaluate(
        _retriever, CASES, k=4, metrics=["authority@3", "untrusted@4"], authority="sources.json"
    )
    assert result["authority@3"] == pytest.approx((0.9 + 0.2 + 0.2) / 3)
    assert result["untrusted@4"] == 0.5
    sources = result.cases[0].facets["sources"]
    assert [(s["rank"], s["pattern"], s["weight"]) for s in sources] == [
        (1, "www.nih.gov", 0.9),
        (2, "*", 0.2),
        (3, "*", 0.2),
        (4, "https://example.org/docs/", 0.8),
    ]
    strict = evaluate(
        _retriever, CASES, k=4, metrics=["untrusted@4"], authority=TABLE, trusted_min=0.85
    )
    assert strict["untrusted@4"] == 0.75


def test_hits_without_a_source_are_a_problem_naming_case_and_hit() -> None:
    result = evaluate(lambda q: ["d1", "d2"], CASES, k=2, metrics=["authority@2"], authority=TABLE)
    assert "authority@2" not in result.metrics  # no made-up value
    (problem,) = result.info["facets"]["problems"]
    assert problem == (
        "authority@2: 2 hits in 1 case have no source ('url', 'source', 'domain' or "
        "'file_path', in the hit or its metadata), so those cases have no value: case 'flu': "
        "hit #1 'd1', #2 'd2'. If your hits keep their URL under another key, pass "
        "source_key='<that key>'"
    )
    keyed = evaluate(
        lambda q: [{"id": "d1", "link": "nih.gov"}, {"id": "d2", "url": "nih.gov"}],
        CASES,
        k=2,
        metrics=["authority@2"],
        authority=TABLE,
        source_key="link",
    )
    assert "hit #2 'd2'" in keyed.info["facets"]["problems"][0]
    assert "Does every hit carry 'link'?" in keyed.info["facets"]["problems"][0]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, "authority@10 weighs each hit's source with an authority table: pass authority="),
        ({"authority": 3}, "authority must be a path to a JSON or TOML object"),
        ({"authority": {"nih.gov": 2}}, "authority: the weight of 'nih.gov' must be a number"),
        ({"authority": TABLE, "trusted_min": 1.5}, "trusted_min must be <= 1, got 1.5"),
        ({"authority": TABLE, "source_key": ""}, "source_key must name the hit's"),
        ({"authority": "missing.toml"}, "authority table missing.toml: cannot read it"),
    ],
)
def test_bad_settings(options: dict[str, Any], expected: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as info:
        evaluate(_retriever, CASES, metrics=["authority"], **options)
    assert expected in str(info.value)
