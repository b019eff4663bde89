"""A flood of the inspector's port costs the gRPC server nothing (issue 28 item 4).

The inspector runs in the gRPC server's process: its connections spend the
descriptors gRPC calls need. These servers run with the descriptor limit
lowered (:mod:`tests.hardening._few_fds`) and are flooded with more
connections than that limit, each of which sent half a request line: gRPC
calls and health checks go on, the inspector refuses what it may not hold
(503), closes what it holds once the request has not arrived in
``--inspector-request-seconds`` (408), and a page's event stream, opened
before the flood, outlives it.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.conftest import ServerProcess, start_server_process
from tests.hardening.conftest import until
from tests.inspector.conftest import ROOT, TOKEN, EventStream

#: The servers' descriptor limit: the flood opens more connections than this.
NOFILE = 256
FLOOD = 300
#: Short, so that a test waits little for the server to close what it holds.
REQUEST_SECONDS = 3.0
KEEPALIVE_SECONDS = 1.0
HALF_A_REQUEST = b"GET /api/gra"
#: Rounds of flood and calls before giving up (see _calls_while_flooded).
ROUNDS = 5
DEADLINE = REQUEST_SECONDS + 30.0
#: A channel option: connect anew rather than share another channel's connection to the address.
FRESH = ("grpc.use_local_subchannel_pool", 1)


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    """The house's until(), from a test that is not a coroutine."""
    return asyncio.run(until(condition, what, timeout))


class Flood:
    """``n`` connections that each sent half a request line, and what the server answered on each."""

    def __init__(self, host: str, port: int, n: int, *, payload: bytes = HALF_A_REQUEST) -> None:
        self.socks: list[socket.socket] = []
        self.got: list[bytes] = []
        self.ended: list[bool] = []
        for _ in range(n):
            sock = socket.create_connection((host, port), timeout=30)
            if payload:
                sock.sendall(payload)
            sock.setblocking(False)
            self.socks.append(sock)
            self.got.append(b"")
            self.ended.append(False)

    def poll(self) -> Flood:
        """Read what each connection has (an answer, or its end), without waiting."""
        for i, sock in enumerate(self.socks):
            while not self.ended[i]:
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    break
                except ConnectionResetError:  # closed with our half request unread: a refusal
                    data = b""
                if not data:
                    self.ended[i] = True
                self.got[i] += data
        return self

    def held(self) -> int:
        return self.ended.count(False)

    def timed_out(self) -> int:
        """Closed by the server after a 408: held, until the request did not arrive in time."""
        return sum(1 for got, ended in zip(self.got, self.ended, strict=True) if ended and got.startswith(b"HTTP/1.1 408 "))

    def refused(self) -> int:
        """Closed by the server at once (with a 503, or reset before our half request was read)."""
        return sum(1 for got, ended in zip(self.got, self.ended, strict=True) if ended and not got.startswith(b"HTTP/1.1 408 "))

    def close(self) -> None:
        for sock in self.socks:
            sock.close()


def _inspector(srv: ServerProcess) -> tuple[str, int]:
    url = urlsplit(str(srv.inspector_url))
    assert url.hostname is not None and url.port is not None
    return url.hostname, url.port


def _cap(srv: ServerProcess) -> int:
    """The inspector's connection limit, as the server derived it from its descriptors and said."""
    found = re.search(r"inspector: at most (\d+) connections at once, not 1000000", srv.log())
    assert found, f"the server did not say its inspector's limit:\n{srv.log()}"
    return int(found.group(1))


