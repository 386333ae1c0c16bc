"""Regenerate the HTML report screenshots in ``docs/`` with headless Chromium.

    python docs/screenshots.py

The report is the one ``--ragcheck-report=report.html`` writes for the example suite with its
weakened retriever (``RAGCHECK_EXAMPLE_VARIANT=weak pytest example_suite``), restricted to four
tests so the page stays readable; the case opened in the drill-down is the one that got worse
most; the header shows ``example_suite`` as the rootdir (the run itself happens in a temporary
copy). ``html-report.png`` is a 1280 px wide window, ``html-report-1024.png`` the first test's card
in a 1024 px one. Needs Debian's ``chromium`` (``tests/chromium.py`` drives it).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from chromium import CHROMIUM, Browser  # noqa: E402
from figures import weak  # noqa: E402

from pytest_ragcheck.report.html import render_html  # noqa: E402

TESTS = (
    "test_baseline.py::test_cranfield_baseline",
    "test_floors.py::test_cranfield_floors",
    "test_tags.py::test_topic[heat-transfer]",
    "test_handwritten_spans.py::test_handwritten_questions",
)
#: Tallest picture kept (the drill-down of a case with long texts can run far down).
MAX_HEIGHT = 2600


def main() -> int:
    if CHROMIUM is None:
        print("Chromium is not installed (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    document = weak().tests(*TESTS)
    # The run happened in a temporary copy; show the folder a reader would run it in.
    document["run"] = {**document["run"], "rootdir": "example_suite"}
    first = next(t for t in document["tests"] if t["nodeid"] == TESTS[0])
    index, case = document["tests"].index(first), first["case_changes"][0]["id"]
    with tempfile.TemporaryDirectory(prefix="ragcheck-screenshots-") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(render_html(document), encoding="utf-8")
        with Browser(Path(tmp) / "profile", width=1280, height=900) as browser:
            browser.open(f"{page.as_uri()}#case={index}/{case}")
            browser.eval("window.scrollTo(0, 0)")
            shoot(browser, HERE / "html-report.png", "document.documentElement")
            browser.set_width(1024, 900)
            browser.open(page.as_uri())
            shoot(browser, HERE / "html-report-1024.png", "document.querySelector('section.test')")
    print("wrote docs/html-report.png, docs/html-report-1024.png")
    return 0


def shoot(browser: Browser, path: Path, element: str) -> None:
    """A PNG of ``element`` (a JavaScript expression), at most ``MAX_HEIGHT`` px tall."""
    box = browser.eval(
        f"(function () {{ var r = ({element}).getBoundingClientRect();"
        " return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; })()"
    )
    clip = {
        "x": box["x"],
        "y": box["y"],
        "width": box["w"],
        "height": min(box["h"], MAX_HEIGHT),
        "scale": 1,
    }
    browser.screenshot(path, clip=clip)


if __name__ == "__main__":
    sys.exit(main())
