"""The HTML report: one self-contained file (inline CSS, JS and data; no network).

The page is drawn in the browser from the embedded report document (the same JSON as the
``.json`` report), so the file stays about the size of the data however many charts it shows.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from pytest_ragcheck.report.labels import FAILING, page_labels

__all__ = ["render_html"]


@cache
def _asset(name: str) -> str:
    return resources.files("pytest_ragcheck.report").joinpath(name).read_text(encoding="utf-8")


def _embed(document: Mapping[str, Any]) -> str:
    """JSON that cannot end the ``<script>`` element it sits in."""
    text = json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def render_html(document: Mapping[str, Any]) -> str:
    tests = document.get("tests") or []
    failing = sum(1 for t in tests if t["status"] in FAILING)
    title = f"ragcheck report: {len(tests)} tests" + (f", {failing} failing" if failing else "")
    generator = (document.get("run") or {}).get("generator", "pytest-ragcheck")
    page = _asset("template.html")
    for marker, value in (
        ("__TITLE__", html.escape(title)),
        ("__GENERATOR__", html.escape(str(generator))),
        ("__LABELS__", _embed(page_labels())),
        ("/*__CSS__*/", _asset("report.css")),
        ("/*__JS__*/", _asset("report.js")),
    ):
        page = page.replace(marker, value, 1)
    # The data goes in last, so no marker inside it can be replaced by mistake.
    head, tail = page.split("__DATA__", 1)
    return head + _embed(_page_data(document)) + tail


def _page_data(document: Mapping[str, Any]) -> Mapping[str, Any]:
    """The document without the packed case entries: a capped test (more cases than
    ``report.cases.SHOWN_CASES``) shows its histogram, most regressed and lowest-scoring cases
    and says that the JSON report has the rest, so the page stays small at any size."""
    from pytest_ragcheck.report.document import PACKED

    tests = document.get("tests") or []
    if not any(PACKED in test for test in tests):
        return document
    return {**document, "tests": [{k: v for k, v in t.items() if k != PACKED} for t in tests]}
