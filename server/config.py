"""Server configuration: defaults ← ``graphwire.toml`` ← ``GRAPHWIRE_*`` env ← flags.

    address = "127.0.0.1:50051"
    checkpointer = "graphwire.db"        # a SQLite path, or "postgresql://..."
    store = "graphwire.db"               # the Store (long-term memory): as checkpointer (default: the checkpointer's database)
    cache = "graphwire.db"               # node caches (CachePolicy): as checkpointer (default: the checkpointer's database; "off": none)
    pg_schema = "graphwire"              # PostgreSQL only: the schema of the tables (default: search_path's first)
    lease_seconds = 15.0                 # PostgreSQL only: a thread's lease lasts this long unless renewed
    run_retention_seconds = 86400.0      # a request_id answers its retries, and a run's events are kept, this long
    max_run_attempts = 3                 # a run whose replica died is started at most this often, then ends ERROR
    version_linger_seconds = 0.05        # a run's versions made this close together go in one write (0: each at once)
    auth_token = "..."                   # or env GRAPHWIRE_AUTH_TOKEN
    auth_tokens = "tokens.toml"          # tenants: tenant = "token" (or a list); instead of auth_token
    tls_cert = "server.crt"              # both set: TLS
    tls_key = "server.key"
    max_message_bytes = 4194304
    max_state_bytes = 8388608            # refuse a thread state larger than this (default: half the send limit; 0: none)
    max_unsent_bytes = 33554432          # per call, events waiting for a slow reader; past it the call ends RESOURCE_EXHAUSTED
    handshake_seconds = 10.0             # a new gRPC connection's TLS and HTTP/2 handshake must end within this
    sync_node_threads = 6                # threads for sync nodes of live runs (default: min(32, CPUs + 4))
    grace_seconds = 10.0
    recursion_limit = 10007
    inspector = "127.0.0.1:8080"         # serve the inspector page there (off when unset)
    http = "127.0.0.1:2024"              # serve LangGraph's Agent Server HTTP API there (off when unset; docs/http.md)
    http_app = "./webapp.py:app"         # a Starlette/FastAPI app whose routes the HTTP API serves before its own (langgraph.json's http.app)
    inspector_max_connections = 100      # the inspector's connections at once (at most half the descriptors free at start)
    inspector_request_seconds = 10.0     # an inspector request's line, headers and body must all arrive within this
    inspector_keepalive_seconds = 5.0    # an idle kept-alive inspector connection is closed after this
    import_swap = true                   # graph modules' `langgraph` imports get graphwire's engine (see server._prepare)
    workers = 4                          # server processes on the address (default: the CPUs on PostgreSQL, else 1; server._workers)
    event_loop = "auto"                  # uvloop where installed, else asyncio's; or "uvloop", "asyncio" (server._event_loop)

    [graphs]
    reminders = "examples.reminders:graph"

    [runtimes]                           # who runs a graph: "engine" (the default) or "langgraph" (LangGraph itself)
    reminders = "engine"

    [store_ttl]                          # store items expire (minutes); a sweeper deletes them
    default_ttl = 10080
    refresh_on_read = true
    sweep_interval_minutes = 60

    [thread_ttl]                         # threads expire this long after their last update (swept while serving)
    reminders = "7d"                     # or { ttl = "7d", strategy = "keep_latest" } (keep the newest version only)

    [store_index]                        # semantic search in the store
    embed = "mymodule:embed"             # a function texts -> vectors (or a LangChain Embeddings)
    dims = 1536
    fields = ["text"]

Every key can also come from the environment as ``GRAPHWIRE_<KEY>`` (``GRAPHWIRE_CHECKPOINTER=postgresql://…``,
``GRAPHWIRE_MAX_MESSAGE_BYTES=…``; ``GRAPHWIRE_GRAPHS="name=spec,other=spec"``; the store's tables as TOML inline
tables, ``GRAPHWIRE_STORE_TTL="{default_ttl = 60}"``), and ``GRAPHWIRE_CONFIG`` names the file. The environment
overrides the file and flags override both, so a container image can ship no flags at all and take its settings from a
mounted file or from ``-e``. Graph specs that are file paths are relative to the config file's directory
(:mod:`server._specs`); the other paths (SQLite file, certificates, tokens file) to the current directory.

Without ``graphwire.toml``, a ``langgraph.json`` in the current directory is read instead (or the file ``--config``
names, when it ends in ``.json``): its graphs, store and ``graphwire`` section become these settings
(:mod:`server._langgraph_json`). With no file and no flags it serves the reminders example on 127.0.0.1:50051 with
SQLite in ./graphwire.db.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.store import MAX_TTL_MINUTES
from server._ages import parse_thread_ttl
from server._config_text import bool_text, graphs_text, inline_table
from server._event_loop import check_event_loop
from server._langgraph_json import Project, read_langgraph_json

__all__ = [
    "ServerConfig", "find_config", "load_config", "read_toml", "parse_address", "check_postgres", "is_postgres", "DEFAULT_GRAPHS",
    "DEFAULT_MAX_UNSENT_BYTES", "ENV_PREFIX", "MIN_SEND_BYTES", "RUNTIMES", "SETTINGS_KEYS",
]  # fmt: skip

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
    store: str | None = None  # the Store's database; None: the checkpointer's
    store_ttl: dict[str, Any] | None = None  # a TTLConfig: default_ttl, refresh_on_read, sweep_interval_minutes, omit_expired
    store_index: dict[str, Any] | None = None  # an IndexConfig, ``embed`` a graph-like spec of the embedding function
    cache: str | None = None  # the node cache's database; None: the checkpointer's; "off": no cache
    pg_schema: str | None = None  # the PostgreSQL schema; None: the connection's current schema
    lease_seconds: float = 15.0  # PostgreSQL: a run's lease on its thread, renewed every third of it
    run_retention_seconds: float = 86400.0  # request ids and stored run events (see server._records)
    max_run_attempts: int = 3  # starts of a run whose replicas died, before it ends ERROR
    version_linger_seconds: float = 0.05  # an engine run's writer waits this long to write its versions together (server._parse)
    graphs: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_GRAPHS))
    #: graph name -> who runs it: "engine" (graphwire's, the default) or "langgraph" (LangGraph itself, issue 31)
    runtimes: dict[str, str] = field(default_factory=dict)
    thread_ttl: dict[str, Any] = field(default_factory=dict)  # graph name -> its threads' TTL (server._ages.parse_thread_ttl)
    thread_sweep_seconds: float = 60.0  # how often expired threads are swept
    cron_seconds: float = 10.0  # how often the HTTP API's crons due are looked for (and fired)
    webhook_seconds: float = 2.0  # how often runs' webhooks due are sent (and the base of their retries' backoff)
    webhook_timeout_seconds: float = 10.0  # a webhook's request's timeout
    auth_token: str | None = None
    auth_tokens: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    max_message_bytes: int = 4 * 1024 * 1024
    max_state_bytes: int | None = None  # None: half the send limit (see state_limit); 0: no limit
    max_unsent_bytes: int = DEFAULT_MAX_UNSENT_BYTES  # per call: events waiting for the reader
    handshake_seconds: float = 10.0  # gRPC's server_handshake_timeout_ms (its own default: 120 s)
    sync_node_threads: int | None = None  # None: the engine's default (see engine.pregel.NodeThreads)
    grace_seconds: float = 10.0
    recursion_limit: int | None = None
    max_history: int = 1000
    log_level: str = "INFO"
    inspector: str | None = None  # HOST:PORT of the inspector page; None: off
    http: str | None = None  # HOST:PORT of LangGraph's HTTP API (server.http); None: off
    http_app: str | None = None  # a spec of a project's own Starlette/FastAPI app, served before the API (server.http._custom_app)
    inspector_max_connections: int = 100  # see server.inspector._gate: a flood of its port must not take gRPC's descriptors
    inspector_request_seconds: float = 10.0  # to receive a request's line, headers and body
    inspector_keepalive_seconds: float = 5.0  # an idle kept-alive connection's life
    import_swap: bool | None = None  # None: on, unless a graph runs on LangGraph itself (server._prepare.swap_choice)
    workers: int | None = None  # server processes on one address; None: worker_count()'s default (see server._workers)
    event_loop: str = "auto"  # "auto" (uvloop where installed), "uvloop" or "asyncio" (server._event_loop)
    config_dir: str | None = None  # the config file's directory (graph file specs are relative to it); not a key
    project: Project | None = None  # what a langgraph.json asks of the process (env, dependencies); not a key

    def worker_count(self) -> int:
        """``workers``, else the CPUs this process may use when every database is PostgreSQL, else 1."""
        if self.workers is not None:
            return self.workers
        if not all(map(is_postgres, self.databases())):
            return 1
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

    def databases(self) -> list[str]:
        """The specs of the databases the server opens: checkpointer, store, and node cache unless off."""
        return [self.checkpointer, self.store_spec(), *filter(None, [self.cache_spec()])]

    def store_spec(self) -> str:
        """The store's database: ``store``, or the checkpointer's."""
        return self.checkpointer if self.store is None else self.store

    def cache_spec(self) -> str | None:
        """The node cache's database: ``cache``, or the checkpointer's; None when ``cache = "off"``."""
        if self.cache == "off":
            return None
        return self.checkpointer if self.cache is None else self.cache

    def schema_for(self, spec: str) -> str | None:
        """The PostgreSQL schema of the saver or store on ``spec``: ``pg_schema`` for a DSN, None otherwise."""
        return self.pg_schema if is_postgres(spec) else None

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


_FIELDS = {f.name for f in dataclasses.fields(ServerConfig)} - {"config_dir", "project"}
#: The keys a config file (or a GRAPHWIRE_<KEY> variable) may set.
SETTINGS_KEYS = frozenset(_FIELDS)
ENV_PREFIX = "GRAPHWIRE_"
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_TEXT, _WHOLE, _SECONDS, _TABLE = "text", "a whole number", "a number of seconds", 'a table of name = "spec"'
_BOOL = "true or false"
_SETTINGS = "a table of settings"  # [store_ttl], [store_index]: checked key by key in _check_store
#: What each key holds.
_KINDS = {
    **dict.fromkeys(("address", "checkpointer", "store", "cache", "pg_schema", "auth_token", "auth_tokens", "tls_cert", "tls_key",
                     "log_level", "inspector", "http", "http_app", "event_loop"), _TEXT),
    **dict.fromkeys(("max_message_bytes", "max_state_bytes", "max_unsent_bytes", "sync_node_threads", "recursion_limit", "max_history",
                     "max_run_attempts", "inspector_max_connections", "workers"), _WHOLE),
    **dict.fromkeys(("lease_seconds", "grace_seconds", "run_retention_seconds", "handshake_seconds", "inspector_request_seconds",
                     "inspector_keepalive_seconds", "thread_sweep_seconds", "cron_seconds", "webhook_seconds",
                     "webhook_timeout_seconds", "version_linger_seconds"), _SECONDS),
    "graphs": _TABLE,
    "runtimes": _TABLE,
    **dict.fromkeys(("store_ttl", "store_index", "thread_ttl"), _SETTINGS),
    "import_swap": _BOOL,
}  # fmt: skip
#: who may run a graph: graphwire's engine (the default), or LangGraph itself (installed beside the server)
RUNTIMES = ("engine", "langgraph")


def read_toml(path: str, what: str) -> dict[str, Any]:
    """The TOML file ``path``; ValueError naming it (as ``what``) when it is missing or malformed."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ValueError(f"{what} {path!r} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{what} {path!r}: {e}{_toml_hint(path, str(e))}") from None


