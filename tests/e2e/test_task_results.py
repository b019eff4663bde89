"""Over gRPC, a version's tasks carry their results (issue 14 item 1), read by the Python client."""

from __future__ import annotations

from typing import Any


def test_history_and_state_carry_task_results(server: Any, thread_id: str) -> None:
    with server.client() as client:
        client.invoke("chain3", thread_id, {"n": 0, "log": []})
        history = client.history("chain3", thread_id)  # newest first: END, c, b, a, __start__
        assert [[(t.node, t.result) for t in h.tasks] for h in history] == [
            [],
            [("c", {"n": 3, "log": ["c"]})],
            [("b", {"n": 2, "log": ["b"]})],
            [("a", {"n": 1, "log": ["a"]})],
            [("__start__", {"n": 0, "log": []})],
        ]


def test_a_task_that_has_not_finished_has_no_result(server: Any, thread_id: str) -> None:
    with server.client() as client:
        result = client.invoke("reminders", thread_id, {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]})
        assert result.interrupts
        state = client.get_state("reminders", thread_id)
        [task] = state.tasks
        assert task.interrupts and task.result is None
