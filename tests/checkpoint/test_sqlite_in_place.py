"""The SQLite saver under a sync call runs its statements on the calling thread.

LangGraph's sync SqliteSaver does; ours used to hop to its worker thread and
back for every read and write, which cost ~130 µs of CPU each (a quarter of
a one-node invoke). Under async callers (a server) the statements still run
on the worker, off the event loop. The saver's lock serializes them either way.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from engine.checkpoint import SqliteSaver
from engine.types import Command
from tests.checkpoint._in_place import graph_on


def test_sqlite_statements_run_in_place_under_a_sync_call_and_on_the_worker_under_async(tmp_path: Any) -> None:
    saver = SqliteSaver(str(tmp_path / "in_place.db"))
    try:
        graph = graph_on(saver)
        config = {"configurable": {"thread_id": "t"}}
        assert graph.invoke({"n": 0, "log": []}, config)["n"] == 1
        assert graph.get_state(config).values["n"] == 1
        # The worker thread starts on its first job: a sync caller gave it none.
        assert not saver._worker.started
        asyncio.run(graph.ainvoke({"n": 5, "log": []}, {"configurable": {"thread_id": "u"}}))
        assert saver._worker.started
        assert [s.metadata["source"] for s in graph.get_state_history(config)] == ["loop", "loop", "input"]
    finally:
        saver.close()


def test_sync_callers_on_many_threads_share_one_sqlite_saver(tmp_path: Any) -> None:
    """Each caller's statements run on its own thread, one at a time: every thread's history is whole."""
    saver = SqliteSaver(str(tmp_path / "shared.db"))
    graph = graph_on(saver, ask=True)
    errors: list[BaseException] = []

    def caller(k: int) -> None:
        try:
            for i in range(15):
                config = {"configurable": {"thread_id": f"c{k}-{i}"}}
                graph.invoke({"n": i, "log": []}, config)
                assert graph.invoke(Command(resume=f"r{k}"), config) == {"n": i + 1, "log": ["inc", f"r{k}"]}
        except BaseException as e:  # reported below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        for k in range(4):
            for i in range(15):
                history = list(graph.get_state_history({"configurable": {"thread_id": f"c{k}-{i}"}}))
                assert [h.metadata["source"] for h in history] == ["loop", "loop", "loop", "input"]
                assert history[0].values == {"n": i + 1, "log": ["inc", f"r{k}"]}
    finally:
        saver.close()
