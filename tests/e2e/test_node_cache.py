"""Node caches, end to end: a served graph's cached node is not run again on a later call, on any thread.

The ``cached`` graph (tests/graphs.py) has ``lookup``, cached by the input's
``city``, which records each real run in a file the test reads, then
``reply``, which always runs. The server gives it the cache of its
``cache`` setting, by default the checkpointer's database: a hit survives a
restart, and ``cache = "off"`` runs the node every time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphwire import TaskFinished

GRAPHS = {"cached": "tests.graphs:cached"}


def _runs(gates: Path, label: str) -> list[str]:
    path = gates / f"runs-{label}"
    return path.read_text().splitlines() if path.exists() else []


def _turn(srv: Any, thread_id: str, city: str, label: str = "l") -> tuple[dict[str, Any], dict[str, bool]]:
    """The call's final values, and for each finished task whether it came from the cache."""
    with srv.client() as client:
        events = list(client.stream("cached", thread_id, {"city": city, "label": label}, timeout=30))
    finished = {e.node: e.cached for e in events if isinstance(e, TaskFinished) and e.node != "__start__"}
    assert events[-1].reason == "END", events[-1]
    return events[-1].values, finished


def test_a_cached_node_is_not_run_again_across_calls_threads_and_restarts(start_server: Any) -> None:
    first = start_server(graphs=GRAPHS)
    values, finished = _turn(first, "t1", "Oslo")
    assert values == {"city": "Oslo", "label": "l", "forecast": "sunny in Oslo", "log": ["sunny in Oslo"]}
    assert finished == {"lookup": False, "reply": False}
    assert len(_runs(first.gates, "l")) == 1

    values, finished = _turn(first, "t2", "Oslo")  # another thread, the same city: a hit
    assert values == {"city": "Oslo", "label": "l", "forecast": "sunny in Oslo", "log": ["sunny in Oslo"]}
    assert finished == {"lookup": True, "reply": False}
    assert len(_runs(first.gates, "l")) == 1
    assert _turn(first, "t2", "Bergen")[1] == {"lookup": False, "reply": False}
    assert len(_runs(first.gates, "l")) == 2
    with first.client() as client:  # stored as if it had run: the cached task's result is in the history
        hit = [s for s in client.history("cached", "t2") if s.metadata.get("step") == 0][-1]
        assert [t.result for t in hit.tasks if t.node == "lookup"] == [{"forecast": "sunny in Oslo"}]
    assert first.terminate() == 0, first.log()

    # The cache is in the checkpointer's file: a restarted server still has the entry.
    second = start_server(graphs=GRAPHS, db=first.db, gates=first.gates)
    assert _turn(second, "t3", "Oslo")[1] == {"lookup": True, "reply": False}
    assert len(_runs(first.gates, "l")) == 2
    assert second.terminate() == 0, second.log()

    # cache = "off": the node runs every time.
    off = start_server(graphs=GRAPHS, db=first.db, gates=first.gates, args=["--cache", "off"])
    assert _turn(off, "t4", "Oslo")[1] == {"lookup": False, "reply": False}
    assert _turn(off, "t5", "Oslo")[1] == {"lookup": False, "reply": False}
    assert len(_runs(first.gates, "l")) == 4


def test_a_cache_in_a_database_of_its_own(start_server: Any, tmp_path: Path) -> None:
    srv = start_server(graphs=GRAPHS, args=["--cache", str(tmp_path / "cache.db")])
    _turn(srv, "a", "Rome")
    assert _turn(srv, "b", "Rome")[1]["lookup"] is True
    assert len(_runs(srv.gates, "l")) == 1
    import sqlite3

    with sqlite3.connect(tmp_path / "cache.db") as conn:
        assert conn.execute("SELECT count(*) FROM cache_entries").fetchone()[0] == 1
    with sqlite3.connect(srv.db) as conn:  # type: ignore[arg-type]
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'cache_entries'").fetchone()[0] == 0
