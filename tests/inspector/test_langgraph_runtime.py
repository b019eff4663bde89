"""The inspector on a graph LangGraph itself runs (issue 31 item 1): its threads, history, versions
(with their writes) and drawing read as those of the same graph run on the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from tests.conftest import start_server_process  # noqa: E402
from tests.inspector.conftest import TOKEN, api  # noqa: E402
from tests.server._langgraph_graphs import graph_args  # noqa: E402


def _q(**params: str) -> str:
    return "?" + "&".join(f"{k}={quote(v)}" for k, v in params.items())


def _plain(value: Any) -> Any:
    """``value`` with the ids, times and run ids that differ between two runs of one program left out
    (and what the two store differently: the ``response_schema`` field of the Interrupt LangGraph 1.2.22
    stores in a pending write, the ``__resume__`` write the engine keeps at a resumed subgraph's parent)."""
    if isinstance(value, dict):
        if isinstance(value.get("checkpoint_ns"), str):  # a subgraph's namespace names its task
            value = {**value, "checkpoint_ns": value["checkpoint_ns"].partition(":")[0]}
        return {k: _plain(v) for k, v in value.items() if k not in ("checkpoint_id", "parent_id", "task_id", "run_id", "created_at", "id", "ts", "interrupt_id", "updated_at", "graph", "response_schema")}
    if isinstance(value, list):  # the engine also stores a resumed subgraph task's answer at the parent's version
        return [_plain(v) for v in value if not (isinstance(v, dict) and v.get("channel") == "__resume__")]
    return value


def test_the_inspector_reads_a_langgraph_graph_as_the_engines(tmp_path: Path) -> None:
    graphs, args = graph_args(tmp_path)
    srv = start_server_process(tmp_path / "srv", graphs=graphs, args=args, token=TOKEN, inspector=True)
    try:
        seen: dict[str, Any] = {}
        with srv.client() as client:
            for name in ("ask", "engine_ask"):
                client.invoke(name, "t", {"log": []}, timeout=30)
                threads = api(srv, "/api/threads" + _q(graph=name))[1]["threads"]
                waiting = threads[0]["waiting"]
                client.resume(name, "t", "yes", timeout=30)
                history = api(srv, "/api/history" + _q(graph=name, thread="t"))[1]["versions"]
                versions = [api(srv, "/api/version" + _q(graph=name, thread="t", checkpoint=v["checkpoint_id"]))[1] for v in history]
                drawn = api(srv, "/api/graph" + _q(name=name))[1]
                seen[name] = {"waiting": waiting, "history": history, "versions": versions, "drawn": drawn}
        lg, engine = _plain(seen["ask"]), _plain(seen["engine_ask"])
        assert lg["waiting"] == engine["waiting"] and lg["waiting"]["value"] == {"question": "go on?", "seen": 1}
        assert lg["history"] == engine["history"]
        for mine, theirs in zip(lg["versions"], engine["versions"], strict=True):
            for key in mine:
                assert (key, mine[key]) == (key, theirs[key])
        assert lg["drawn"]["edges"] == engine["drawn"]["edges"]
        assert [n["name"] for n in lg["drawn"]["nodes"]] == [n["name"] for n in engine["drawn"]["nodes"]]
    finally:
        assert srv.terminate() == 0
