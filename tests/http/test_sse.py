"""The SSE frames of a graphwire run against what LangGraph's Agent Server sends for the same graph.

The Agent Server frames the chunks of LangGraph's own ``graph.astream(...,
stream_mode=[...], subgraphs=...)``: event ``mode`` (``mode|ns...`` for a
subgraph's), data the chunk as JSON; ``messages-tuple`` is LangGraph's
``messages`` mode sent as event ``messages``; ``messages`` is the
accumulated form (``messages/metadata``, then ``messages/partial`` or
``messages/complete``). Here the same LangGraph-built graph
(tests/http/_sse_graphs.py) runs in process under LangGraph, and served by a
graphwire service in the test's event loop, whose run events go through
:class:`server.http._sse.SseShaper`; the two frame lists are compared, mode by
mode, with the ids that differ between two runs (task ids, interrupt ids,
checkpoint namespaces) masked.

Known differences, kept visible here: graphwire's chunk metadata names the run
(``run_id``) where LangGraph's in-process stream has none (the Agent Server adds
its own keys), and interrupts carry no ``response_schema``.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from langchain_core.messages import BaseMessageChunk, message_chunk_to_message
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from engine.checkpoint import SqliteSaver
from server._run_api import run_events
from server.app import build_server
from server.config import ServerConfig
from server.http._sse import Frame, SseShaper, check_modes, event_kinds
from tests.http import _sse_graphs

INPUT = {"messages": [{"type": "human", "content": "hi", "id": "h1"}]}
_IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")


def _plain(value: Any) -> Any:
    """A LangGraph chunk as the Agent Server's JSON has it (messages dumped, interrupts as dicts)."""
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump())
    if isinstance(value, Exception):  # as the Agent Server's JSON has a task's error
        return {"error": type(value).__name__, "message": str(value)}
    if type(value).__name__ == "Interrupt":  # with its response_schema, null without one (langgraph dev 0.16.7)
        return {"value": _plain(value.value), "id": value.id, "response_schema": _plain(value.response_schema)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def masked(frames: list[tuple[str, Any]], drop: frozenset[str] = frozenset({"run_id"})) -> list[tuple[str, Any]]:
    """Frames with run-specific ids masked and the metadata keys the server adds (``drop``) left out."""
    out = []
    for event, data in frames:
        if event.startswith("messages") and isinstance(data, list) and len(data) == 2 and isinstance(data[1], dict):
            data = [data[0], {k: v for k, v in data[1].items() if k not in drop}]
        if event == "messages/metadata":
            data = {k: {"metadata": {m: x for m, x in v["metadata"].items() if m not in drop}} for k, v in data.items()}
        out.append((_IDS.sub("*", event), json.loads(_IDS.sub("*", json.dumps(data)))))
    return out


async def langgraph_frames(graph: Any, modes: tuple[str, ...], subgraphs: bool, *, resume: Any = None) -> list[tuple[str, Any]]:
    """What the Agent Server sends for ``graph`` run in process by LangGraph (metadata and end aside);
    ``resume``: the frames of the answer to the first run's interrupt instead."""
    graph = graph.copy(update={"checkpointer": InMemorySaver()})
    first: Any = INPUT
    if resume is not None:
        await graph.ainvoke(INPUT, {"configurable": {"thread_id": "t"}})
        first = Command(resume=resume)
    asked = {"messages" if m == "messages-tuple" else m for m in modes}
    seen: dict[str, Any] = {}
    out: list[tuple[str, Any]] = []
    try:
        async for part in graph.astream(first, {"configurable": {"thread_id": "t"}}, stream_mode=sorted(asked), subgraphs=subgraphs):
            ns, mode, chunk = part if subgraphs else ((), *part)
            suffix = "|" + "|".join(ns) if ns else ""
            if mode != "messages":
                out.append((mode + suffix, _plain(chunk)))
                continue
            message, meta = chunk
            if "messages-tuple" in modes:
                out.append(("messages" + suffix, _plain([message, meta])))
            if "messages" in modes:
                if message.id not in seen:
                    out.append(("messages/metadata", _plain({message.id: {"metadata": meta}})))
                    seen[message.id] = message
                else:
                    seen[message.id] = seen[message.id] + message
                partial = isinstance(message, BaseMessageChunk)
                # The message so far in its whole form, partial or not (observed on langgraph dev 0.16.7).
                shown = message_chunk_to_message(seen[message.id])
                out.append(("messages/partial" if partial else "messages/complete", _plain([shown])))
    except ValueError as exc:
        out.append(("error", {"error": type(exc).__name__, "message": str(exc)}))
    return out


async def graphwire_frames(
    tmp_path: Path, name: str, modes: tuple[str, ...], subgraphs: bool, *, resume: Any = None
) -> tuple[list[Frame], list[pb.RunEvent]]:
    """The frames of the same graph served by graphwire, and the run events they came from (``resume``:
    of the answer to the first run's interrupt)."""
    # The same graphs built with the engine's classes (a module name of its own: each server imports it anew).
    engine_twin = tmp_path / f"engine_sse_graphs_{uuid.uuid4().hex[:8]}.py"
    engine_twin.write_text(Path(_sse_graphs.__file__).read_text().replace("from langgraph.", "from engine."))
    graphs = {
        "sse": "tests.http._sse_graphs:graph", "broken": "tests.http._sse_graphs:broken", "nested": "tests.http._sse_graphs:nested",
        "engine_sse": f"{engine_twin}:graph", "engine_broken": f"{engine_twin}:broken", "engine_nested": f"{engine_twin}:nested",
    }  # fmt: skip
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=graphs), checkpointer=SqliteSaver(str(tmp_path / "gw.db")))
    try:
        request: Any = pb.InvokeRequest(graph=name, thread_id="t", input_json=json.dumps(INPUT), event_kinds=event_kinds(modes))
        if resume is not None:
            [e async for e in run_events(srv.service, request)]
            request = pb.ResumeRequest(graph=name, thread_id="t", resume_json=json.dumps(resume), event_kinds=event_kinds(modes))
        shaper = SseShaper(modes, subgraphs=subgraphs)
        events = [e async for e in run_events(srv.service, request)]
        frames = [shaper.metadata(events[0].run_id)] + [f for e in events for f in shaper.frames(e)]
        return frames, events
    finally:
        await srv.stop(grace=5)


