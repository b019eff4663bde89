"""Over gRPC, a supervisor with two agent subgraphs (issue 17, the service), read by the Python client.

A real server runs ``examples.supervisor``: the agents' tokens arrive with
their namespace, the writer's interrupt is answered with Resume by id, and
GetState with ``subgraphs`` nests the writer's snapshot; ListHistory lists a
subgraph's versions by namespace; GetGraph nests each agent's drawing.
"""

from __future__ import annotations

from typing import Any

import pytest

from graphwire import FinishReason, MessageChunk, NotFound, TaskFinished


def test_a_supervisor_hands_off_streams_tokens_by_namespace_and_resumes_an_agent(server: Any, thread_id: str) -> None:
    with server.client() as client:
        events = list(client.stream("supervisor", thread_id, {"messages": [{"role": "user", "content": "tidal power"}]}, event_kinds=None))
        tokens: dict[str, str] = {}
        for e in events:
            if isinstance(e, MessageChunk):
                (ns,) = e.namespace
                tokens[ns.split(":")[0]] = tokens.get(ns.split(":")[0], "") + e.chunk["content"]
        assert tokens == {
            "researcher": "Notes on tidal power: three sources agree it matters, one disagrees.",
            "writer": "Draft: tidal power, explained in one paragraph from the researcher's notes.",
        }
        finished = [(e.namespace, e.node) for e in events if isinstance(e, TaskFinished)]
        assert [n for ns, n in finished if not ns] == ["__start__", "supervisor", "researcher", "writer"]
        assert {n for ns, n in finished if ns} == {"__start__", "research", "handoff", "draft", "approve"}
        end = events[-1]
        assert end.reason == FinishReason.INTERRUPT and not end.namespace
        (question,) = end.interrupts
        assert question.value["question"] == "Publish this draft?"

        state = client.get_state("supervisor", thread_id, subgraphs=True)
        (task,) = state.tasks
        assert task.node == "writer" and task.checkpoint_ns == f"writer:{task.task_id}"
        assert [i.interrupt_id for i in task.interrupts] == [question.interrupt_id]
        assert task.state is not None and task.state.next == ("approve",)
        assert [i.interrupt_id for i in task.state.interrupts] == [question.interrupt_id]
        inner = client.history("supervisor", thread_id, checkpoint_ns=task.checkpoint_ns)
        assert [h.checkpoint.source for h in inner] == ["loop", "loop", "input"]
        assert client.get_state("supervisor", thread_id, checkpoint_ns=task.checkpoint_ns).next == ("approve",)

        done = client.resume("supervisor", thread_id, resumes={question.interrupt_id: "yes"})
        assert done.reason == FinishReason.END
        assert [m["content"] for m in done.values["messages"]][-1] == "Published."
        assert [m.get("name") for m in done.values["messages"][1:]] == ["researcher", "writer", "writer"]


def test_a_namespace_that_names_no_subgraph_is_not_found(server: Any, thread_id: str) -> None:
    with server.client() as client:
        client.invoke("supervisor", thread_id, {"messages": [{"role": "user", "content": "x"}]})
        with pytest.raises(NotFound):
            client.get_state("supervisor", thread_id, checkpoint_ns="nowhere:1234")


def test_get_graph_nests_each_agents_drawing_and_list_graphs_does_not(server: Any) -> None:
    with server.client() as client:
        info = client.graph("supervisor")
        listed = next(g for g in client.graphs() if g.name == "supervisor")
    nodes = {n.name: n for n in info.nodes}
    assert list(nodes) == ["__start__", "supervisor", "researcher", "writer", "__end__"]
    assert nodes["supervisor"].subgraph is None and nodes["__start__"].subgraph is None
    researcher, writer = nodes["researcher"].subgraph, nodes["writer"].subgraph
    assert researcher is not None and writer is not None
    assert [n.name for n in researcher.nodes] == ["__start__", "research", "handoff", "__end__"]
    assert [n.name for n in writer.nodes] == ["__start__", "draft", "approve", "__end__"]
    assert {(e.source, e.target, e.conditional) for e in writer.edges} == {
        ("__start__", "draft", False), ("draft", "approve", False), ("approve", "__end__", False),
    }  # fmt: skip
    assert ("researcher", "writer", True) in {(e.source, e.target, e.conditional) for e in info.edges}
    assert all(n.subgraph is None for n in listed.nodes) and listed.edges == ()
