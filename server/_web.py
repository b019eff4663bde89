"""graphwire's web ports: a uvicorn server in the gRPC server's process and event loop.

The inspector (:mod:`server.inspector`) and the HTTP API (:mod:`server.http`)
are each served this way: a socket bound before anything else starts
(:func:`bind`, so a taken port fails the start at once), a uvicorn server
driven through its programmatic API whose signal handling is left to
:func:`server.app.serve` (which stops them on SIGTERM, after the gRPC runs
drained), and connections accepted by :class:`server._gate.Gate`, not by
uvicorn: bounded in number and in the time a request may take to arrive,
so a flood of a web port never takes the descriptors the gRPC server needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn

from server._gate import BoundedH11, Gate, Limits, connection_cap, free_descriptors
from server.config import parse_address

__all__ = ["Limits", "WebServer", "bind", "is_loopback"]

log = logging.getLogger("graphwire.web")

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


def bind(address: str, *, what: str = "inspector address") -> socket.socket:
    """A listening socket on ``address`` (port 0 picks a free one); ValueError naming ``what`` when it cannot be had."""
    host, port = parse_address(address, what=what)
    try:
        family, type_, proto, _, sockaddr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, type_, proto)
    except OSError as e:
        raise ValueError(f"{what} {address!r}: {e}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(sockaddr)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as e:
        sock.close()
        raise ValueError(f"cannot listen on {what} {address!r}: {e.strerror or e}") from None
    return sock


class _Uvicorn(uvicorn.Server):
    """uvicorn's server with graphwire's gate in front instead of an asyncio server of its own."""

    def __init__(self, config: uvicorn.Config, sock: socket.socket, limits: Limits, max_connections: int, name: str) -> None:
        super().__init__(config)
        config.load()  # its SSL context, for the gate
        self.gate = Gate(
            sock,
            max_connections=max_connections,
            request_seconds=limits.request_seconds,
            tls=config.ssl,
            protocol=self._protocol,
            name=name,
        )
        self._request_seconds = limits.request_seconds

    def _protocol(self, released: Callable[[], None]) -> BoundedH11:
        return BoundedH11(
            self.config, self.server_state, self.lifespan.state, request_seconds=self._request_seconds, released=released
        )

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        # uvicorn's own startup would put loop.create_server() on the socket, which accepts
        # without limit (see server._gate); the rest of its serve loop is kept.
        await self.lifespan.startup()  # lifespan="off": a no-op, kept so the state is uvicorn's
        if self.lifespan.should_exit:  # the app's own startup failed (lifespan="on"); uvicorn logged its error
            raise RuntimeError(f"{self.gate.name}: the app's startup (its lifespan) failed: see the error above")
        self.servers = []
        self.gate.start()
        self.started = True

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await self.gate.close()  # first: nothing new comes in while open responses end
        await super().shutdown(sockets)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # graphwire's serve() owns SIGTERM/SIGINT: it drains gRPC runs first,
        # then stops this server (uvicorn would otherwise take the signals).
        yield


@dataclass
class WebServer:
    """A running web port: what it serves (``name``), its address, and a way to stop it."""

    name: str
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
    async def start(
        cls, sock: socket.socket, app: Any, *, name: str, tls_cert: str | None = None, tls_key: str | None = None, limits: Limits,
        lifespan: bool = False,
    ) -> WebServer:
        """Serve ``app`` on ``sock`` (from :func:`bind`) in the running event loop.

        With ``tls_cert``/``tls_key`` (the gRPC server's), it serves HTTPS: a
        token must not cross the network in clear text where gRPC's does not.
        Start it last: its connection limit is capped by the descriptors free
        then (:func:`server._gate.connection_cap`). ``lifespan``: run the app's
        lifespan (a project's own app: its startup before the first request).
        """
        soft, open_now = free_descriptors()
        max_connections = connection_cap(limits.max_connections, soft, open_now)
        if max_connections < limits.max_connections:
            log.warning(
                "%s: at most %d connections at once, not %d: the process may open %d descriptors and has %d "
                "open, and half of those free stay for gRPC and storage (raise `ulimit -n` to allow more)",
                name, max_connections, limits.max_connections, soft, open_now,
            )  # fmt: skip
        config = uvicorn.Config(
            app,
            http="h11",  # the protocol the gate's BoundedH11 extends, whatever else is installed
            lifespan="on" if lifespan else "off",
            log_config=None,  # keep graphwire's logging setup
            access_log=False,  # a ?token= in a URL must not reach a log
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
            ws="none",
            ssl_certfile=tls_cert,
            ssl_keyfile=tls_key,
            timeout_keep_alive=limits.keepalive_seconds,  # type: ignore[arg-type]  # uvicorn's call_later takes a float
        )
        # uvicorn's "Started server process" would name a process graphwire already announced.
        logging.getLogger("uvicorn.error").setLevel(max(logging.WARNING, logging.getLogger("uvicorn.error").level))
        server = _Uvicorn(config, sock, limits, max_connections, name)
        task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name=f"graphwire-{name}")
        host, port = sock.getsockname()[:2]
        # An app's own startup (lifespan) takes what it takes, as under any server; uvicorn's alone, START_DEADLINE.
        deadline = asyncio.get_running_loop().time() + (float("inf") if lifespan else START_DEADLINE)
        # The socket already listens, so nothing is refused meanwhile; this
        # only surfaces a failed start (uvicorn has no "started" future).
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError(f"the {name} stopped while starting")
            if asyncio.get_running_loop().time() > deadline:
                task.cancel()
                raise RuntimeError(f"the {name} did not start in {START_DEADLINE}s")
            await asyncio.sleep(0.01)
        return cls(name, host, port, bool(tls_cert), server, task)

    async def stop(self) -> None:
        """Stop accepting, let open responses end (event streams end when the hub closes), then return."""
        self._server.should_exit = True
        try:
            await self._task
        except Exception:
            log.exception("%s: error while stopping", self.name)
