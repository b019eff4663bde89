"""Graphs the server tests register next to the reminders example.

A test server loads them with ``--graph NAME=tests.graphs:ATTR`` (started
with the repository root as its working directory, so ``tests`` imports).

* ``chain3``: START → a → b → c → END; each node adds 1 to ``n`` and its name
  to ``log``. Three supersteps, no I/O.
* ``gated``: one async node, ``work``, that waits until the test opens the
  gate named by the input's ``gate`` key (a file in the directory given by
  env ``GRAPHWIRE_TEST_GATES``), then logs the input's ``label``. With no
  gate it returns at once. The test decides when a run may finish, so tests
  of concurrency, queueing, cancellation and shutdown need no sleeps.
* ``failing``: ``prepare`` → ``explode``; ``explode`` raises
  ``ValueError`` while the state's ``fail`` is true.
* ``gated_question``: ``gated``'s node, which then asks "Go on with <label>?"
  (an interrupt) and logs ``<label>: <answer>``: a run that is open for as
  long as the test wants, then ends at an interrupt; its resume ends at END.
* ``gated_subgraph``: one node, ``team``, that runs ``gated`` as its subgraph.
* ``reminders_gated``: the reminders agent whose ``forecast`` tool waits for
  the gate named after its thread (``forecast-<thread_id>``) instead of sleeping.
* ``reminders_langchain_gated``: the same on LangChain (a chat model that streams
  its words as tokens, a ``ToolNode``), its forecast tool held by the same gate; its
  model says "Let me look that up." along with a tool call.
* ``shout``: one node that sends a custom event of the input's ``size``
  characters, then stores ``size``: a test sends an event larger than the
  server's send limit.
* ``memories``: one node, ``remember``, that keeps facts about a user in
  the store under ``("memories", user_id)``: the input's ``fact`` (if any)
  is stored under a key made from its text (``by: "node"``), then ``known``
  is set to the text of every memory there, in store order (what a client
  put through the store RPCs included).
* ``user_memories``: ``memories`` whose user comes from the run's context
  (``context_schema=UserContext``: ``user_id``, ``locale``), not the state:
  the node reads ``runtime.context`` and ``runtime.store``, and also sets
  ``greeting`` ("bonjour ada" for locale "fr").
* ``parallel``: two nodes in one superstep: ``fast`` returns at once and
  appends a line to the file ``runs-<label>`` in the gates directory (so a
  test counts how often it ran, whichever server ran it); ``slow`` waits for
  the input's ``gate``. Each logs its name.
* ``questions``: ``ask`` asks "first?" (an interrupt), then ``ask2`` asks
  "second?"; each answer is logged. Two answers to the first question: the
  second one must not answer the second question.
* ``cached``: ``lookup`` → ``reply``. ``lookup`` has a cache policy keyed
  by the input's ``city`` (ttl 10 minutes): it appends a line (its process
  id) to the file ``runs-<label>`` in the gates directory, as ``parallel``'s
  ``fast`` does, and sets ``forecast``; ``reply`` (no policy) logs it. A
  test counts how often ``lookup`` really ran, on whichever server.
* ``bulky``: START → a → b → c → END, each node setting ``blob`` to the
  input's ``size`` copies of its name (2 MB by default): three steps whose
  events are megabytes each, for callers that read slowly or not at all.
* ``burst``: one sync node, ``stream``, that writes the input's ``count``
  custom events of ``size`` characters each (``{"i": i, "token": ...}``) as
  fast as it can, in a tight loop, as a model's token stream does (its
  default, 24,000 of 1,000: 24 MB), then stores ``n`` (how many it wrote).
  With a ``label``, it then records its end as ``parallel``'s ``fast`` does
  (a sync node goes on to its end when its run was cancelled).
"""

from __future__ import annotations

import asyncio
import hashlib
import operator
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph, get_config, get_stream_writer, interrupt
from engine.runtime import Runtime
from engine.store.base import BaseStore
from engine.types import CachePolicy
from examples.reminders import build_graph

