"""A graph a node invokes with a config of its own (its own thread_id, even the caller's) runs on its own,
as LangGraph's: at the root of its own namespace, with its own saver and questions; only its chat models'
and tools' events reach a caller streaming subgraphs (tests/sidebyside/child_own_thread_stream.py)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402

from engine import START, StateGraph, interrupt  # noqa: E402
from engine.graph import MessagesState  # noqa: E402
from engine.checkpoint import InMemorySaver  # noqa: E402


def _one_node(node: Any, saver: Any = None) -> Any:
    return StateGraph(MessagesState).add_node(node).add_edge(START, node.__name__).compile(checkpointer=saver)


def chat(state: MessagesState) -> dict:
    return {"messages": [GenericFakeChatModel(messages=iter(["one two"])).invoke("hi")]}


def ask(state: MessagesState) -> dict:
    return {"messages": [("ai", f"answer: {interrupt('question?')}")]}


@pytest.mark.parametrize("thread", ["parent", "child"])
def test_a_child_on_a_thread_of_its_own_keeps_its_question_and_versions(thread: str) -> None:
    child_saver = InMemorySaver()
    child = _one_node(ask, child_saver)
    outputs: list[Any] = []

    def caller(state: MessagesState) -> dict:
        outputs.append(child.invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": thread}}))
        return {"messages": [("ai", "caller done")]}

    parent_saver = InMemorySaver()
    parent = _one_node(caller, parent_saver)
    config = {"configurable": {"thread_id": "parent"}}
    assert [m.content for m in parent.invoke({"messages": []}, config)["messages"]] == ["caller done"]
    [out] = outputs
    assert out["__interrupt__"][0].value == "question?"  # the child's own call ended at its question
    assert parent.get_state(config).next == ()  # the caller's run went on to its end
    assert child.get_state({"configurable": {"thread_id": thread}}).next == ("ask",)
    assert {c.config["configurable"]["checkpoint_ns"] for c in parent_saver.list(None)} == {""}


@pytest.mark.parametrize("subgraphs", [False, True])
def test_a_childs_model_tokens_reach_a_caller_streaming_subgraphs_under_the_root(subgraphs: bool) -> None:
    child = _one_node(chat)

    def caller(state: MessagesState) -> dict:
        child.invoke({"messages": []}, {"configurable": {"thread_id": "parent"}})
        return {}

    parts = list(_one_node(caller).stream({"messages": []}, {"configurable": {"thread_id": "parent"}},
                                          stream_mode=["messages", "updates"], subgraphs=subgraphs, version="v2"))
    tokens = [(p["ns"], p["data"][0].content) for p in parts if p["type"] == "messages"]
    assert tokens == ([((), "one"), ((), " "), ((), "two")] if subgraphs else [])
    assert [(p["ns"], list(p["data"])) for p in parts if p["type"] == "updates"] == [((), ["caller"])]


def test_the_tasks_own_config_passed_on_still_nests() -> None:
    child = _one_node(chat)

    def caller(state: MessagesState, config) -> dict:  # type: ignore[no-untyped-def]  # (unannotated: the config, as LangGraph)
        child.invoke({"messages": []}, config)
        return {}

    parts = list(_one_node(caller).stream({"messages": []}, {"configurable": {"thread_id": "parent"}},
                                          stream_mode="updates", subgraphs=True, version="v2"))
    assert [tuple(s.split(":")[0] for s in p["ns"]) for p in parts] == [("caller",), ()]


def test_a_command_to_the_parent_from_a_child_of_its_own_has_no_parent_to_reach() -> None:
    from engine.errors import ParentCommand
    from engine.types import Command

    def to_parent(state: MessagesState) -> Command:
        return Command(graph=Command.PARENT, goto="elsewhere", update={"messages": [("ai", "from child")]})

    child = _one_node(to_parent)

    def caller(state: MessagesState) -> dict:
        child.invoke({"messages": []}, {"configurable": {"thread_id": "own"}})
        return {}

    def elsewhere(state: MessagesState) -> dict:
        return {"messages": [("ai", "elsewhere")]}

    g = StateGraph(MessagesState).add_node(caller).add_node(elsewhere).add_edge(START, "caller").compile()
    with pytest.raises(ParentCommand) as raised:
        g.invoke({"messages": []})
    assert raised.value.orphan and raised.value.command.goto == "elsewhere"
