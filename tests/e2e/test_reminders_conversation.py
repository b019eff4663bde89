"""The reminders conversation end to end: a real server, the Python client, and
the engine reading the same SQLite file in process.

invoke → the stream ends at an interrupt carrying the question → resume "yes"
→ the reminder tool ran → RunFinished END. Then what GetState/ListHistory say
over the wire must equal what the engine says in process about the same
stored versions: ids, parents, steps, sources, next, values, metadata, tasks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from graphwire import (
    EventKind,
    CheckpointSaved,
    CustomEvent,
    FinishReason,
    InterruptEvent,
    MessageChunk,
    RunFinished,
    RunStarted,
    TaskFinished,
    message_role,
)

from engine.checkpoint import SqliteSaver
from examples.reminders import graph as reminders_builder
from server._json import encode
from server.service import thread_key

QUESTION = "Add a reminder to call mom at 5pm?"
USER = {"role": "user", "content": "remind me to call mom at 5pm"}

#: invoke/resume/fork send only the first and last events unless asked for more.
ALL_KINDS = list(EventKind)


@pytest.fixture
def in_process(server: Any) -> Iterator[Any]:
    """The reminders graph compiled in this process on the server's SQLite file, read as a host reads it."""
    saver = SqliteSaver(str(server.db))
    saver.keeps_run_ids = True  # as the server's saver (engine.host.ScopedSaver sets it): which run wrote each version
    yield reminders_builder.compile(checkpointer=saver)
    saver.close()


def _json(value: Any) -> Any:
    return json.loads(encode(value))  # as the server sends it: LangChain messages in their dict form


def wire_view(s: Any) -> dict[str, Any]:
    """A graphwire.StateSnapshot as comparable plain data."""
    ref = s.checkpoint
    assert tuple(s.next) == tuple(ref.next)
    return {
        "id": ref.checkpoint_id,
        "parent": ref.parent_id,
        "step": ref.step,
        "source": ref.source,
        "next": tuple(s.next),
        "created_at": ref.created_at,
        "values": s.values,
        "metadata": s.metadata,
        "tasks": [(t.task_id, t.node, [(i.interrupt_id, i.value) for i in t.interrupts]) for t in s.tasks],
        "interrupts": [(i.interrupt_id, i.node, i.value) for i in s.interrupts],
    }


def engine_view(s: Any) -> dict[str, Any]:
    """An engine StateSnapshot as the same plain data."""
    parent = (s.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    return {
        "id": s.config["configurable"]["checkpoint_id"],
        "parent": parent,
        "step": s.metadata["step"],
        "source": s.metadata["source"],
        "next": tuple(s.next),
        "created_at": datetime.fromisoformat(s.created_at),
        "values": _json(s.values),
        "metadata": _json(s.metadata),
        "tasks": [(t.id, t.name, [(i.id, i.value) for i in t.interrupts]) for t in s.tasks],
        "interrupts": [(i.id, t.name, i.value) for t in s.tasks for i in t.interrupts],
    }


def test_conversation_interrupt_resume_end(server: Any, thread_id: str) -> None:
    with server.client() as client:
        events = list(client.stream("reminders", thread_id, {"messages": [USER]}, timeout=30))

        # The stream: RunStarted first, RunFinished last, the question in between.
        assert isinstance(events[0], RunStarted) and events[0].thread_id == thread_id
        assert events[0].checkpoint_id is None  # a new thread
        assert isinstance(events[-1], RunFinished)
        assert [e.seq for e in events] == sorted({e.seq for e in events})
        assert {e.run_id for e in events} == {events[0].run_id}
        asked = [e for e in events if isinstance(e, InterruptEvent)]
        assert [(e.node, e.value) for e in asked] == [("ask_user", QUESTION)]
        assert any(isinstance(e, CustomEvent) and e.node == "ask_user" for e in events)
        finished = events[-1]
        assert finished.reason is FinishReason.INTERRUPT
        assert [(i.interrupt_id, i.node, i.value) for i in finished.interrupts] == [(asked[0].interrupt_id, "ask_user", QUESTION)]
        assert finished.checkpoint is not None and finished.checkpoint.next == ("ask_user",)
        saved = [e.checkpoint for e in events if isinstance(e, CheckpointSaved)]
        assert [c.source for c in saved] == ["input", "loop", "loop"]
        assert finished.checkpoint.checkpoint_id == saved[-1].checkpoint_id

        waiting = client.get_state("reminders", thread_id)
        assert waiting.next == ("ask_user",)
        assert [i.value for i in waiting.interrupts] == [QUESTION]

        # Resume "yes": the tool runs, the model answers, END.
        resumed = client.resume("reminders", thread_id, "yes", event_kinds=ALL_KINDS, timeout=30)
        assert resumed.reason is FinishReason.END
        tool_updates = [e.update for e in resumed.events if isinstance(e, TaskFinished) and e.node == "tools"]
        assert tool_updates and tool_updates[0]["reminders"] == [{"text": "call mom", "at": "5pm"}]
        assert resumed.values["reminders"] == [{"text": "call mom", "at": "5pm"}]
        reply = resumed.values["messages"][-1]
        assert message_role(reply) == "assistant" and reply["content"] == "Done: I'll remind you to call mom at 5pm."
        chunks = [e.chunk["content"] for e in resumed.events if isinstance(e, MessageChunk) and e.chunk["id"] == reply["id"]]
        assert "".join(chunks) == reply["content"]
        assert resumed.checkpoint is not None and resumed.checkpoint.next == ()
        assert isinstance(resumed.events[0], RunStarted)
        assert resumed.events[0].checkpoint_id == finished.checkpoint.checkpoint_id

        # Every version the two runs reported is in the history, with its parent.
        history = client.history("reminders", thread_id)
        reported = saved + [e.checkpoint for e in resumed.events if isinstance(e, CheckpointSaved)]
        by_id = {s.checkpoint.checkpoint_id: s.checkpoint for s in history}
        for ref in reported:
            assert by_id[ref.checkpoint_id].parent_id == ref.parent_id
            assert by_id[ref.checkpoint_id].step == ref.step
            assert by_id[ref.checkpoint_id].next == ref.next


def test_wire_state_equals_in_process_engine(server: Any, thread_id: str, in_process: Any) -> None:
    with server.client() as client:
        first = client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30)
        assert first.interrupted
        config = {"configurable": {"thread_id": thread_key("reminders", thread_id)}}

        # At the interrupt: the pending question is in both views. The engine is read as a host reads
        # it (run_ids=True): the wire shows, in each version's metadata, the run that wrote it.
        assert wire_view(client.get_state("reminders", thread_id)) == engine_view(in_process.get_state(config, run_ids=True))

        assert client.resume("reminders", thread_id, "yes", timeout=30).reason is FinishReason.END
        wire_history = [wire_view(s) for s in client.history("reminders", thread_id)]
        engine_history = [engine_view(s) for s in in_process.get_state_history(config, run_ids=True)]

    assert wire_history == engine_history
    assert [(h["source"], h["step"], h["next"]) for h in wire_history] == [
        ("loop", 4, ()),
        ("loop", 3, ("model",)),
        ("loop", 2, ("tools",)),
        ("loop", 1, ("ask_user",)),
        ("loop", 0, ("model",)),
        ("input", -1, ("__start__",)),
    ]
    # One chain: each version's parent is the next one down.
    assert [h["parent"] for h in wire_history] == [h["id"] for h in wire_history[1:]] + [None]
    # Newest state: the same through GetState and in process.
    with server.client() as client:
        assert wire_view(client.get_state("reminders", thread_id)) == engine_history[0]
        # And an older version by id.
        older = engine_history[3]
        assert wire_view(client.get_state("reminders", thread_id, older["id"])) == older


