"""Every ragcheck option as plain data: its flag, ini key, kind and help.

The plugin registers these when pytest starts, in every project that has the plugin installed,
so this module imports nothing but the standard library and the baseline defaults it quotes.
:mod:`pytest_ragcheck.plugin.options` validates the values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pytest_ragcheck.baseline.options import DEFAULT_MAX_HITS

__all__ = ["OPTION_SPECS", "OptionSpec"]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One setting: ini key ``ragcheck_<name>`` and, with ``flag``, ``--ragcheck-<name>``."""

    name: str
    help: str
    kind: Literal["string", "bool", "linelist"] = "string"
    flag: bool = True
    #: The ini key's help, when it differs from the flag's.
    ini_help: str | None = None
    #: The flag may be given more than once; its values count as one comma-separated list.
    repeats: bool = False

    @property
    def dest(self) -> str:
        """The ini key, and the ``config.option`` attribute of the flag."""
        return f"ragcheck_{self.name}"

    @property
    def flag_name(self) -> str:
        return "--ragcheck-" + self.name.replace("_", "-")

    @property
    def label(self) -> str:
        """How messages name the setting: both spellings, or the ini key alone."""
        return f"{self.flag_name} / {self.dest}" if self.flag else f"ini {self.dest}"


OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "report",
        "write a report of every ragcheck test: PATH ending in .json, .md or .html, or "
        ".json.gz for the JSON report compressed (several: repeat the option, or separate "
        "them with commas)",
        repeats=True,
    ),
    OptionSpec("tolerance", "absolute drop allowed against the baseline (default 0.02)"),
    OptionSpec(
        "significance",
        "level of the paired test a drop beyond tolerance must pass to fail "
        "(default 0.05; 'off' judges by tolerance alone)",
    ),
    OptionSpec(
        "concurrency",
        "parallel retriever calls per test: 'auto' (default: serial for CPU-bound retrievers, "
        "16 for I/O-bound ones) or a number",
    ),
    OptionSpec("judge_model", "LLM judge model (any litellm model name)"),
    OptionSpec("judge_api_base", "base URL of an OpenAI-compatible judge server"),
    OptionSpec(
        "judge_embedding_model",
        "embedding model (any litellm model name) for answer_relevancy and answer_correctness",
    ),
    OptionSpec(
        "no_judge",
        "what a test asking for LLM-judge metrics does when no judge model is configured: "
        "'fail' (default) or 'skip' (the skip reason names the settings to set)",
    ),
    OptionSpec(
        "judge_cache",
        "verdict cache folder, or 'off' (default .ragcheck/judge under the rootdir)",
    ),
    OptionSpec(
        "judge_offline",
        "never call the LLM judge: missing verdicts fail (use with a committed cache in CI)",
        kind="bool",
        ini_help="never call the LLM judge",
    ),
    OptionSpec(
        "propose_labels",
        "write the judge's verdicts on retrieved documents that have no human label to FILE "
        "(JSONL, one line per document) for review; golden files are never edited",
    ),
    OptionSpec(
        "no_summary",
        "do not print the ragcheck metrics table at the end of the run",
        kind="bool",
        ini_help="do not print the ragcheck summary",
    ),
    OptionSpec(
        "history",
        "append one JSON line per ragcheck test to FILE (timestamp, git commit, metrics...); "
        "the HTML report draws each metric's trend from it",
    ),
    OptionSpec(
        "judge_prune",
        "after a complete, passing run, delete verdict cache entries no ragcheck test used",
        kind="bool",
        ini_help="delete unused verdict cache entries after a complete, passing run",
    ),
    OptionSpec(
        "judge_prune_dry_run",
        "list the verdict cache entries --ragcheck-judge-prune would delete, delete nothing",
        kind="bool",
        ini_help="list unused verdict cache entries, delete nothing",
    ),
    OptionSpec(
        "fail_on_improvement",
        "fail when a metric improves beyond tolerance, so the baseline is refreshed",
        kind="bool",
        flag=False,
    ),
    OptionSpec(
        "baseline_precision",
        "decimals kept in baseline snapshot files (default 4)",
        flag=False,
    ),
    OptionSpec(
        "refusal_patterns",
        "regular expressions (one a line) that make an answer a refusal; replace the defaults",
        kind="linelist",
        flag=False,
    ),
    OptionSpec(
        "authority", "authority table (.json/.toml) for authority@k, untrusted@k", flag=False
    ),
    OptionSpec(
        "baseline_max_hits",
        f"ranked ids a baseline stores per case for metrics without a cutoff "
        f"(default {DEFAULT_MAX_HITS})",
        flag=False,
    ),
)
