"""Servers with LangGraph's HTTP API on (``graphwire serve --http 127.0.0.1:0``), and the SDK's clients for them.

``served`` (one per test module) runs tests/graphs.py's graphs and
tests/http/_graphs.py's on a SQLite file; a test that needs PostgreSQL too,
or a server of its own (tokens, tenants), starts one with ``start_server``
(tests/conftest.py) and ``http=True``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_GRAPHS, ServerProcess, start_server_process

#: The graphs an HTTP test server runs.
GRAPHS = {
    **TEST_GRAPHS, "schemed": "tests.http._graphs:schemed", "named": "tests.http._graphs:named",
    "questions_team": "tests.graphs:questions_team",
}  # fmt: skip


def sdk_url(srv: ServerProcess) -> str:
    assert srv.http_url is not None, "the server was not started with http=True"
    return srv.http_url.rstrip("/")


def sync_client(srv: ServerProcess, **kwargs: Any) -> Any:
    """``langgraph_sdk.get_sync_client`` for ``srv``'s HTTP API."""
    from langgraph_sdk import get_sync_client

    kwargs.setdefault("api_key", None)
    return get_sync_client(url=sdk_url(srv), **kwargs)


def async_client(srv: ServerProcess, **kwargs: Any) -> Any:
    """``langgraph_sdk.get_client`` for ``srv``'s HTTP API (make it inside the loop that uses it)."""
    from langgraph_sdk import get_client

    kwargs.setdefault("api_key", None)
    return get_client(url=sdk_url(srv), **kwargs)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = start_server_process(Path(tmp_path_factory.mktemp("http")), graphs=GRAPHS, http=True)
    yield srv
    code = srv.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"
