"""A LangGraph-run graph's store, chat model messages, parallel questions, node cache and context check over gRPC (issue 31 item 1).

The server is tests/server/test_langgraph_runtime_runs.py's, its graphs
tests/server/_langgraph_graphs.py's, each also served on the engine as
``engine_<name>`` to compare with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import FailedPrecondition, FinishReason, InvalidArgument, MessageChunk, ResourceExhausted, TaskFinished  # noqa: E402

from tests.conftest import ServerProcess  # noqa: E402
from tests.server._langgraph_graphs import graph_args  # noqa: E402
from tests.server.test_langgraph_runtime_runs import lg  # noqa: E402, F401 - the module's server

__all__: list[str] = []


def test_a_node_uses_the_servers_store(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        done = client.invoke("memo", thread_id, {"label": thread_id}, timeout=30)
        item = client.store.get_item(["notes", thread_id], "seen")
        client.store.put_item(["notes", thread_id], "other", {"label": "by the client"})
        again = client.invoke("memo", f"{thread_id}-2", {"label": thread_id}, timeout=30)
    assert done.reason is FinishReason.END and done.values["log"] == [1]
    assert item is not None and item.value == {"label": thread_id}
    assert again.values["log"] == [2]  # another thread sees the client's item and its own


def test_a_chat_models_tokens_stream_as_on_the_engine(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        runs = {name: list(client.stream(name, thread_id, {"label": "x"}, timeout=30)) for name in ("chat", "engine_chat")}
    chunks = {name: [e for e in events if isinstance(e, MessageChunk)] for name, events in runs.items()}
    assert chunks["chat"], runs["chat"]
    said = {name: [(e.node, e.step, _text(e.chunk)) for e in found] for name, found in chunks.items()}
    assert said["chat"] == said["engine_chat"]
    assert "".join(text for _, _, text in said["chat"]) == "hello there x"
    talk = next(e for e in runs["chat"] if isinstance(e, TaskFinished) and e.node == "talk")
    assert {e.task_id for e in chunks["chat"]} == {talk.task_id}
    assert runs["chat"][-1].values == runs["engine_chat"][-1].values == {"log": ["hello there x"], "label": "x"}


def _text(chunk: Any) -> str:
    return str(chunk.get("content") if isinstance(chunk, dict) else getattr(chunk, "content", chunk))


def test_two_parallel_questions_answered_by_id(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        asked = client.invoke("two_questions", thread_id, {"log": []}, timeout=30)
        assert asked.reason is FinishReason.INTERRUPT
        by_value = {i.value: i for i in asked.interrupts}
        assert set(by_value) == {"left?", "right?"} and {i.node for i in asked.interrupts} == {"left", "right"}
        state = client.get_state("two_questions", thread_id)
        assert {i.interrupt_id for i in state.interrupts} == {i.interrupt_id for i in asked.interrupts}
        done = client.resume(
            "two_questions", thread_id, resumes={by_value["left?"].interrupt_id: "L", by_value["right?"].interrupt_id: "R"}, timeout=30
        )
    assert done.reason is FinishReason.END and sorted(done.values["log"]) == ["left:L", "right:R"]


def test_a_cached_node_runs_once_per_key(lg: ServerProcess, thread_id: str) -> None:
    label = thread_id
    with lg.client() as client:
        first = client.invoke("cached", thread_id, {"label": label}, event_kinds=["task_finished"], timeout=30)
        second = client.invoke("cached", f"{thread_id}-2", {"label": label}, event_kinds=["task_finished"], timeout=30)
    assert first.values["log"] == second.values["log"] == [f"looked up {label}"]
    assert (lg.gates / f"lookups-{label}").read_text().splitlines() == ["lookup"]
    lookups = [e for e in second.events if isinstance(e, TaskFinished) and e.node == "lookup"]
    assert [(e.update, e.cached) for e in lookups] == [({"log": [f"looked up {label}"]}, True)]
    assert [e.cached for e in first.events if isinstance(e, TaskFinished) and e.node == "lookup"] == [False]


def test_a_context_field_not_in_its_schema_is_invalid(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        with pytest.raises(InvalidArgument, match="nope"):
            client.invoke("configured", thread_id, {"log": []}, context={"nope": 1}, timeout=30)


def test_a_graph_langgraph_cannot_draw_is_drawn_from_its_builder(lg: ServerProcess) -> None:
    """``cached``'s key function fails on the made-up state LangGraph draws with: ListGraphs still answers."""
    with lg.client() as client:
        listed = {g.name for g in client.graphs()}
        drawn = client.graph("cached")
    assert "cached" in listed
    assert [n.name for n in drawn.nodes] == ["__start__", "lookup", "__end__"]
    assert {(e.source, e.target, e.conditional) for e in drawn.edges} == {("__start__", "lookup", False), ("lookup", "__end__", False)}
    assert "LangGraph could not draw it (KeyError" in lg.log()


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_state_over_max_state_bytes_ends_the_call_as_on_the_engine(start_server: Any, tmp_path: Path, thread_id: str, durability: str) -> None:
    """A version over ``max_state_bytes``: the run's first one fails the call (RESOURCE_EXHAUSTED), a later one ends it ERROR."""
    graphs, args = graph_args(tmp_path)
    srv = start_server(graphs=graphs, args=[*args, "--max-state-bytes", "20000"])
    outcomes = {}
    with srv.client() as client:
        for name in ("gated", "engine_gated"):
            client.invoke(name, thread_id, {"gate": None, "label": "small"}, timeout=30)
            try:
                done = client.invoke(name, thread_id, {"label": "x" * 30_000}, durability=durability, timeout=30)
                outcomes[name] = (done.reason, done.error and done.error.type, done.checkpoint and done.checkpoint.step)
            except ResourceExhausted as e:
                outcomes[name] = ("RESOURCE_EXHAUSTED", "max_state_bytes" in e.message, None)
            assert client.get_state(name, thread_id).values["log"] == ["prepare", "small"]  # the thread keeps its last version
    assert outcomes["gated"] == outcomes["engine_gated"]


def test_no_input_on_a_new_thread_is_refused_as_on_the_engine(lg: ServerProcess, thread_id: str) -> None:
    with lg.client() as client:
        for name in ("gated", "engine_gated"):
            with pytest.raises(FailedPrecondition, match=": Received no input for __start__$"):
                client.invoke(name, thread_id, None, timeout=30)
            assert client.history(name, thread_id) == []


def test_a_spec_naming_no_attribute_lists_the_langgraph_graphs_there(start_server: Any, tmp_path: Path) -> None:
    graphs, args = graph_args(tmp_path)
    with pytest.raises(RuntimeError) as info:
        start_server(graphs={"gated": graphs["gated"].replace(":gated", ":gatd")}, args=["--runtime", "gated=langgraph"])
    assert "has no attribute 'gatd'" in str(info.value)
    listed = str(info.value).partition("it has ")[2].split("\n")[0]
    assert listed.startswith("sub, ask_graph, gated, flaky")  # LangGraph's builders and graphs, as the engine's are listed
    assert "double" not in listed  # a @task is no graph
