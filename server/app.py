"""Building and running the gRPC server: the service, health, reflection,
auth, TLS, message limits, the store and the node cache beside the checkpointer
(the store with its TTL sweeper), the inspector page and LangGraph's HTTP API
when asked for (:mod:`server._web`), and a graceful stop on SIGTERM."""

from __future__ import annotations

import asyncio
import re
import logging
import os
import signal
import sqlite3
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from engine.cache.base import BaseCache
from engine.cache.memory import InMemoryCache
from engine.checkpoint.base import LeaseStore
from engine.errors import CacheError, CheckpointError
from engine.pregel import node_threads, set_node_threads
from engine.store import InMemoryStore
from engine.store.base import BaseStore
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from server._ages import parse_thread_ttl
from server._auth import TokenAuth, Tokens
from server._tenants import load_tokens
from server._calls import Calls, RejectMalformed
from server._leases import ThreadLeases
from server._records import records_for
from server._gc import freeze_startup, tune_collector
from server._malloc import fix_mmap_threshold
from server._telemetry import setup_from_env as setup_telemetry
from server._workers import WorkerSlot, watch_parent
from server._event_loop import loop_name
from server._gate import Limits
from server._web import WebServer, is_loopback
from server._prepare import prepare_process
from server._reads import scope_threads
from server._langgraph_runtime import load_langgraph
from server._registry import load_graphs
from server._startup import container_note, foreign_sqlite, listen_problem, read_tls_files, sqlite_problem
from server._store import TtlSweeper, attach_cache, attach_store, open_cache, open_store
from server.config import DEFAULT_GRAPHS, ServerConfig, is_postgres
from server.service import GraphService


__all__ = ["Server", "open_checkpointer", "build_server", "serve"]

log = logging.getLogger("graphwire.server")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["GraphService"].full_name


def open_checkpointer(
    spec: str, *, pg_schema: str | None = None, max_state_bytes: int | None = None, serving: bool = False
) -> Any:
    """A saver from a spec: a SQLite path (":memory:" for RAM) or a postgresql:// DSN.

    ``pg_schema``: the PostgreSQL schema holding the tables (created and
    migrated if missing); None uses the connection's current schema. Checked
    by the config (:func:`server.config.check_postgres`): here it is ignored
    unless ``spec`` is a DSN (:meth:`ServerConfig.schema_for`).
    ``max_state_bytes``: refuse versions of a thread's state larger than this
    (see :class:`~engine.serde.StateTooLargeError`); None: no limit.
    ``serving``: the saver a server serves from: a SQLite file takes its
    serving lock (a second server on the file refuses to start; the CLI's
    other commands open it without).

    Raises:
        ValueError: a bad spec or schema name.
        CheckpointError: the database cannot be reached, or migrating it
            failed, or (``serving``) another server serves the SQLite file.
    """
    if is_postgres(spec):
        try:
            from engine.checkpoint.postgres import PostgresSaver  # type: ignore[attr-defined]
        except ImportError as e:
            raise ValueError(f"the PostgreSQL checkpointer is not available in this build: {e}") from None
        return PostgresSaver.from_dsn(spec, schema=pg_schema, max_state_bytes=max_state_bytes)
    if spec == ":memory:":
        from engine.checkpoint import InMemorySaver

        return InMemorySaver(max_state_bytes=max_state_bytes)
    from engine.checkpoint import SqliteSaver

    try:
        return SqliteSaver(spec, max_state_bytes=max_state_bytes, exclusive=serving)
    except (sqlite3.Error, OSError) as e:
        raise ValueError(sqlite_problem("checkpointer", spec, e)) from None
    except CheckpointError:
        foreign = foreign_sqlite("checkpointer", spec)
        if foreign is None:
            raise
        raise ValueError(foreign) from None


