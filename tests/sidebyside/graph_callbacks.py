"""langgraph.callbacks: a GraphCallbackHandler told of interrupts (a node's, at a breakpoint before
and after) and resumes (None, Command(resume=), not new input), sync and async handlers, a handler
that raises (logged) or with raise_error (the call raises), a plain LangChain handler not told,
one handler given alone or in a callback manager, and a graph without a checkpointer."""

import asyncio
from typing import TypedDict

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langgraph.callbacks import GraphCallbackHandler, get_sync_graph_callback_manager_for_config
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, record


class Told(GraphCallbackHandler):
    def __init__(self):
        self.events = []

    def on_interrupt(self, e):
        self.events.append(("interrupt", e.status, e.checkpoint_ns, [i.value for i in e.interrupts], e.run_id is not None))

    def on_resume(self, e):
        self.events.append(("resume", e.status, e.checkpoint_ns, e.run_id is not None))


class AsyncTold(Told):
    async def on_interrupt(self, e):
        Told.on_interrupt(self, e)

    async def on_resume(self, e):
        Told.on_resume(self, e)


class Raises(GraphCallbackHandler):
    def __init__(self, raise_error=False):
        self.raise_error = raise_error

    def on_interrupt(self, e):
        raise ValueError("boom-interrupt")


class Plain(BaseCallbackHandler):
    def __init__(self):
        self.names = []

    def on_custom_event(self, name, data, **kw):
        self.names.append(name)


class S(TypedDict):
    a: str


def ask(s: S):
    return {"a": interrupt("q?")}


def b(s: S):
    return {"a": s["a"] + "!"}


def build(**kw):
    g = StateGraph(S)
    g.add_node(ask)
    g.add_node(b)
    g.add_edge(START, "ask")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=InMemorySaver(), **kw)


told, plain = Told(), Plain()
app = build(interrupt_after=["b"])
c = {"configurable": {"thread_id": "1"}, "callbacks": [plain, told]}
app.invoke({"a": ""}, c)
app.invoke(Command(resume="x"), c)
app.invoke(None, c)
record("node interrupt, resume, interrupt_after, resume", told.events)
record("plain handler", plain.names)

told = Told()
app = build(interrupt_before=["ask"])
c = {"configurable": {"thread_id": "1"}, "callbacks": [told]}
app.invoke({"a": ""}, c)
app.invoke(None, c)
app.invoke(Command(resume="y"), c)
app.invoke({"a": "new"}, c)
record("interrupt_before", told.events)

told = Told()
manager = CallbackManager.configure(inheritable_callbacks=[Plain()])
manager.add_handler(told)
build().invoke({"a": ""}, {"configurable": {"thread_id": "m"}, "callbacks": manager})
record("in a manager", told.events)

told = Told()
record("a raising handler is logged", build().invoke({"a": ""}, {"configurable": {"thread_id": "r"}, "callbacks": [Raises(), told]}))
record("others still told", told.events)
call("raise_error", build().invoke, {"a": ""}, {"configurable": {"thread_id": "re"}, "callbacks": [Raises(raise_error=True)]})

told = Told()
g = StateGraph(S)
g.add_node(ask)
g.add_edge(START, "ask")
call("no checkpointer", g.compile().invoke, {"a": ""}, {"callbacks": [told]})
record("no checkpointer events", told.events)


async def main():
    told = AsyncTold()
    app = build()
    c = {"configurable": {"thread_id": "a"}, "callbacks": [told]}
    await app.ainvoke({"a": ""}, c)
    await app.ainvoke(Command(resume="z"), c)
    return told.events


record("async", asyncio.run(main()))
m = get_sync_graph_callback_manager_for_config({"callbacks": [Plain(), Told()]})
record("one handler alone", [type(h).__name__ for h in get_sync_graph_callback_manager_for_config({"callbacks": Told()}).handlers])
record("manager for config", [type(h).__name__ for h in m.handlers])
call("bad callbacks", get_sync_graph_callback_manager_for_config, {"callbacks": 3})

told = Told()
sub = StateGraph(S)
sub.add_node(ask)
sub.add_edge(START, "ask")
parent = StateGraph(S)
parent.add_node("sub", sub.compile())
parent.add_edge(START, "sub")
app = parent.compile(checkpointer=InMemorySaver())
c = {"configurable": {"thread_id": "s"}, "callbacks": [told]}
app.invoke({"a": ""}, c)
app.invoke(Command(resume="z"), c)
record("a subgraph's resume", [(e[0], e[1], [n.split(":")[0] for n in e[2]]) for e in told.events])
