"""Stream mode "tools": tool calls' starts, output deltas (ToolRuntime.emit_output_delta), ends and errors,
through create_react_agent and a ToolNode in a graph, beside "updates" and "messages", sync and async,
an interrupt and a resume, a subgraph's namespace, a tool called by hand, a nostream tool; the functional
API's tasks (their tools and models' tokens, their runs told to callbacks)."""

import asyncio
from typing import Annotated

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langchain_core.messages import ToolMessage
from langgraph.prebuilt import InjectedState, ToolNode, ToolRuntime, create_react_agent
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from observe import record


class State(TypedDict):
    messages: Annotated[list, add_messages]


@tool
def spell(word: str, runtime: ToolRuntime) -> str:
    """Spell a word letter by letter."""
    for letter in word:
        runtime.emit_output_delta(letter)
    runtime.emit_output_delta({"done": True, "call": runtime.tool_call_id})
    return word.upper()


@tool
async def aspell(word: str, runtime: ToolRuntime) -> str:
    """Spell a word, async."""
    for letter in word:
        runtime.emit_output_delta(letter)
    return word.upper()


@tool
def boom(reason: str) -> str:
    """Fail."""
    raise ValueError(f"no: {reason}")


@tool
def ask(question: str) -> str:
    """Ask the user."""
    return f"answer: {interrupt(question)}"


@tool
def plain(text: str) -> str:
    """Echo."""
    return text


class Agent(FakeMessagesListChatModel):
    """Answers in order, without streaming (a streamed tool call would need chunks of its own)."""

    def bind_tools(self, tools, **kwargs):
        return self


def calling(*calls):
    def caller(state: State) -> dict:
        return {"messages": [AIMessage("", id="ai", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls])]}

    return caller


def graph(caller, tools, **compile_kwargs):
    return (
        StateGraph(State)
        .add_node("caller", caller)
        .add_node("tools", ToolNode(tools))
        .add_edge(START, "caller")
        .add_edge("caller", "tools")
        .add_edge("tools", END)
        .compile(**compile_kwargs)
    )


def shown(chunks):
    """Chunks with each namespace's levels by node name (task ids differ between runs)."""
    out = []
    for chunk in chunks:
        if isinstance(chunk, tuple) and len(chunk) == 3:
            ns, mode, payload = chunk
            out.append([[level.split(":")[0] for level in ns], mode, payload])
        else:
            out.append(chunk)
    return out


# create_react_agent: the model asks for one call, the tool streams its letters, the model answers
agent = create_react_agent(
    Agent(responses=[AIMessage("", id="a1", tool_calls=[{"name": "spell", "args": {"word": "hi"}, "id": "c1"}]), AIMessage("done", id="a2")]),
    [spell],
)
record("agent tools+updates", list(agent.stream({"messages": [("user", "spell hi")]}, stream_mode=["tools", "updates"])))
agent = create_react_agent(
    Agent(responses=[AIMessage("", id="a1", tool_calls=[{"name": "spell", "args": {"word": "ok"}, "id": "c1"}]), AIMessage("done", id="a2")]),
    [spell],
)
record("agent tools only", list(agent.stream({"messages": [("user", "spell ok")]}, stream_mode="tools")))

# a ToolNode in a graph, sync and async, subgraphs=True
record("toolnode", list(graph(calling(("spell", {"word": "abc"}, "t1")), [spell]).stream({"messages": []}, stream_mode=["tools", "updates"], subgraphs=True)))


async def astreamed():
    g = graph(calling(("aspell", {"word": "xy"}, "t2")), [aspell])
    return [c async for c in g.astream({"messages": []}, stream_mode=["updates", "tools"])]


record("async tool", asyncio.run(astreamed()))

# two calls at once: each call's deltas under its own id
chunks = list(graph(calling(("spell", {"word": "ab"}, "p1"), ("spell", {"word": "cd"}, "p2")), [spell]).stream({"messages": []}, stream_mode="tools"))
by_id = {}
for payload in chunks:
    by_id.setdefault(payload["tool_call_id"], []).append((payload["event"], payload.get("delta")))
record("parallel", by_id)

# an error: tool-error then the run's exception (ToolNode's default handler raises all but bad arguments)
seen = []
try:
    for chunk in graph(calling(("boom", {"reason": "x"}, "e1")), [boom]).stream({"messages": []}, stream_mode=["tools"]):
        seen.append(chunk)
except ValueError as e:
    seen.append(("raised", str(e)))