@dataclass
class Server:
    """A started server: its port, service and health, and a way to stop it.

    Everything it started or opened is torn down through one exit stack
    (``stack``), in the reverse of the order :func:`build_server` entered it:
    the run sweeper first (a durable run stopped here is another replica's to
    continue), then the drain (stop accepting calls, let running ones finish
    within the grace period, then cancel them: a durable one is stopped without
    an end instead, and continued by another replica), the hub (which ends the
    inspector's event streams), the web ports, the inspector and the HTTP API
    (they keep serving while runs drain, so a watcher sees them end, and stop
    before the checkpointer they read is closed), the relay and the store's TTL
    sweeper, then storage.
    """

    grpc_server: grpc.aio.Server
    service: GraphService
    health: health.aio.HealthServicer
    port: int
    config: ServerConfig
    stack: AsyncExitStack
    inspector: WebServer | None = None
    http: WebServer | None = None  # LangGraph's HTTP API (server.http), when asked for
    store: BaseStore | None = None  # the store the server opened (closed at stop)
    sweeper: TtlSweeper | None = None
    cache: BaseCache[Any] | None = None  # the node cache the server opened (closed at stop)
    grace: float | None = None  # the stop's grace period (None: the config's)

    async def stop(self, grace: float | None = None) -> None:
        """Stop serving: unwind :attr:`stack` (see the class's doc), runs given ``grace`` seconds."""
        self.grace = grace
        await self.stack.aclose()

    async def _drain(self) -> None:
        grace = self.config.grace_seconds if self.grace is None else self.grace
        await self.health.enter_graceful_shutdown()
        stopping = asyncio.ensure_future(self.grpc_server.stop(grace + 5))
        if not await self.service.runs.wait_idle(grace):
            n = self.service.runs.cancel_all()
            log.warning("grace period over: cancelled %d run(s)", n)
            await self.service.runs.wait_idle(5)
        await stopping


async def build_server(
    config: ServerConfig, *, checkpointer: Any = None, store: BaseStore | None = None, shared_port: bool = False
) -> Server:
    """Open the checkpointer and the store, load the graphs, and start serving.

    ``checkpointer`` / ``store``: use these instead of opening what the
    config names (a server given a checkpointer but no store, and no
    ``store`` in the config, gets an ``InMemoryStore``; likewise an
    ``InMemoryCache`` without ``cache`` in the config).
    ``shared_port``: listen with SO_REUSEPORT, beside the other workers of
    ``graphwire serve --workers`` (:mod:`server._workers`); else a second
    server on the address fails to start.
    """
    from server._web import bind

    socks: dict[str, Any] = {}
    try:
        # First: a taken port fails before anything starts.
        if config.inspector:
            socks["inspector"] = bind(config.inspector, what="inspector address")
        if config.http:
            socks["http"] = bind(config.http, what="http address")
        return await _build(config, checkpointer, socks, store, shared_port)
    except BaseException:
        for sock in socks.values():
            sock.close()
        raise


def _with_langgraph(config: ServerConfig, saver: Any) -> None:
    """LangGraph itself imported for the graphs ``runtimes`` names, and the saver one of its checkpointers."""
    version = load_langgraph(saver)
    named = sorted(n for n, r in config.runtimes.items() if r == "langgraph")
    log.info("graph(s) %s run on LangGraph %s itself", ", ".join(named), version)


def _open_store(config: ServerConfig, given_saver: bool) -> BaseStore:
    if given_saver and config.store is None:
        return InMemoryStore(ttl=config.store_ttl)  # type: ignore[arg-type]
    spec = config.store_spec()
    try:
        return open_store(
            spec, pg_schema=config.schema_for(spec), ttl=config.store_ttl, index=config.store_index, base_dir=config.config_dir  # type: ignore[arg-type]
        )
    except (sqlite3.Error, OSError) as e:  # SQLite's own, as the checkpointer's (a DSN's are StoreErrors)
        raise ValueError(sqlite_problem("store", spec, e)) from None


def _open_cache(config: ServerConfig, given_saver: bool, saver: Any) -> BaseCache[Any] | None:
    spec = config.cache_spec()
    if spec is None:
        return None
    if given_saver and config.cache is None:
        return InMemoryCache(serde=saver.serde)
    try:
        return open_cache(spec, pg_schema=config.schema_for(spec), serde=saver.serde)
    except CacheError as e:
        if is_postgres(spec) or spec == ":memory:":
            raise
        raise ValueError(sqlite_problem("cache", spec, e.__cause__ or e)) from None


async def _build(config: ServerConfig, checkpointer: Any, socks: dict[str, Any], store: BaseStore | None, shared_port: bool) -> Server:
    async with AsyncExitStack() as stack:  # a failure part-way unwinds what was entered so far
        server = await _enter(stack, config, checkpointer, socks, store, shared_port)
        server.stack = stack.pop_all()
        return server


