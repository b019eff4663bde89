"""Why ``graphwire serve`` cannot start, in words a newcomer can act on.

The libraries underneath say what failed in their own terms: gRPC's
``Failed to bind to address …`` says neither that the port is taken nor what
to do, SQLite's ``unable to open database file`` does not say that the
directory is missing, and ``file is not a database`` does not say which
file. These helpers look at the address or the path again, once it has
failed, and name the cause and the fix. They run only on the failure path,
so a start that works pays nothing for them.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import sqlite3
import ssl

__all__ = ["container_note", "foreign_sqlite", "listen_problem", "read_tls_files", "sqlite_problem"]

SQLITE_HEADER = b"SQLite format 3\x00"


def listen_problem(address: str) -> str:
    """Why the gRPC server could not listen on ``address`` (a bind that failed), and what to do."""
    host, _, port_text = address.rpartition(":")
    host = host.strip("[]")
    fix = "choose another with --address (or address = … in graphwire.toml; port 0 picks a free one)"
    try:
        port = int(port_text)
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (ValueError, socket.gaierror) as e:
        why = getattr(e, "strerror", None) or str(e)
        return f"cannot listen on {address!r}: {host!r} is not a host name or address this machine can resolve ({why}); {fix}"
    last: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds
                probe.bind(sockaddr)
        except OSError as e:
            last = e
    if last is None:  # it binds now: whatever held it let go, or gRPC refused for its own reasons
        return f"cannot listen on {address!r} (gRPC refused it; it is free now, so try again); {fix}"
    if last.errno == errno.EADDRINUSE:
        return (
            f"cannot listen on {address!r}: port {port} is already in use (another graphwire serve? "
            f"`ss -ltnp 'sport = :{port}'` shows who holds it); stop that process, or {fix}"
        )
    if last.errno == errno.EADDRNOTAVAIL:
        return (
            f"cannot listen on {address!r}: {host} is not an address of this machine; use 127.0.0.1 (this machine "
            "only) or 0.0.0.0 (every interface), or one of this machine's own addresses"
        )
    if last.errno == errno.EACCES:
        return f"cannot listen on {address!r}: port {port} needs privileges this process lacks; use a port above 1023"
    return f"cannot listen on {address!r}: {last.strerror or last}; {fix}"


def sqlite_problem(what: str, spec: str, error: BaseException) -> str:
    """Why the SQLite file ``spec`` (the ``what`` setting's) did not open: the path, looked at again.

    ``error`` is what opening it raised; its text is the last resort, when
    the path shows nothing wrong.
    """
    path = os.path.abspath(spec.removeprefix("file:").partition("?")[0])
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        return (
            f"{what} {spec!r}: the directory {directory} does not exist; create it (mkdir -p {directory}), "
            "or name a file in a directory that does"
        )
    if os.path.isdir(path):
        return f"{what} {spec!r}: {path} is a directory; name a file (e.g. {os.path.join(spec, 'graphwire.db')})"
    if os.path.exists(path) and os.path.getsize(path) > 0:
        try:
            with open(path, "rb") as f:
                header = f.read(len(SQLITE_HEADER))
        except OSError as e:
            return f"{what} {spec!r}: cannot read {path} ({e.strerror}); give the server's user access to it"
        if header != SQLITE_HEADER:
            return (
                f"{what} {spec!r}: {path} is not a SQLite database (it does not start as one does); name another "
                "file, or move this one away and a new database is created there"
            )
    if not os.access(directory, os.W_OK):
        return (
            f"{what} {spec!r}: cannot write in {directory} (SQLite keeps its -wal and -shm files and the lock "
            "file beside the database); give the server's user write access to it, or name a file elsewhere"
        )
    return f"{what} {spec!r}: cannot open it as a SQLite file ({error})"


def foreign_sqlite(what: str, spec: str) -> str | None:
    """What to say when ``spec`` is a SQLite file of someone else's schema (a LangGraph SqliteSaver's, say).

    graphwire's files carry their schema version in ``PRAGMA user_version``;
    one at version 0 that already has tables was made by another program,
    and migrating it fails on the first table name the two share. None when
    the file is not such a file (the error is then another one).
    """
    path = os.path.abspath(spec.removeprefix("file:").partition("?")[0])
    if not os.path.isfile(path):
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    except sqlite3.Error:
        return None
    if version != 0 or not tables:
        return None
    langgraph = " (LangGraph's SqliteSaver makes these)" if {"checkpoints", "writes"} <= set(tables) else ""
    return (
        f"{what} {spec!r}: {path} is a SQLite database another program made (tables {', '.join(tables[:6])}"
        f"{', …' if len(tables) > 6 else ''}{langgraph}); graphwire keeps its own schema in a file of its own: "
        "name a new file (graphwire creates it)"
    )


def read_tls_files(cert_path: str, key_path: str) -> tuple[bytes, bytes]:
    """The PEM bytes of ``tls_cert`` and ``tls_key``, checked to be a certificate and its private key.

    gRPC only says ``Unable to create secure server``; Python's ``ssl`` reads
    the same PEM files and says what is wrong with them (not PEM, a key that
    is not the certificate's, a key under a passphrase, which gRPC cannot use).

    Raises:
        ValueError: a file that cannot be read, or is not what it should be.
    """
    files = []
    for what, path in (("tls_cert", cert_path), ("tls_key", key_path)):
        try:
            with open(path, "rb") as f:
                files.append(f.read())
        except OSError as e:
            raise ValueError(f"{what} {path!r}: cannot read it ({e.strerror}); it must be a PEM file the server can read") from None
    cert, key = files
    if b"-----BEGIN CERTIFICATE-----" not in cert:
        raise ValueError(f"tls_cert {cert_path!r}: not a PEM certificate (it has no -----BEGIN CERTIFICATE----- line)")
    if b"ENCRYPTED" in key:
        raise ValueError(
            f"tls_key {key_path!r} is encrypted with a passphrase, which gRPC cannot use; write it unencrypted "
            f"(openssl pkey -in {key_path} -out plain.key) and keep that file private"
        )
    if not re.search(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----", key):
        raise ValueError(f"tls_key {key_path!r}: not a PEM private key (it has no -----BEGIN … PRIVATE KEY----- line)")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert_path, key_path, password="")  # "": never a prompt for a passphrase
    except ssl.SSLError as e:
        if e.reason == "KEY_VALUES_MISMATCH":
            raise ValueError(f"tls_key {key_path!r} is not the private key of tls_cert {cert_path!r}") from None
        raise ValueError(f"tls_cert {cert_path!r} and tls_key {key_path!r}: OpenSSL cannot load them ({e.reason or e})") from None
    return cert, key


_CONTAINER_FILES = ("/.dockerenv", "/run/.containerenv")  # Docker's and Podman's marks


def container_note(host: str, port: int, *, in_container: bool | None = None) -> str | None:
    """What to do if clients outside the container must connect, when a server inside one listens on loopback.

    A note, not a warning: loopback is right for a sidecar or a test, and
    only the operator knows whether outside clients exist. None when it does
    not apply. ``in_container``: whether this is a container (default: look
    for Docker's and Podman's marks).
    """
    if in_container is None:
        in_container = any(os.path.exists(p) for p in _CONTAINER_FILES)
    if not in_container or host not in ("127.0.0.1", "localhost", "[::1]"):
        return None
    return (
        f"listening on {host} inside a container; if clients outside it must connect, listen on every interface: "
        f'address = "0.0.0.0:{port}" (or GRAPHWIRE_ADDRESS=0.0.0.0:{port})'
    )
