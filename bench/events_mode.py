"""What the HTTP API's ``events`` stream mode (LangChain's callback events, issue 34) costs per run.

One graphwire service on SQLite in this process (no network), serving a
two-node graph (a fake chat model streaming a 12-word reply, then a plain
node) on LangGraph's runtime and on the engine. Each run is an Invoke on a
new thread, its events read to the end, with the event kinds of
``stream_mode=["values"]`` (``plain``) or ``["values", "events"]``
(``events``): the same run, with LangChain's event stream handler on every
runnable and each callback event made, converted and sent.

The two variants take turns, round after round (each going first in turn),
so a load that comes and goes on a shared machine falls on both alike. Per
runtime and variant: this process's CPU time per run (``time.process_time``:
the server and its caller are this process) and the median wall time per
run; ``cost`` is ``events``'s CPU per run against ``plain``'s. Nothing is
asserted. Last, for scale, LangGraph's own ``astream_events(version="v2")``
against ``astream`` on the same graph, in process.

    python bench/events_mode.py [--rounds 8] [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.checkpoint import SqliteSaver  # noqa: E402
from graphwire_proto.v1 import graphwire_pb2 as pb  # noqa: E402
from server._run_api import run_events  # noqa: E402
from server.app import build_server  # noqa: E402
from server.config import ServerConfig  # noqa: E402
from server.http._sse import event_kinds  # noqa: E402

GRAPH = '''
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

REPLY = " ".join(["word"] * 12)


async def talk(state):
    model = GenericFakeChatModel(messages=iter([AIMessage(content=REPLY)]))
    return {"messages": [await model.ainvoke(state["messages"])]}


def after(state):
    return {}


builder = StateGraph(MessagesState)
builder.add_node("talk", talk)
builder.add_node("after", after)
builder.add_edge(START, "talk")
builder.add_edge("talk", "after")
graph = builder.compile()
'''
INPUT = json.dumps({"messages": [{"type": "human", "content": "hi"}]})
VARIANTS = {"plain": ("values",), "events": ("values", "events")}


async def one_run(service: object, graph: str, modes: tuple[str, ...]) -> int:
    request = pb.InvokeRequest(graph=graph, thread_id=str(uuid.uuid4()), input_json=INPUT, event_kinds=event_kinds(modes))
    return sum([1 async for _ in run_events(service, request)])  # type: ignore[arg-type]


async def in_process(rounds: int, runs: int) -> None:
    """For scale: LangGraph's own ``astream_events(version="v2")`` against ``astream`` on the same graph, in process."""
    scope: dict[str, object] = {}
    exec(GRAPH, scope)  # noqa: S102 - the module text above
    graph: Any = scope["graph"]
    given = json.loads(INPUT)

    async def plain() -> None:
        [c async for c in graph.astream(given, stream_mode="values")]

    async def events() -> None:
        [c async for c in graph.astream_events(given, version="v2", stream_mode="values")]

    cpu = {"plain": 0.0, "events": 0.0}
    for r in range(rounds):
        for name, call in (("plain", plain), ("events", events)) if r % 2 == 0 else (("events", events), ("plain", plain)):
            c0 = time.process_time()
            for _ in range(runs):
                await call()
            cpu[name] += time.process_time() - c0
    total = rounds * runs
    print(
        f"in-process LangGraph: astream {cpu['plain'] / total * 1000:.2f} ms, astream_events {cpu['events'] / total * 1000:.2f} ms"
        f" CPU per run ({cpu['events'] / cpu['plain']:.2f}x)"
    )


async def main(rounds: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "lg_bench.py").write_text(GRAPH)
        (Path(tmp) / "engine_bench.py").write_text(GRAPH.replace("from langgraph.", "from engine."))
        graphs = {"langgraph": f"{tmp}/lg_bench.py:graph", "engine": f"{tmp}/engine_bench.py:graph"}
        config = ServerConfig(address="127.0.0.1:0", graphs=graphs, runtimes={"langgraph": "langgraph"})
        srv = await build_server(config, checkpointer=SqliteSaver(str(Path(tmp) / "bench.db")))
        try:
            for runtime in graphs:
                cpu = {v: 0.0 for v in VARIANTS}
                walls: dict[str, list[float]] = {v: [] for v in VARIANTS}
                sent = {v: 0 for v in VARIANTS}
                for name, modes in VARIANTS.items():  # warm up
                    await one_run(srv.service, runtime, modes)
                for r in range(rounds):
                    order = list(VARIANTS) if r % 2 == 0 else list(reversed(VARIANTS))
                    for name in order:
                        for _ in range(runs):
                            c0, w0 = time.process_time(), time.perf_counter()
                            sent[name] += await one_run(srv.service, runtime, VARIANTS[name])
                            walls[name].append(time.perf_counter() - w0)
                            cpu[name] += time.process_time() - c0
                total = rounds * runs
                for name in VARIANTS:
                    print(
                        f"{runtime:9} {name:6} cpu/run {cpu[name] / total * 1000:7.2f} ms  p50 wall {statistics.median(walls[name]) * 1000:7.2f} ms"
                        f"  events/run {sent[name] / total:5.1f}"
                    )
                print(f"{runtime:9} cost of events: {cpu['events'] / cpu['plain']:.2f}x CPU per run ({total} runs each)")
        finally:
            await srv.stop(grace=5)
    await in_process(rounds, runs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.runs))
