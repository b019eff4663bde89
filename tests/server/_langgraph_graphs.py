"""The graphs of the LangGraph runtime's tests (tests/server/test_langgraph_runtime_*.py, tests/replicas/test_langgraph_failover.py).

One module's text, built with LangGraph's own imports, written where a test server
imports it; the same text with the engine's imports serves each graph on the engine
too (as ``engine_<name>``), so a test can compare the two runtimes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg

__all__ = ["GRAPHS", "NAMES", "NEVER", "backend", "graph_args", "served"]

#: LangGraph-built graphs (LangGraph's own imports only): ``ask`` (first → a subgraph that asks → last),
#: ``gated`` (``work`` waits for the gate its input names, then logs its label), ``flaky`` (``boom`` fails
#: until the gate ``fixed-<label>`` is open), ``loop`` (``spin`` forever) and ``parallel`` (``fast``, which
#: counts its runs in the file ``runs-<label>``, beside ``slow``, which waits for the gate its input names)
#: ``configured`` (``who`` logs its ``configurable``'s ``who`` and its context's ``user``), ``memo`` (puts an
#: item in the store under ``("notes", label)`` and logs how many are there), ``chat`` (a fake chat model's
#: reply, streamed), ``two_questions`` (two parallel nodes that each ask) and ``cached`` (``lookup``, cached by
#: label, counts its runs in the file ``lookups-<label>``), ``fanout`` (a Send per comma-separated part of
#: the label), ``commander`` (``choose`` goes to ``yes`` or ``no`` with a Command) and ``functional`` (an
#: entrypoint whose task doubles the label, then asks).
GRAPHS = '''
import asyncio
import operator
import os
from pathlib import Path
from typing import Annotated, TypedDict

from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing import Literal

from langgraph.func import entrypoint, task
from langgraph.types import CachePolicy, Command, Send, interrupt
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    gate: str
    label: str


def _gate(name):
    return Path(os.environ["GRAPHWIRE_TEST_GATES"]) / name


async def wait_gate(name):
    for _ in range(6000):
        if _gate(name).exists():
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(f"gate {name!r} was never opened")


def ask(state):
    return {"log": ["ask:" + interrupt({"question": "go on?", "seen": len(state["log"])})]}


sub = StateGraph(State)
sub.add_node("ask", ask)
sub.add_edge(START, "ask")

ask_graph = StateGraph(State)
ask_graph.add_node("first", lambda s: {"log": ["first"]})
ask_graph.add_node("sub", sub.compile())
ask_graph.add_node("last", lambda s: {"log": ["last"]})
ask_graph.add_edge(START, "first")
ask_graph.add_edge("first", "sub")
ask_graph.add_edge("sub", "last")
ask_graph.add_edge("last", END)


async def work(state):
    gate = state.get("gate")
    get_stream_writer()({"waiting_for": gate})
    if gate:
        await wait_gate(gate)
    return {"log": [state.get("label", "work")]}


gated = StateGraph(State)
gated.add_node("prepare", lambda s: {"log": ["prepare"]})
gated.add_node("work", work)
gated.add_edge(START, "prepare")
gated.add_edge("prepare", "work")


def boom(state):
    if not _gate("fixed-" + state["label"]).exists():
        raise ValueError("not fixed yet: " + state["label"])
    return {"log": ["boom"]}


flaky = StateGraph(State)
flaky.add_node("before", lambda s: {"log": ["before"]})
flaky.add_node("boom", boom)
flaky.add_edge(START, "before")
flaky.add_edge("before", "boom")



def fast(state):
    with _gate("runs-" + state["label"]).open("a") as f:
        f.write("fast\\n")
    return {"log": ["fast"]}


async def slow(state):
    await wait_gate(state["gate"])
    return {"log": ["slow"]}


parallel = StateGraph(State)
parallel.add_node("fast", fast)
parallel.add_node("slow", slow)
parallel.add_edge(START, "fast")
parallel.add_edge(START, "slow")



class Ctx(TypedDict, total=False):
    user: str


def who(state, config, runtime: Runtime[Ctx]):
    return {"log": [str(config["configurable"].get("who")), str((runtime.context or {}).get("user"))]}


configured = StateGraph(State, context_schema=Ctx)
configured.add_node("who", who)
configured.add_edge(START, "who")



def remember(state, runtime: Runtime[Ctx]):
    runtime.store.put(("notes", state["label"]), "seen", {"label": state["label"]})
    return {"log": [len(runtime.store.search(("notes", state["label"])))]}


memo = StateGraph(State, context_schema=Ctx)
memo.add_node("remember", remember)
memo.add_edge(START, "remember")


def talk(state):
    model = GenericFakeChatModel(messages=iter([AIMessage(content="hello there " + state["label"])]))
    return {"log": [model.invoke("hi").content]}


chat = StateGraph(State)
chat.add_node("talk", talk)
chat.add_edge(START, "talk")


def left(state):
    return {"log": ["left:" + interrupt("left?")]}


def right(state):
    return {"log": ["right:" + interrupt("right?")]}


two_questions = StateGraph(State)
two_questions.add_node("left", left)
two_questions.add_node("right", right)
two_questions.add_edge(START, "left")
two_questions.add_edge(START, "right")


def lookup(state):
    with _gate("lookups-" + state["label"]).open("a") as f:
        f.write("lookup\\n")
    return {"log": ["looked up " + state["label"]]}


cached = StateGraph(State)
cached.add_node("lookup", lookup, cache_policy=CachePolicy(key_func=lambda s: s["label"], ttl=600))
cached.add_edge(START, "lookup")



def split(state):
    return [Send("each", {"label": part}) for part in state["label"].split(",")]


fanout = StateGraph(State)
fanout.add_node("each", lambda s: {"log": ["each:" + s["label"]]})
fanout.add_conditional_edges(START, split, ["each"])


def choose(state) -> Command[Literal["yes", "no"]]:
    return Command(update={"log": ["chose"]}, goto="yes" if state["label"] == "y" else "no")


commander = StateGraph(State)
commander.add_node("choose", choose)
commander.add_node("yes", lambda s: {"log": ["yes"]})
commander.add_node("no", lambda s: {"log": ["no"]})
commander.add_edge(START, "choose")


@task
def double(text):
    return text + text


@entrypoint()
def functional(inputs):
    doubled = double(inputs["label"]).result()
    answer = interrupt("ok " + doubled + "?")
    return {"log": [doubled, answer]}


loop = StateGraph(State)
loop.add_node("spin", lambda s: {"log": ["spin"]})
loop.add_edge(START, "spin")
loop.add_edge("spin", "spin")
'''

NAMES = ("ask", "gated", "flaky", "loop", "parallel", "configured", "memo", "chat", "two_questions", "cached", "fanout", "commander", "functional")
#: a gate no test opens: the run waits until it is cancelled
NEVER = "never-opened"


def graph_args(directory: Path) -> tuple[dict[str, str], list[str]]:
    """The ``--graph`` specs of :data:`GRAPHS` (written to ``directory``) and the ``--runtime`` flags.

    Each graph is served twice: on LangGraph under its name, and on the engine (the same module,
    importing the engine's classes) as ``engine_<name>``.
    """
    (directory / "lg_graphs.py").write_text(GRAPHS)
    (directory / "engine_graphs.py").write_text(GRAPHS.replace("from langgraph.", "from engine."))
    graphs = {}
    for name in NAMES:
        attr = "ask_graph" if name == "ask" else name
        graphs[name] = f"{directory}/lg_graphs.py:{attr}"
        graphs[f"engine_{name}"] = f"{directory}/engine_graphs.py:{attr}"
    return graphs, [arg for name in NAMES for arg in ("--runtime", f"{name}=langgraph")]


@pytest.fixture(params=["langgraph", "engine"])
def served(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """The name a graph of :data:`GRAPHS` is served by on the runtime under test (LangGraph, then the engine).

    A test that takes it runs once per runtime: the same calls on the same module's graph, built with
    LangGraph's classes and with the engine's (``engine_<name>``), and the same assertions.
    """
    if request.param == "langgraph":
        return lambda name: name
    return lambda name: f"engine_{name}"


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """A test server's storage: a SQLite file (no options), then PostgreSQL (a schema of its own, dropped after)."""
    if request.param == "sqlite":
        yield {}
        return
    schema = new_schema_name()
    try:
        yield {"pg_dsn": require_pg(), "pg_schema": schema}
    finally:
        drop_schema(schema)
