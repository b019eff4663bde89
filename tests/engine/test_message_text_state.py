"""A message's ``.text`` (LangChain's TextAccessor, a str subclass) in the state is stored as the str it is,
on every saver, as LangGraph's serializer stores it. Twin of tests/sidebyside/message_text_state.py."""

from __future__ import annotations

from typing import TypedDict

from langchain_core.messages import AIMessage

from engine.graph import START, StateGraph


class State(TypedDict):
    result: str
    parts: list


def test_a_messages_text_is_stored_and_read_back_as_a_str(checkpointer) -> None:
    def answer(state: State) -> dict:
        text = AIMessage(content="the answer is 42").text
        assert type(text) is not str  # LangChain's TextAccessor
        return {"result": text, "parts": [text, {"t": text}]}

    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    graph = builder.compile(checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"result": "", "parts": []}, config)
    values = graph.get_state(config).values
    assert values == {"result": "the answer is 42", "parts": ["the answer is 42", {"t": "the answer is 42"}]}
    assert type(values["result"]) is str and type(values["parts"][1]["t"]) is str
