"""The HTTP API (server/http/_app.py, the run routes included) for a test, on uvicorn (port 0), over a
graphwire service on SQLite in the test's event loop, so a test sees what the server holds while calls wait.

Two tenants' tokens are accepted (:data:`TOKENS`); a client sends one as
``x-api-key``, as the SDKs do.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn

from engine.checkpoint import SqliteSaver
from server._auth import Tokens
from server.app import Server, build_server
from server.config import ServerConfig
from server.http import build_http_app
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg

__all__ = ["GRAPHS", "TOKENS", "Served", "serving"]

GRAPHS = {
    "sse": "tests.http._sse_graphs:graph", "broken": "tests.http._sse_graphs:broken", "nested": "tests.http._sse_graphs:nested",
    "gated": "tests.graphs:gated", "chain3": "tests.graphs:chain3",
}  # fmt: skip
#: tenant -> its token.
TOKENS = {"acme": "acme-token-0123456789", "other": "other-token-0123456789"}


class Served:
    """A served app: its URL, the graphwire server behind it, and a token (the first tenant's) to call it with."""

    def __init__(self, url: str, srv: Server) -> None:
        self.url, self.srv = url, srv
        self.key = TOKENS["acme"]

    @property
    def service(self) -> Any:
        return self.srv.service


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, backend: str = "sqlite") -> AsyncIterator[Served]:
    """The app over a service on SQLite, or (``backend="postgres"``) on PostgreSQL in a schema of its own,
    with thread leases and the database's cancel relay, as replicas run."""
    if backend == "postgres":
        from engine.checkpoint.postgres import PostgresSaver

        dsn, schema = require_pg(), new_schema_name()
        saver: Any = PostgresSaver.from_dsn(dsn, schema=schema)
    else:
        saver, schema = SqliteSaver(str(tmp_path / "gw.db")), None
    try:
        async with _serving(saver) as served:
            yield served
    finally:
        if schema is not None:
            drop_schema(schema)


@contextlib.asynccontextmanager
async def _serving(saver: Any) -> AsyncIterator[Served]:
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS)), checkpointer=saver)
    app = build_http_app(srv.service, tokens=Tokens({token: tenant for tenant, token in TOKENS.items()}))
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    task = asyncio.get_running_loop().create_task(web.serve())
    try:
        while not web.started:  # uvicorn says nothing else when it listens
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        port = web.servers[0].sockets[0].getsockname()[1]
        yield Served(f"http://127.0.0.1:{port}", srv)
    finally:
        web.should_exit = True
        await task
        await srv.stop(grace=5)
