"""A real server with the inspector on, and a headless Chromium page.

``inspected`` (one per test module) is ``python -m server serve`` with
``--inspector 127.0.0.1:0`` and an auth token, serving the test graphs;
``api`` and :class:`EventStream` read its JSON API and event stream;
``page`` is Debian's Chromium driven through ``playwright-core``
(:mod:`tests.inspector._browser`), skipped without a browser except under
``CI=true``.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import ServerProcess, start_server_process
from tests.inspector._browser import Page, install_driver, require_browser

TOKEN = "inspector-test-token"
EVENTS_TIMEOUT = 10.0
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """``condition()`` once it is true, polled (the server's state, not a guessed time); fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (got := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return got


@pytest.fixture(scope="module")
def inspected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = start_server_process(tmp_path_factory.mktemp("inspected"), token=TOKEN, inspector=True)
    yield srv
    code = srv.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"


@pytest.fixture(scope="module")
def browser_installed() -> None:
    """Chromium, Node.js and playwright-core are here (else skip; fail under CI=true)."""
    require_browser()
    install_driver()


@pytest.fixture(scope="module")
def page(browser_installed: None, inspected: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    # Set up after the server and torn down before it: the page never sees its server go.
    p = Page(tmp_path_factory.mktemp("browser") / "driver.log")
    yield p
    p.close()


def api(srv: ServerProcess, path: str, *, token: str | None = TOKEN, headers: dict[str, str] | None = None) -> tuple[int, Any, Any]:
    """GET ``path`` from the inspector: (status, decoded JSON or text, headers)."""
    assert srv.inspector_url is not None
    req = urllib.request.Request(srv.inspector_url.rstrip("/") + path, headers=dict(headers or {}))
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            status, body, hdrs = res.status, res.read(), res.headers
    except urllib.error.HTTPError as e:
        status, body, hdrs = e.code, e.read(), e.headers
    text = body.decode()
    return status, json.loads(text) if hdrs.get_content_type() == "application/json" else text, hdrs


class EventStream:
    """``GET /api/events``, read one server-sent event at a time (each read has a deadline)."""

    def __init__(self, srv: ServerProcess, token: str | None = TOKEN) -> None:
        url = urlsplit(str(srv.inspector_url))
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=EVENTS_TIMEOUT)
        self.conn.request("GET", "/api/events", headers={"Authorization": f"Bearer {token}"} if token else {})
        self.response = self.conn.getresponse()

    def next(self) -> dict[str, Any] | None:
        """The next event's data; None at the end of the stream. Comments are skipped."""
        data = []
        while True:
            line = self.response.fp.readline()
            if not line:
                return None
            line = line.decode().rstrip("\n")
            if line.startswith("data:"):
                data.append(line[5:].strip())
            elif not line and data:
                return json.loads("\n".join(data))

    def until(self, pred: Any) -> list[dict[str, Any]]:
        """Events up to and including the first for which ``pred`` holds."""
        seen = []
        while True:
            msg = self.next()
            assert msg is not None, f"the stream ended; saw {seen}"
            seen.append(msg)
            if pred(msg):
                return seen

    def close(self) -> None:
        self.conn.close()