def _toml_hint(path: str, error: str) -> str:
    """The line a TOML error points at, and the usual cause (text without quotes) when it fits."""
    found = re.search(r"at line (\d+)", error)
    if found is None:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            line = f.read().splitlines()[int(found.group(1)) - 1].strip()
    except (OSError, IndexError):
        return ""
    unquoted = error.startswith(("Invalid value", "Expected newline or end of document after a statement"))
    hint = '; text needs quotes in TOML, e.g. address = "127.0.0.1:50051"' if unquoted and "=" in line else ""
    return f": {line!r}{hint}"


def parse_address(address: str, *, what: str = "inspector address", example: str = "127.0.0.1:8080") -> tuple[str, int]:
    """A ``HOST:PORT`` (``[v6]:PORT`` for IPv6) → (host, port); the inspector's unless ``what`` says.

    Here rather than in :mod:`server.inspector`, so that checking a config
    does not import the inspector (which imports the server's rooms, which
    import this module).
    """
    host, sep, port = address.rpartition(":") if isinstance(address, str) else ("", "", "")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{what} {address!r}: use HOST:PORT with a port from 0 to 65535, e.g. {example}")
    return host.strip("[]"), int(port)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(key: str, value: Any, where: str) -> None:
    """A value of the wrong kind fails with a message naming where it came from."""
    kind = _KINDS[key]
    if kind == _TEXT:
        ok = isinstance(value, str)
    elif kind == _WHOLE:
        ok = _whole(value)
    elif kind == _SECONDS:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind == _SETTINGS:
        ok = isinstance(value, dict)
    elif kind == _BOOL:
        ok = isinstance(value, bool)
    else:
        ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if not ok:
        raise ValueError(f"{where}{key} must be {kind}, not {value!r}")


