"""A run's ``command`` with ``update`` and ``goto`` over HTTP against LangGraph's own Command in process.

The same LangGraph-built graph (tests/http/_sse_graphs.py: talk, a team
subgraph, then ``ask``, which stops at an interrupt) runs the same steps twice:
in process under LangGraph (``graph.ainvoke(Command(...))`` on an
InMemorySaver), and served by graphwire, called with the real ``langgraph-sdk``
(``client.runs.wait(..., command={...})``). The thread's values and its whole
history (each version's values and next nodes) must be the same, ids masked.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Send
from langgraph_sdk import get_client

from engine.checkpoint import SqliteSaver
from server._run_api import run_events
from server.app import build_server
from server.config import ServerConfig
from tests.http import _sse_graphs
from tests.http._serving import serving
from tests.http.test_runs import in_loop, made
from tests.http.test_sse import INPUT, _plain, masked

#: Each case: the steps after the first run (which stops at ``ask``'s interrupt), as a run's ``command``.
CASES = {
    "resume with update": [{"resume": "yes", "update": {"log": ["upd"]}}],
    "update alone": [{"update": {"log": ["u"]}}],
    "goto after the end": [{"resume": "yes"}, {"goto": "ask"}],
    "goto while interrupted": [{"goto": "talk"}],
    "goto a Send": [{"resume": "yes"}, {"goto": {"node": "talk", "input": {"messages": [{"type": "human", "content": "hm", "id": "h2"}]}}}],
    "goto a list, with update": [{"resume": "yes"}, {"goto": ["talk"], "update": {"log": ["g"]}}],
    "update as pairs": [{"resume": "yes"}, {"update": [["log", ["p"]]]}],
}


def _same(value: Any) -> Any:
    return masked([("x", value)])[0][1]


async def _langgraph(steps: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    graph = _sse_graphs.graph.copy(update={"checkpointer": InMemorySaver()})
    config: Any = {"configurable": {"thread_id": "t"}}
    await graph.ainvoke(INPUT, config)
    for step in steps:
        update = step.get("update")
        if isinstance(update, list):
            update = [tuple(p) for p in update]
        goto = step.get("goto", ())
        goto = Send(goto["node"], goto["input"]) if isinstance(goto, dict) else goto
        await graph.ainvoke(Command(resume=step.get("resume"), update=update, goto=goto), config)
    state = await graph.aget_state(config)
    history = [(_plain(s.values), list(s.next)) async for s in graph.aget_state_history(config)]
    return _same(_plain(state.values)), _same(history)


@pytest.mark.parametrize("case", list(CASES))
@in_loop
async def test_a_command_gives_langgraphs_values_and_history(tmp_path: Path, case: str) -> None:
    steps = CASES[case]
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "sse")
        await client.runs.wait(thread, "sse", input=INPUT)
        for step in steps:
            await client.runs.wait(thread, "sse", command=step)
        values = (await client.threads.get_state(thread))["values"]
        history = [(h["values"], h["next"]) for h in await client.threads.get_history(thread, limit=100)]
    want_values, want_history = await _langgraph(steps)
    assert _same(values) == want_values
    assert _same(history) == want_history


@in_loop
async def test_a_bad_command_is_refused_by_name(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "sse")
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            for command, field in [
                ({"goto": "nowhere"}, "unknown node 'nowhere'"), ({"goto": 3}, "command_json.goto"),
                ({"update": "x"}, "command_json.update"), ({"jump": 1}, "command.jump"),
            ]:  # fmt: skip
                res = await http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "sse", "command": command})
                assert res.status_code == 422, (command, res.text)
                assert field in res.json()["detail"], res.text


@pytest.mark.parametrize("case", ["resume with update", "goto while interrupted", "goto a Send", "update as pairs"])
@in_loop
async def test_an_engine_graph_takes_the_same_command_over_grpcs_invoke(tmp_path: Path, case: str) -> None:
    """The same graph built with the engine's classes, its Commands sent as an Invoke's ``command_json``."""
    twin = tmp_path / f"engine_cmd_graphs_{uuid.uuid4().hex[:8]}.py"  # a module name of its own: imported anew
    twin.write_text(Path(_sse_graphs.__file__).read_text().replace("from langgraph.", "from engine."))
    config = ServerConfig(address="127.0.0.1:0", graphs={"g": f"{twin}:graph"})
    srv = await build_server(config, checkpointer=SqliteSaver(str(tmp_path / "gw.db")))
    try:
        first = pb.InvokeRequest(graph="g", thread_id="t", input_json=json.dumps(INPUT))
        steps: list[Any] = [first]
        for step in CASES[case]:
            if set(step) == {"resume"}:
                steps.append(pb.ResumeRequest(graph="g", thread_id="t", resume_json=json.dumps(step["resume"])))
            else:
                steps.append(pb.InvokeRequest(graph="g", thread_id="t", command_json=json.dumps(step)))
        for request in steps:
            [e async for e in run_events(srv.service, request)]
        history = [(_plain(s.values), list(s.next)) for s in await srv.service.reads.history("g", "t")]
    finally:
        await srv.stop(grace=5)
    _, want_history = await _langgraph(CASES[case])
    assert len(history) > 3 and _same(history) == want_history
