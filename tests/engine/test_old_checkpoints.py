"""A thread an older LangGraph wrote, put into our saver, read and resumed (issue 29).

Twin of tests/sidebyside/old_checkpoints.py: LangGraph 0.x's channels
(``start:<node>``, ``branch:<src>:<cond>:<node>``, a node's own channel in
"v" 1) read as ``branch:to:<node>``; ``pending_sends`` as the tasks channel;
a task's pending writes stored under LangGraph's task id matched to the
engine's task; a resume at a version the thread moved past runs that step's
finished tasks again.
"""

from __future__ import annotations

import hashlib
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.pregel._migrate import migrate_checkpoint
from engine.types import Command, Send, interrupt

xxhash = pytest.importorskip("xxhash")


class State(TypedDict, total=False):
    q: str
    docs: Annotated[list, operator.add]
    answer: str


def qa(state: State) -> dict:
    said = interrupt("ok?")
    return {"answer": f"{said}:{','.join(state['docs'])}"}


def _graph() -> Any:
    builder = StateGraph(State)
    builder.add_node("rewrite", lambda s: {"q": s["q"] + "!"})
    builder.add_node("retrieve", lambda s: {"docs": [s.get("q", "") + "-doc"]})
    builder.add_node("qa", qa)
    builder.add_edge(START, "rewrite")
    builder.add_conditional_edges("rewrite", lambda s: "retrieve", ["retrieve"])
    builder.add_edge("retrieve", "qa")
    builder.add_edge("qa", "__end__")
    return builder.compile(checkpointer=InMemorySaver())


def v(n: int) -> str:
    return f"{n:032}.{0.25 + n / 100:016}"


def _their_task_id(ck: dict[str, Any], step: int, node: str, triggers: list[str]) -> str:
    key = bytes.fromhex(ck["id"].replace("-", ""))
    text = "".join([node, str(step), node, "__pregel_pull", *sorted(triggers)]).encode()
    h = hashlib.sha1(key + text).hexdigest() if ck["v"] == 1 else xxhash.xxh3_128_hexdigest(key + text)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _ck(n: int, version: int, values: dict, versions: dict, seen: dict, **extra: Any) -> dict[str, Any]:
    return {
        "v": version, "id": f"1f00fd5f-2136-6{n:03x}-800{n}-a28f475a6478", "ts": f"2025-04-02T15:20:0{n}+00:00",
        "channel_values": values, "channel_versions": versions, "versions_seen": seen, **extra,
    }  # fmt: skip


def _chain(version: int) -> list[tuple[dict, dict, list]]:
    seen0 = {"__input__": {}, "__start__": {"__start__": v(1)}}
    c0 = _ck(0, version, {"__start__": {"q": "hi"}}, {"__start__": v(1)}, {"__input__": {}})
    c1 = _ck(1, version, {"q": "hi", "start:rewrite": "__start__"}, {"__start__": v(2), "q": v(2), "start:rewrite": v(2)}, seen0)
    versions2 = {"__start__": v(2), "q": v(3), "start:rewrite": v(2), "branch:rewrite:route:retrieve": v(3)}
    seen2 = {**seen0, "rewrite": {"start:rewrite": v(2)}}
    c2 = _ck(2, version, {"q": "hi!", "branch:rewrite:route:retrieve": "rewrite"}, versions2, seen2)
    versions3 = {**versions2, "docs": v(4), "retrieve": v(4)}
    seen3 = {**seen2, "retrieve": {"branch:rewrite:route:retrieve": v(3)}}
    c3 = _ck(3, version, {"q": "hi!", "docs": ["hi!-doc"], "retrieve": "retrieve"}, versions3, seen3)
    qa_id = _their_task_id(c3, 3, "qa", ["branch:to:qa"])
    meta = [{"source": "input", "step": -1, "parents": {}}] + [{"source": "loop", "step": i, "parents": {}} for i in range(3)]
    writes: list[list] = [[], [], [], [(qa_id, "__interrupt__", []), (qa_id, "answer", "yes:hi!-doc")]]
    return list(zip([c0, c1, c2, c3], meta, writes))