record("error", seen)
handled = StateGraph(State).add_node("caller", calling(("boom", {"reason": "y"}, "e2"))).add_node("tools", ToolNode([boom], handle_tool_errors=True))
handled = handled.add_edge(START, "caller").add_edge("caller", "tools").compile()
record("handled error", list(handled.stream({"messages": []}, stream_mode="tools")))

# an interrupt: no tool-error; the resume starts the tool again
g = graph(calling(("ask", {"question": "ok?"}, "q1")), [ask], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
record("paused", list(g.stream({"messages": []}, config, stream_mode=["tools", "updates"])))
record("resumed", list(g.stream(Command(resume="yes"), config, stream_mode=["tools", "updates"])))

# a subgraph's tools: under its namespace with subgraphs=True; none without
inner = graph(calling(("spell", {"word": "in"}, "s1")), [spell])
outer = StateGraph(State).add_node("sub", inner).add_edge(START, "sub").compile()
record("subgraph", shown(outer.stream({"messages": []}, stream_mode=["tools"], subgraphs=True)))
record("subgraph hidden", list(outer.stream({"messages": []}, stream_mode=["tools"])))


# a node calling a tool by hand, then a chat model: "tools" and "messages" in the order they happen
def by_hand(state: State) -> dict:
    plain.invoke({"text": "first"})
    reply = GenericFakeChatModel(messages=iter(["one two"])).invoke("hi")
    return {"messages": [reply]}


hand = StateGraph(State).add_node("by_hand", by_hand).add_edge(START, "by_hand").compile()
out = []
for mode, payload in hand.stream({"messages": []}, stream_mode=["messages", "tools"]):
    if mode == "messages":
        out.append([mode, payload[0].content, payload[1]["langgraph_node"]])
    else:
        out.append([mode, payload])
record("by hand", out)


# a tool tagged nostream reports nothing; no "tools" mode, no tools chunks
def quiet(state: State) -> dict:
    plain.invoke({"text": "hush"}, {"tags": ["nostream"]})
    return {}


record("nostream", list(StateGraph(State).add_node("quiet", quiet).add_edge(START, "quiet").compile().stream({"messages": []}, stream_mode="tools")))
record("no tools mode", list(graph(calling(("spell", {"word": "z"}, "n1")), [spell]).stream({"messages": []}, stream_mode="updates")))


# bad arguments (a tool-error, then the ToolNode's error message), an unknown tool (no tool run);
# a tool answering with a Command, its injected state left out of the input
@tool
def num(n: int) -> int:
    """A number."""
    return n


@tool
def commands(x: str, state: Annotated[dict, InjectedState]) -> Command:
    """Answers with a Command."""
    return Command(update={"messages": [ToolMessage(f"via command, {len(state['messages'])} seen", tool_call_id="m3")]})


record("bad arguments", list(graph(calling(("num", {"n": "x"}, "m1"), ("nope", {}, "m2")), [num]).stream({"messages": []}, stream_mode=["tools", "updates"])))
record("command", list(graph(calling(("commands", {"x": "1"}, "m3")), [commands]).stream({"messages": []}, stream_mode=["tools", "updates"])))


# the functional API: a task's tool call and model tokens, a callback handler told of the task's run
@task
def chat_and_echo(text: str) -> str:
    plain.invoke({"text": text})
    return GenericFakeChatModel(messages=iter(["one two"])).invoke("hi").content


@entrypoint()
def workflow(inputs: dict) -> str:
    return chat_and_echo(inputs["text"]).result()


@task
async def achat_and_echo(text: str) -> str:
    await plain.ainvoke({"text": text})
    return (await GenericFakeChatModel(messages=iter(["one two"])).ainvoke("hi")).content


@entrypoint()
async def aworkflow(inputs: dict) -> str:
    return await achat_and_echo(inputs["text"])


def summary(chunks):
    return [[mode, payload["event"] if mode == "tools" else [payload[0].content, payload[1]["langgraph_node"]]] for mode, payload in chunks]


record("functional", summary(workflow.stream({"text": "t"}, stream_mode=["tools", "messages"])))


async def afunctional():
    return summary([c async for c in aworkflow.astream({"text": "t"}, stream_mode=["tools", "messages"])])


record("functional async", asyncio.run(afunctional()))


class Seen(BaseCallbackHandler):
    def __init__(self):
        self.seen = []

    def on_chain_start(self, serialized, inputs, *, name=None, **kwargs):
        self.seen.append(["chain", name])

    def on_tool_start(self, serialized, input_str, **kwargs):
        self.seen.append(["tool", serialized.get("name")])


handler = Seen()
workflow.invoke({"text": "u"}, {"callbacks": [handler]})
record("functional callbacks", handler.seen)
