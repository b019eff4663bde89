"""``graphwire``: serve graphs, or talk to a running server from a terminal.

    graphwire init [DIR] [--graph NAME]      (alias: new) a starter graph + graphwire.toml
    graphwire serve [--config graphwire.toml|langgraph.json] [--address HOST:PORT] [--checkpointer PATH|DSN]
                    [--store PATH|DSN] [--cache PATH|DSN|off] [--pg-schema NAME] [--lease-seconds S] [--inspector HOST:PORT] [--http HOST:PORT]
                    [--no-import-swap] [--workers N] [--event-loop auto|asyncio|uvloop] [--reload] ...
    graphwire dev [serve's options]           serve --reload, with the HTTP API on 127.0.0.1:2024 (as langgraph dev)
    graphwire health [--config graphwire.toml] [--address HOST:PORT] [--tls-cert FILE]
    graphwire prune --checkpointer PATH|DSN [--pg-schema NAME] --graph NAME
                    (--thread ID | --all-threads) [--tenant NAME | --all-tenants]
                    [--keep-last N] [--older-than 7d]
    graphwire chat [--graph NAME] [--thread ID]
    graphwire history THREAD [--graph NAME]
    graphwire state THREAD [--graph NAME] [--checkpoint ID]
    graphwire fork THREAD CHECKPOINT [--graph NAME]
    graphwire assistants list|get|create|update|versions|set-version|delete ... [--json]

The last five find the server as ``health`` does (``--config``, ``--address``,
else serve's configured address) and take ``--token``; ``assistants`` names
serve's settings ``--server-config``, its ``--config`` being an assistant's
(see server/_cli_assistants.py).

Wherever a checkpoint id is taken, any prefix of it that names one version of
the thread will do (``history`` shows ids that short).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any, Sequence

from server._check import add_parser as add_check_parser
from server._cli_threads import add_parser as add_threads_parser
from server._cli_assistants import add_parser as add_assistants_parser
from server._cli_client import chat, configurable_arg, fork, history, state
from server._dev import DEV_HTTP, add_langgraph_dev_arguments, dev_argv

__all__ = ["DEV_HTTP", "build_parser", "dev_argv", "main"]


def _runtimes(given: list[str], graphs: dict[str, str] | None) -> dict[str, str]:
    """``--runtime`` flags as the ``runtimes`` setting: ``NAME=RUNTIME``, or ``RUNTIME`` for every ``--graph``."""
    out: dict[str, str] = {}
    for item in given:
        name, sep, runtime = item.rpartition("=")
        if sep:
            out[name] = runtime
        elif not graphs:
            raise SystemExit(f"--runtime {item!r} alone applies to the --graph flags of the command; give NAME={item}")
        else:
            out.update(dict.fromkeys(graphs, runtime))
    return out


def _serve(args: argparse.Namespace) -> int:
    from server.app import serve
    from server.config import find_config, load_config

    graphs = None
    if args.graph:
        graphs = {}
        for item in args.graph:
            name, sep, spec = item.partition("=")
            if not sep:
                raise SystemExit(f"--graph {item!r}: use NAME=package.module:attribute")
            graphs[name] = spec
    runtimes = _runtimes(args.runtime, graphs) if args.runtime else None
    overrides = {
        "address": args.address,
        "checkpointer": args.checkpointer,
        "store": args.store,
        "cache": args.cache,
        "pg_schema": args.pg_schema,
        "lease_seconds": args.lease_seconds,
        "graphs": graphs,
        "runtimes": runtimes,
        "auth_token": args.auth_token,
        "auth_tokens": args.auth_tokens,
        "tls_cert": args.tls_cert,
        "tls_key": args.tls_key,
        "max_message_bytes": args.max_message_bytes,
        "max_state_bytes": args.max_state_bytes,
        "max_unsent_bytes": args.max_unsent_bytes,
        "handshake_seconds": args.handshake_seconds,
        "sync_node_threads": args.sync_node_threads,
        "grace_seconds": args.grace,
        "run_retention_seconds": args.run_retention_seconds,
        "max_run_attempts": args.max_run_attempts,
        "log_level": args.log_level,
        "inspector": args.inspector,
        "http": args.http,
        "inspector_max_connections": args.inspector_max_connections,
        "inspector_request_seconds": args.inspector_request_seconds,
        "inspector_keepalive_seconds": args.inspector_keepalive_seconds,
        "import_swap": args.import_swap,
        "workers": args.workers,
        "event_loop": args.event_loop,
    }  # fmt: skip
    try:
        config = load_config(args.config, overrides)
    except ValueError as e:
        print(f"graphwire: {e}", file=sys.stderr)
        return 2
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.reload:
        from functools import partial

        from server._reload import serve_reloading

        again = partial(load_config, args.config, overrides)  # read anew at each start: what it names is watched
        return serve_reloading(config, again, find_config(args.config), [a for a in args.argv if a != "--reload"])
    from engine.errors import CacheError, CheckpointError, StoreError
    from server._event_loop import run_on
    from server._workers import run_workers, worker_config, worker_slot

    slot = worker_slot()  # --workers: this process is one of them, or the parent starting them (server._workers)
    if slot is not None:
        config = worker_config(config, slot)
    elif config.worker_count() > 1:
        return run_workers(config, config.worker_count(), args.argv)
    try:
        run_on(config.event_loop, serve(config, worker=slot))
    except (ValueError, CheckpointError, StoreError, CacheError) as e:
        print(f"graphwire: {e}", file=sys.stderr)
        return 2
    return 0


def _health(args: argparse.Namespace) -> int:
    from server._health_check import check
    from server.config import load_config

    try:
        config = load_config(args.config, {"address": args.address, "tls_cert": args.tls_cert})
        result = check(config, timeout=args.timeout)
    except ValueError as e:
        print(f"graphwire health: {e}", file=sys.stderr)
        return 2
    print(f"graphwire health: {result.message}", file=sys.stdout if result.serving else sys.stderr)
    return 0 if result.serving else 1


def _init(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from server._starter import write_starter

    directory = Path(args.directory)
    try:
        written = write_starter(directory, name=args.graph)
    except ValueError as e:
        print(f"graphwire init: {e}", file=sys.stderr)
        return 2
    print(f"wrote {', '.join(str(p) for p in written)}")
    where = "" if directory.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(str(directory))} && "
    print(f"serve it:  {where}graphwire serve")
    print("talk to it: graphwire chat   (in another terminal; or from any gRPC client, see docs/quickstart.md)")
    return 0


def _prune(args: argparse.Namespace) -> int:
    from engine.errors import CheckpointError
    from server._prune import check_scope, parse_age
    from server.config import ServerConfig, check_postgres, is_postgres

    if args.keep_last is None and args.older_than is None:
        print("graphwire prune: say what to keep: --keep-last N and/or --older-than AGE", file=sys.stderr)
        return 2
    try:
        older_than = parse_age(args.older_than) if args.older_than is not None else None
        if args.keep_last is not None and args.keep_last < 1:
            raise ValueError("--keep-last must be at least 1 (the newest version always stays)")
        check_scope(None if args.all_threads else [args.thread], args.tenant, args.all_tenants)
        spec = args.checkpointer
        if not is_postgres(spec) and (spec == ":memory:" or not os.path.exists(spec)):
            raise ValueError(f"--checkpointer {spec!r}: no such SQLite file")
        config = ServerConfig(checkpointer=spec, pg_schema=args.pg_schema)
        check_postgres(config)
        return asyncio.run(_prune_async(args, config, older_than))
    except (ValueError, CheckpointError, NotImplementedError) as e:
        print(f"graphwire prune: {e}", file=sys.stderr)
        return 2


async def _prune_async(args: argparse.Namespace, config: Any, older_than: Any) -> int:
    from server._prune import prune_threads
    from server.app import open_checkpointer

    saver = open_checkpointer(config.checkpointer, pg_schema=config.schema_for(config.checkpointer))
    try:
        threads = None if args.all_threads else [args.thread]
        tenants = args.tenant is not None or args.all_tenants
        total = count = 0
        async for done in prune_threads(
            saver,
            args.graph,
            threads,
            tenant=args.tenant,
            all_tenants=args.all_tenants,
            keep_last=args.keep_last,
            older_than=older_than,
        ):
            count += 1
            total += done.deleted
            print(_pruned_line(done, tenants))
        scope = ", of every tenant and of no tenant" if args.all_tenants else ""
        scope = f", of tenant {args.tenant!r}" if args.tenant is not None else scope
        print(f"pruned {total} version(s) of {count} thread(s) of graph {args.graph!r}{scope}")
        return 0
    finally:
        await saver.aclose()


def _pruned_line(done: Any, tenants: bool) -> str:
    """One thread's result; with tenants in play (--tenant, --all-tenants), it says whose thread it was."""
    if not tenants:
        return f"{done.thread_id}: {done.deleted} version(s) deleted"
    owner = "no tenant" if done.tenant is None else f"tenant {done.tenant}"
    return f"{owner}, thread {done.thread_id}: {done.deleted} version(s) deleted"


