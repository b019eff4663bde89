"""The engine without langchain-core: it imports, runs, stores, and messages stay dicts.

langchain-core is the optional ``langchain`` extra and the test environment
has it, so the test reruns itself in a pytest process where every
``langchain_core`` import fails (``tests/_no_langchain.py``), as on a server
installed without it.
"""

from __future__ import annotations

import sys

import pytest

from tests._no_langchain import langchain_installed, rerun_without_langchain

#: A LangChain message as the serializer stores it, written with langchain-core.
STORED_AI_MESSAGE = "c7270b92b36c616e67636861696e3a41494d65737361676582a7636f6e74656e74a26869a26964a26d31"


def test_the_stored_message_is_what_this_serializer_writes():
    lc = pytest.importorskip("langchain_core.messages")
    if not langchain_installed():
        pytest.skip("langchain-core hidden")
    from engine.serde import Serializer

    assert Serializer().dumps(lc.AIMessage("hi", id="m1")).hex() == STORED_AI_MESSAGE


def test_engine_runs_without_langchain_core(request, tmp_path):
    if langchain_installed():
        rerun_without_langchain(request.node.nodeid)
        return
    assert "langchain_core" not in sys.modules
    from dataclasses import dataclass, field
    from engine import START, StateGraph, add_messages
    from engine.checkpoint import SqliteSaver
    from engine.errors import CorruptCheckpointError
    from engine.graph import MessagesState, RemoveMessage
    from engine.serde import Serializer

    left = add_messages([], [{"role": "user", "content": "hi"}, "plain", ("assistant", "yo")])
    assert [m["role"] for m in left] == ["user", "user", "assistant"], left
    assert all(m["id"] for m in left)
    replaced = add_messages(left, [{"role": "assistant", "content": "REPLACED", "id": left[2]["id"]}])
    assert [m["content"] for m in replaced] == ["hi", "plain", "REPLACED"]
    removed = add_messages(replaced, [RemoveMessage(id=left[0]["id"])])
    assert [m["content"] for m in removed] == ["plain", "REPLACED"]
    with pytest.raises(ValueError):
        add_messages(removed, [RemoveMessage(id="nope")])

    @dataclass
    class Msg:
        role: str
        content: str
        id: str | None = None
        tool_calls: list = field(default_factory=list)

    objs = add_messages([Msg("user", "a", "1")], [Msg("assistant", "b"), Msg("user", "A", "1")])
    assert [(m.content, m.id) for m in objs][0] == ("A", "1")
    assert objs[1].id and objs[1].content == "b"

    def bot(state):
        return {"messages": [{"role": "assistant", "content": "you said " + state["messages"][-1]["content"]}]}

    builder = StateGraph(MessagesState)
    builder.add_node("bot", bot)
    builder.add_edge(START, "bot")
    saver = SqliteSaver(str(tmp_path / "t.db"))
    app = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"messages": [("user", "hello")]}, config)
    values = app.get_state(config).values
    assert [(type(m), m["role"], m["content"]) for m in values["messages"]] == [
        (dict, "user", "hello"), (dict, "assistant", "you said hello")
    ], values

    with pytest.raises(CorruptCheckpointError, match="install langchain-core"):
        Serializer().loads(bytes.fromhex(STORED_AI_MESSAGE))

    from engine.func import entrypoint, task

    @task
    def double(x: int) -> int:
        return x * 2

    @entrypoint()
    def doubled(x: int) -> int:
        return double(x).result()

    assert doubled.invoke(21) == 42  # its calls run with no LangChain config to set up (engine._langchain.calls)
    assert list(doubled.stream(2, stream_mode=["tools", "updates"])) == [("updates", {"double": 4}), ("updates", {"doubled": 4})]

    with pytest.raises(ImportError, match="langchain"):
        import engine.prebuilt  # noqa: F401

    assert not any(n == "langchain_core" or n.startswith("langchain_core.") for n in sys.modules)
