"""Runs over HTTP on a real ``graphwire serve --http`` process, called with the real ``langgraph-sdk``, sync and async.

The LangChain reminders agent (examples/reminders_langchain) as a chat front end
drives it: a turn whose model calls a tool and asks before adding a reminder
(an interrupt), streamed in ``messages-tuple`` and ``values`` modes; the answer
sent with ``command={"resume": ...}``; then a background run joined, and a
stateless one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import ServerProcess
from tests.http.conftest import async_client, sync_client

GRAPH = "reminders_langchain"
QUESTION = "Add a reminder to call mom at 5pm?"
DONE = "Done: I'll remind you to call mom at 5pm."


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def test_a_chat_turn_with_a_tool_call_an_interrupt_and_its_answer_streamed(served: ServerProcess) -> None:
    client = sync_client(served)
    thread = client.threads.create(graph_id=GRAPH)["thread_id"]
    modes = ["messages-tuple", "values"]
    ask = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}
    first = list(client.runs.stream(thread, GRAPH, input=ask, stream_mode=modes))
    assert first[0].event == "metadata" and first[-1].event == "values"
    asked = first[-1]
    assert asked.event == "values" and [i["value"] for i in asked.data["__interrupt__"]] == [QUESTION]
    call = asked.data["messages"][-1]
    assert call["type"] == "ai" and call["tool_calls"][0]["name"] == "add_reminder"

    second = list(client.runs.stream(thread, GRAPH, command={"resume": "yes"}, stream_mode=modes))
    tokens = [p.data for p in second if p.event == "messages" and p.data[1]["langgraph_node"] == "model"]
    assert len(tokens) > 3 and all(chunk["type"] == "AIMessageChunk" for chunk, _ in tokens)
    assert "".join(_text(chunk) for chunk, _ in tokens) == DONE
    final = [p for p in second if p.event == "values"][-1].data
    assert _text(final["messages"][-1]) == DONE and final["reminders"] == [{"text": "call mom", "at": "5pm"}]
    assert final["messages"][-2]["type"] == "tool" and final["messages"][-2]["tool_call_id"] == call["tool_calls"][0]["id"]
    ids = [int(p.id) for p in second if p.id is not None]
    assert ids == sorted(ids)  # each frame's id is the run's seq

    # A second turn on the same thread, waited for.
    again = client.runs.wait(thread, GRAPH, input={"messages": [{"role": "user", "content": "weather in Oslo"}]})
    assert len(again["messages"]) > len(final["messages"])
    runs = client.runs.list(thread)
    assert [r["status"] for r in runs] == ["success", "success", "success"]  # one stopped at an interrupt: it succeeded


def test_background_and_stateless_runs_with_the_async_client(served: ServerProcess) -> None:
    async def body() -> None:
        client = async_client(served)
        thread = (await client.threads.create(graph_id="chain3"))["thread_id"]
        # A joined stream's modes are among those the run was made with (as LangGraph's).
        run = await client.runs.create(thread, "chain3", input={"n": 0}, stream_mode=["values", "updates"])
        assert (await client.runs.join(thread, run["run_id"]))["log"] == ["a", "b", "c"]
        parts = [p async for p in client.runs.join_stream(thread, run["run_id"], stream_mode="updates")]
        assert [list(p.data) for p in parts if p.event == "updates"] == [["a"], ["b"], ["c"]]
        assert (await client.runs.get(thread, run["run_id"]))["status"] == "success"
        stateless = [p async for p in client.runs.stream(None, "chain3", input={"n": 10}, stream_mode="values")]
        assert stateless[-1].event == "values" and stateless[-1].data["n"] == 13

    asyncio.run(body())