def _serve_arguments(s: argparse.ArgumentParser, *, reload: bool = True) -> None:
    """serve's options (dev's too, which always reloads)."""
    s.add_argument("--config", help="graphwire.toml, langgraph.json or aegra.json (default: the first of those here)")
    s.add_argument("--address", help="host:port to listen on (default 127.0.0.1:50051; port 0 picks one)")
    s.add_argument("--checkpointer", help="a SQLite file path, ':memory:', or PostgreSQL: a postgresql:// URL or libpq's 'host=... dbname=...'")
    s.add_argument("--store", help="the Store's database, as --checkpointer (default: the checkpointer's)")
    s.add_argument("--cache", help="node caches' database, as --checkpointer, or 'off' (default: the checkpointer's)")
    s.add_argument("--pg-schema", help="PostgreSQL: the schema of the tables (created if missing; default: search_path)")
    s.add_argument(
        "--lease-seconds",
        type=float,
        help="PostgreSQL: how long a run's lease on its thread lasts unless renewed (default 15; renewed every third)",
    )
    s.add_argument("--graph", action="append", metavar="NAME=MODULE:ATTR", help="a graph to serve (repeatable)")
    s.add_argument("--runtime", action="append", metavar="[NAME=]RUNTIME",
                   help="who runs a graph: engine (default) or langgraph (LangGraph itself); "
                        "RUNTIME alone: every --graph of the command (repeatable)")
    s.add_argument("--auth-token", help="require 'authorization: Bearer TOKEN' (env GRAPHWIRE_AUTH_TOKEN)")
    s.add_argument("--auth-tokens", metavar="FILE",
                   help="tenants: a TOML file of tenant = \"token\"; each tenant sees only its own threads")
    s.add_argument("--tls-cert", help="PEM certificate file (with --tls-key: serve TLS)")
    s.add_argument("--tls-key", help="PEM private key file")
    s.add_argument("--max-message-bytes", type=int, help="largest request accepted (default 4 MiB)")
    s.add_argument("--max-state-bytes", type=int, help="largest thread state stored: RESOURCE_EXHAUSTED past it (default: half the send limit, 8 MiB; 0: no limit)")
    s.add_argument(
        "--max-unsent-bytes",
        type=int,
        help="per call, most bytes of events waiting for a slow reader: RESOURCE_EXHAUSTED past it, and the run is cancelled (default 32 MiB)",
    )
    s.add_argument(
        "--handshake-seconds",
        type=float,
        help="a new gRPC connection's TLS and HTTP/2 handshake must end within this, else it is closed (default 10)",
    )
    s.add_argument(
        "--sync-node-threads",
        type=int,
        help="threads for the sync nodes of live runs; a cancelled run's node gives its thread up (default: min(32, CPUs + 4))",
    )
    s.add_argument("--grace", type=float, help="seconds running calls get to finish on SIGTERM (default 10)")
    s.add_argument(
        "--run-retention-seconds",
        type=float,
        help="how long a request_id answers its retries, and a run's events are kept after it ended (default 86400: 24 h)",
    )
    s.add_argument(
        "--max-run-attempts",
        type=int,
        help="how often a run whose replica died is started before it ends ERROR (default 3)",
    )
    s.add_argument("--log-level", help="DEBUG, INFO, WARNING… (default INFO)")
    s.add_argument(
        "--inspector",
        metavar="HOST:PORT",
        help="also serve the inspector web page there (off by default; same auth token as the gRPC API)",
    )
    s.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="also serve LangGraph's Agent Server HTTP API there, for the langgraph-sdk clients (off by default; "
        "same tokens as the gRPC API; see docs/http.md)",
    )
    s.add_argument(
        "--inspector-max-connections",
        type=int,
        help="the inspector's connections at once; past it a new one gets 503 (default 100, and at most half the "
        "descriptors free at start: the rest stay for gRPC)",
    )
    s.add_argument(
        "--inspector-request-seconds",
        type=float,
        help="an inspector request's line, headers and body must arrive within this, else the connection is closed (default 10)",
    )
    s.add_argument(
        "--inspector-keepalive-seconds", type=float, help="an idle kept-alive inspector connection is closed after this (default 5)"
    )
    s.add_argument(
        "--import-swap",
        action=argparse.BooleanOptionalAction,
        help="the graphs' `langgraph` imports get graphwire's engine, process-wide (default: on; --no-import-swap: off)",
    )
    s.add_argument(
        "--workers",
        type=int,
        help="server processes on the address, each a replica (PostgreSQL only; default: the CPUs on PostgreSQL, else 1)",
    )
    s.add_argument(
        "--event-loop",
        choices=("auto", "asyncio", "uvloop"),
        help="the server's event loop: uvloop (C callbacks, less CPU a run) or asyncio's own (default auto: uvloop where installed)",
    )
    if reload:
        s.add_argument(
            "--reload",
            action="store_true",
            help="for development: serve again whenever a graph module (a .py file of the project) or the config changes",
        )


