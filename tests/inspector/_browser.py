"""A headless Chromium page that Python tests drive, through ``driver.mjs``.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``, or env
``GRAPHWIRE_CHROMIUM``) run by ``playwright-core`` from this directory's
``package.json``; nothing downloads a browser. Commands go to the Node
driver as JSON lines and every one has a deadline, so a stuck page fails
the test instead of hanging it. Waiting is always on a page condition
(:meth:`Page.wait`), never a sleep.

When Chromium, Node.js or npm is missing the tests skip with the reason,
except under ``CI=true``, where that is a failure: CI must not pass by skipping.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

from tests._needs import missing, npm_ci, require_node

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.mjs"
CHROMIUM = os.environ.get("GRAPHWIRE_CHROMIUM", "/usr/bin/chromium")


def require_browser() -> None:
    """Skip (fail under CI=true) unless Chromium, Node.js and npm are here."""
    if not os.access(CHROMIUM, os.X_OK):
        missing(f"the inspector's browser tests need Chromium ({CHROMIUM}; install Debian's: apt-get install -y chromium)")
    require_node("the inspector's browser tests")


def install_driver() -> None:
    """``npm ci`` here (playwright-core), once per package-lock.json and Node version."""
    npm_ci(HERE)


class DriverError(AssertionError):
    pass


class Page:
    """One browser page. Every call waits at most its timeout (seconds)."""

    def __init__(self, log_path: Path) -> None:
        self._log = open(log_path, "wb")  # noqa: SIM115 - the driver writes to it until close()
        self.log_path = log_path
        self._proc = subprocess.Popen(
            ["node", str(DRIVER)],
            cwd=HERE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env={**os.environ, "GRAPHWIRE_CHROMIUM": CHROMIUM},
        )
        self._buf = b""
        self._next_id = 0
        self.version = self._read(0, 60.0)

    # -- the protocol ------------------------------------------------------------
    def _read(self, want: int, timeout: float) -> Any:
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if msg.get("id") != want:
                        continue
                    if not msg["ok"]:
                        raise DriverError(msg["error"])
                    return msg.get("value")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise DriverError(f"the browser driver did not answer within {timeout}s")
                if not sel.select(remaining):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise DriverError(f"the browser driver exited ({self._proc.wait()}):\n{self.log_path.read_text(errors='replace')}")
                self._buf += chunk

    def _call(self, cmd: str, deadline: float = 15.0, **args: Any) -> Any:
        self._next_id += 1
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps({"id": self._next_id, "cmd": cmd, **args}).encode() + b"\n")
        self._proc.stdin.flush()
        return self._read(self._next_id, deadline + 5.0)

    # -- what tests use ----------------------------------------------------------
    def goto(self, url: str) -> None:
        self._call("goto", url=url, timeout=15000)

    def wait(self, js: str, arg: Any = None, timeout: float = 10.0, what: str = "") -> None:
        """Wait until the JS function ``js(arg)`` returns a truthy value in the page."""
        try:
            self._call("wait", timeout, js=js, arg=arg, timeout=int(timeout * 1000))
        except DriverError as e:
            raise DriverError(f"waiting for {what or js}: {str(e).splitlines()[0]}") from None

    def eval(self, js: str, arg: Any = None) -> Any:
        return self._call("eval", js=js, arg=arg)

    def click(self, selector: str, timeout: float = 10.0) -> None:
        self._call("click", timeout, selector=selector, timeout=int(timeout * 1000))

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._call("screenshot", path=str(path))
        return path

    def problems(self) -> list[str]:
        """Console errors, page errors and off-machine requests since the last call."""
        return self._call("problems")

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self._call("close", 10.0)
            except DriverError:
                pass
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._log.close()
