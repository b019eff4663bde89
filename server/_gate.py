"""The front door of graphwire's web ports (the inspector's, the HTTP API's): how many connections
each holds, and how long a request may take to arrive.

Both run in the gRPC server's process, so every descriptor one of
its connections holds is one the gRPC server, the saver's pool and the
SQLite files cannot have. uvicorn (0.55) alone leaves that open: a
connection that sends nothing, or half a request line, is held forever
(its keep-alive timer runs only after a response, and any byte stops it);
it accepts every connection it can (``limit_concurrency`` answers 503 only
once a request has arrived, on a descriptor already spent); and a TLS
connection is not its business until the handshake ends (asyncio waits up
to 60 s). 1,100 half-sent request lines took all 1,024 descriptors of a
server and no gRPC call or health check got through.

So a web port accepts its connections itself (:class:`Gate`), and feeds
each to uvicorn's own HTTP/1.1 protocol:

- It holds at most ``max_connections`` at once, counted from accept() to
  close (a TLS handshake included, an event stream included). Past that a
  new connection is answered 503 in one write and closed at once: it costs
  a descriptor for microseconds, and the port is refused before
  anything else in the process is. The limit is also capped by
  :func:`connection_cap`: half the descriptors free when the port
  starts, so that the other half stays for gRPC and storage whatever the
  setting says.
- A TLS handshake must end within ``request_seconds``.
- :class:`BoundedH11` closes a connection whose request (line, headers and
  body) has not all arrived ``request_seconds`` after the connection was
  made, or after the first byte of a later request on a kept-alive
  connection (408 when no request was under way). Once a request has
  arrived whole, the connection is the app's: an event stream lives as long
  as its reader reads it. A kept-alive connection with nothing sent is
  closed after ``keepalive_seconds`` (uvicorn's ``timeout_keep_alive``).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

__all__ = ["BoundedH11", "Gate", "Limits", "busy", "connection_cap", "free_descriptors"]

log = logging.getLogger("graphwire.web")

#: Seconds to wait before accepting again when the process is out of descriptors (asyncio waits as long).
ACCEPT_RETRY_SECONDS = 1.0
#: Seconds between two warnings that connections are being refused.
WARN_EVERY_SECONDS = 60.0
_OUT_OF_DESCRIPTORS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}



def busy(name: str) -> bytes:
    """What a connection past the limit of the port ``name`` serves is told, in one write."""
    text = f"the {name} is at its connection limit; try again shortly\n".encode()
    return (
        b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 5\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(text), text)
    )
_LATE_TEXT = b"the request did not arrive in time\n"
#: What a connection whose request did not arrive in time is told, when no response was under way.
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_LATE_TEXT), _LATE_TEXT)
)


@dataclass(frozen=True, slots=True)
class Limits:
    """What a web port allows a client (the settings ``inspector_*``, which the HTTP API shares)."""

    max_connections: int
    request_seconds: float
    keepalive_seconds: float


def connection_cap(wanted: int, soft_limit: int | None, open_now: int | None) -> int:
    """How many connections a web port may hold: ``wanted``, but at most half the descriptors free now.

    ``soft_limit`` is RLIMIT_NOFILE's soft limit (None: unlimited or
    unknown), ``open_now`` the descriptors the process has open (None:
    unknown). The other half is the gRPC server's, the storage pools' and
    the SQLite files': a flood of the port then never costs a
    gRPC call its descriptor. At least one, so the page still opens.
    """
    if soft_limit is None or open_now is None:
        return wanted
    return max(1, min(wanted, (soft_limit - open_now) // 2))


def free_descriptors() -> tuple[int | None, int | None]:
    """(RLIMIT_NOFILE's soft limit, descriptors open now); None where it cannot be known."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = None if soft == resource.RLIM_INFINITY else soft
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            return limit, len(os.listdir(listing)) - 1  # less the one listing it
        except OSError:
            continue
    return limit, None


class BoundedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a deadline for each request to arrive whole.

    ``released`` is called once the connection is gone (the gate's count).
    """

    def __init__(
        self, config: Config, server_state: ServerState, app_state: dict[str, Any], *, request_seconds: float,
        released: Callable[[], None],
    ) -> None:  # fmt: skip
        super().__init__(config, server_state, app_state)
        self._request_seconds = request_seconds
        self._released = released
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()  # the first request: from the connection's start, even if it never sends a byte

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # a later request on a kept-alive connection: from its first byte
        super().data_received(data)
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # the request is here whole (or the connection is ending): the app's time now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._deadline is None and not self.transport.is_closing() and self.conn.their_state is h11.IDLE \
                and self.conn.trailing_data[0]:
            # Part of a pipelined request arrived with the last one: its clock runs from now, and it, not
            # the keep-alive of an idle connection, decides when the connection ends (with a 408).
            self._unset_keepalive_if_required()
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        try:
            super().connection_lost(exc)
        finally:
            self._released()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self._request_seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.conn.our_state is h11.IDLE:  # nothing answered yet in this cycle: say why it ends
            self.transport.write(REQUEST_TIMEOUT)
        # A peer that reads nothing must not keep the descriptor through an unflushed write.
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        else:
            self.transport.close()


class Gate:
    """Accepts a web port's connections on ``sock``, at most ``limits.max_connections`` at once.

    ``protocol(released)`` makes the protocol of an admitted connection,
    which calls ``released`` when the connection is gone. ``name`` (``inspector``,
    ``HTTP API``) is what its log lines and its 503 name.
    """

    def __init__(
        self, sock: socket.socket, *, max_connections: int, request_seconds: float, tls: ssl.SSLContext | None,
        protocol: Callable[[Callable[[], None]], asyncio.Protocol], name: str = "inspector",
    ) -> None:  # fmt: skip
        self.name = name
        self._busy = busy(name)
        self.max_connections = max_connections
        self._sock = sock
        self._request_seconds = request_seconds
        self.tls = tls
        self._protocol = protocol
        self._held: set[socket.socket] = set()
        self._handshakes: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        self._refused = 0
        self._warned_at: float | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._accept(), name=f"graphwire-{self.name}-accept")

    async def close(self) -> None:
        """Stop accepting and drop TLS handshakes under way; connections already made are uvicorn's to end."""
        waiting = [t for t in (self._task, *self._handshakes) if t is not None]
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        self._sock.close()

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(self._sock)
            except ConnectionAbortedError:
                continue  # the client went before it was accepted
            except OSError as e:
                # Out of descriptors (gRPC's flood, not ours) or another passing failure:
                # accepting again at once would spin; asyncio's own servers wait too.
                level = logging.WARNING if e.errno in _OUT_OF_DESCRIPTORS else logging.ERROR
                log.log(level, "%s: cannot accept a connection (%s); trying again in %gs", self.name, e, ACCEPT_RETRY_SECONDS)
                await asyncio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            if len(self._held) >= self.max_connections:
                self._refuse(conn)
            else:
                self._admit(conn)
            await asyncio.sleep(0)  # a flood of accepts must not hold the loop the gRPC calls run on

    def _refuse(self, conn: socket.socket) -> None:
        if self.tls is None:
            try:
                # What the client sent is read first: a socket closed with bytes unread sends a reset,
                # and a browser would drop the 503 with it. Best effort: a fresh socket's buffer takes it.
                conn.recv(65536)
            except OSError:
                pass
            try:
                conn.send(self._busy)
            except OSError:
                pass
        conn.close()
        self._refused += 1
        now = asyncio.get_running_loop().time()
        if self._warned_at is None or now - self._warned_at >= WARN_EVERY_SECONDS:
            log.warning(
                "%s: at its limit of %d connections, refused %d new one(s) (inspector_max_connections; "
                "a request that does not arrive whole in %gs is closed)",
                self.name, self.max_connections, self._refused, self._request_seconds,
            )  # fmt: skip
            self._warned_at, self._refused = now, 0

    def _admit(self, conn: socket.socket) -> None:
        self._held.add(conn)
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._held.discard(conn)

        task = asyncio.get_running_loop().create_task(self._connect(conn, self._protocol(release), release))
        self._handshakes.add(task)
        task.add_done_callback(self._handshakes.discard)

    async def _connect(self, conn: socket.socket, protocol: asyncio.Protocol, release: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self.tls is None:
                await loop.connect_accepted_socket(lambda: protocol, conn)
            else:
                await loop.connect_accepted_socket(
                    lambda: protocol, conn, ssl=self.tls, ssl_handshake_timeout=self._request_seconds
                )
        except BaseException as e:
            # A TLS handshake that failed or took too long (or the gate closing): the protocol never
            # saw the connection, so it is released here.
            conn.close()
            release()
            if not isinstance(e, Exception):
                raise
            log.debug("%s: connection dropped before its first request: %s", self.name, e)