def _dev(args: argparse.Namespace) -> int:
    try:
        argv = dev_argv(args)
    except ValueError as e:
        print(f"graphwire: {e}", file=sys.stderr)
        return 2
    return main(argv)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="graphwire", description="Run LangGraph-style agent graphs as a gRPC service.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="start the server (default: the reminders demo on SQLite ./graphwire.db)")
    _serve_arguments(s)
    s.set_defaults(func=_serve)
    d = sub.add_parser(
        "dev", help="serve for development, as `langgraph dev`: serve --reload, with LangGraph's HTTP API on "
        f"{DEV_HTTP} unless http is set",
    )  # fmt: skip
    _serve_arguments(d, reload=False)
    add_langgraph_dev_arguments(d)
    d.set_defaults(func=_dev)

    h = sub.add_parser(
        "health", help="exit 0 if the configured server answers SERVING (its address and TLS, as serve reads them)"
    )
    h.add_argument("--config", help="graphwire.toml (default: as serve: GRAPHWIRE_CONFIG, else ./graphwire.toml)")
    h.add_argument("--address", help="the address serve listens on (default: the configured one)")
    h.add_argument("--tls-cert", help="the server's certificate, when it serves TLS (default: the configured one)")
    h.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the answer (default 3)")
    h.set_defaults(func=_health)

    i = sub.add_parser("init", aliases=["new"], help="write a starter graph and the graphwire.toml that serves it")
    i.add_argument("directory", nargs="?", default=".", help="where to write them (default: here)")
    i.add_argument("--graph", default="agent", help="the graph's name and file name (default agent: agent.py)")
    i.set_defaults(func=_init)

    pr = sub.add_parser("prune", help="delete old versions of threads, straight from the checkpointer")
    pr.add_argument("--checkpointer", required=True, help="the SQLite file or postgresql:// DSN the servers use")
    pr.add_argument("--pg-schema", help="PostgreSQL: the schema the servers use")
    pr.add_argument("--graph", required=True, help="graph name")
    which = pr.add_mutually_exclusive_group(required=True)
    which.add_argument("--thread", help="one thread id")
    which.add_argument("--all-threads", action="store_true", help="every thread of the graph")
    whose = pr.add_mutually_exclusive_group()
    whose.add_argument(
        "--tenant",
        metavar="NAME",
        help="that tenant's threads (servers with --auth-tokens keep each tenant's apart; default: no tenant's)",
    )
    whose.add_argument(
        "--all-tenants", action="store_true", help="with --all-threads: the graph's threads of every tenant and of none"
    )
    pr.add_argument("--keep-last", type=int, metavar="N", help="keep each thread's newest N versions")
    pr.add_argument(
        "--older-than", metavar="AGE", help="delete versions older than AGE (30s, 15m, 12h, 7d, 2w); with --keep-last, "
        "a version goes only when both let it go"
    )
    pr.set_defaults(func=_prune)

    for name, func, help_ in (
        ("chat", chat, "chat with a graph on a running server"),
        ("history", history, "print a thread's versions, one row per branch"),
        ("state", state, "print one version of a thread"),
        ("fork", fork, "run a thread again from an older version (regenerate an answer)"),
    ):
        c = sub.add_parser(name, help=help_)
        c.add_argument("--config", help="where serve's settings are (default: as serve: GRAPHWIRE_CONFIG, ./graphwire.toml, ./langgraph.json)")
        c.add_argument("--address", help="server address (default: the configured one, as serve reads it: 127.0.0.1:50051 unless set)")
        c.add_argument("--token", help="bearer token (default: env GRAPHWIRE_AUTH_TOKEN, or the configured auth_token)")
        c.add_argument("--graph", help="graph name (default: the server's graph, when it runs just one)")
        if name == "chat":
            c.add_argument("--thread", help="thread id (default: a new one)")
        else:
            c.add_argument("thread", help="thread id")
        if name == "state":
            c.add_argument("--checkpoint", help="checkpoint id or a prefix of it, as history shows (default: the newest)")
        if name == "fork":
            c.add_argument("checkpoint", help="the version to go back to: its id or a prefix of it, as history shows")
        if name in ("chat", "fork"):
            c.add_argument(
                "--configurable", type=configurable_arg, metavar="JSON",
                help="each run's configurable, a JSON object (what LangGraph's config={'configurable': ...} passes), "
                "e.g. '{\"model\": \"small\"}'",
            )  # fmt: skip
        c.set_defaults(func=func)
    add_check_parser(sub)
    add_threads_parser(sub)
    add_assistants_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # serve --reload runs serve again with them
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:  # Ctrl-C at a prompt or while a call runs: a person stopping it, not a bug
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
