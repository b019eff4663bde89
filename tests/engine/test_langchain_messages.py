"""LangChain messages in state (issue 15.1-15.3): coerced, stored and read back as themselves.

Each behaviour was observed on LangGraph 1.2.22 with langchain-core
(tests/sidebyside/add_messages.py, chat.py and schemas.py run the same
programs on both). Storage tests run on every saver.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
from typing import Annotated, Literal, Optional

import langchain_core.messages as lc
import pytest
from pydantic import BaseModel
from typing_extensions import NotRequired, Required, TypedDict

from engine import END, START, Command, StateGraph, add_messages
from engine.graph import MessagesState
from engine.graph.message import REMOVE_ALL_MESSAGES
from engine.serde import Serializer
from engine._langchain.serde import MESSAGE_CLASSES
from engine.testing import thread


def test_add_messages_coerces_as_langgraph_does():
    left = add_messages([], [{"role": "user", "content": "hi"}, "plain", ("assistant", "yo"), {"type": "human", "content": "t"}])
    assert [type(m).__name__ for m in left] == ["HumanMessage", "HumanMessage", "AIMessage", "HumanMessage"]
    assert all(isinstance(m.id, str) and m.id for m in left)
    assert type(add_messages([], lc.AIMessageChunk(content="x", id="c"))[0]) is lc.AIMessage
    replaced = add_messages(left, [lc.AIMessage("REPLACED", id=left[2].id)])
    assert [m.content for m in replaced] == ["hi", "plain", "REPLACED", "t"]
    removed = add_messages(replaced, [lc.RemoveMessage(id=left[0].id)])
    assert [m.content for m in removed] == ["plain", "REPLACED", "t"]
    with pytest.raises(ValueError):
        add_messages(replaced, [lc.RemoveMessage(id="nope")])
    fresh = add_messages(replaced, [lc.RemoveMessage(id=REMOVE_ALL_MESSAGES), lc.HumanMessage("new", id="n")])
    assert [(m.content, m.id) for m in fresh] == [("new", "n")]
    assert add_messages([], [lc.HumanMessage("a", id="mine")])[0].id == "mine"


def test_add_messages_in_openais_format_and_an_unknown_format():
    """As LangGraph: ``format="langchain-openai"`` gives contents in OpenAI's shapes; another format is refused."""
    assert add_messages(format=None) is add_messages
    reducer = add_messages(format="langchain-openai")
    block = {"type": "text", "text": "hi"}
    merged = reducer([], [lc.HumanMessage(content=[block], id="1"), lc.AIMessage("yo", id="2")])
    # (langchain-core's conversion, as LangGraph's: one text block becomes a string)
    assert [(type(m).__name__, m.content) for m in merged] == [("HumanMessage", "hi"), ("AIMessage", "yo")]
    with pytest.raises(ValueError, match="Unrecognized format="):
        add_messages([], [], format="invalid")
    with pytest.raises(ValueError, match="Attempting to delete a message with an ID that doesn't exist"):
        add_messages([], [lc.RemoveMessage(id="nope")])


def test_every_message_class_is_known():
    found = sorted(
        n for n in dir(lc)
        if isinstance(getattr(lc, n), type) and issubclass(getattr(lc, n), lc.BaseMessage)
        and n not in ("BaseMessage", "BaseMessageChunk")
    )
    assert found == sorted(MESSAGE_CLASSES)


SAMPLES = [
    lc.AIMessage("hi", id="1", name="bot", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c"}],
                 usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
                 response_metadata={"model": "fake"}, additional_kwargs={"k": [1]}),
    lc.AIMessageChunk(content="x", id="2", tool_call_chunks=[{"name": "f", "args": "{", "id": "c", "index": 0}]),
    lc.HumanMessage([{"type": "text", "text": "hi"}], id="3", name="bob"),
    lc.HumanMessageChunk("h", id="4"),
    lc.SystemMessage("s", id="5"),
    lc.SystemMessageChunk("s", id="6"),
    lc.ToolMessage("r", tool_call_id="c", artifact={"k": 1}, status="error", id="7"),
    lc.ToolMessageChunk("r", tool_call_id="c", id="8"),
    lc.ChatMessage("c", role="critic", id="9"),
    lc.ChatMessageChunk("c", role="critic", id="10"),
    lc.FunctionMessage("f", name="fn", id="11"),
    lc.FunctionMessageChunk("f", name="fn", id="12"),
    lc.RemoveMessage(id="13"),
    lc.AIMessage("extra attrs survive", id="14", custom_field={"x": 1}),
]