def _store(saver: InMemorySaver, thread: str, versions: list[tuple[dict, dict, list]]) -> dict[str, Any]:
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


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_thread_reads_and_resumes_as_on_langgraph(version: int) -> None:
    graph = _graph()
    config = _store(graph.checkpointer, f"v{version}", _chain(version))
    got = [(s.values, s.next, [(t.name, t.result) for t in s.tasks]) for s in graph.get_state_history(config)]
    assert got == [
        ({"q": "hi!", "docs": ["hi!-doc"]}, ("qa",), [("qa", {"answer": "yes:hi!-doc"})]),
        ({"q": "hi!", "docs": []}, ("retrieve",), [("retrieve", None)]),
        ({"q": "hi", "docs": []}, ("rewrite",), [("rewrite", None)]),
        ({"docs": []}, ("__start__",), [("__start__", None)]),
    ]
    # the resumed step takes qa's stored output (matched under LangGraph's task id)
    assert graph.invoke(Command(resume="yes"), config) == {"q": "hi!", "docs": ["hi!-doc"], "answer": "yes:hi!-doc"}
    # at the version the thread moved past, qa runs again
    older = next(s for s in graph.get_state_history(config) if s.next == ("qa",))
    assert list(graph.stream(Command(resume="no"), older.config)) == [{"qa": {"answer": "no:hi!-doc"}}]
    assert graph.get_state(config).values["answer"] == "no:hi!-doc"


def test_pending_sends_run_as_the_next_steps_sends() -> None:
    graph = _graph()
    c0 = _chain(3)[0][0]
    c1 = _ck(1, 3, {"q": "hi"}, {"__start__": v(2), "q": v(2)}, {"__input__": {}, "__start__": {"__start__": v(1)}},
             pending_sends=[Send("retrieve", {"q": "sent"})])  # fmt: skip
    config = _store(graph.checkpointer, "sends", [(c0, {"source": "input", "step": -1, "parents": {}}, []), (c1, {"source": "loop", "step": 0, "parents": {}}, [])])
    state = graph.get_state(config)
    assert (state.next, [t.path for t in state.tasks]) == (("retrieve",), [("__pregel_push", 0, False)])
    assert graph.invoke(None, config)["docs"] == ["sent-doc"]
    assert graph.invoke(Command(resume="yes"), config)["answer"] == "yes:sent-doc"


def test_migrating_merges_into_the_newest_version_and_moves_what_nodes_saw() -> None:
    ck: dict[str, Any] = {
        "v": 1, "id": "x", "ts": "",
        "channel_values": {"a": "a", "start:b": "s", "branch:a:c:b": "a"},
        "channel_versions": {"a": 5, "start:b": 2, "branch:a:c:b": 4, "__start__": 2},
        "versions_seen": {"b": {"start:b": 2, "branch:a:c:b": 3}, "__interrupt__": {"a": 5, "start:b": 2}},
    }  # fmt: skip
    migrate_checkpoint(ck, ["a", "b", "c"], [("a", "c"), ("__start__", "a"), ("c", "__end__")])  # type: ignore[arg-type]
    assert ck["channel_versions"] == {"__start__": 2, "branch:to:b": 4, "branch:to:c": 5}
    assert ck["channel_values"] == {"branch:to:b": "s", "branch:a:c:b": "a", "branch:to:c": "a"}
    assert ck["versions_seen"] == {"b": {"branch:to:b": 3}, "__interrupt__": {"branch:to:b": 2, "branch:to:c": 5}}
    today = {"v": 4, "id": "y", "ts": "", "channel_values": {"a": 1}, "channel_versions": {"a": 1}, "versions_seen": {}}
    migrate_checkpoint(today, ["a"], [])  # type: ignore[arg-type]
    assert today["channel_versions"] == {"a": 1}
