"""Over gRPC, a supervisor with two agent subgraphs (issue 17, the service), read by the Python client.

A real server runs ``examples.supervisor``: the agents' tokens arrive with
their namespace, the writer's interrupt is answered with Resume by id, and
GetState with ``subgraphs`` nests the writer's snapshot; ListHistory lists a
subgraph's versions by namespace.
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
