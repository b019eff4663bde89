"""LangChain's callback events over gRPC (``EVENT_KIND_CALLBACK``), through the Python client: the HTTP
face's ``events`` stream mode travels as these (tests/http/test_sse_events.py compares them with LangGraph's).

Sent only to a caller that names the kind (with the run's tags, ``RunConfig.tags``, on each): the graph's run (named by the run's id) starts first and ends
last, the chat model's tokens come between, in the run's own order with its other events.
"""

from __future__ import annotations

from typing import Any

from graphwire import CallbackEvent, EventKind, FinishReason, MessageChunk, RunFinished, RunStarted, user_message

GRAPH = "reminders_langchain"


def test_callback_events_only_when_named(server: Any, thread_id: str) -> None:
    with server.client() as client:
        asked = {"messages": [user_message("remind me to call mom at 5pm")]}
        result = client.invoke(GRAPH, thread_id, asked, event_kinds=[EventKind.CALLBACK, EventKind.MESSAGE_CHUNK], tags=["e2e"], timeout=30)
        assert result.reason is FinishReason.INTERRUPT
        assert isinstance(result.events[0], RunStarted) and isinstance(result.events[-1], RunFinished)
        events = [e.event for e in result.events if isinstance(e, CallbackEvent)]
        run_id = result.events[0].run_id
        assert (events[0]["event"], events[0]["name"], events[0]["run_id"]) == ("on_chain_start", GRAPH, run_id)
        assert events[0]["data"]["input"]["messages"][0]["content"] == "remind me to call mom at 5pm"
        assert events[-1]["run_id"] == run_id and events[-1]["event"] in ("on_chain_end", "on_chain_error")
        tokens = [e["data"]["chunk"]["content"] for e in events if e["event"] == "on_chat_model_stream"]
        chunks = [e.chunk["content"] for e in result.events if isinstance(e, MessageChunk)]
        assert tokens and tokens == chunks[: len(tokens)]  # the same tokens the messages mode sends
        assert all(e["metadata"]["run_id"] == run_id for e in events)
        assert all("e2e" in e["tags"] for e in events)  # RunConfig.tags: the run's tags, on every callback event

        again = client.resume(GRAPH, thread_id, "yes", timeout=30)  # every kind but the named-only ones
        assert again.reason is FinishReason.END
        assert not any(isinstance(e, CallbackEvent) for e in again.events)