def _from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings given as GRAPHWIRE_<KEY> variables, parsed to their keys' kinds."""
    data: dict[str, Any] = {}
    for key in sorted(_FIELDS):
        var = ENV_PREFIX + key.upper()
        text = environ.get(var, "").strip()
        if not text:
            continue
        kind = _KINDS[key]
        try:
            parse: dict[str, Callable[[str], Any]] = {_WHOLE: int, _SECONDS: float, _TABLE: graphs_text, _SETTINGS: inline_table, _BOOL: bool_text}
            data[key] = parse.get(kind, str)(text)
        except ValueError:
            example = {_TABLE: "name=package.module:attribute,other=./file.py:graph", _SETTINGS: "a TOML inline table, {key = value, ...}",
                       _BOOL: "true or false (1 or 0, on or off)"}.get(kind, kind)
            raise ValueError(f"{var} must be {example}, not {text!r}") from None
    return data


_CONNINFO = re.compile(r"^\s*(host|hostaddr|port|dbname|user|password|passfile|service|sslmode|options|connect_timeout|application_name)\s*=")


def is_postgres(spec: str) -> bool:
    """Whether a spec is PostgreSQL's: a URL, or libpq's ``host=db dbname=app`` (else a SQLite path or ":memory:")."""
    return spec.startswith(("postgresql://", "postgres://")) or _CONNINFO.match(spec) is not None