def test_every_message_class_round_trips_without_registration():
    assert {type(m).__name__ for m in SAMPLES} == set(MESSAGE_CLASSES)
    serde = Serializer()
    for m in SAMPLES:
        back = serde.loads(serde.dumps(m))
        assert type(back) is type(m) and back.__dict__ == m.__dict__ and back == m


def test_a_message_is_stored_as_its_non_default_fields():
    # ~40 bytes for a short turn, not the ~200 of a full dump.
    assert len(Serializer().dumps(lc.HumanMessage("hello there", id="u1"))) < 60


class Chat(TypedDict):
    messages: Annotated[list, add_messages]
    log: Annotated[list, operator.add]


def _keeper(values):
    def node(state):
        return {"messages": list(values), "log": [lc.AIMessageChunk(content="in a plain list", id="log1")]}
    b = StateGraph(Chat)
    b.add_node("node", node)
    b.add_edge(START, "node")
    return b


def test_messages_stored_and_read_back_on_every_saver(checkpointer):
    samples = [m for m in SAMPLES if not isinstance(m, lc.RemoveMessage)]
    app = _keeper(samples).compile(checkpointer=checkpointer)
    app.invoke({"messages": [("user", "go")], "log": []}, thread())
    for config in (thread(), *[s.config for s in app.get_state_history(thread())][:1]):
        values = app.get_state(config).values
        got = values["messages"][1:]
        # add_messages turns chunks into messages, as LangGraph's does
        want = add_messages([], samples)
        assert [type(m) for m in got] == [type(m) for m in want]
        assert [m.__dict__ for m in got] == [m.__dict__ for m in want]
        assert type(values["log"][0]) is lc.AIMessageChunk  # a chunk outside add_messages stays a chunk
    # a second process reading the same store knows no more than a fresh serializer
    fresh = type(checkpointer.serde)()
    tup = checkpointer.get_tuple(thread())
    assert tup is not None and fresh is not checkpointer.serde


def _other_samples() -> list[object]:
    from langchain_core.agents import AgentAction, AgentActionMessageLog, AgentFinish, AgentStep
    from langchain_core.documents import Document

    action = AgentAction("search", {"q": "x"}, "thinking")
    return [
        Document(page_content="a doc", metadata={"source": "s.txt", "page": 2}, id="d1"),
        Document(page_content="plain"),
        action,
        AgentActionMessageLog(tool="t", tool_input="i", log="l", message_log=[lc.AIMessage("m", id="a1")]),
        AgentFinish({"output": "done"}, "final"),
        AgentStep(action=action, observation={"hits": [1, 2]}),
    ]


def test_langchains_documents_and_agent_steps_are_stored_by_name_too():
    # tests/sidebyside/langchain_documents.py: LangGraph stores them whatever the schema says (a RAG
    # graph's untyped `documents: list`); so does the engine, by a fixed name, as it stores messages.
    from engine._langchain.serde import OTHER_CLASSES

    samples = _other_samples()
    assert {type(o).__name__ for o in samples} == {n for names in OTHER_CLASSES.values() for n in names}
    serde = Serializer()
    for o in samples:
        back = serde.loads(serde.dumps(o))
        assert type(back) is type(o) and back == o
    assert b"langchain:Document" in serde.dumps(samples[0])
    assert len(serde.dumps(samples[1])) < 50  # its fields that differ from their defaults (a full dump: ~120)


def test_a_stored_document_with_hostile_fields_is_corrupt_not_built():
    import msgpack

    from engine.errors import CorruptCheckpointError
    from engine.serde._ext import Code

    serde = Serializer()
    bad = msgpack.packb(msgpack.ExtType(Code.REGISTERED, msgpack.packb(["langchain:Document", {"page_content": 3, "__class__": 1}])))
    with pytest.raises(CorruptCheckpointError):
        serde.loads(bad)


class Untyped(TypedDict, total=False):
    question: str
    documents: list
    steps: object


