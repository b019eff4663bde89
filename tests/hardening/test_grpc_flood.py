"""A flood of half-open connections to the gRPC port ends after ``handshake_seconds`` (issue 28 item 4).

The inspector's port has its own limits (tests/inspector/test_flood.py). On
the gRPC port, each connection that sent only the first bytes of the HTTP/2
preface holds a descriptor until gRPC's handshake deadline, 120 s by its own
default (about 60 s measured with grpcio 1.85), and while they take every
descriptor no new connection gets in: health checks failed for that long.
The server sets the deadline to ``handshake_seconds`` (10 s by default). A
channel connected before the flood is answered throughout; new connections
wait for the flood to end (no process can accept without descriptors: that
limit belongs in front of it, per client).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server.config import load_config
from tests.conftest import ServerProcess, start_server_process
from tests.hardening.conftest import until

NOFILE = 256
FLOOD = 300
HANDSHAKE_SECONDS = 2.0
#: Past gRPC's own deadline would be 60 s and more: well short of that.
DEADLINE = HANDSHAKE_SECONDS * 2 + 20.0
FRESH = ("grpc.use_local_subchannel_pool", 1)  # a connection of its own, not another channel's


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    """The house's until(), from a test that is not a coroutine."""
    return asyncio.run(until(condition, what, timeout))


@pytest.fixture
def few_fds(tmp_path: Path) -> Iterator[ServerProcess]:
    srv = start_server_process(
        tmp_path,
        module="tests.hardening._few_fds",
        env={"GRAPHWIRE_TEST_NOFILE": str(NOFILE)},
        args=["--handshake-seconds", str(HANDSHAKE_SECONDS)],
    )
    yield srv
    code = srv.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"


def _closed(sock: socket.socket) -> bool:
    try:
        while sock.recv(4096):
            pass  # what gRPC said before closing (a GOAWAY)
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def _health(channel: grpc.Channel) -> int:
    return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status


def test_half_open_grpc_connections_are_closed_after_the_handshake_deadline(few_fds: ServerProcess) -> None:
    host, port = few_fds.address.rsplit(":", 1)
    with grpc.insecure_channel(few_fds.address, options=[FRESH]) as before:
        assert _health(before) == health_pb2.HealthCheckResponse.SERVING  # connected before the flood
        flood = []
        try:
            for _ in range(FLOOD):
                sock = socket.create_connection((host, int(port)), timeout=30)
                sock.sendall(b"PRI * HTTP")  # the preface, cut short
                sock.setblocking(False)
                flood.append(sock)
            assert _health(before) == health_pb2.HealthCheckResponse.SERVING  # its connection is already there
            wait_until(lambda: all(_closed(s) for s in flood), "the server to close every half-open connection")
        finally:
            for sock in flood:
                sock.close()
    with grpc.insecure_channel(few_fds.address, options=[FRESH]) as after:
        assert _health(after) == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), float("nan"), 3601, True, "5"])
def test_a_handshake_deadline_that_bounds_nothing_is_refused(bad: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./graphwire.toml of the checkout's is read
    assert load_config(None, {"handshake_seconds": 2.5}, environ={}).handshake_seconds == 2.5
    with pytest.raises(ValueError, match="handshake_seconds must be a number of seconds above 0 and at most 3600"):
        load_config(None, {"handshake_seconds": bad}, environ={})