async def _enter(
    stack: AsyncExitStack, config: ServerConfig, checkpointer: Any, socks: dict[str, Any], store: BaseStore | None, shared_port: bool
) -> Server:
    """Open, build and start the server's parts, each torn down by ``stack`` (see :class:`Server`)."""
    saver = checkpointer if checkpointer is not None else open_checkpointer(
        config.checkpointer,
        pg_schema=config.schema_for(config.checkpointer),
        max_state_bytes=config.state_limit(),
        serving=True,
    )
    built = False  # a checkpointer given to the server is closed by its stop, not by a failed start
    stack.push_async_callback(lambda: saver.aclose() if checkpointer is None or built else asyncio.sleep(0))
    # The wire is JSON: a value it cannot carry is refused when stored, not after (engine/serde/_wire.py).
    saver.serde.json_safe = True
    opened = store if store is not None else _open_store(config, checkpointer is not None)
    if store is None:
        stack.push_async_callback(opened.aclose)
    descriptions = config.project.descriptions if config.project is not None else None
    if "langgraph" in config.runtimes.values():
        _with_langgraph(config, saver)
    graphs = await load_graphs(config.graphs, saver, base_dir=config.config_dir, descriptions=descriptions, runtimes=config.runtimes)
    scope_threads(graphs, saver)  # each graph sees its callers' thread ids; the rows carry storage keys
    cache = _open_cache(config, checkpointer is not None, saver)
    if cache is not None:
        stack.push_async_callback(cache.aclose)
    if config.sync_node_threads is not None:
        set_node_threads(config.sync_node_threads)  # the process's: one server per process
    # With a shared store (PostgreSQL), one run per thread across replicas is the database's to enforce.
    leases = ThreadLeases(saver.leases, ttl=config.lease_seconds) if isinstance(saver.leases, LeaseStore) else None
    send_limit = config.send_limit()
    # Read once: the inspector accepts exactly the tokens the gRPC API does.
    accepted = load_tokens(config.auth_tokens) if config.auth_tokens else config.auth_token
    tokens = Tokens(accepted) if accepted else None
    served = attach_store(graphs, opened, tenants=bool(config.auth_tokens))
    attach_cache(graphs, cache, tenants=bool(config.auth_tokens))
    service = GraphService(
        graphs,
        saver,
        store=served,
        records=records_for(saver, leases, config),
        leases=leases,
        default_recursion_limit=config.recursion_limit,
        max_history=config.max_history,
        max_response_bytes=send_limit - 1024,
        max_unsent_bytes=config.max_unsent_bytes,
        thread_ttl=parse_thread_ttl(config.thread_ttl, config.graphs),
        thread_sweep_seconds=config.thread_sweep_seconds,
        version_linger_seconds=config.version_linger_seconds,
    )
    options = [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", send_limit),
        ("grpc.so_reuseport", int(shared_port)),  # --workers only: a mistaken second server must fail
        # A connection that never completes its handshake holds a descriptor until this ends (gRPC's own: 120 s).
        ("grpc.server_handshake_timeout_ms", int(config.handshake_seconds * 1000)),
    ]
    auth = [TokenAuth(tokens)] if tokens is not None else []
    # Malformed request bytes get INVALID_ARGUMENT before anything else looks at them;
    # Calls, innermost, maps failures to statuses inside the caller's tenant and trace.
    interceptors: list[Any] = [RejectMalformed(), *auth, Calls(service.max_response_bytes)]
    server = grpc.aio.server(options=options, interceptors=interceptors)
    pb_grpc.add_GraphServiceServicer_to_server(service, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME], server
    )
    try:
        if config.tls_cert:
            cert, key = read_tls_files(config.tls_cert, config.tls_key)  # type: ignore[arg-type]
            port = server.add_secure_port(config.address, grpc.ssl_server_credentials([(key, cert)]))
        else:
            port = server.add_insecure_port(config.address)
    except RuntimeError:  # grpcio raises "Failed to bind to address …"; older ones returned 0
        port = 0
    if port == 0:
        raise ValueError(listen_problem(config.address))
    await service.assistants.ensure_defaults({n: (e.own_name, (descriptions or {}).get(n)) for n, e in graphs.items()})
    if service.relay is not None:
        await service.relay.start()
        stack.push_async_callback(service.relay.stop)
    sweeper = None
    if config.store_ttl is not None:
        minutes = (config.store_ttl or {}).get("sweep_interval_minutes") or 5
        sweeper = TtlSweeper(opened, minutes, leases=leases.store if leases is not None else None, owner=service.records.replica)
        sweeper.start()
        stack.push_async_callback(sweeper.stop)
    await server.start()
    stack.push_async_callback(server.stop, None)  # at once, when the start fails after here (else stopped by the drain)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    # Last, after gRPC and storage opened: a web port's connection limit is capped by the descriptors still free.
    limits = Limits(config.inspector_max_connections, config.inspector_request_seconds, config.inspector_keepalive_seconds)
    web: dict[str, WebServer] = {}
    for name, sock in socks.items():
        web[name] = await WebServer.start(
            sock, _web_app(name, service, tokens, sock, config), name=name, tls_cert=config.tls_cert, tls_key=config.tls_key,
            limits=limits, lifespan=name == "http" and config.http_app is not None,  # a project's app's startup and shutdown
        )
        stack.push_async_callback(web[name].stop)
    stack.callback(service.hub.close)  # ends the inspector's event streams
    started = Server(
        server, service, health_servicer, port, config, stack, web.get("inspector"), web.get("http"),
        None if store is not None else opened, sweeper, cache,
    )  # fmt: skip
    stack.push_async_callback(started._drain)
    service.thread_sweeper.start()
    stack.push_async_callback(service.thread_sweeper.stop)
    # Crons and webhooks are made over the HTTP API, and kept in the database: every replica fires and sends
    # them (one at a time, by lease), whether or not it serves that API itself.
    _start_crons(service, config, leases, stack)
    service.sweeper.start()
    stack.push_async_callback(service.sweeper.stop)  # first: a durable run stopped here is another replica's to continue
    built = True
    return started