def test_documents_in_an_untyped_key_on_every_saver(checkpointer):
    samples = _other_samples()
    b = StateGraph(Untyped)
    b.add_node("retrieve", lambda s: {"documents": samples[:2], "steps": samples[2:]})
    b.add_edge(START, "retrieve")
    app = b.compile(checkpointer=checkpointer)
    assert app.invoke({"question": "q"}, thread())["documents"] == samples[:2]
    assert app.get_state(thread()).values == {"question": "q", "documents": samples[:2], "steps": samples[2:]}


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: int
    color: Color


class Item(BaseModel):
    name: str
    at: Optional[Point] = None


class Inner(TypedDict):
    items: list[Item]


class Rich(TypedDict, total=False):
    inner: Required[Inner]
    points: Annotated[NotRequired[list[Point]], operator.add]
    messages: Annotated[list, add_messages]


def test_types_named_in_the_schema_need_no_registration(checkpointer):
    def node(state):
        return {"inner": {"items": [Item(name="a", at=Point(1, Color.RED))]}, "points": [Point(2, Color.BLUE)]}

    b = StateGraph(Rich)
    b.add_node("node", node)
    b.add_edge(START, "node")
    app = b.compile(checkpointer=checkpointer)
    app.invoke({"inner": {"items": []}, "points": []}, thread())
    values = app.get_state(thread()).values
    assert values["inner"] == {"items": [Item(name="a", at=Point(1, Color.RED))]}
    assert values["points"] == [Point(2, Color.BLUE)]


def test_an_unnamed_type_still_fails_loudly(checkpointer):
    class Stranger:
        pass

    b = StateGraph(Chat)
    b.add_node("node", lambda s: {"log": [Stranger()]})
    b.add_edge(START, "node")
    app = b.compile(checkpointer=checkpointer)
    out = app.stream({"messages": [], "log": []}, thread())
    with pytest.raises(Exception, match="Stranger"):
        list(out)


class Sub(MessagesState):
    turns: int


def test_messages_state_and_command_return_annotations(checkpointer):
    def bot(state: Sub) -> Command[Literal["tail", "__end__"]]:
        last = state["messages"][-1]
        return Command(update={"messages": [lc.AIMessage(f"echo {last.content}")], "turns": 1}, goto="tail")

    def tail(state: Sub) -> dict:
        return {"turns": state["turns"] + 1}

    b = StateGraph(Sub)
    b.add_node("bot", bot)
    b.add_node("tail", tail)
    b.add_edge(START, "bot")
    b.add_edge("tail", END)
    app = b.compile(checkpointer=checkpointer)
    out = app.invoke({"messages": [{"role": "user", "content": "hi"}]}, thread())
    assert out["turns"] == 2
    assert [type(m).__name__ for m in out["messages"]] == ["HumanMessage", "AIMessage"]
    assert out["messages"][-1].content == "echo hi" and out["messages"][-1].tool_calls == []


class Card(BaseModel):
    title: str
    at: Optional[Point] = None


class PydState(BaseModel):
    messages: Annotated[list[lc.AnyMessage], add_messages] = []
    cards: Annotated[list[Card], operator.add] = []
    color: Color = Color.RED


def test_a_pydantic_state_of_messages_models_and_enums(checkpointer):
    def node(state: PydState) -> dict:
        return {"messages": [lc.AIMessage(f"{len(state.messages)} so far")], "cards": [Card(title="c", at=Point(1, Color.BLUE))],
                "color": Color.BLUE}

    b = StateGraph(PydState)
    b.add_node("node", node)
    b.add_edge(START, "node")
    app = b.compile(checkpointer=checkpointer)
    app.invoke({"messages": [("user", "hi")]}, thread())
    values = app.get_state(thread()).values
    assert [(type(m).__name__, m.content) for m in values["messages"]] == [("HumanMessage", "hi"), ("AIMessage", "1 so far")]
    assert values["cards"] == [Card(title="c", at=Point(1, Color.BLUE))] and values["color"] is Color.BLUE


def test_a_new_messages_id_is_made_by_uuid4_as_langgraph_makes_it(monkeypatch) -> None:
    """A program (LangGraph's own tests) patching ``uuid.uuid4`` for stable ids gets them from add_messages."""
    import uuid

    from langchain_core.messages import HumanMessage

    from engine.graph.message import add_messages

    fixed = uuid.UUID(int=4, version=4)
    monkeypatch.setattr(uuid, "uuid4", lambda: fixed)
    (msg,) = add_messages([], [HumanMessage("hi")])
    assert msg.id == str(fixed)