def test_decline_goes_back_to_the_model(server: Any, thread_id: str) -> None:
    with server.client() as client:
        assert client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30).interrupted
        result = client.resume("reminders", thread_id, "no", timeout=30)
    assert result.reason is FinishReason.END
    assert result.values["reminders"] == []
    assert result.values["messages"][-1]["content"] == "OK, I won't remind you to call mom."


def test_graphs_are_described(server: Any) -> None:
    with server.client() as client:
        names = [g.name for g in client.graphs()]
        info = client.graph("reminders")
    assert names == sorted(names) and "reminders" in names and "chain3" in names
    assert [n.name for n in info.nodes] == ["__start__", "model", "ask_user", "tools", "__end__"]
    edges = {(e.source, e.target, e.conditional) for e in info.edges}
    assert ("__start__", "model", False) in edges
    assert ("tools", "model", False) in edges
    assert {("model", t, True) for t in ("ask_user", "tools", "__end__")} <= edges


def test_resume_by_interrupt_id(server: Any, thread_id: str) -> None:
    with server.client() as client:
        asked = client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30)
        (question,) = asked.interrupts
        done = client.resume("reminders", thread_id, resumes={question.interrupt_id: "yes"}, timeout=30)
    assert done.reason is FinishReason.END
    assert done.values["reminders"] == [{"text": "call mom", "at": "5pm"}]


def test_an_object_answer_is_one_answer(server: Any, thread_id: str) -> None:
    # A JSON object sent as *the* answer reaches the node as it is, even when
    # its keys look like interrupt ids (it is not read as a map of answers).
    with server.client() as client:
        asked = client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30)
        answer = {asked.interrupts[0].interrupt_id: "yes"}
        done = client.resume("reminders", thread_id, answer, timeout=30)
    assert done.reason is FinishReason.END
    assert done.values["reminders"] == []  # the node saw a dict, not "yes": it declined


def test_history_paging_and_filter(server: Any, thread_id: str) -> None:
    with server.client() as client:
        assert client.invoke("reminders", thread_id, {"messages": [USER]}, timeout=30).interrupted
        client.resume("reminders", thread_id, "yes", timeout=30)
        everything = [s.checkpoint.checkpoint_id for s in client.history("reminders", thread_id)]
        pages, before = [], None
        while True:
            page = client.history("reminders", thread_id, limit=2, before=before)
            if not page:
                break
            assert len(page) <= 2
            pages.append([s.checkpoint.checkpoint_id for s in page])
            before = page[-1].checkpoint.checkpoint_id
        step2 = client.history("reminders", thread_id, filter={"source": "loop", "step": 2})
    assert [i for p in pages for i in p] == everything and len(pages) == 3
    assert [(s.checkpoint.source, s.checkpoint.step, s.next) for s in step2] == [("loop", 2, ("tools",))]