__all__ = [
    "BURST_COUNT", "BURST_SIZE", "GATE_ENV", "bulky", "burst", "cached", "chain3", "failing", "gate_path", "gated", "gated_question", "gated_subgraph", "letters", "memories",
    "memory_key", "parallel", "questions", "questions_team", "reminders_gated", "reminders_langchain_gated", "runs_path", "shout", "user_memories",
]  # fmt: skip

GATE_ENV = "GRAPHWIRE_TEST_GATES"
#: A gate nobody opens fails its run after this long, so a broken test ends.
GATE_GIVE_UP_SECONDS = 60.0
_POLL_SECONDS = 0.005


def gate_path(name: str) -> Path:
    """Where the gate ``name`` is: it is open once this file exists."""
    root = os.environ.get(GATE_ENV)
    if not root:
        raise RuntimeError(f"set {GATE_ENV} to a directory to use gated graphs")
    return Path(root) / name


async def wait_gate(name: str) -> None:
    """Wait (yielding the event loop) until the gate ``name`` is open."""
    path = gate_path(name)
    loop = asyncio.get_running_loop()
    give_up = loop.time() + GATE_GIVE_UP_SECONDS
    while not path.exists():
        if loop.time() > give_up:
            raise TimeoutError(f"gate {name!r} was never opened")
        await asyncio.sleep(_POLL_SECONDS)


# -- chain3 --------------------------------------------------------------------


