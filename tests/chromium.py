"""Drive headless Chromium through the DevTools protocol over a pipe (stdlib only).

Used by the HTML report tests to load a report, measure what is drawn (element boxes,
computed colours, hit-testing, layout at several window widths), click like a user and take
screenshots (also by ``docs/screenshots.py``). Chromium is Debian's ``chromium`` package; tests
that need it skip with a clear reason when it is not on PATH.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt-get install chromium): "
    "the HTML report cannot be rendered in a real browser here",
)

#: Flags that keep a headless Chromium quiet and offline (no background connections).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)


#: Window widths the HTML report must hold at: common laptop and desktop screens.
SCREEN_WIDTHS = (1024, 1280, 1440, 1920)

#: Everything drawn outside where it belongs, as ``{kind: [what, ...]}`` (empty lists = fine).
#: An element belongs inside its card (``containers``), except inside a region that scrolls on
#: its own (then that region must fit); an SVG label belongs inside its SVG.
_LAYOUT = """(function (containers) {
  var SLACK = 1;
  function box(e) { var r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width, h: r.height}; }
  function name(e) {
    var cls = e.getAttribute("class");
    return e.tagName.toLowerCase() + (cls ? "." + cls.trim().split(/\\s+/).join(".") : "") +
      (e.dataset && e.dataset.metric ? "[" + e.dataset.metric + "]" : "");
  }
  function scrolls(e) { var o = getComputedStyle(e).overflowX; return o === "auto" || o === "scroll" || o === "hidden"; }
  var out = {page: [], outside_card: [], outside_svg: []};
  var root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + SLACK) out.page.push("page is " + root.scrollWidth + " px wide in a " + window.innerWidth + " px window");
  document.querySelectorAll(containers).forEach(function (card) {
    var c = box(card);
    (function walk(node) {
      Array.prototype.forEach.call(node.children, function (e) {
        var b = box(e);
        if (b.w > 0 || b.h > 0) {
          if (b.l < c.l - SLACK || b.r > c.r + SLACK) {
            out.outside_card.push(name(e) + " spans x " + Math.round(b.l) + "–" + Math.round(b.r) + " in a card at " + Math.round(c.l) + "–" + Math.round(c.r));
          }
        }
        if (!scrolls(e) || e.tagName.toLowerCase() === "svg") walk(e);
      });
    })(card);
  });
  document.querySelectorAll("svg text").forEach(function (t) {
    var svg = t.ownerSVGElement, b = box(t), s = box(svg);
    if (b.w === 0) return;
    if (b.l < s.l - SLACK || b.r > s.r + SLACK || b.t < s.t - SLACK || b.b > s.b + SLACK) {
      out.outside_svg.push(JSON.stringify(t.textContent) + " in " + name(svg));
    }
  });
  return out;
})(%s)"""


class Browser:
    """One Chromium process with one page; ``with Browser(tmp) as b: b.open(url)``."""

    def __init__(self, profile: Path, *, width: int = 1280, height: int = 900) -> None:
        assert CHROMIUM is not None
        cmd_read, self._cmd = os.pipe()  # we write commands, Chromium reads fd 3
        self._out, out_write = os.pipe()  # Chromium writes fd 4, we read

        def wire() -> None:
            os.dup2(cmd_read, 3)
            os.dup2(out_write, 4)

        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),
        )
        os.close(cmd_read)
        os.close(out_write)
        self._buffer = b""
        self._next_id = 0
        self.session: str | None = None
        target = self.send("Target.createTarget", url="about:blank", session=False)
        attached = self.send(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True, session=False
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.set_width(width, height)

    def set_width(self, width: int, height: int = 900) -> None:
        """Resize the window (what a user with a ``width`` px wide screen sees)."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def layout_problems(self, containers: str = "section.card") -> dict[str, list[str]]:
        """Elements drawn outside their card, labels outside their SVG, a page wider than the
        window (see ``_LAYOUT``), measured from the boxes Chromium laid out."""
        problems: dict[str, list[str]] = self.eval(_LAYOUT % json.dumps(containers))
        return problems

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send("Browser.close", session=False, timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._cmd, self._out):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._out], [], [], left)
            if ready:
                chunk = os.read(self._out, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)  # type: ignore[no-any-return]

    def send(
        self, method: str, *, session: bool = True, timeout: float = 30, **params: Any
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session and self.session is not None:
            message["sessionId"] = self.session
        os.write(self._cmd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})  # type: ignore[no-any-return]

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values only)."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str, *, ready: str = "document.documentElement.dataset.rendered") -> None:
        """Load ``url`` afresh (never a same-page hash change) and wait until ``ready``."""
        self.send("Page.navigate", url="about:blank")
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                check = f"location.href === {json.dumps(url)} && document.readyState === 'complete'"
                if self.eval(f"{check} && !!({ready})"):
                    return
            except RuntimeError:
                pass  # the old document is going away
            time.sleep(0.05)
        raise TimeoutError(f"{url} did not render: {ready} stayed false")

    def click(self, x: float, y: float) -> None:
        """A real mouse click at page coordinates (viewport pixels)."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(
        self, path: Path, *, full_page: bool = True, clip: dict[str, float] | None = None
    ) -> Path:
        """A PNG of the window, the whole page (``full_page``) or a ``clip`` of page pixels."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page or bool(clip)}
        if clip is not None:
            params["clip"] = clip
        elif full_page:
            size = self.eval(
                "({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size["w"], "height": size["h"], "scale": 1}
        data = self.send("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path
