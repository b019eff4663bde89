"""An entrypoint served like a graph: an interrupt inside a task, resumed over gRPC (issue 18 item 8)."""

from __future__ import annotations

from typing import Any

from graphwire import FinishReason


def test_an_entrypoint_with_an_interrupt_in_a_task_is_resumed_over_grpc(start_server: Any, thread_id: str) -> None:
    server = start_server(graphs={"approval": "tests.functional_graphs:approval"})
    with server.client() as client:
        [info] = client.graphs()
        assert (info.name, info.description) == ("approval", "An approval workflow written with the functional API.")
        drawn = client.graph("approval")
        assert [n.name for n in drawn.nodes] == ["__start__", "approval", "__end__"]
        assert [(e.source, e.target, e.conditional) for e in drawn.edges] == [
            ("__start__", "approval", False),
            ("approval", "__end__", True),
        ]

        first = client.invoke("approval", thread_id, "tea")
        assert first.reason == FinishReason.INTERRUPT
        [question] = first.interrupts
        assert question.value == {"approve?": "draft #1 about tea"} and question.node == "approval"
        waiting = client.get_state("approval", thread_id)
        assert waiting.values is None and waiting.next == ("approval",)
        assert [(t.node, [i.value for i in t.interrupts]) for t in waiting.tasks] == [("approval", [question.value])]

        done = client.resume("approval", thread_id, {"ok": True, "note": "ship it"})
        assert done.reason == FinishReason.END
        # write_draft was not run again: its result came from the thread's checkpoint
        assert done.values == {"draft": "draft #1 about tea", "approved": True, "note": "ship it"}
        assert client.get_state("approval", thread_id).values == done.values
        history = client.history("approval", thread_id)
        assert [(h.metadata["source"], h.metadata["step"]) for h in history] == [("loop", 0), ("input", -1)]

        again = client.invoke("approval", f"{thread_id}-2", "coffee")
        assert again.interrupts[0].value == {"approve?": "draft #2 about coffee"}