class ChainState(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def _step(name: str) -> Any:
    def node(state: ChainState) -> dict[str, Any]:
        return {"n": state.get("n", 0) + 1, "log": [name]}

    node.__name__ = name
    return node


def _abc(state: type, make_node: Any) -> StateGraph:
    """START → a → b → c → END, each node ``make_node(name)``."""
    g = StateGraph(state)
    for name in ("a", "b", "c"):
        g.add_node(name, make_node(name))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    return g


chain3 = _abc(ChainState, _step)

# -- gated ---------------------------------------------------------------------


class GatedState(TypedDict, total=False):
    gate: str | None
    label: str
    log: Annotated[list, operator.add]


async def _work(state: GatedState) -> dict[str, Any]:
    gate = state.get("gate")
    label = state.get("label", "")
    get_stream_writer()({"waiting_for": gate, "label": label})
    if gate:
        await wait_gate(gate)
    return {"log": [label]}


def _one_node(state: type, name: str, node: Any) -> StateGraph:
    """START → ``name`` → END."""
    g = StateGraph(state)
    g.add_node(name, node)
    g.add_edge(START, name)
    g.add_edge(name, END)
    return g


gated = _one_node(GatedState, "work", _work)


async def _work_then_ask(state: GatedState) -> dict[str, Any]:
    gate, label = state.get("gate"), state.get("label", "")
    if gate:
        await wait_gate(gate)
    answer = interrupt(f"Go on with {label}?")
    return {"log": [f"{label}: {answer}"]}


gated_question = _one_node(GatedState, "work", _work_then_ask)

#: ``gated`` as a subgraph: the node ``team`` runs it (its ``work`` holds at the gate).
gated_subgraph = _one_node(GatedState, "team", gated.compile())

# -- failing -------------------------------------------------------------------


class FailingState(TypedDict, total=False):
    fail: bool
    log: Annotated[list, operator.add]


def _prepare(state: FailingState) -> dict[str, Any]:
    return {"log": ["prepared"]}


def _explode(state: FailingState) -> dict[str, Any]:
    if state.get("fail"):
        raise ValueError("explode was told to fail")
    return {"log": ["exploded"]}


def _sequence(state: type, *nodes: tuple[str, Any]) -> StateGraph:
    """START → the nodes, in order → END."""
    g = StateGraph(state)
    g.add_sequence(list(nodes))
    g.add_edge(START, nodes[0][0])
    g.add_edge(nodes[-1][0], END)
    return g


failing = _sequence(FailingState, ("prepare", _prepare), ("explode", _explode))

# -- memories --------------------------------------------------------------------


class MemoryState(TypedDict, total=False):
    user_id: str
    fact: str | None
    known: list[str]


def memory_key(text: str) -> str:
    """The key ``memories`` stores a fact under."""
    return "fact-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _remember(state: MemoryState, store: BaseStore) -> dict[str, Any]:
    namespace = ("memories", state["user_id"])
    fact = state.get("fact")
    if fact:
        store.put(namespace, memory_key(fact), {"text": fact, "by": "node"})
    return {"known": [m.value["text"] for m in store.search(namespace, limit=100)], "fact": None}


memories = _one_node(MemoryState, "remember", _remember)


@dataclass
class UserContext:
    """``user_memories``' context: who the turn is for, and how to greet them."""

    user_id: str
    locale: str = "en"


class TurnState(TypedDict, total=False):
    fact: str | None
    known: list[str]
    greeting: str


_HELLO = {"en": "hello", "fr": "bonjour", "no": "hei"}


def _remember_for(state: TurnState, runtime: Runtime[UserContext]) -> dict[str, Any]:
    ctx = runtime.context
    namespace = ("memories", ctx.user_id)
    fact = state.get("fact")
    if fact:
        runtime.store.put(namespace, memory_key(fact), {"text": fact, "by": "node"})
    known = [m.value["text"] for m in runtime.store.search(namespace, limit=100)]
    return {"known": known, "fact": None, "greeting": f"{_HELLO.get(ctx.locale, 'hello')} {ctx.user_id}"}


user_memories = StateGraph(TurnState, context_schema=UserContext)
user_memories.add_node("remember", _remember_for).add_edge(START, "remember").add_edge("remember", END)


def letters(texts: list[str]) -> list[list[float]]:
    """An embedding function for tests (``[store_index] embed = "tests.graphs:letters"``, dims 3):
    how many a, b and c a text holds."""
    return [[float(t.count("a")), float(t.count("b")), float(t.count("c"))] for t in texts]

# -- parallel --------------------------------------------------------------------


def runs_path(label: str) -> Path:
    """The file where ``parallel``'s ``fast`` node records each of its runs for ``label``."""
    return gate_path(f"runs-{label}")


async def _fast(state: GatedState) -> dict[str, Any]:
    with open(runs_path(state.get("label", "")), "a", encoding="utf-8") as f:
        f.write(f"{os.getpid()}\n")
    return {"log": ["fast"], **_clash(state, "fast")}


async def _slow(state: GatedState) -> dict[str, Any]:
    gate = state.get("gate")
    if gate:
        await wait_gate(gate)
    return {"log": ["slow"], **_clash(state, "slow")}


def _clash(state: GatedState, node: str) -> dict[str, Any]:
    """With the label "clash", ``parallel``'s two nodes both write it: their step fails (InvalidUpdateError)."""
    return {"label": node} if state.get("label") == "clash" else {}


def _parallel() -> StateGraph:
    g = StateGraph(GatedState)
    g.add_node("fast", _fast)
    g.add_node("slow", _slow)
    g.add_edge(START, "fast")
    g.add_edge(START, "slow")
    g.add_edge("fast", END)
    g.add_edge("slow", END)
    return g


parallel = _parallel()

# -- reminders with a gated forecast -------------------------------------------


def _reminders_gated() -> StateGraph:
    async def forecast_wait() -> None:
        # The hook gets no arguments; the gate is named after the thread (the
        # caller's id, as the graph sees it, not the server's storage key).
        await wait_gate("forecast-" + get_config()["configurable"]["thread_id"])

    return build_graph(forecast_wait=forecast_wait)


reminders_gated = _reminders_gated()


def _reminders_langchain_gated() -> StateGraph:
    """The LangChain reminders agent (a chat model streaming tokens, a ToolNode) with its
    forecast tool waiting for the gate ``forecast-<thread_id>``, as ``reminders_gated``'s;
    its model says "Let me look that up." with a tool call (tokens streamed before the tool)."""
    from examples.reminders_langchain import ScriptedChatModel
    from examples.reminders_langchain import build_graph as build_langchain

    class Narrating(ScriptedChatModel):
        def _reply(self, messages: list[Any]) -> Any:
            reply = super()._reply(messages)
            return reply.model_copy(update={"content": "Let me look that up."}) if reply.tool_calls and not reply.content else reply

    async def forecast_wait() -> None:
        await wait_gate("forecast-" + get_config()["configurable"]["thread_id"])

    return build_langchain(model=Narrating(), forecast_wait=forecast_wait)


reminders_langchain_gated = _reminders_langchain_gated()


# -- shout ---------------------------------------------------------------------


class ShoutState(TypedDict):
    size: int


def _shout(state: ShoutState) -> dict[str, Any]:
    get_stream_writer()({"text": "x" * state["size"]})
    return {"size": state["size"]}


shout = _one_node(ShoutState, "shout", _shout)


# -- questions -----------------------------------------------------------------


class QuestionsState(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _ask(state: QuestionsState) -> dict[str, Any]:
    return {"log": ["first:" + str(interrupt("first?"))]}


def _ask2(state: QuestionsState) -> dict[str, Any]:
    return {"log": ["second:" + str(interrupt("second?"))]}


questions = _sequence(QuestionsState, ("ask", _ask), ("ask2", _ask2))
#: ``questions`` as a subgraph: its questions are asked under the ``team`` task's namespace
questions_team = _one_node(QuestionsState, "team", questions.compile())

# -- bulky ---------------------------------------------------------------------

#: ``bulky``'s default blob: about 2 MB, so each of its events is megabytes.
BULKY_SIZE = 2 * 1024 * 1024


class BulkyState(TypedDict, total=False):
    size: int
    n: int
    blob: str


def _bulk(name: str) -> Any:
    def node(state: BulkyState) -> dict[str, Any]:
        return {"n": state.get("n", 0) + 1, "blob": name * state.get("size", BULKY_SIZE)}

    node.__name__ = name
    return node


bulky = _abc(BulkyState, _bulk)


# -- cached ------------------------------------------------------------------------


class CachedState(TypedDict, total=False):
    city: str
    label: str
    forecast: str
    log: Annotated[list, operator.add]


def _lookup(state: CachedState) -> dict[str, Any]:
    with open(runs_path(state.get("label", "")), "a", encoding="utf-8") as f:
        f.write(f"{os.getpid()}\n")
    return {"forecast": f"sunny in {state['city']}"}


def _city(state: CachedState) -> str:
    return state["city"]


cached = StateGraph(CachedState)
cached.add_node("lookup", _lookup, cache_policy=CachePolicy(key_func=_city, ttl=600))
cached.add_node("reply", lambda s: {"log": [s["forecast"]]})
cached.add_edge(START, "lookup").add_edge("lookup", "reply").add_edge("reply", END)


# -- burst ---------------------------------------------------------------------

#: ``burst``'s default: 24,000 events of 1,000 characters, about 24 MB of events from one node.
BURST_COUNT = 24_000
BURST_SIZE = 1_000


class BurstState(TypedDict, total=False):
    count: int
    size: int
    label: str
    n: int


def _stream(state: BurstState) -> dict[str, Any]:
    write = get_stream_writer()
    token = "t" * state.get("size", BURST_SIZE)
    count = state.get("count", BURST_COUNT)
    for i in range(count):
        write({"i": i, "token": token})
    if state.get("label"):  # the node is done writing, even when its run was cancelled long before
        with open(runs_path(state["label"]), "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    return {"n": count}


burst = _one_node(BurstState, "stream", _stream)