CASES = [
    ("values",), ("updates",), ("messages-tuple",), ("messages",), ("custom",), ("tasks",),
    ("values", "updates", "messages-tuple", "custom"),
]  # fmt: skip


@pytest.mark.parametrize("runtime", ["", "engine_"], ids=["langgraph", "engine"])
@pytest.mark.parametrize("subgraphs", [False, True], ids=["root", "subgraphs"])
@pytest.mark.parametrize("modes", CASES, ids=["+".join(c) for c in CASES])
def test_each_mode_sends_what_langgraph_sends(tmp_path: Path, modes: tuple[str, ...], subgraphs: bool, runtime: str) -> None:
    """The graph served on LangGraph's runtime, and its twin built with the engine's classes."""

    async def body() -> None:
        expected = await langgraph_frames(_sse_graphs.graph, modes, subgraphs)
        frames, events = await graphwire_frames(tmp_path, runtime + "sse", modes, subgraphs)
        assert frames[0].event == "metadata" and json.loads(frames[0].data) == {"run_id": events[0].run_id, "attempt": 1}
        got = [(f.event, json.loads(f.data)) for f in frames[1:]]
        assert masked(got) == masked(expected)
        assert expected or (modes, subgraphs) == (("custom",), False)  # custom events are the subgraph's only
        # Each frame's id is the seq of the run event it came from, so a client resumes after it.
        seqs = {e.seq for e in events}
        assert all(f.id in seqs for f in frames[1:])
        assert [f.id for f in frames[1:]] == sorted(f.id for f in frames[1:] if f.id is not None)
        # Every message's metadata names the run, on both runtimes (LangGraph's server: the run's config metadata).
        metas = [d[1] for e, d in got if e.startswith("messages|") or e == "messages"]
        metas += [m["metadata"] for e, d in got if e == "messages/metadata" for m in d.values()]
        assert all(m["run_id"] == events[0].run_id for m in metas)
        assert metas or not {"messages", "messages-tuple"} & set(modes)

    asyncio.run(body())


