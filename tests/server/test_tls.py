"""TLS from certificate and key files: TLS clients get in, plaintext ones do not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from graphwire import Client, Unavailable

ROOT = Path(__file__).resolve().parents[2]


def test_tls_server(tmp_path: Path, certs: tuple[Path, Path]) -> None:
    cert, key = certs
    cmd = [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", str(tmp_path / "gw.db"),
           "--tls-cert", str(cert), "--tls-key", str(key)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert "listening on" in line, proc.stderr.read().decode() if proc.stderr else line
        address = line.split()[-1]
        creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(address, creds) as ch:
            status = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=30, wait_for_ready=True)
            assert status.status == health_pb2.HealthCheckResponse.SERVING
        with Client(address, tls=cert.read_bytes()) as client:
            result = client.invoke("reminders", "tls-1", {"messages": [{"role": "user", "content": "hello"}]}, timeout=30)
            assert result.reason == "END"
        with Client(address) as plain, pytest.raises(Unavailable):
            plain.graphs(timeout=5)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
