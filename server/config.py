"""Server configuration: ``graphwire.toml``, overridden by flags and env.

    address = "127.0.0.1:50051"
    checkpointer = "graphwire.db"        # a SQLite path, or "postgresql://..."
    pg_schema = "graphwire"              # PostgreSQL only: the schema of the tables (default: search_path's first)
    lease_seconds = 15.0                 # PostgreSQL only: a thread's lease lasts this long unless renewed
    auth_token = "..."                   # or env GRAPHWIRE_AUTH_TOKEN
    auth_tokens = "tokens.toml"          # tenants: tenant = "token" (or a list); instead of auth_token
    tls_cert = "server.crt"              # both set: TLS
    tls_key = "server.key"
    max_message_bytes = 4194304
    max_state_bytes = 8388608            # refuse a thread state larger than this (default: half the send limit; 0: none)
    max_unsent_bytes = 33554432          # per call, events waiting for a slow reader; past it the call ends RESOURCE_EXHAUSTED
    grace_seconds = 10.0
    recursion_limit = 10007
    inspector = "127.0.0.1:8080"         # serve the inspector page there (off when unset)

    [graphs]
    reminders = "examples.reminders:graph"

With no file and no flags it serves the reminders example on
127.0.0.1:50051 with SQLite in ./graphwire.db.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ServerConfig", "load_config", "read_toml", "parse_address", "DEFAULT_GRAPHS", "DEFAULT_MAX_UNSENT_BYTES", "MIN_SEND_BYTES"]

DEFAULT_GRAPHS = {"reminders": "examples.reminders:graph"}

#: The server sends messages of up to max(max_message_bytes, this).
MIN_SEND_BYTES = 16 * 1024 * 1024
#: Per call, the most bytes of run events that may wait for a slow reader (see :mod:`server._outbox`):
#: two of the largest messages the server sends by default.
DEFAULT_MAX_UNSENT_BYTES = 2 * MIN_SEND_BYTES


@dataclass(slots=True)
class ServerConfig:
    address: str = "127.0.0.1:50051"
    checkpointer: str = "graphwire.db"
    pg_schema: str | None = None  # the PostgreSQL schema; None: the connection's current schema
    lease_seconds: float = 15.0  # PostgreSQL: a run's lease on its thread, renewed every third of it
    graphs: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_GRAPHS))
    auth_token: str | None = None
    auth_tokens: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    max_state_bytes: int | None = None  # None: half the send limit (see state_limit); 0: no limit
    max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES  # per call: events waiting for the reader
    grace_seconds: float = 10.0
    recursion_limit: int | None = None
    max_history: int = 1000
    log_level: str = "INFO"
    inspector: str | None = None  # HOST:PORT of the inspector page; None: off

    def send_limit(self) -> int:
        """The largest message the server sends (a run's final state, a snapshot, a history page)."""
        return max(self.max_message_bytes, MIN_SEND_BYTES)

    def state_limit(self) -> int | None:
        """The checkpointer's ``max_state_bytes``: as set (0: no limit), else half the send limit.

        A state is stored as msgpack and sent back as JSON, which for text is
        about as large; the factor two leaves room for what JSON spells longer
        (escapes, numbers, base64 bytes). Without a limit a thread could grow
        past what any reply can carry, and every later call on it would fail.
        """
        if self.max_state_bytes is None:
            return self.send_limit() // 2
        return self.max_state_bytes or None


_FIELDS = {f.name for f in dataclasses.fields(ServerConfig)}


def read_toml(path: str, what: str) -> dict[str, Any]:
    """The TOML file ``path``; ValueError naming it (as ``what``) when it is missing or malformed."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ValueError(f"{what} {path!r} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{what} {path!r}: {e}") from None


def parse_address(address: str) -> tuple[str, int]:
    """The inspector's ``HOST:PORT`` (``[v6]:PORT`` for IPv6) → (host, port).

    Here rather than in :mod:`server.inspector`, so that checking a config
    does not import the inspector (which imports the server's rooms, which
    import this module).
    """
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"inspector address {address!r}: use HOST:PORT, e.g. 127.0.0.1:8080")
    return host.strip("[]"), int(port)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_config(path: str | None = None, overrides: dict[str, Any] | None = None) -> ServerConfig:
    """Defaults ← ``graphwire.toml`` (``path``, or ./graphwire.toml if present) ← env ← ``overrides``."""
    data: dict[str, Any] = {}
    if path is None and os.path.exists("graphwire.toml"):
        path = "graphwire.toml"
    if path is not None:
        data = read_toml(path, "config file")
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise ValueError(f"config file {path!r}: unknown key(s) {unknown}; known: {sorted(_FIELDS)}")
    env_token = os.environ.get("GRAPHWIRE_AUTH_TOKEN")
    if env_token:
        data["auth_token"] = env_token
    for k, v in (overrides or {}).items():
        if v is not None:
            data[k] = v
    cfg = ServerConfig(**data)
    if not cfg.graphs:
        raise ValueError("no graphs configured: add a [graphs] table, e.g. reminders = \"examples.reminders:graph\"")
    if isinstance(cfg.lease_seconds, bool) or not isinstance(cfg.lease_seconds, (int, float)) or not 0 < cfg.lease_seconds < 86400:
        raise ValueError(f"lease_seconds must be a number of seconds above 0 and below a day, got {cfg.lease_seconds!r}")
    if not _whole(cfg.max_message_bytes) or cfg.max_message_bytes < 1:
        raise ValueError(f"max_message_bytes must be a whole number of bytes above 0, got {cfg.max_message_bytes!r}")
    if not _whole(cfg.max_unsent_bytes) or cfg.max_unsent_bytes < 1:
        raise ValueError(f"max_unsent_bytes must be a whole number of bytes above 0, got {cfg.max_unsent_bytes!r}")
    if cfg.max_state_bytes is not None and (not _whole(cfg.max_state_bytes) or cfg.max_state_bytes < 0):
        raise ValueError(f"max_state_bytes must be a whole number of bytes (0: no limit), got {cfg.max_state_bytes!r}")
    if cfg.pg_schema is not None and not cfg.checkpointer.startswith(("postgresql://", "postgres://")):
        raise ValueError("pg_schema applies to a postgresql:// checkpointer only")
    if cfg.auth_token and cfg.auth_tokens:
        raise ValueError("set auth_token (one shared token) or auth_tokens (a file of tenants' tokens), not both")
    if bool(cfg.tls_cert) != bool(cfg.tls_key):
        raise ValueError("TLS needs both tls_cert and tls_key")
    if cfg.inspector is not None:
        parse_address(cfg.inspector)  # a malformed address fails here, before anything starts
    return cfg
