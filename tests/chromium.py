"""Drive headless Chromium through the DevTools protocol over a pipe (stdlib only).

Used by the HTML report tests to load a report, measure what is drawn (element boxes,
computed colours, hit-testing), click like a user and take screenshots. Chromium is Debian's
``chromium`` package; tests that need it skip with a clear reason when it is not on PATH.
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
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

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

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.eval(
                "({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size["w"], "height": size["h"], "scale": 1}
        data = self.send("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path
