"""A TCP proxy on 127.0.0.1 that a test can use to break connections.

Clients connect to ``proxy.address``; each connection is relayed, byte for
byte, to the upstream server. The test decides what the network does:

* :meth:`TcpProxy.cut` resets every open connection at once (both sides see
  the connection die, as when a load balancer or a NAT drops it); new
  connections are accepted as before, so a client that reconnects gets
  through.
* :meth:`TcpProxy.hold` stops relaying what the server sends on the
  connections open now (the bytes are kept, not delivered), so a request can
  reach the server while its caller hears nothing; :meth:`release` delivers
  what was kept, :meth:`cut` drops it. Connections made later are relayed as
  usual (a client's reconnection after the cut gets through).
* :meth:`TcpProxy.refuse` closes the next ``n`` connections as soon as they
  are accepted (the client's connect fails: UNAVAILABLE).

The relay runs an asyncio loop in a daemon thread, so blocking and asyncio
tests use it the same way. Nothing here waits on time: every command runs on
the loop and returns once it has taken effect.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["TcpProxy"]

T = TypeVar("T")
_CHUNK = 64 * 1024


@dataclass(eq=False)
class _Pair:
    """One client connection and its upstream twin."""

    down: asyncio.StreamWriter  # towards the client
    up: asyncio.StreamWriter  # towards the server
    holding: bool = False
    held: list[bytes] = field(default_factory=list)


class TcpProxy:
    """Relays 127.0.0.1:<port> to ``upstream`` ("host:port"); see the module docstring."""

    def __init__(self, upstream: str) -> None:
        host, _, port = upstream.rpartition(":")
        self._upstream = (host or "127.0.0.1", int(port))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tcp-proxy", daemon=True)
        self._pairs: set[_Pair] = set()
        self._refuse = 0
        self._server: asyncio.AbstractServer | None = None
        #: Connections accepted (and relayed) so far, and connections refused.
        self.accepted = 0
        self.refused = 0
        #: How many connections :meth:`cut` has reset in all.
        self.cuts = 0
        self.address = ""

    # -- life ------------------------------------------------------------------

    def start(self) -> TcpProxy:
        self._thread.start()
        self._server = self._run(asyncio.start_server(self._accept, "127.0.0.1", 0))
        port = self._server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        self.address = f"127.0.0.1:{port}"
        return self

    def close(self) -> None:
        if not self._thread.is_alive():
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            self._reset_all()

        self._run(shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- what the test does ------------------------------------------------------

    def cut(self) -> int:
        """Reset every open connection (held bytes are dropped); returns how many."""

        async def cut() -> int:
            return self._reset_all()

        return self._run(cut())

    def hold(self) -> None:
        """From now on keep what the server sends on the open connections instead of delivering it."""

        async def hold() -> None:
            for pair in self._pairs:
                pair.holding = True

        self._run(hold())

    def release(self) -> None:
        """Deliver what was held, and relay normally again."""

        async def release() -> None:
            for pair in self._pairs:
                pair.holding = False
                for chunk in pair.held:
                    pair.down.write(chunk)
                pair.held.clear()

        self._run(release())

    def refuse(self, n: int) -> None:
        """Close the next ``n`` connections as soon as they are accepted."""

        async def refuse() -> None:
            self._refuse = n

        self._run(refuse())

    def open_connections(self) -> int:
        async def count() -> int:
            return len(self._pairs)

        return self._run(count())

    # -- the relay ---------------------------------------------------------------

    def _run(self, coro: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=30)  # type: ignore[arg-type]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._refuse > 0:
            self._refuse -= 1
            self.refused += 1
            _reset(writer)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            _reset(writer)
            return
        self.accepted += 1
        pair = _Pair(down=writer, up=up_writer)
        self._pairs.add(pair)
        to_server = asyncio.ensure_future(self._pump(reader, up_writer, pair, towards_client=False))
        to_client = asyncio.ensure_future(self._pump(up_reader, writer, pair, towards_client=True))
        await asyncio.wait([to_server, to_client], return_when=asyncio.FIRST_COMPLETED)
        self._drop(pair)

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        pair: _Pair,
        *,
        towards_client: bool,
    ) -> None:
        try:
            while chunk := await reader.read(_CHUNK):
                if towards_client and pair.holding:
                    pair.held.append(chunk)
                    continue
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        if pair in self._pairs:  # an orderly end on one side: end the other side too
            _close_write(writer)

    def _drop(self, pair: _Pair) -> None:
        if pair in self._pairs:
            self._pairs.discard(pair)
            pair.down.close()
            pair.up.close()

    def _reset_all(self) -> int:
        pairs = list(self._pairs)
        self._pairs.clear()
        for pair in pairs:
            pair.held.clear()
            _reset(pair.down)
            _reset(pair.up)
        self.cuts += len(pairs)
        return len(pairs)


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST (SO_LINGER 0), as a dropped connection looks to both ends."""
    sock: Any = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


def _close_write(writer: asyncio.StreamWriter) -> None:
    try:
        if writer.can_write_eof():
            writer.write_eof()
    except (OSError, RuntimeError):
        writer.close()