# An unquoted PostgreSQL identifier: what a schema name may be.
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")


def check_postgres(cfg: ServerConfig) -> None:
    """``pg_schema`` and ``lease_seconds``, checked once for everything that opens a database or leases a thread."""
    if isinstance(cfg.lease_seconds, bool) or not isinstance(cfg.lease_seconds, (int, float)) or not 0 < cfg.lease_seconds < 86400:
        raise ValueError(f"lease_seconds must be a number of seconds above 0 and below a day, got {cfg.lease_seconds!r}")
    if cfg.pg_schema is None:
        return
    if not any(is_postgres(s) for s in (cfg.checkpointer, cfg.store_spec(), cfg.cache_spec() or "")):
        raise ValueError("pg_schema applies to a postgresql:// checkpointer or store or node cache only")
    if not isinstance(cfg.pg_schema, str) or not _IDENTIFIER.match(cfg.pg_schema):
        raise ValueError(
            "pg_schema must be a PostgreSQL identifier (letters, digits, _ and $, not starting with a digit, "
            f"at most 63 characters), got {cfg.pg_schema!r}"
        )


_TTL_KEYS = {"default_ttl": "minutes", "sweep_interval_minutes": "minutes", "refresh_on_read": "bool", "omit_expired": "bool"}


def _minutes(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < float("inf")


def _check_store(cfg: ServerConfig) -> None:
    """``store``, ``[store_ttl]`` and ``[store_index]``, checked before anything opens."""
    if cfg.store is not None and not cfg.store:
        raise ValueError("store must be a SQLite path, ':memory:' or a postgresql:// DSN, not ''")
    for key, value in (cfg.store_ttl or {}).items():
        kind = _TTL_KEYS.get(key)
        if kind is None:
            raise ValueError(f"store_ttl: unknown key {key!r}; known: {sorted(_TTL_KEYS)}")
        if kind == "bool" and not isinstance(value, bool):
            raise ValueError(f"store_ttl.{key} must be true or false, got {value!r}")
        if kind == "minutes" and not _minutes(value):
            raise ValueError(f"store_ttl.{key} must be a number of minutes above 0, got {value!r}")
        if key == "default_ttl" and value > MAX_TTL_MINUTES:  # else every put naming no TTL would fail
            raise ValueError(f"store_ttl.default_ttl must be at most {MAX_TTL_MINUTES:,.0f} minutes, got {value!r}")
    if cfg.store_index is not None:
        index = cfg.store_index
        if not isinstance(index.get("embed"), str):
            raise ValueError('store_index needs embed = "module:function" (a function texts -> vectors)')
        unknown = sorted(set(index) - {"embed", "dims", "fields"})
        if unknown:
            raise ValueError(f"store_index: unknown key(s) {unknown}; known: ['dims', 'embed', 'fields']")
        if not _whole(index.get("dims")) or index["dims"] < 1:
            raise ValueError(f"store_index.dims must be the embeddings' length (a whole number above 0), got {index.get('dims')!r}")
        fields = index.get("fields")
        if fields is not None and (not isinstance(fields, list) or not all(isinstance(f, str) and f for f in fields)):
            raise ValueError(f"store_index.fields must be a list of paths into the value, e.g. [\"text\"], got {fields!r}")


def find_config(path: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The config file to read: ``path``, else env GRAPHWIRE_CONFIG, else the first of ./graphwire.toml,
    ./langgraph.json and ./aegra.json (an Aegra project's, which has langgraph.json's form)."""
    env = os.environ if environ is None else environ
    path = path or env.get(ENV_PREFIX + "CONFIG") or None
    if path is None:
        path = next((p for p in ("graphwire.toml", "langgraph.json", "aegra.json") if os.path.exists(p)), None)
    return path


def load_config(
    path: str | None = None, overrides: dict[str, Any] | None = None, *, environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """Defaults ← the file ← env ← ``overrides``.

    The file: ``path``, else env GRAPHWIRE_CONFIG, else ./graphwire.toml,
    ./langgraph.json or ./aegra.json, whichever is there first. A ``.json`` file
    is read as a ``langgraph.json`` (:mod:`server._langgraph_json`).
    """
    env = os.environ if environ is None else environ
    data: dict[str, Any] = {}
    project: Project | None = None
    path = find_config(path, env)
    if path is not None:
        where = f"config file {path!r}: "
        if path.endswith(".json"):
            data, project = read_langgraph_json(path)
            data.setdefault("graphs", {})  # a project names its graphs: never the demo in their place
            where = f"langgraph.json {path!r}: the graphwire section's "
        else:
            data = read_toml(path, "config file")
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise ValueError(f"{where}unknown key(s) {unknown}; known: {sorted(_FIELDS)}")
        for key, value in data.items():
            _check(key, value, where)
    data.update(_from_env(env))
    for k, v in (overrides or {}).items():
        if v is not None:
            data[k] = v
    config_dir = os.path.dirname(os.path.abspath(path)) if path is not None else None
    cfg = ServerConfig(**data, config_dir=config_dir, project=project)
    cfg.log_level = cfg.log_level.upper()
    if cfg.log_level not in _LOG_LEVELS:
        raise ValueError(f"log_level must be one of {', '.join(_LOG_LEVELS)}, not {cfg.log_level!r}")
    if isinstance(cfg.run_retention_seconds, bool) or not isinstance(cfg.run_retention_seconds, (int, float)) or not cfg.run_retention_seconds > 0:
        raise ValueError(f"run_retention_seconds must be a number of seconds above 0, got {cfg.run_retention_seconds!r}")
    check_event_loop(cfg.event_loop)
    if isinstance(cfg.version_linger_seconds, bool) or not isinstance(cfg.version_linger_seconds, (int, float)) or not 0 <= cfg.version_linger_seconds <= 60:
        raise ValueError(f"version_linger_seconds must be a number of seconds from 0 to 60, got {cfg.version_linger_seconds!r}")
    for key in ("recursion_limit", "max_history", "max_run_attempts"):
        value = getattr(cfg, key)
        if value is not None and (not _whole(value) or value < 1):
            raise ValueError(f"{key} must be a whole number of at least 1, not {value!r}")
    if not cfg.graphs:
        where = f" (the [graphs] table of {path!r} is empty)" if path is not None and "graphs" in data else ""
        if project is not None:
            raise ValueError(
                f'no graphs configured: langgraph.json {path!r} names none; add "graphs": {{"agent": "./agent.py:graph"}}'
            )
        raise ValueError(
            f"no graphs configured{where}: name at least one under [graphs], e.g. agent = \"./agent.py:graph\" "
            "(`graphwire init` writes a starter)"
        )
    for name, runtime in cfg.runtimes.items():
        if name not in cfg.graphs:
            raise ValueError(f"runtimes: {name!r} is not one of the graphs ({', '.join(sorted(cfg.graphs))})")
        if runtime not in RUNTIMES:
            raise ValueError(f"runtimes: graph {name!r} runs on {' or '.join(map(repr, RUNTIMES))}, not {runtime!r}")
    if not _whole(cfg.max_message_bytes) or cfg.max_message_bytes < 1:
        raise ValueError(f"max_message_bytes must be a whole number of bytes above 0, got {cfg.max_message_bytes!r}")
    if not _whole(cfg.max_unsent_bytes) or cfg.max_unsent_bytes < 1:
        raise ValueError(f"max_unsent_bytes must be a whole number of bytes above 0, got {cfg.max_unsent_bytes!r}")
    if cfg.sync_node_threads is not None and (not _whole(cfg.sync_node_threads) or not 0 < cfg.sync_node_threads <= 1024):
        raise ValueError(f"sync_node_threads must be a whole number from 1 to 1024, got {cfg.sync_node_threads!r}")
    if cfg.max_state_bytes is not None and (not _whole(cfg.max_state_bytes) or cfg.max_state_bytes < 0):
        raise ValueError(f"max_state_bytes must be a whole number of bytes (0: no limit), got {cfg.max_state_bytes!r}")
    check_postgres(cfg)
    if cfg.cache is not None and not cfg.cache:
        raise ValueError("cache must be a SQLite path, ':memory:', a postgresql:// DSN or \"off\", not ''")
    _check_store(cfg)
    parse_thread_ttl(cfg.thread_ttl, cfg.graphs)
    if cfg.auth_token and cfg.auth_tokens:
        raise ValueError("set auth_token (one shared token) or auth_tokens (a file of tenants' tokens), not both")
    if bool(cfg.tls_cert) != bool(cfg.tls_key):
        raise ValueError("TLS needs both tls_cert and tls_key")
    if not cfg.address.startswith("unix:"):  # gRPC's own unix:PATH form listens on a socket file
        # gRPC takes a port past 65535 modulo 65536 and would listen somewhere else than asked.
        parse_address(cfg.address, what="address", example="127.0.0.1:50051 (0.0.0.0:50051 for every interface)")
    if cfg.inspector is not None:
        parse_address(cfg.inspector)  # a malformed address fails here, before anything starts
    if cfg.http is not None:
        parse_address(cfg.http, what="http address", example="127.0.0.1:2024")
    _check_connection_limits(cfg)
    _check_workers(cfg)
    return cfg


def _check_workers(cfg: ServerConfig) -> None:
    """Several workers share one PostgreSQL and one TCP port; on SQLite one process writes the file."""
    if cfg.workers is None:
        return
    if not _whole(cfg.workers) or not 0 < cfg.workers <= 1024:
        raise ValueError(f"workers must be a whole number from 1 to 1024, got {cfg.workers!r}")
    if cfg.workers == 1:
        return
    local = [spec for spec in cfg.databases() if not is_postgres(spec)]
    if local:
        raise ValueError(
            f"workers = {cfg.workers} needs PostgreSQL: {local[0]!r} is not a postgresql:// DSN, and one process "
            "writes a SQLite file (or holds an in-memory one); serve with workers = 1, or put the checkpointer, "
            "store and cache on PostgreSQL"
        )
    if cfg.address.startswith("unix:"):
        raise ValueError(f"workers = {cfg.workers} share a TCP port; {cfg.address!r} is a unix socket: serve with workers = 1")


def _check_connection_limits(cfg: ServerConfig) -> None:
    """How long connections may take and how many the inspector holds: each must bound something
    (no 0 for "none"; a flood of either port must end)."""
    if not _whole(cfg.inspector_max_connections) or not 0 < cfg.inspector_max_connections <= 1_000_000:
        raise ValueError(
            f"inspector_max_connections must be a whole number from 1 to 1000000, got {cfg.inspector_max_connections!r}"
        )
    for key in ("handshake_seconds", "inspector_request_seconds", "inspector_keepalive_seconds"):
        value = getattr(cfg, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
            raise ValueError(f"{key} must be a number of seconds above 0 and at most 3600, got {value!r}")
