"""Thread records of graphs LangGraph itself runs (issue 33 item 1): the run path is the engine's
graphs' (server/_stream.py), so a LangGraph graph's thread is busy under its run, interrupted with
its pending interrupt after it, idle after the resume, error after a failing node; and searchable.
The module's server is tests/server/test_langgraph_runtime_runs.py's (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import ThreadStatus  # noqa: E402
from tests.conftest import ServerProcess  # noqa: E402
from tests.server.test_langgraph_runtime_runs import _until, _working, lg  # noqa: E402, F401 - the module's server


def test_a_langgraph_graphs_thread_status(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        events = client.stream("gated", thread_id, {"log": [], "gate": f"g-{thread_id}"}, timeout=30)
        _until(iter(events), _working)  # its node waits at its gate: the run holds the thread
        assert client.threads.get("gated", thread_id).status is ThreadStatus.BUSY
        lg.open_gate(f"g-{thread_id}")
        list(events)
        assert client.threads.get("gated", thread_id).status is ThreadStatus.IDLE

        asked = f"{thread_id}-ask"
        client.invoke("ask", asked, {"log": []})
        waiting = client.threads.get("ask", asked)
        assert waiting.status is ThreadStatus.INTERRUPTED and [i.value for i in waiting.interrupts] == [{"question": "go on?", "seen": 1}]
        assert [t.thread_id for t in client.threads.search(graph="ask", status="interrupted", limit=100) if t.thread_id == asked] == [asked]
        client.resume("ask", asked, "yes")
        assert client.threads.get("ask", asked).status is ThreadStatus.IDLE

        failing = f"{thread_id}-flaky"
        client.invoke("flaky", failing, {"log": [], "label": failing})
        assert client.threads.get("flaky", failing).status is ThreadStatus.ERROR