@pytest.mark.parametrize("runtime", ["", "engine_"], ids=["langgraph", "engine"])
@pytest.mark.parametrize("subgraphs", [False, True], ids=["root", "subgraphs"])
def test_a_subgraphs_interrupt_is_streamed_as_langgraph_streams_it(tmp_path: Path, subgraphs: bool, runtime: str) -> None:
    """Under its namespace (``stream_subgraphs``): its ``updates`` and ``values`` with ``__interrupt__``, with the
    interrupt's ``response_schema``, then the parent's."""

    async def body() -> None:
        modes = ("values", "updates")
        expected = await langgraph_frames(_sse_graphs.nested, modes, subgraphs)
        frames, _ = await graphwire_frames(tmp_path, runtime + "nested", modes, subgraphs)
        assert masked([(f.event, json.loads(f.data)) for f in frames[1:]]) == masked(expected)
        stops = [d for e, d in expected if "__interrupt__" in d]
        assert len(stops) == (4 if subgraphs else 2) and stops[0]["__interrupt__"][0]["response_schema"] == {"type": "string"}

    asyncio.run(body())


@pytest.mark.parametrize("runtime", ["", "engine_"], ids=["langgraph", "engine"])
@pytest.mark.parametrize("modes", [("values",), ("updates", "tasks")], ids=["values", "updates+tasks"])
def test_a_failed_run_ends_with_langgraphs_error_frame(tmp_path: Path, modes: tuple[str, ...], runtime: str) -> None:
    async def body() -> None:
        expected = await langgraph_frames(_sse_graphs.broken, modes, False)
        frames, _ = await graphwire_frames(tmp_path, runtime + "broken", modes, False)
        assert masked([(f.event, json.loads(f.data)) for f in frames[1:]]) == masked(expected)
        assert expected[-1] == ("error", {"error": "ValueError", "message": "no way"})

    asyncio.run(body())


@pytest.mark.parametrize("runtime", ["", "engine_"], ids=["langgraph", "engine"])
@pytest.mark.parametrize("modes", [("values",), ("updates",), ("values", "updates", "tasks", "messages-tuple")], ids="+".join)
def test_a_resume_sends_what_langgraph_sends(tmp_path: Path, modes: tuple[str, ...], runtime: str) -> None:
    async def body() -> None:
        expected = await langgraph_frames(_sse_graphs.graph, modes, False, resume="yes")
        frames, _ = await graphwire_frames(tmp_path, runtime + "sse", modes, False, resume="yes")
        assert masked([(f.event, json.loads(f.data)) for f in frames[1:]]) == masked(expected)
        assert expected

    asyncio.run(body())


def test_modes_not_served_are_refused_by_name() -> None:
    assert check_modes(None) == ("values",)
    assert check_modes("updates") == ("updates",)
    assert check_modes(["values", "messages-tuple", "values"]) == ("values", "messages-tuple")
    assert check_modes(["events", "values"]) == ("events", "values")  # tests/http/test_sse_events.py
    with pytest.raises(ValueError, match="'nope' is not a stream mode"):
        check_modes("nope")


def test_a_frame_is_one_server_sent_event() -> None:
    assert Frame("values|a:1", '{"x":1}', 7).encode() == b'event: values|a:1\r\ndata: {"x":1}\r\nid: 7\r\n\r\n'


def test_an_interrupts_response_schema_goes_over_the_wire() -> None:
    """Both ways an interrupt is sent (its event; a task's, a run end's and a state's list of them)."""
    from engine.events import InterruptEvent
    from engine.types import Interrupt
    from server import _convert as conv

    schema = {"type": "string"}
    sent = conv.run_event(InterruptEvent("i1", "check", "t1", "sure?", schema)).interrupt
    listed = conv.interrupt(Interrupt("sure?", "i1", response_schema=schema), "check", "t1")
    for i in (sent, listed):
        assert (i.interrupt_id, json.loads(i.value_json), json.loads(i.response_schema_json)) == ("i1", "sure?", schema)
    assert conv.interrupt(Interrupt("plain", "i2")).response_schema_json == ""