@pytest.fixture(params=["sqlite", "postgres"])
def few_fds(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    """A server that may open NOFILE descriptors, with the inspector limited by them alone."""
    pg: dict[str, Any] = {}
    if request.param == "postgres":
        require_pg()
        pg = {"pg_dsn": DSN, "pg_schema": new_schema_name()}
    try:
        srv = start_server_process(
            tmp_path,
            token=TOKEN,
            inspector=True,
            module="tests.hardening._few_fds",
            env={"GRAPHWIRE_TEST_NOFILE": str(NOFILE)},
            args=["--inspector-max-connections", "1000000", "--inspector-request-seconds", str(REQUEST_SECONDS)],
            **pg,
        )
        yield srv
        code = srv.terminate()
        assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"
    finally:
        if pg:
            drop_schema(pg["pg_schema"])


def _calls_while_flooded(srv: ServerProcess, cap: int) -> Flood:
    """Flood the inspector, then make gRPC calls; the flood, whose held connections were all still held
    when the calls ended (none had its 408 yet), so that the calls surely ran while it was held.

    A round whose flood expired during the calls (a slow machine) is done again.
    """
    host, port = _inspector(srv)
    for _ in range(ROUNDS):
        flood = Flood(host, port, FLOOD)
        # Each on a connection of its own, made during the flood: a new descriptor on the server.
        with grpc.insecure_channel(srv.address, options=[FRESH]) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert check.status == health_pb2.HealthCheckResponse.SERVING
        with srv.client(options=[FRESH]) as client:
            thread = f"flood-{uuid.uuid4().hex[:6]}"
            assert client.invoke("chain3", thread, {"n": 0}, timeout=10).values["n"] == 3
        if flood.poll().timed_out() == 0:
            return flood
        flood.close()
    raise AssertionError(f"in {ROUNDS} rounds the calls never ended before the flood's first connection expired")


def test_a_flood_of_half_sent_requests_leaves_grpc_calls_their_descriptors(few_fds: ServerProcess) -> None:
    srv = few_fds
    cap = _cap(srv)
    assert cap < NOFILE // 2 < FLOOD  # half the descriptors free at start at most: the rest stay for gRPC
    page = EventStream(srv)  # a page's live updates: held like any connection, and never cut for being long
    try:
        assert page.next()["type"] == "live"  # type: ignore[index]
        flood = _calls_while_flooded(srv, cap)
        try:
            wait_until(lambda: flood.poll().held() == 0, "the server to close every flood connection")
            # Those past the limit were refused at once, the others held until their time ran out.
            assert flood.refused() >= FLOOD - (cap - 1), (flood.refused(), cap)
            assert 0 < flood.timed_out() <= cap - 1, (flood.timed_out(), cap)
        finally:
            flood.close()
        thread = f"after-{uuid.uuid4().hex[:6]}"
        with srv.client() as client:
            assert client.invoke("chain3", thread, {"n": 0}, timeout=10).values["n"] == 3
        # The stream opened before the flood still carries runs, long after the request time ran out.
        seen = page.until(lambda m: m.get("thread_id") == thread and m["type"] == "run_finished")
        assert seen[-1]["reason"] == "END"
    finally:
        page.close()
    assert "refused" in srv.log() and "inspector_max_connections" in srv.log()  # the operator is told why


# -- one connection's limits ------------------------------------------------------------


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = start_server_process(
        tmp_path_factory.mktemp("bounded"),
        token=TOKEN,
        inspector=True,
        args=["--inspector-request-seconds", str(REQUEST_SECONDS), "--inspector-keepalive-seconds", str(KEEPALIVE_SECONDS)],
    )
    yield srv
    code = srv.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"


def test_a_browser_like_client_keeps_its_connection_for_several_requests(bounded: ServerProcess) -> None:
    host, port = _inspector(bounded)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        first = None
        for path, auth in (("/", False), ("/static/app.js", False), ("/api/graphs", True), ("/api/live", True)):
            conn.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"} if auth else {})
            res = conn.getresponse()
            res.read()
            assert res.status == 200, (path, res.status)
            first = first or conn.sock
            assert conn.sock is first, "the connection was not kept between requests"
        # Idle, it is closed after the keep-alive time (then a browser opens another).
        assert first is not None
        first.setblocking(False)
        wait_until(lambda: _closed(first), "the idle kept-alive connection to be closed")
    finally:
        conn.close()


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def test_a_request_that_does_not_arrive_whole_in_time_is_closed(bounded: ServerProcess) -> None:
    host, port = _inspector(bounded)
    fresh = Flood(host, port, 1)  # half a request line on a new connection, then nothing
    kept = Flood(host, port, 1, payload=b"")  # a request answered, then half of the next one
    # Slowloris: a header line now and then, or a body byte now and then after the answer; every byte
    # used to restart uvicorn's keep-alive timer, and before a first answer none ran at all.
    headers = Flood(host, port, 1, payload=b"GET /api/graphs HTTP/1.1\r\nhost: localhost\r\n")
    body = Flood(host, port, 1, payload=b"GET /static/app.js HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100000\r\n\r\n")
    every = (fresh, kept, headers, body)
    try:
        # The first request and half of the next in one write: the second's clock starts with its first byte,
        # whatever the machine's speed (sent after the answer, it raced the 1 s keep-alive on a loaded machine).
        kept.socks[0].sendall(b"GET /static/app.js HTTP/1.1\r\nhost: localhost\r\n\r\n" + HALF_A_REQUEST)
        deadline = time.monotonic() + DEADLINE
        while not all(f.poll().held() == 0 for f in every):
            assert time.monotonic() < deadline, f"still open after {DEADLINE}s: {[f.held() for f in every]}"
            for trickle, byte in ((headers, b"x-a: b\r\n"), (body, b"x")):
                if trickle.held():
                    trickle.socks[0].send(byte)
            time.sleep(0.2)  # the slow client's pace, not a wait for the server
        assert fresh.timed_out() == 1 and headers.timed_out() == 1
        assert kept.got[0].startswith(b"HTTP/1.1 200 ") and b"HTTP/1.1 408 " in kept.got[0]
        assert body.got[0].startswith(b"HTTP/1.1 200 ")  # answered without its body, then closed without a 408
        assert b"HTTP/1.1 408 " not in body.got[0]
    finally:
        for f in every:
            f.close()


def test_a_tls_handshake_that_never_ends_is_closed_in_the_request_time(tmp_path: Path, certs: tuple[Path, Path]) -> None:
    cert, key = certs
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:",
           "--tls-cert", str(cert), "--tls-key", str(key), "--inspector", "127.0.0.1:0", "--auth-token", TOKEN,
           "--inspector-request-seconds", str(REQUEST_SECONDS)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        url = urlsplit(proc.stdout.readline().decode().split()[-1])
        assert url.scheme == "https" and url.hostname is not None and url.port is not None
        assert "listening on" in proc.stdout.readline().decode()
        silent = Flood(url.hostname, url.port, 3, payload=b"")  # connected, no ClientHello (asyncio alone waits 60 s)
        try:
            served = http.client.HTTPSConnection(url.hostname, url.port, timeout=10, context=ssl.create_default_context(cafile=str(cert)))
            served.request("GET", "/api/graphs", headers={"Authorization": f"Bearer {TOKEN}"})
            assert served.getresponse().status == 200  # while they wait
            served.close()
            wait_until(lambda: silent.poll().held() == 0, "the server to close the silent connections")
        finally:
            silent.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
