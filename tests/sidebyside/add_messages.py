"""add_messages coerces like LangGraph's: dicts, tuples, strings, chunks; ids; RemoveMessage."""

from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph, add_messages
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from observe import call, history, record

left = add_messages([], [{"role": "user", "content": "hi"}, "plain", ("assistant", "yo"), {"type": "human", "content": "typed"}])
record("coerced", left)
record("classes", [type(m).__name__ for m in left])
record("ids given", all(isinstance(m.id, str) and m.id for m in left))
record("chunk", add_messages([], [AIMessageChunk(content="par", id="c1")]))
record("chunk class", type(add_messages([], AIMessageChunk(content="x", id="c2"))[0]).__name__)
replaced = add_messages(left, [AIMessage("REPLACED", id=left[2].id)])
record("replaced", [m.content for m in replaced])
record("removed", [m.content for m in add_messages(replaced, [RemoveMessage(id=left[0].id)])])
call("remove unknown", add_messages, replaced, [RemoveMessage(id="nope")])
record("remove all", add_messages(replaced, [RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("fresh", id="f")]))
record("single message", add_messages([HumanMessage("a", id="1")], HumanMessage("b", id="2")))
record("kept id", add_messages([], [HumanMessage("a", id="mine")])[0].id)


class State(MessagesState):
    turns: int


def bot(state: State) -> dict:
    last = state["messages"][-1]
    out = {"messages": [AIMessage(f"{type(last).__name__}: {last.content}", id=f"ai-{state.get('turns', 0)}")]}
    if state.get("turns", 0) == 2:
        out["messages"].append(RemoveMessage(id=state["messages"][0].id))
    return {**out, "turns": state.get("turns", 0) + 1}


builder = StateGraph(State)
builder.add_node("bot", bot)
builder.add_edge(START, "bot")
graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
for turn in ["one", ("user", "two"), {"role": "user", "content": "three"}]:
    call(f"turn {turn}", graph.invoke, {"messages": turn}, config)
last = graph.get_state(config).values["messages"][-1]
record("last content", last.content)
record("last tool_calls", last.tool_calls)
history(graph, config)


class Plain(TypedDict):
    messages: Annotated[list, add_messages]


plain = StateGraph(Plain)
plain.add_node("echo", lambda s: {"messages": [{"role": "assistant", "content": s["messages"][-1].content}]})
plain.add_edge(START, "echo")
record("plain", plain.compile().invoke({"messages": [{"role": "user", "content": "dict in"}]}))
