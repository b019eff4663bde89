"""``graphwire health``: is the configured server serving?

The container image's HEALTHCHECK runs it. It reads the configuration the
way ``graphwire serve`` does (the file, ``GRAPHWIRE_*`` variables, its own
flags), so it follows the address and TLS the server was configured with,
instead of a port and plaintext fixed in the image. It connects to the
address (a wildcard host, ``0.0.0.0`` or ``[::]``, through loopback), with
TLS when ``tls_cert`` is set, calls the standard ``grpc.health.v1`` Check
(which needs no token), and exits 0 when the answer is SERVING, 1 otherwise
(the reason on stderr), 2 when the configuration itself is wrong.

TLS: the certificate the server presents is checked against ``tls_cert``
itself (a self-signed certificate, or a file holding the chain up to its
root), then against the system's roots (a certificate from a public CA), in
both cases under the first name the certificate is issued for, so a
certificate for ``grpc.example.com`` passes when reached at 127.0.0.1.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from server.config import ServerConfig

__all__ = ["HealthResult", "cert_name", "check", "target"]

_WILDCARDS = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]", "": "127.0.0.1", "*": "127.0.0.1"}


@dataclass(frozen=True, slots=True)
class HealthResult:
    serving: bool
    message: str


def target(address: str) -> str:
    """Where to reach a server listening on ``address`` from the same machine."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"address {address!r}: use HOST:PORT")
    if int(port) == 0:
        raise ValueError(f"address {address!r}: port 0 picks a free port at start, so no check can know it; configure a port")
    return f"{_WILDCARDS.get(host, host)}:{port}"


def cert_name(cert_path: str) -> str | None:
    """The first name the certificate is issued for (a DNS or IP subjectAltName, else its CN)."""
    try:
        decoded = ssl._ssl._test_decode_cert(cert_path)  # type: ignore[attr-defined]  # the stdlib's PEM reader
    except (ssl.SSLError, OSError):
        return None
    for kind, value in decoded.get("subjectAltName", ()):
        if kind in ("DNS", "IP Address"):
            return str(value)
    for rdn in decoded.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return str(value)
    return None


def _ask(where: str, credentials: grpc.ChannelCredentials | None, name: str | None, timeout: float) -> HealthResult:
    options = [("grpc.ssl_target_name_override", name)] if credentials is not None and name else []
    channel = grpc.secure_channel(where, credentials, options) if credentials else grpc.insecure_channel(where)
    with channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
        except grpc.RpcError as e:
            return HealthResult(False, f"{where}: {e.code().name}: {e.details()}")  # type: ignore[attr-defined]
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return HealthResult(reply.status == health_pb2.HealthCheckResponse.SERVING, f"{where}: {status}")


def check(config: ServerConfig, *, timeout: float = 3.0) -> HealthResult:
    """Ask the server ``config`` describes whether it is serving.

    Raises:
        ValueError: the configuration names no address a check can reach, or
            a certificate that cannot be read.
    """
    where = target(config.address)
    if not config.tls_cert:
        return _ask(where, None, None, timeout)
    try:
        with open(config.tls_cert, "rb") as f:
            pem = f.read()
    except OSError as e:
        raise ValueError(f"tls_cert {config.tls_cert!r}: {e.strerror}") from None
    name = cert_name(config.tls_cert)
    own = _ask(where, grpc.ssl_channel_credentials(root_certificates=pem), name, timeout)
    if own.serving:
        return own
    system = _ask(where, grpc.ssl_channel_credentials(), name, timeout)
    return system if system.serving else HealthResult(False, f"{own.message} (TLS, as {name or 'its address'})")
