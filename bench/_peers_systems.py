"""The systems bench/peers.py compares, each as a :class:`Spec`: how to start it, and what it speaks.

Every server serves bench/peers_app (its langgraph.json, its graphs with
their ``langgraph`` imports), from a fresh copy of it in the bench's
temporary directory (bench/_peers_proc.py's ``app_copy``):

* graphwire: ``python -m server serve`` (``graphwire serve``) reading the
  project's langgraph.json as it is; gRPC on SQLite (a file in the bench's
  temporary directory) and on PostgreSQL (a database of its own) with 1 and N
  workers; the HTTP API (``--http``) on SQLite and PostgreSQL.
* ``langgraph dev`` (langgraph-cli[inmem], its own venv), in memory, with
  ``LOG_LEVEL=WARNING``; restarted for every row (its CPU per run grows with
  the runs it has served).
* Aegra (aegra-api and greenlet, its own venv) under uvicorn, on a PostgreSQL
  database of its own, migrated by Aegra at start.
* the echo floor: bench/grpc_throughput.py's bare grpc.aio echo server.
"""

from __future__ import annotations

import importlib.metadata
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import grpc_throughput
from bench._peers_proc import (
    Served,
    app_copy,
    as_url,
    free_port,
    graphwire_env,
    pg_create,
    pg_drop,
    pg_reachable,
    start_marked,
    start_polled,
    venv,
)

LISTENING = "graphwire listening on "
HTTP_LINE = "graphwire http on "


@dataclass
class Spec:
    """One system of the bench. ``proto``: grpc, http or echo. ``per_row``: started afresh for every row."""

    name: str
    proto: str
    start: Callable[[Path], Served] | None
    per_row: bool = False
    workers: int = 1
    skipped: str = ""

    @property
    def family(self) -> str:
        return self.name.split(" ")[0]


def _pins() -> list[str]:
    """The peers run the LangGraph (and LangChain core) this venv has, so every system runs the same graph code."""
    return [f"{p}=={importlib.metadata.version(p)}" for p in ("langgraph", "langchain-core")]


def graphwire_start(name: str, checkpointer: str, *, workers: int = 1, http: bool = False, database: str | None = None) -> Callable[[Path], Served]:
    """``checkpointer``: a PostgreSQL DSN, or "" for a SQLite file in the bench's temporary directory."""

    def start(tmp: Path) -> Served:
        slug, app = name.replace(" ", "-"), app_copy(tmp, name)
        cmd = [sys.executable, "-m", "server", "serve", "--config", str(app / "langgraph.json"), "--address", "127.0.0.1:0",
               "--checkpointer", checkpointer or str(tmp / f"{slug}.db"), "--log-level", "WARNING"]  # fmt: skip
        if checkpointer:
            cmd += ["--workers", str(workers)]
        if http:
            cmd += ["--http", "127.0.0.1:0"]
        served = start_marked(name, cmd, graphwire_env(), tmp / f"{slug}.log", LISTENING, app)
        served.database = database
        if http:
            urls = [line.removeprefix(HTTP_LINE) for line in served.lines if line.startswith(HTTP_LINE)]
            if not urls:
                served.stop()
                raise RuntimeError(f"{name} printed no '{HTTP_LINE}' line")
            served.target = urls[0].rstrip("/")
        return served

    return start


def _echo(tmp: Path) -> Served:
    proc = grpc_throughput._start([sys.executable, grpc_throughput.__file__, "--serve-echo"], "echo listening on",
                                  str(tmp), tmp / "echo.log")  # fmt: skip
    return Served("echo", proc.popen, proc.address, tmp / "echo.log")


def langgraph_dev_venv(install: bool) -> tuple[Path | None, str]:
    """The venv of ``langgraph dev`` (installed once): (its bin/, "") or (None, why not)."""
    return venv("langgraph-dev", ["langgraph-cli[inmem]", *_pins()], install)