class _OnFirstUse:
    """A part of the HTTP face (the cron firer, the webhook deliverer, the delayed runs' starter) made, its
    modules imported, at its first call: a replica with no cron, webhook or delayed run due never imports
    FastAPI for them (a tenth of a second and its memory at every start)."""

    def __init__(self, make: Any) -> None:
        self._make = make
        self.made: Any = None

    async def __call__(self, *args: Any) -> Any:
        if self.made is None:
            self.made = self._make()
        return await self.made(*args)

    async def close(self) -> None:
        close = getattr(self.made, "close", None)
        if close is not None:
            await close()


def _start_crons(service: GraphService, config: ServerConfig, leases: ThreadLeases | None, stack: AsyncExitStack) -> None:
    """The cron scheduler (server._cron_scheduler), firing through the HTTP face, the webhook sender
    (server._webhook_sender) and the delayed runs' starter (server._delayed_starter); stopped with the server."""
    from server._cron_scheduler import CronScheduler
    from server._delayed_starter import DelayedScheduler
    from server._webhook_sender import WebhookSender

    def firer() -> Any:
        from server.http._cron_fire import CronFirer

        return CronFirer(service)

    def deliverer() -> Any:
        from server.http._webhooks import WebhookDeliverer

        return WebhookDeliverer(service, config.webhook_timeout_seconds)

    def starter() -> Any:
        from server.http._delayed import DelayedStarter

        return DelayedStarter(service)

    fire, store = _OnFirstUse(firer), leases.store if leases is not None else None
    scheduler = CronScheduler(service.crons, fire, leases=store, owner=service.records.replica, interval=config.cron_seconds)
    sender = WebhookSender(
        service.webhooks, _OnFirstUse(deliverer), leases=store, owner=service.records.replica, interval=config.webhook_seconds,
        timeout=config.webhook_timeout_seconds,
    )  # fmt: skip
    # delayed runs (after_seconds): looked for every second, or every cron_seconds when shorter
    delayed = DelayedScheduler(
        service.delayed, _OnFirstUse(starter), leases=store, owner=service.records.replica, interval=min(config.cron_seconds, 1.0)
    )
    scheduler.start()
    sender.start()
    delayed.start()
    stack.push_async_callback(fire.close)
    stack.push_async_callback(scheduler.stop)
    stack.push_async_callback(sender.stop)
    stack.push_async_callback(delayed.stop)


