"""The inspector: a web page graphwire serves itself, showing a graph, its
threads' versions and branches, and the runs in flight.

``graphwire serve --inspector 127.0.0.1:8080`` (or ``inspector = "..."`` in
graphwire.toml) starts it in the server's own process and event loop, beside
the gRPC server: a uvicorn server driven through its programmatic API, whose
signal handling is left to graphwire's :func:`server.app.serve`, which stops
both on SIGTERM. The app itself is in :mod:`server.inspector._app`; the page
is plain HTML, CSS and JS under ``static/`` (no build step, nothing loaded
from elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn

from server.config import parse_address
from server.inspector._app import STATIC, build_app

__all__ = ["STATIC", "Inspector", "bind", "build_app", "parse_address"]

log = logging.getLogger("graphwire.inspector")

START_DEADLINE = 10.0
#: How long open responses (event streams) get to end on shutdown before they are cancelled.
SHUTDOWN_GRACE = 3


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(address: str) -> socket.socket:
    """A listening socket on ``address`` (port 0 picks a free one); ValueError when it cannot be had."""
    host, port = parse_address(address)
    try:
        family, type_, proto, _, sockaddr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, type_, proto)
    except OSError as e:
        raise ValueError(f"inspector address {address!r}: {e}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(sockaddr)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as e:
        sock.close()
        raise ValueError(f"cannot listen on inspector address {address!r}: {e.strerror or e}") from None
    return sock


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # graphwire's serve() owns SIGTERM/SIGINT: it drains gRPC runs first,
        # then stops this server (uvicorn would otherwise take the signals).
        yield


@dataclass
class Inspector:
    """A running inspector: its address, and a way to stop it."""

    host: str
    port: int
    tls: bool
    _server: _Uvicorn
    _task: asyncio.Task[None]

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"

    @classmethod
    async def start(cls, sock: socket.socket, app: Any, *, tls_cert: str | None = None, tls_key: str | None = None) -> Inspector:
        """Serve ``app`` on ``sock`` (from :func:`bind`) in the running event loop.

        With ``tls_cert``/``tls_key`` (the gRPC server's), it serves HTTPS: the
        token must not cross the network in clear text where gRPC's does not.
        """
        config = uvicorn.Config(
            app,
            lifespan="off",
            log_config=None,  # keep graphwire's logging setup
            access_log=False,  # a ?token= in a URL must not reach a log
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
            ws="none",
            ssl_certfile=tls_cert,
            ssl_keyfile=tls_key,
        )
        # uvicorn's "Started server process" would name a process graphwire already announced.
        logging.getLogger("uvicorn.error").setLevel(max(logging.WARNING, logging.getLogger("uvicorn.error").level))
        server = _Uvicorn(config)
        task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name="graphwire-inspector")
        host, port = sock.getsockname()[:2]
        deadline = asyncio.get_running_loop().time() + START_DEADLINE
        # The socket already listens, so nothing is refused meanwhile; this
        # only surfaces a failed start (uvicorn has no "started" future).
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the inspector stopped while starting")
            if asyncio.get_running_loop().time() > deadline:
                task.cancel()
                raise RuntimeError(f"the inspector did not start in {START_DEADLINE}s")
            await asyncio.sleep(0.01)
        return cls(host, port, bool(tls_cert), server, task)

    async def stop(self) -> None:
        """Stop accepting, let open responses end (event streams end when the hub closes), then return."""
        self._server.should_exit = True
        try:
            await self._task
        except Exception:
            log.exception("inspector: error while stopping")
