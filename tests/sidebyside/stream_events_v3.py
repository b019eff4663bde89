"""The v3 streaming protocol (astream_events / stream_events(version="v3")) on a graph with a
subgraph and a chat model: the main log (methods, namespaces, order), run.values, run.messages
(one stream per model call: its text deltas and message), run.lifecycle, run.subgraphs (each
handle's values and messages), output, an interrupt, a failing subgraph, a transformer of one's
own with a named channel, transformers=[UpdatesTransformer]; and the v2 parts beneath."""

import asyncio
import operator
from typing import Annotated

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.stream import StreamChannel, StreamTransformer
from langgraph.stream.transformers import UpdatesTransformer
from langgraph.types import interrupt
from typing_extensions import TypedDict

from observe import call, record


def ns(namespace):
    return [seg.split(":")[0] for seg in namespace]


def make_model():
    return GenericFakeChatModel(messages=iter(["inner says hi", "outer answers"]))


class State(MessagesState):
    done: bool


def build(model, *, fail=False, ask=False, checkpointer=None):
    def think(state: MessagesState):
        if fail:
            raise ValueError("inner broke")
        return {"messages": [model.invoke(state["messages"])]}

    def note(state: MessagesState):
        return {"messages": [AIMessage("a note", id="note-1")]}

    inner = StateGraph(MessagesState).add_node("think", think).add_node("note", note)
    inner = inner.add_edge(START, "think").add_edge("think", "note").compile()

    def answer(state: State):
        if ask:
            interrupt("sure?")
        return {"messages": [model.invoke(state["messages"])], "done": True}

    g = StateGraph(State).add_node("inner", inner).add_node("answer", answer)
    return g.add_edge(START, "inner").add_edge("inner", "answer").add_edge("answer", END).compile(checkpointer=checkpointer)


def event(e):
    data = e["params"]["data"]
    if e["method"] == "values":
        data = [(m.type, m.content if isinstance(m.content, str) else m.text) for m in data["messages"]]
    elif e["method"] == "messages":
        payload, meta = data
        data = (payload.get("event") if isinstance(payload, dict) else type(payload).__name__, meta.get("langgraph_node"))
    elif e["method"] == "lifecycle":
        data = {**data, "namespace": ns(data["namespace"]), "trigger_call_id": bool(data.get("trigger_call_id"))}
    return (e["seq"], e["method"], ns(e["params"]["namespace"]), data)


INPUT = {"messages": [("user", "hello")], "done": False}


async def main():
    run = await build(make_model()).astream_events(INPUT, version="v3")
    record("log", [event(e) async for e in run])
    record("output", [(m.type, m.text) for m in (await run.output())["messages"]])

    run = await build(make_model()).astream_events(INPUT, version="v3")
    streams = []
    async for s in run.messages:
        streams.append((s.node, [d async for d in s.text], (await s).text))
    record("root messages", streams)
    record("native keys", sorted(run.extensions))

    run = await build(make_model()).astream_events(INPUT, version="v3")
    handles = []
    async for h in run.subgraphs:
        values = [len(v["messages"]) async for v in h.values]
        handles.append((ns(h.path), h.graph_name, h.status, values))
    record("subgraph handles", handles)

    run = await build(make_model()).astream_events(INPUT, version="v3")
    async for h in run.subgraphs:
        texts = []
        async for s in h.messages:
            texts.append((s.node, (await s).text))
        record("subgraph messages", texts)
    await run.output()

    run = await build(make_model()).astream_events(INPUT, version="v3")
    record("lifecycle", [(p["event"], ns(p["namespace"]), p.get("graph_name")) async for p in run.lifecycle])

    saver = InMemorySaver()
    app = build(make_model(), ask=True, checkpointer=saver)
    run = await app.astream_events(INPUT, {"configurable": {"thread_id": "t"}}, version="v3")
    record("interrupted", (await run.interrupted(), [i.value for i in await run.interrupts()]))

    run = await build(make_model(), fail=True).astream_events(INPUT, version="v3")
    lifecycle = []
    try:
        async for p in run.lifecycle:
            lifecycle.append((p["event"], p.get("error")))
    except ValueError as e:
        lifecycle.append(("raised", str(e)))
    record("failing subgraph", lifecycle)

    async def aborted():
        run = await build(make_model()).astream_events(INPUT, version="v3")
        async with run:
            first = await run.values.__aiter__().__anext__()
        return len(first["messages"]), run._exhausted

    record("abort", await aborted())


asyncio.run(main())


class Steps(TypedDict):
    log: Annotated[list[str], operator.add]


class Counter(StreamTransformer):
    required_stream_modes = ("updates",)

    def __init__(self, scope=()):
        super().__init__(scope)
        self.channel = StreamChannel("steps")

    def init(self):
        return {"steps": self.channel}

    def process(self, event):
        if event["method"] == "updates" and not event["params"]["namespace"]:
            self.channel.push(sorted(event["params"]["data"]))
        return True


def step(name):
    return lambda s: {"log": [name]}


plain = StateGraph(Steps).add_node("a", step("a")).add_node("b", step("b")).add_edge(START, "a").add_edge("a", "b").compile()
run = plain.stream_events({"log": []}, version="v3", transformers=[Counter, UpdatesTransformer])
record("sync log", [(e["method"], e["params"]["data"]) for e in run])
run = plain.stream_events({"log": []}, version="v3", transformers=[Counter, UpdatesTransformer])
record("interleave", list(run.interleave("values", "updates", "steps")))
record("v2 parts", [(p["type"], p["ns"], p["data"], p.get("interrupts")) for p in plain.stream({"log": []}, stream_mode=["values", "updates"], version="v2")])
out = plain.invoke({"log": []}, version="v2")
record("v2 invoke", (type(out).__name__, out.value, out.interrupts))
call("stream_mode refused", plain.stream_events, {"log": []}, version="v3", stream_mode="values")
call("an instance refused", plain.stream_events, {"log": []}, version="v3", transformers=[Counter()])

from langgraph.channels import LastValue  # noqa: E402
from langgraph.pregel import NodeBuilder, Pregel  # noqa: E402

node = NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")
low = Pregel(nodes={"n": node}, channels={"a": LastValue(int), "b": LastValue(int)}, input_channels="a", output_channels="b",
             stream_transformers=[UpdatesTransformer])
run = low.stream_events(1, version="v3")
record("low-level Pregel(stream_transformers=)", (list(run.updates), run.output))