def _web_app(name: str, service: GraphService, tokens: Tokens | None, sock: Any, config: ServerConfig) -> Any:
    """The app a web port serves: the inspector's page, or LangGraph's HTTP API (server.http), after a project's own routes."""
    if name == "http":
        from server.http import build_http_app
        from server.http._custom_app import load_custom_app, with_custom_app

        api = build_http_app(service, tokens=tokens)
        return api if config.http_app is None else with_custom_app(api, load_custom_app(config.http_app, config.config_dir))
    from server.inspector import build_app
    from server.inspector._runs import ServiceRuns, ServiceThreads

    return build_app(
        service.reads, service.hub, tokens=tokens, loopback=is_loopback(sock.getsockname()[0]), runs=ServiceRuns(service),
        records=ServiceThreads(service.threads),
    )  # fmt: skip


def _redacted(spec: str) -> str:
    """A checkpointer spec fit for a log: a DSN's password replaced."""
    if not is_postgres(spec):
        return spec
    if not spec.startswith(("postgresql://", "postgres://")):  # libpq's key=value form
        return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", spec)
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(spec)
        if parts.password is None:
            return spec
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "postgresql://…"


async def serve(config: ServerConfig, *, ready: Any = None, worker: WorkerSlot | None = None) -> None:
    """Run until SIGTERM/SIGINT, then stop gracefully; ``worker``: as one of ``--workers`` (:mod:`server._workers`)."""
    fix_mmap_threshold()  # a large state's megabytes go back to the system once freed
    tuned = tune_collector()  # a run's many short-lived objects: fewer young collections (server._gc)
    prepare_process(config)  # the project's env and dependencies, and the import swap: before any graph loads
    shutdown_telemetry = setup_telemetry()
    try:
        await _serve(config, ready, worker, freeze=tuned)
    finally:
        if shutdown_telemetry is not None:
            shutdown_telemetry()  # flush spans of the last runs


async def _serve(config: ServerConfig, ready: Any, worker: WorkerSlot | None, *, freeze: bool) -> None:
    if worker is not None:
        watch_parent(worker)
    srv = await build_server(config, shared_port=worker is not None)
    host = config.address.rsplit(":", 1)[0]
    leases = srv.service.runs.leases
    log.info(
        "graphwire %sserving %s on %s:%d (checkpointer: %s; store: %s; node cache: %s%s%s; sync nodes on %d threads; event loop: %s)",
        "" if worker is None else f"worker {worker.index} of {worker.count} (pid {os.getpid()}) ",
        ", ".join(srv.service.graphs),
        host,
        srv.port,
        _redacted(config.checkpointer),
        _redacted(config.store_spec()) + (f", TTL sweep every {srv.sweeper.minutes:g} min" if srv.sweeper else ""),
        "off" if config.cache_spec() is None else _redacted(config.cache_spec() or ""),
        f"; replica {leases.owner}, thread leases of {leases.ttl:g}s" if leases else "",
        ", auth on" if config.auth_token else (", tenants on" if config.auth_tokens else ""),
        node_threads().size,
        loop_name(),
    )
    limit = config.state_limit()
    if limit is None or limit > config.send_limit() // 2:
        log.warning(
            "max_state_bytes is %s, the server sends at most %d bytes per message: a thread whose state "
            "outgrows that can be stored but not read back (its runs finish without values, GetState fails)",
            "off" if limit is None else limit,
            config.send_limit(),
        )
    needs_token = config.auth_token or config.auth_tokens
    if srv.inspector is not None:
        log.info("inspector on %s%s", srv.inspector.url, " (token required: open it with ?token=…)" if needs_token else "")
        print(f"graphwire inspector on {srv.inspector.url}", flush=True)
    if srv.http is not None:
        log.info("LangGraph's HTTP API on %s%s", srv.http.url, " (token required: x-api-key or Authorization: Bearer)" if needs_token else "")
        print(f"graphwire http on {srv.http.url}", flush=True)
    elif config.http_app is not None:
        log.warning("http_app %r is not served: the HTTP API is off (serve it with --http HOST:PORT)", config.http_app)
    note = container_note(host, srv.port)
    if note is not None:
        log.info("%s", note)
    if config.graphs == DEFAULT_GRAPHS:
        log.info("the demo: run `graphwire chat` and type \"remind me to call mom at 5pm\" or \"weather in Oslo\"")
    if freeze:
        freeze_startup()  # what the start built is walked by no full collection again
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the line that says it listens: a SIGTERM read from it drains
        loop.add_signal_handler(sig, stop.set)
    print(f"graphwire listening on {host}:{srv.port}", flush=True)
    if ready is not None:
        ready(srv)
    await stop.wait()
    log.info("stopping: draining runs for up to %.1fs", config.grace_seconds)
    await srv.stop()
