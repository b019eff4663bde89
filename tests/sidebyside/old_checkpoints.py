"""Issue 29: a thread written by an older LangGraph, put into the saver, then read and resumed.

The versions are LangGraph's strings ("<32-digit counter>.<random fraction>");
the channels are LangGraph 0.x's (``start:<node>``, ``branch:<src>:<cond>:<node>``,
a node's own channel in "v" 1); one version keeps its Sends in
``pending_sends``; the pending writes of a task are stored under LangGraph's
task id. The history, the state and a resume (at the newest version, and at
one the thread has moved past) are recorded.
"""

import hashlib
import operator
from typing import Annotated, TypedDict

import xxhash
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt

from observe import call, history, record


class State(TypedDict, total=False):
    q: str
    docs: Annotated[list, operator.add]
    answer: str


def route(state: State) -> str:
    return "retrieve"


def qa(state: State) -> dict:
    said = interrupt("ok?")
    return {"answer": f"{said}:{','.join(state['docs'])}"}


builder = StateGraph(State)
builder.add_node("rewrite", lambda s: {"q": s["q"] + "!"})
builder.add_node("retrieve", lambda s: {"docs": [s.get("q", "") + "-doc"]})
builder.add_node("qa", qa)
builder.add_edge(START, "rewrite")
builder.add_conditional_edges("rewrite", route, ["retrieve"])
builder.add_edge("retrieve", "qa")
builder.add_edge("qa", "__end__")


def v(n: int) -> str:
    """A version as LangGraph's InMemorySaver writes it."""
    return f"{n:032}.{0.25 + n / 100:016}"


def langgraph_task_id(ck: dict, step: int, node: str, triggers: list[str]) -> str:
    """The id LangGraph gives a node's task: a hash of the checkpoint id and the task's names."""
    key = bytes.fromhex(ck["id"].replace("-", ""))
    text = "".join([node, str(step), node, "__pregel_pull", *sorted(triggers)]).encode()
    h = hashlib.sha1(key + text).hexdigest() if ck["v"] == 1 else xxhash.xxh3_128_hexdigest(key + text)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def ck(n: int, version: int, values: dict, versions: dict, seen: dict, **extra) -> dict:
    return {
        "v": version, "id": f"1f00fd5f-2136-6{n:03x}-800{n}-a28f475a6478", "ts": f"2025-04-02T15:20:0{n}+00:00",
        "channel_values": values, "channel_versions": versions, "versions_seen": seen, **extra,
    }  # fmt: skip


def chain(version: int) -> list[tuple[dict, dict, list]]:
    """(checkpoint, metadata, pending writes by LangGraph's task id), oldest first."""
    c0 = ck(0, version, {"__start__": {"q": "hi"}}, {"__start__": v(1)}, {"__input__": {}})
    c1 = ck(
        1, version, {"q": "hi", "start:rewrite": "__start__"},
        {"__start__": v(2), "q": v(2), "start:rewrite": v(2)},
        {"__input__": {}, "__start__": {"__start__": v(1)}},
    )  # fmt: skip
    c2 = ck(
        2, version, {"q": "hi!", "branch:rewrite:route:retrieve": "rewrite"},
        {"__start__": v(2), "q": v(3), "start:rewrite": v(2), "branch:rewrite:route:retrieve": v(3)},
        {"__input__": {}, "__start__": {"__start__": v(1)}, "rewrite": {"start:rewrite": v(2)}},
    )  # fmt: skip
    c3 = ck(
        3, version, {"q": "hi!", "docs": ["hi!-doc"], "retrieve": "retrieve"},
        {"__start__": v(2), "q": v(3), "start:rewrite": v(2), "branch:rewrite:route:retrieve": v(3), "docs": v(4), "retrieve": v(4)},
        {
            "__input__": {}, "__start__": {"__start__": v(1)}, "rewrite": {"start:rewrite": v(2)},
            "retrieve": {"branch:rewrite:route:retrieve": v(3)},
        },
    )  # fmt: skip
    qa_id = langgraph_task_id(c3, 3, "qa", ["branch:to:qa"])
    writes = [(qa_id, "__interrupt__", []), (qa_id, "answer", "yes:hi!-doc")]
    return [
        (c0, {"source": "input", "step": -1, "parents": {}}, []),
        (c1, {"source": "loop", "step": 0, "parents": {}}, []),
        (c2, {"source": "loop", "step": 1, "parents": {}}, []),
        (c3, {"source": "loop", "step": 2, "parents": {}}, writes),
    ]


def store(saver, thread: str, versions: list[tuple[dict, dict, list]]) -> dict:
    config = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    parent, before = None, {}
    for checkpoint, metadata, writes in versions:
        where = {"configurable": {**config["configurable"], **({"checkpoint_id": parent} if parent else {})}}
        now = checkpoint["channel_versions"]
        stored = saver.put(where, checkpoint, metadata, {c: n for c, n in now.items() if before.get(c) != n})
        for task_id, channel, value in writes:
            saver.put_writes(stored, [(channel, value)], task_id)
        parent, before = checkpoint["id"], now
    return config


saver = InMemorySaver()
graph = builder.compile(checkpointer=saver)
for version in (1, 2):
    config = store(saver, f"v{version}", chain(version))
    history(graph, config, f"v{version} history")
    state = graph.get_state(config)
    record(f"v{version} state", [state.values, state.next, [(t.name, t.result) for t in state.tasks]])
    call(f"v{version} resume", graph.invoke, Command(resume="yes"), config)
    record(f"v{version} after", graph.get_state(config).values)
    older = [s for s in graph.get_state_history(config) if s.next == ("qa",)][0]
    call(f"v{version} resume at an older version", lambda: list(graph.stream(Command(resume="no"), older.config)))
    record(f"v{version} newest", graph.get_state(config).values)

# "v" 3: the Sends due next step kept in pending_sends
c0, m0, _ = chain(3)[0]
c1 = ck(
    1, 3, {"q": "hi"}, {"__start__": v(2), "q": v(2)}, {"__input__": {}, "__start__": {"__start__": v(1)}},
    pending_sends=[Send("retrieve", {"q": "sent"})],
)  # fmt: skip
config = store(saver, "sends", [(c0, m0, []), (c1, {"source": "loop", "step": 0, "parents": {}}, [])])
state = graph.get_state(config)
record("sends state", [state.values, state.next, [(t.name, t.path) for t in state.tasks]])
call("sends run", graph.invoke, None, config)
call("sends resumed", graph.invoke, Command(resume="yes"), config)

