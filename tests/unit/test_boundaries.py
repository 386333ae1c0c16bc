"""Input at the boundary: concurrency "auto", and absurd numbers as named errors (marker
keywords, golden files, in-memory cases) instead of a traceback from deep inside."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ragcheck.common.errors import ConfigError, GoldenSetError
from pytest_ragcheck.common.validate import MAX_TIMEOUT
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.settings import Defaults
from pytest_ragcheck.golden import load_golden


def test_concurrency_is_auto_by_default_and_a_number_wins() -> None:
    assert build_settings({}).concurrency == "auto"
    assert build_settings({"concurrency": "Auto"}).concurrency == "auto"
    assert build_settings({"concurrency": 4}).concurrency == 4
    assert build_settings({}, defaults=Defaults(concurrency=8)).concurrency == 8
    assert build_settings(
        {"concurrency": "auto"}, defaults=Defaults(concurrency=8)
    ).concurrency == ("auto")


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        (
            {"concurrency": "atuo"},
            "concurrency must be 'auto' or an integer >= 1, got 'atuo' (did you mean 'auto'?)",
        ),
        ({"concurrency": 0}, "concurrency must be an integer >= 1, got 0"),
        (
            {"timeout": 10**10},
            f"timeout must be at most {MAX_TIMEOUT:.0f} seconds, got 10000000000; use None for no timeout",
        ),
        ({"timeout": 0}, "timeout must be > 0 seconds (or None for no timeout), got 0"),
        # the bound as accepted: "<= 9.22337e+09" would refuse 9223372036 on paper
        ({"judge_timeout": 1e300}, f"judge_timeout must be <= {MAX_TIMEOUT:.0f}, got 1e+300"),
        ({"judge_timeout": 0}, "judge_timeout must be >= 0.001, got 0"),
        # 0 is refused as well: "must be >= 0" would say it is not
        ({"timeout": -1}, "timeout must be > 0 seconds (or None for no timeout), got -1"),
        ({"timeout": -0.5}, "timeout must be > 0 seconds (or None for no timeout), got -0.5"),
        *(
            (
                {"significance": level},
                "significance must be a level strictly between 0 and 1 (e.g. 0.05) or None, "
                f"got {level!r}",
            )
            for level in (0, -0.5, 1, 1.0, 5)
        ),
        ({"tolerance": 10**400}, "tolerance must be a finite number, got an integer too large"),
    ],
)
def test_absurd_values_are_named_errors(keywords: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        build_settings(keywords)
    assert str(info.value) == message


def test_the_longest_timeout_and_none_are_accepted() -> None:
    assert build_settings({"timeout": MAX_TIMEOUT}).timeout == MAX_TIMEOUT
    assert build_settings({"timeout": None}).timeout is None


def test_a_number_too_long_to_read_in_a_golden_file(tmp_path: Any) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_text(
        '{"query": "a", "expected_ids": ["d1"]}\n'
        f'{{"query": "b", "expected_ids": [{"9" * 5000}]}}\n',
        encoding="utf-8",
    )
    with pytest.raises(GoldenSetError) as info:
        load_golden(str(path), base_dirs=[tmp_path])
    assert (
        "golden.jsonl:2: a number has more digits than Python reads (4,300); write long ids "
        in (str(info.value))
    )


def test_an_integer_id_too_long_in_memory() -> None:
    with pytest.raises(GoldenSetError) as info:
        load_golden([{"id": 10**5000, "query": "a", "expected_ids": ["d1"]}], base_dirs=[])
    assert "field 'id': an integer id of about 5,001 digits is longer than Python converts" in str(
        info.value
    )


@pytest.mark.parametrize("level", ["-0.5", "0", "1", "abc"])
def test_a_significance_option_out_of_range_says_what_is_accepted(level: str, tmp_path) -> None:
    from pytest_ragcheck.plugin.options import parse_options

    with pytest.raises(ConfigError) as info:
        parse_options(
            cli={"significance": level}, ini={}, invocation_dir=tmp_path, rootdir=tmp_path
        )
    assert str(info.value) == (
        "--ragcheck-significance / ragcheck_significance must be a level strictly between "
        f"0 and 1 (e.g. 0.05) or 'off', got {level!r}"
    )
