"""Several real server processes on one PostgreSQL: the ``cluster`` fixture.

Each test gets a PostgreSQL schema of its own (created by the first replica,
dropped at the end) and a gates directory that all its replicas share, so a
gate the test opens lets a node go on whichever replica runs it. Replicas are
``graphwire serve`` processes (:func:`tests.conftest.start_server_process`)
with short leases. Without a reachable PostgreSQL the tests skip with the
reason, and fail under ``CI=true`` (:mod:`tests.checkpoint._pg`).

No sleeps as synchronisation: :func:`wait_until` polls a condition (a lease
row, a pending write in the database, an event of a run) with a deadline.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
from tests.conftest import ServerProcess, start_server_process

#: Short, so that a test waiting for a lease to lapse waits seconds, not minutes.
LEASE_SECONDS = 2.0
DEADLINE = 60.0


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    """Poll ``condition`` until it returns something truthy (returned), or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)


class Call:
    """A call to a replica made on a thread of its own, its events readable as they come.

    ``make`` gets a ``graphwire.Client`` and returns the call's event iterator
    (``client.stream(...)``) or its result.
    """

    def __init__(self, server: ServerProcess, make: Callable[[Any], Any]) -> None:
        self.events: list[Any] = []
        self.result: Any = None
        self.error: BaseException | None = None
        self._new: queue.Queue[Any] = queue.Queue()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(server, make), daemon=True)
        self._thread.start()

    def _run(self, server: ServerProcess, make: Callable[[Any], Any]) -> None:
        try:
            with server.client() as client:
                out = make(client)
                if hasattr(out, "__next__"):
                    for e in out:
                        self.events.append(e)
                        self._new.put(e)
                else:
                    self.result = out
        except BaseException as exc:  # noqa: BLE001 - reported by outcome()
            self.error = exc
        finally:
            self._done.set()
            self._new.put(None)

    def done(self) -> bool:
        return self._done.is_set()

    def until(self, match: Callable[[Any], bool], what: str, timeout: float = DEADLINE) -> Any:
        """The first event (from now on) that ``match``es; fails if the call ends first."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                e = self._new.get(timeout=max(deadline - time.monotonic(), 0.001))
            except queue.Empty:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}") from None
            if e is None:
                raise AssertionError(f"the call ended before {what}: error={self.error!r}, events={self.events}")
            if match(e):
                return e

    def outcome(self, timeout: float = DEADLINE) -> tuple[list[Any], BaseException | None]:
        """Wait for the call to end: its events (or result) and its error."""
        if not self._done.wait(timeout):
            raise AssertionError(f"the call did not end in {timeout}s; events so far: {self.events}")
        return self.events, self.error

    def finish(self, timeout: float = DEADLINE) -> Any:
        """Wait for the call to end and return its last event (or result); raise its error."""
        events, error = self.outcome(timeout)
        if error is not None:
            raise error
        return events[-1] if events else self.result


@dataclass
class Cluster:
    """Replicas on one database schema, and a look at that schema."""

    dsn: str
    schema: str
    gates: Path
    start: Callable[..., ServerProcess]
    replicas: list[ServerProcess] = field(default_factory=list)

    def replica(self, *, lease_seconds: float = LEASE_SECONDS, **options: Any) -> ServerProcess:
        srv = self.start(pg_dsn=self.dsn, pg_schema=self.schema, lease_seconds=lease_seconds, gates=self.gates, **options)
        self.replicas.append(srv)
        return srv

    def open_gate(self, name: str) -> None:
        (self.gates / name).touch()

    def runs(self, label: str) -> int:
        """How many times ``parallel``'s ``fast`` node ran for ``label`` (on any replica)."""
        path = self.gates / f"runs-{label}"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def query(self, text: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Rows of a query on the cluster's schema ({leases}, {checkpoints}, {writes} name its tables)."""
        tables = {t: sql.Identifier(self.schema, t) for t in ("leases", "checkpoints", "writes", "blobs")}
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
            return conn.execute(sql.SQL(text).format(**tables), params).fetchall()  # type: ignore[arg-type]

    def lease(self, graph: str, thread_id: str) -> tuple[str, int, bool] | None:
        """(owner, epoch, live) of the thread's lease row, or None."""
        rows = self.query(
            "SELECT owner, epoch, expires_at > clock_timestamp() FROM {leases} WHERE thread_id = %s", (f"{graph}:{thread_id}",)
        )
        return rows[0] if rows else None  # type: ignore[return-value]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    dsn = require_pg()
    schema = new_schema_name()
    started: list[ServerProcess] = []

    def start(**kwargs: Any) -> ServerProcess:
        srv = start_server_process(tmp_path / f"replica{len(started)}", **kwargs)
        started.append(srv)
        return srv

    gates = tmp_path / "gates"
    gates.mkdir()
    try:
        yield Cluster(dsn, schema, gates, start)
    finally:
        failures = []
        for srv in started:
            if srv.alive():
                code = srv.terminate()
                if code != 0:
                    failures.append(f"replica {srv.address} exited with {code}:\n{srv.log()}")
        drop_schema(schema)
    assert not failures, "\n".join(failures)


def assert_single_chain(history: list[Any]) -> list[Any]:
    """The versions (newest first) form one chain: one root, every parent present, one child per parent.

    Returns them oldest first.
    """
    by_id = {s.checkpoint.checkpoint_id: s for s in history}
    assert len(by_id) == len(history), "a version is listed twice"
    roots = [s for s in history if s.checkpoint.parent_id is None]
    assert len(roots) == 1, f"{len(roots)} roots"
    children: dict[str, list[str]] = {}
    for s in history:
        parent = s.checkpoint.parent_id
        if parent is not None:
            assert parent in by_id, f"version {s.checkpoint.checkpoint_id} has a parent {parent} that is not stored"
            children.setdefault(parent, []).append(s.checkpoint.checkpoint_id)
    assert all(len(kids) == 1 for kids in children.values()), f"a version has several children: {children}"
    chain = [roots[0]]
    while chain[-1].checkpoint.checkpoint_id in children:
        chain.append(by_id[children[chain[-1].checkpoint.checkpoint_id][0]])
    assert len(chain) == len(history)
    return chain