def langgraph_dev_start(bin_dir: Path) -> Callable[[Path], Served]:
    def start(tmp: Path) -> Served:
        port = free_port()
        env = {**graphwire_env(), "LOG_LEVEL": "WARNING", "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false"}
        env.pop("PYTHONPATH")
        app = app_copy(tmp, "langgraph dev")  # a fresh one each start: it reloads the runs it saved in the last
        cmd = [str(bin_dir / "langgraph"), "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser",
               "--no-reload", "--config", str(app / "langgraph.json")]  # fmt: skip
        return start_polled("langgraph dev", cmd, env, tmp / "langgraph-dev.log", f"http://127.0.0.1:{port}", "/ok", app)

    return start


def _aegra(bin_dir: Path, dsn: str, database: str) -> Callable[[Path], Served]:
    def start(tmp: Path) -> Served:
        port = free_port()
        env = {**graphwire_env(), "DATABASE_URL": dsn, "AUTH_TYPE": "noop", "LOG_LEVEL": "WARNING",
               "LANGSMITH_TRACING": "false"}  # fmt: skip
        env.pop("PYTHONPATH")
        cmd = [str(bin_dir / "python"), "-m", "uvicorn", "aegra_api.main:app", "--host", "127.0.0.1", "--port", str(port),
               "--log-level", "warning"]  # fmt: skip
        app = app_copy(tmp, "aegra")
        return start_polled("aegra", cmd, env, tmp / "aegra.log", f"http://127.0.0.1:{port}", "/health", app, database)

    return start


class Systems:
    """The specs of one bench run, and the databases made for them (dropped by :meth:`close`)."""

    def __init__(self, pg: str, workers: int, install: bool, wanted: Callable[[str], bool]) -> None:
        self.pg = pg
        self.databases: list[str] = []
        self.specs: list[Spec] = []
        tag = uuid.uuid4().hex[:8]
        why_no_pg = pg_reachable(pg) if pg else "no --pg"

        def database(kind: str) -> tuple[str, str]:
            name = f"gw_peers_{tag}_{kind}"
            self.databases.append(name)
            return as_url(pg_create(pg, name)), name

        add = self.specs.append
        add(Spec("echo (grpc.aio floor)", "echo", _echo))
        add(Spec("graphwire gRPC SQLite", "grpc", graphwire_start("graphwire gRPC SQLite", "")))
        add(Spec("graphwire HTTP SQLite", "http", graphwire_start("graphwire HTTP SQLite", "", http=True)))
        pg_names = ["graphwire gRPC PG", f"graphwire gRPC PG x{workers}", "graphwire HTTP PG", "aegra PG"]
        if why_no_pg is not None:
            self.specs += [Spec(n, "http", None, skipped=f"PostgreSQL: {why_no_pg}") for n in pg_names]
        else:
            for name, n, http in ((pg_names[0], 1, False), (pg_names[1], workers, False), (pg_names[2], 1, True)):
                if wanted(name):
                    dsn, db = database(name.split()[1].lower() + str(n))
                    add(Spec(name, "http" if http else "grpc", graphwire_start(name, dsn, workers=n, http=http, database=db), workers=n))
        if wanted("langgraph dev"):
            bin_dir, why = langgraph_dev_venv(install)
            add(Spec("langgraph dev (memory)", "http", langgraph_dev_start(bin_dir) if bin_dir else None, per_row=True, skipped=why))
        if wanted("aegra PG") and why_no_pg is None:
            bin_dir, why = venv("aegra", ["aegra-api", "greenlet", *_pins()], install)
            if bin_dir is not None:
                dsn, db = database("aegra")
                add(Spec("aegra PG", "http", _aegra(bin_dir, dsn, db)))
            else:
                add(Spec("aegra PG", "http", None, skipped=why))
        self.specs = [s for s in self.specs if wanted(s.name)]

    def close(self) -> None:
        for name in self.databases:
            pg_drop(self.pg, name)

