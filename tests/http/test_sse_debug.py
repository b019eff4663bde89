"""The ``checkpoints`` and ``debug`` stream modes (server/http/_sse_debug.py) against LangGraph's own.

The same graph as tests/http/test_sse.py (talk, a team subgraph, ``ask``'s
interrupt), run in process by LangGraph with ``astream(stream_mode=
["checkpoints", "debug"])`` and served by graphwire (on LangGraph's runtime,
and its twin on the engine); the frames are compared with the ids masked and
what is known to differ left out, named here: a ``debug`` frame's
``timestamp``; a version's ``metadata`` beyond ``source``, ``step`` and
``parents``; the values of the version a run's input made (``source``
"input"), which graphwire's events do not carry (the run routes read them:
tests/http/test_langgraph_runs.py); a
subgraph's task's ``state`` (its config: null here); and the version a resumed
run continues from, which LangGraph sends first and graphwire does not.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from tests.http import _sse_graphs
from tests.http.test_sse import INPUT, _plain, graphwire_frames, masked

MODES = ("checkpoints", "debug")


def _comparable(event: str, data: Any) -> tuple[str, Any]:
    """``data`` without what is known to differ (see the module's doc)."""
    if event == "debug":
        data = {k: v for k, v in data.items() if k != "timestamp"}
        if data["type"] == "checkpoint":
            data = {**data, "payload": _comparable("checkpoints", data["payload"])[1]}
        return event, data
    data = {**data, "config": {"configurable": {**data["config"]["configurable"], "thread_id": "t"}}}
    if data.get("parent_config"):
        data["parent_config"] = {"configurable": {**data["parent_config"]["configurable"], "thread_id": "t"}}
    data["tasks"] = [{**t, "state": None} for t in data["tasks"]]
    if data["metadata"]["source"] == "input":
        data = {k: v for k, v in data.items() if k != "values"}
    return event, {**data, "metadata": {k: data["metadata"][k] for k in ("source", "step", "parents")}}


async def _langgraph(resume: Any = None, subgraphs: bool = False) -> list[tuple[str, Any]]:
    graph = _sse_graphs.graph.copy(update={"checkpointer": InMemorySaver()})
    config: Any = {"configurable": {"thread_id": "t"}}
    first: Any = INPUT
    if resume is not None:
        await graph.ainvoke(INPUT, config)
        first = Command(resume=resume)
    out = []
    async for part in graph.astream(first, config, stream_mode=list(MODES), subgraphs=subgraphs):
        ns, mode, chunk = part if subgraphs else ((), *part)
        out.append((mode + ("|" + "|".join(ns) if ns else ""), _plain(chunk)))
    return out


def _versions_named(event: str, data: Any) -> Any:
    """A debug version's payload without what the Agent Server adds to LangGraph's (checked here): the
    version and its parent as ``checkpoint`` and ``parent_checkpoint``, as its ``config`` and ``parent_config`` name them."""
    if event != "debug" or data["type"] != "checkpoint":
        return data
    payload = dict(data["payload"])
    named, parent = payload.pop("checkpoint"), payload.pop("parent_checkpoint")
    assert named == {k: payload["config"]["configurable"][k] for k in ("checkpoint_id", "thread_id", "checkpoint_ns")}
    if payload["parent_config"] is None:
        assert parent is None
    else:
        assert parent == {k: payload["parent_config"]["configurable"][k] for k in ("checkpoint_id", "thread_id", "checkpoint_ns")}
    return {**data, "payload": payload}


@pytest.mark.parametrize("resume", [None, "yes"], ids=["first run", "resume"])
@pytest.mark.parametrize("runtime", ["", "engine_"], ids=["langgraph", "engine"])
def test_checkpoints_and_debug_frames_are_langgraphs(tmp_path: Path, runtime: str, resume: Any) -> None:
    async def body() -> None:
        expected = await _langgraph(resume)
        if resume is not None:  # LangGraph first sends the version a resume continues; graphwire's events do not carry it
            assert [(e, d.get("type")) for e, d in expected[:2]] == [("checkpoints", None), ("debug", "checkpoint")]
            expected = expected[2:]
        frames, _ = await graphwire_frames(tmp_path, runtime + "sse", MODES, False, resume=resume)
        got = [_comparable(f.event, _versions_named(f.event, json.loads(f.data))) for f in frames[1:]]
        assert masked(got) == masked([_comparable(e, d) for e, d in expected])
        assert [e for e, _ in expected].count("debug") >= 2

    asyncio.run(body())
