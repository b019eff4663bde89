"""The HTTP API's own routes and its 404s: ``/ok``, ``/info``, ``/openapi.json``; what is not served says so.

Also the setting: ``http = "HOST:PORT"`` in graphwire.toml turns it on, as
``--http`` does, a bad address fails the start naming it, and with the gRPC
server's certificate the port serves HTTPS only.
"""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess
from tests.http.conftest import sdk_url


def test_ok_info_openapi(served: ServerProcess) -> None:
    url = sdk_url(served)
    assert httpx.get(f"{url}/ok").json() == {"ok": True}
    info = httpx.get(f"{url}/info").json()
    assert info["flags"]["assistants"] is True and "schemed" in info["metadata"]["graphs"]
    paths = httpx.get(f"{url}/openapi.json").json()["paths"]
    for path in ("/assistants", "/assistants/search", "/threads/{thread_id}/state", "/threads/{thread_id}/history", "/store/items"):
        assert path in paths
    for path in ("/threads/{thread_id}/runs/stream", "/threads/{thread_id}/runs/{run_id}/join", "/runs/wait"):
        assert path in paths  # the run routes (server/http/_runs.py)
    for path in ("/runs/crons", "/threads/{thread_id}/runs/crons", "/runs/crons/search", "/runs/crons/{cron_id}"):
        assert path in paths  # the cron routes (server/http/_crons.py)
    assert info["flags"]["crons"] is True


def test_not_served_routes_say_so(served: ServerProcess) -> None:
    url = sdk_url(served)
    for path, words in [
        ("/a2a/some-assistant", "does not serve the A2A protocol"),
        ("/mcp", "does not serve MCP"),
        ("/ui/chain3", "LangGraph Studio's UI"),
        ("/crons/search", "no such route"),  # LangGraph's crons are under /runs/crons
        ("/nowhere", "no such route"),
    ]:
        got = httpx.post(f"{url}{path}", json={})
        assert got.status_code == 404 and words in got.json()["detail"], (path, got.text)


def test_http_in_the_config_file(start_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    config = tmp_path / "graphwire.toml"
    config.write_text('http = "127.0.0.1:0"\n[graphs]\nchain3 = "tests.graphs:chain3"\n')
    srv = start_server(config=config, http=False)
    assert srv.http_url is not None and httpx.get(f"{sdk_url(srv)}/ok").json() == {"ok": True}
    assert "LangGraph's HTTP API on http://127.0.0.1:" in srv.log()


def test_bad_address_fails_the_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:", "--http", "127.0.0.1:99999"],
        cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0 and "http address" in done.stderr, done.stderr


def test_https_with_the_grpc_servers_certificate(tmp_path: Path, certs: tuple[Path, Path]) -> None:
    cert, key = certs
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", str(tmp_path / "gw.db"),
           "--graph", "chain3=tests.graphs:chain3", "--tls-cert", str(cert), "--tls-key", str(key), "--http", "127.0.0.1:0"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode().strip()
        assert first.startswith("graphwire http on https://127.0.0.1:"), first
        url = first.removeprefix("graphwire http on ").rstrip("/")
        assert "listening on" in proc.stdout.readline().decode()
        trusted = ssl.create_default_context(cafile=str(cert))
        assert httpx.get(f"{url}/ok", verify=trusted).json() == {"ok": True}
        assert [a["graph_id"] for a in httpx.post(f"{url}/assistants/search", json={}, verify=trusted).json()] == ["chain3"]
        with pytest.raises(httpx.HTTPError):  # plain HTTP is not answered
            httpx.get(url.replace("https://", "http://") + "/ok", timeout=5)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
