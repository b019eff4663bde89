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
    max_state_bytes = 16777216           # refuse a thread state larger than this (default: no limit)
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

__all__ = ["ServerConfig", "load_config", "DEFAULT_GRAPHS"]

DEFAULT_GRAPHS = {"reminders": "examples.reminders:graph"}


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
    max_state_bytes: int | None = None
    grace_seconds: float = 10.0
    recursion_limit: int | None = None
    max_history: int = 1000
    log_level: str = "INFO"
    inspector: str | None = None  # HOST:PORT of the inspector page; None: off


_FIELDS = {f.name for f in dataclasses.fields(ServerConfig)}


def load_config(path: str | None = None, overrides: dict[str, Any] | None = None) -> ServerConfig:
    """Defaults ← ``graphwire.toml`` (``path``, or ./graphwire.toml if present) ← env ← ``overrides``."""
    data: dict[str, Any] = {}
    if path is None and os.path.exists("graphwire.toml"):
        path = "graphwire.toml"
    if path is not None:
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise ValueError(f"config file {path!r} does not exist") from None
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"config file {path!r}: {e}") from None
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
    if cfg.pg_schema is not None and not cfg.checkpointer.startswith(("postgresql://", "postgres://")):
        raise ValueError("pg_schema applies to a postgresql:// checkpointer only")
    if cfg.auth_token and cfg.auth_tokens:
        raise ValueError("set auth_token (one shared token) or auth_tokens (a file of tenants' tokens), not both")
    if bool(cfg.tls_cert) != bool(cfg.tls_key):
        raise ValueError("TLS needs both tls_cert and tls_key")
    if cfg.inspector is not None:
        from server.inspector import parse_address

        parse_address(cfg.inspector)  # a malformed address fails here, before anything starts
    return cfg
