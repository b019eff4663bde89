"""The "summarize the conversation" how-to: a MessagesState subclass with a summary, RemoveMessage
to drop old turns, a conditional edge to summarize, trim_messages before the model, and a
Pydantic state with defaults and a validation error."""

from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, trim_messages
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from pydantic import BaseModel, Field

from observe import call, history, record


class State(MessagesState):
    summary: str


def model(state: State):
    summary = state.get("summary", "")
    msgs = ([SystemMessage(f"Summary: {summary}")] if summary else []) + state["messages"]
    kept = trim_messages(msgs, max_tokens=4, token_counter=len, strategy="last", include_system=True)
    return {"messages": [AIMessage(f"reply {len(state['messages'])} seeing {len(kept)}")]}


def should_summarize(state: State) -> Literal["summarize", "__end__"]:
    return "summarize" if len(state["messages"]) > 4 else END


def summarize(state: State):
    summary = state.get("summary", "")
    text = f"{summary} + {len(state['messages'])} msgs".strip(" +")
    return {"summary": text, "messages": [RemoveMessage(id=m.id) for m in state["messages"][:-2]]}


g = StateGraph(State)
g.add_node("model", model)
g.add_node("summarize", summarize)
g.add_edge(START, "model")
g.add_conditional_edges("model", should_summarize)
g.add_edge("summarize", END)
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "s"}}
for i in range(5):
    out = app.invoke({"messages": [HumanMessage(f"turn {i}")]}, cfg)
    record(f"turn {i}", [out.get("summary"), [(type(m).__name__, m.content) for m in out["messages"]]])
history(app, cfg)


class Profile(BaseModel):
    name: str = "anon"
    visits: int = 0
    tags: list[str] = Field(default_factory=list)


def visit(p: Profile):
    return {"visits": p.visits + 1, "tags": p.tags + [p.name]}


pg = StateGraph(Profile)
pg.add_node("visit", visit)
pg.add_edge(START, "visit")
papp = pg.compile(checkpointer=InMemorySaver())
pcfg = {"configurable": {"thread_id": "p"}}
record("pydantic first", papp.invoke({"name": "ada"}, pcfg))
record("pydantic second", papp.invoke({}, pcfg))
record("pydantic state", papp.get_state(pcfg))
call("pydantic bad", papp.invoke, {"visits": "many"}, {"configurable": {"thread_id": "bad"}})
