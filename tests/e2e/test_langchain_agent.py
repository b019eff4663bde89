"""The LangChain reminders agent served by a real server, called through the Python client.

Tokens stream as MessageChunk events while the model writes them; the question
arrives as an interrupt; the resume finishes the turn; history and fork work;
messages arrive in LangChain's dict form and go back in unchanged. (The
TypeScript client does the same in clients/typescript/test/langchain.test.ts.)
"""

from __future__ import annotations

from typing import Any

from graphwire import (
    CheckpointSaved,
    EventKind,
    FinishReason,
    InterruptEvent,
    MessageChunk,
    message_role,
    message_text,
    tool_calls,
    user_message,
)

GRAPH = "reminders_langchain"
QUESTION = "Add a reminder to call mom at 5pm?"
DONE = "Done: I'll remind you to call mom at 5pm."
ALL_KINDS = list(EventKind)


def test_tokens_interrupt_resume_history_and_fork(server: Any, thread_id: str) -> None:
    with server.client() as client:
        first = client.invoke(GRAPH, thread_id, {"messages": [user_message("remind me to call mom at 5pm")]},
                              event_kinds=ALL_KINDS, timeout=30)
        assert first.reason is FinishReason.INTERRUPT
        assert [(e.node, e.value) for e in first.events if isinstance(e, InterruptEvent)] == [("ask_user", QUESTION)]
        asked = first.values["messages"][-1]
        assert asked["type"] == "ai" and tool_calls(asked)[0]["name"] == "add_reminder"

        resumed = client.resume(GRAPH, thread_id, "yes", event_kinds=ALL_KINDS, timeout=30)
        assert resumed.reason is FinishReason.END
        reply = resumed.values["messages"][-1]
        # LangChain's dict form, every field
        assert {"type", "content", "id", "name", "tool_calls", "additional_kwargs", "response_metadata",
                "usage_metadata"} <= set(reply)
        assert message_role(reply) == "assistant" and message_text(reply) == DONE
        tool = resumed.values["messages"][-2]
        assert tool["type"] == "tool" and tool["tool_call_id"] == tool_calls(asked)[0]["id"] and tool["name"] == "add_reminder"
        assert resumed.values["reminders"] == [{"text": "call mom", "at": "5pm"}]

        # tokens: the model's words as AIMessageChunks, in order, while it writes them
        chunks = [e for e in resumed.events if isinstance(e, MessageChunk) and e.node == "model"]
        assert len(chunks) > 3 and all(c.chunk["type"] == "AIMessageChunk" for c in chunks)
        assert {c.chunk["id"] for c in chunks} == {reply["id"]}
        assert "".join(message_text(c.chunk) for c in chunks) == DONE
        assert chunks[0].metadata["langgraph_node"] == "model" and chunks[0].metadata["ls_provider"] == "scriptedchatmodel"
        saved_after = [e for e in resumed.events if isinstance(e, CheckpointSaved)]
        assert resumed.events.index(chunks[-1]) < resumed.events.index(saved_after[-1])

        # history: every version, newest first; fork from the one before the reply
        history = client.history(GRAPH, thread_id)
        assert [h.checkpoint.source for h in history][-1] == "input"
        before_reply = next(h for h in history if h.next == ("model",) and h.values["messages"][-1]["type"] == "tool")
        forked = client.fork(GRAPH, thread_id, before_reply.checkpoint.checkpoint_id, timeout=30)
        assert forked.reason is FinishReason.END and message_text(forked.values["messages"][-1]) == DONE
        assert forked.values["messages"][-1]["id"] != reply["id"]  # a regenerated reply


def test_a_message_that_came_out_goes_back_in_unchanged(server: Any, thread_id: str) -> None:
    with server.client() as client:
        done = client.invoke(GRAPH, thread_id, {"messages": [user_message("weather in Oslo")]}, timeout=30)
        assert done.reason is FinishReason.END
        messages = done.values["messages"]
        # a chat UI replays the thread into a new one, message objects as they came
        other = f"{thread_id}-copy"
        copied = client.invoke(GRAPH, other, {"messages": messages[:-1]}, timeout=30)
        assert copied.values["messages"][: len(messages) - 1] == messages[:-1]
        # an edit through UpdateState keeps every field of the message it replaces
        edited = {**messages[-1], "content": "edited"}
        client.update_state(GRAPH, thread_id, {"messages": [edited]}, as_node="model")
        state = client.get_state(GRAPH, thread_id)
        assert state.values["messages"][-1] == edited
        assert [message_role(m) for m in state.values["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_graphwire_chat_runs_the_langchain_agent(server: Any, thread_id: str, tmp_path: Any) -> None:
    from tests.e2e.test_cli import graphwire

    done = graphwire(server, "chat", "--graph", GRAPH, "--thread", thread_id,
                     stdin="remind me to call mom at 5pm\nyes\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"? {QUESTION}" in done.stdout and f"assistant: {DONE}" in done.stdout
    with server.client() as client:
        assert client.get_state(GRAPH, thread_id).values["reminders"] == [{"text": "call mom", "at": "5pm"}]


def test_get_graph_carries_the_edges_of_command_annotations(server: Any) -> None:
    with server.client() as client:
        info = client.graph(GRAPH)
    edges = {(e.source, e.target, e.conditional) for e in info.edges}
    # ask_user routes by Command[Literal["tools", "model"]], model by a -> Literal router
    assert {("ask_user", "tools", True), ("ask_user", "model", True)} <= edges
    assert {("model", "ask_user", True), ("model", "tools", True), ("model", "__end__", True)} <= edges
    assert ("tools", "model", False) in edges
