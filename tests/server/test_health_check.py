"""``graphwire health`` (the image's HEALTHCHECK) follows the configured
address and TLS: real servers, plaintext and TLS, on addresses other than
the default, and the answers when they are gone or configured otherwise."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import self_signed

ROOT = Path(__file__).resolve().parents[2]


class Serving:
    """``graphwire serve`` with ``flags``, on a port of its choosing; ``address`` once it listens."""

    def __init__(self, tmp: Path, *flags: str, host: str = "127.0.0.1") -> None:
        cmd = [sys.executable, "-m", "server", "serve", "--address", f"{host}:0", "--checkpointer", ":memory:", *flags]
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_")} | {"PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        assert "listening on" in line, f"serve printed {line!r}"
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(timeout=30) == 0


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[list[Serving]]:
    started: list[Serving] = []
    yield started
    for s in started:
        s.stop()


def health(tmp_path: Path, config: str, *flags: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "health.toml").write_text(config)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_")} | {"PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "server", "health", "--config", str(tmp_path / "health.toml"), "--timeout", "10", *flags]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)


def test_plaintext_on_another_address_and_a_wildcard_host(tmp_path: Path, serving: list[Serving]) -> None:
    srv = Serving(tmp_path, host="0.0.0.0")
    serving.append(srv)
    ok = health(tmp_path, f'address = "0.0.0.0:{srv.port}"\n')  # as a container's config says it
    assert ok.returncode == 0, ok.stderr
    assert f"127.0.0.1:{srv.port}: SERVING" in ok.stdout
    srv.stop()
    gone = health(tmp_path, f'address = "0.0.0.0:{srv.port}"\n')
    assert gone.returncode == 1 and f"127.0.0.1:{srv.port}: UNAVAILABLE" in gone.stderr


def test_tls_is_followed_both_ways(tmp_path: Path, serving: list[Serving], certs: tuple[Path, Path]) -> None:
    cert, key = certs
    tls = Serving(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key))
    plain = Serving(tmp_path)
    serving += [tls, plain]
    tls_config = f'address = "127.0.0.1:{tls.port}"\ntls_cert = "{cert}"\ntls_key = "{key}"\n'
    assert health(tmp_path, tls_config).returncode == 0
    # The same server checked as plaintext, and a plaintext one checked with TLS: not serving.
    assert health(tmp_path, f'address = "127.0.0.1:{tls.port}"\n').returncode == 1
    wrong = health(tmp_path, f'address = "127.0.0.1:{plain.port}"\ntls_cert = "{cert}"\ntls_key = "{key}"\n')
    assert wrong.returncode == 1 and "TLS" in wrong.stderr
    # Flags override the file, as for serve.
    assert health(tmp_path, tls_config, "--address", f"127.0.0.1:{plain.port}").returncode == 1


def test_a_certificate_for_another_name_passes_at_loopback(tmp_path: Path, serving: list[Serving]) -> None:
    """A production certificate names the public host, not 127.0.0.1, where the check connects."""
    cert, key = self_signed(tmp_path, "grpc.example.com", "DNS:grpc.example.com")
    srv = Serving(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key))
    serving.append(srv)
    done = health(tmp_path, f'address = "127.0.0.1:{srv.port}"\ntls_cert = "{cert}"\ntls_key = "{key}"\n')
    assert done.returncode == 0, done.stderr


def test_a_configuration_no_check_can_follow(tmp_path: Path) -> None:
    done = health(tmp_path, 'address = "0.0.0.0:0"\n')
    assert done.returncode == 2 and "port 0 picks a free port" in done.stderr
