"""The ``events`` stream mode against LangGraph's ``astream_events(version="v2")`` for the same graph.

LangGraph's server serves "events" by running the graph under
``astream_events(version="v2")`` and sending each event but the graph's own
``on_chain_stream`` (what the other modes say) and runs tagged
``langsmith:hidden``. Here tests/http/_sse_graphs.py's graph (a streamed
reply, a subgraph with a reply of its own and a custom event, an interrupt)
runs in process that way, and served by graphwire on both runtimes (as
tests/http/test_sse.py does for the other modes); the event lists are
compared with run ids masked.

Known differences, kept visible here: the graph's own run is named after the
graph as graphwire serves it (``sse``), where LangGraph's in-process run is
named ``LangGraph``; each event's metadata names the run (``run_id``), as the
Agent Server's does.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from tests.http import _sse_graphs
from tests.http.test_sse import INPUT, _plain, graphwire_frames, langgraph_frames, masked


async def langgraph_events(graph: Any, modes: tuple[str, ...]) -> list[tuple[str, Any]]:
    """The ``events`` frames LangGraph's server sends for ``graph`` (the other modes' left out)."""
    graph = graph.copy(update={"checkpointer": InMemorySaver()})
    out: list[tuple[str, Any]] = []
    root = None
    others = [m for m in modes if m != "events"] or ["values"]
    async for e in graph.astream_events(INPUT, {"configurable": {"thread_id": "t"}}, version="v2", stream_mode=others):
        root = root or e["run_id"]
        if "langsmith:hidden" in e["tags"] or (e["event"] == "on_chain_stream" and e["run_id"] == root):
            continue
        out.append(("events", _plain(e)))
    return out


def _comparable(frames: list[tuple[str, Any]], name: str) -> list[tuple[str, Any]]:
    """``events`` frames with the root run's name LangGraph's and the metadata's run id left out."""
    out = []
    for event, data in masked(frames):
        data = {**data, "metadata": {k: v for k, v in data["metadata"].items() if k != "run_id"}}
        if data["name"] == name and not data["parent_ids"]:
            data["name"] = "LangGraph"
        out.append((event, data))
    return out


@pytest.mark.parametrize("runtime", ["", "engine_"], ids=["langgraph", "engine"])
@pytest.mark.parametrize("modes", [("events",), ("events", "values", "messages-tuple")], ids="+".join)
def test_events_are_langgraphs_callback_events(tmp_path: Path, modes: tuple[str, ...], runtime: str) -> None:
    async def body() -> None:
        expected = await langgraph_events(_sse_graphs.graph, modes)
        frames, events = await graphwire_frames(tmp_path, runtime + "sse", modes, False)
        got = [(f.event, json.loads(f.data)) for f in frames[1:]]
        mine = [(e, d) for e, d in got if e == "events"]
        assert _comparable(mine, runtime + "sse") == _comparable(expected, runtime + "sse")
        kinds = [d["event"] for _, d in mine]
        assert kinds[0] == "on_chain_start" and kinds[-1] == "on_chain_end" and "on_chat_model_stream" in kinds
        assert "".join(d["data"]["chunk"]["content"] for _, d in mine if d["event"] == "on_chat_model_stream") == "hello there youfrom the team"
        assert all(d["metadata"]["run_id"] == events[0].run_id for _, d in mine)
        assert mine[0][1]["run_id"] == events[0].run_id  # the graph's own run is the run
        # The other modes are sent as without "events", from the same run (the events are of that run, not a second).
        others = tuple(m for m in modes if m != "events")
        rest = [(e, d) for e, d in got if e != "events"]
        assert masked(rest) == (masked(await langgraph_frames(_sse_graphs.graph, others, False)) if others else [])
        assert events[-1].WhichOneof("event") == "run_finished"  # the run's end stays last
        assert sum(1 for e in events if e.WhichOneof("event") == "run_started") == 1

    asyncio.run(body())
