"""A host's ``linger``: an "async" run's writer waits a moment, so versions made meanwhile share its write."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.events import RunFinished
from engine.testing import checkpoint_ids, history_summary, thread

#: long enough that only the run's end (or a step that waits for a write) can end the wait
FOREVER = 60.0


class X(TypedDict):
    x: int


class Writes:
    """Each write's version ids, as the saver got them; ``changed`` is set after each."""

    def __init__(self, saver: Any) -> None:
        self.calls: list[list[str]] = []
        self.namespaces: list[set[str]] = []  # each write's checkpoint_ns
        self.changed = asyncio.Event()
        put, many = saver.aput, saver.aput_many
        inside = []  # a saver's aput_many may call its aput: one write all the same

        async def aput(config, checkpoint, metadata, new_versions):
            out = await put(config, checkpoint, metadata, new_versions)
            if not inside:
                self._saw([checkpoint["id"]], [config])
            return out

        async def aput_many(puts, *, writes=()):
            inside.append(True)
            try:
                out = await many(puts, writes=writes)
            finally:
                inside.pop()
            self._saw([cp["id"] for _, cp, _, _ in puts], [c for c, _, _, _ in puts])
            return out

        saver.aput, saver.aput_many = aput, aput_many

    def _saw(self, ids: list[str], configs: list[Any]) -> None:
        self.calls.append(ids)
        self.namespaces.append({c["configurable"].get("checkpoint_ns", "") for c in configs})
        self.changed.set()

    @property
    def written(self) -> list[str]:
        return [i for call in self.calls for i in call]


def chain(checkpointer: Any, length: int, waits_for: tuple[int, Any] | None = None) -> Any:
    """START → n0 → … → END; node ``waits_for[0]`` waits until ``waits_for[1]`` holds four versions."""

    def node(i: int) -> Any:
        async def run(s: X) -> X:
            if waits_for is not None and waits_for[0] == i:
                writes = waits_for[1]
                while len(writes.written) < 4:  # the input and the three steps before this one
                    writes.changed.clear()
                    await writes.changed.wait()
            return {"x": s["x"] + 1}

        return run

    g = StateGraph(X)
    g.add_sequence([(f"n{i}", node(i)) for i in range(length)])
    g.add_edge(START, "n0")
    g.add_edge(f"n{length - 1}", END)
    return g.compile(checkpointer=checkpointer)


async def _run(app: Any, config: dict[str, Any], linger: float) -> RunFinished:
    async def drive() -> RunFinished:
        last = None
        async for e in app.aevents({"x": 0}, config, linger=linger):
            last = e
        assert isinstance(last, RunFinished)
        return last

    return await asyncio.wait_for(drive(), 30)  # a wait the run's end does not cut short fails here, not hangs


def test_a_lingering_run_of_fast_steps_writes_every_version_in_one_write_at_its_end(checkpointer):
    writes = Writes(checkpointer)
    app = chain(checkpointer, 6)
    end = asyncio.run(_run(app, thread(), FOREVER))
    ids = list(reversed(checkpoint_ids(app, thread())))  # input, __start__, n0 … n5
    assert len(ids) == 8 and end.checkpoint_id == ids[-1]
    assert writes.calls == [ids]
    assert [s for _, s, _ in history_summary(app, thread())] == [6, 5, 4, 3, 2, 1, 0, -1]


def test_the_linger_runs_out_while_a_step_waits_and_what_waited_is_written_then(checkpointer):
    writes = Writes(checkpointer)
    app = chain(checkpointer, 6, waits_for=(2, writes))  # n2 goes on only once four versions are stored
    asyncio.run(_run(app, thread(), 0.01))
    ids = list(reversed(checkpoint_ids(app, thread())))
    assert writes.written == ids  # every version, in order, each once
    assert len(writes.calls) >= 2  # some were written while n2 waited, the rest after


def test_a_subgraph_s_run_lingers_as_its_parent_s(checkpointer):
    writes = Writes(checkpointer)
    inner = chain(None, 3)  # its versions go to its parent's saver, under the task's namespace
    g = StateGraph(X)
    g.add_node("sub", inner)
    g.add_edge(START, "sub")
    g.add_edge("sub", END)
    app = g.compile(checkpointer=checkpointer)
    end = asyncio.run(_run(app, thread(), FOREVER))
    assert end.reason == "END"
    # the subgraph's versions in one write as its run ends, then the parent's in one as it ends
    assert len(writes.calls) == 2 and writes.namespaces[1] == {""} and "" not in writes.namespaces[0]
    assert writes.calls[1] == list(reversed(checkpoint_ids(app, thread())))


@pytest.mark.parametrize("bad", [-1, 61, True, "0.1", None])
def test_a_linger_that_is_not_seconds_from_0_to_60_is_refused(checkpointer, bad):
    app = chain(checkpointer, 1)
    with pytest.raises(ValueError, match="linger must be a number of seconds from 0 to 60"):
        app.aevents({"x": 0}, thread(), linger=bad)


def test_a_resume_s_answers_cut_the_linger_short_even_before_the_writer_started(checkpointer):
    # The answers are stored right after the run's first version is queued, before its writer task
    # first ran: they must not wait out the linger (the server's Resume waited 50 ms each for it).
    from engine.types import Command, interrupt

    g = StateGraph(X)
    g.add_node("ask", lambda s: {"x": s["x"] + interrupt("how many?")})
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    app = g.compile(checkpointer=checkpointer)

    async def go() -> RunFinished:
        asked = [e async for e in app.aevents({"x": 0}, thread(), linger=FOREVER)][-1]
        assert isinstance(asked, RunFinished) and asked.reason == "INTERRUPT"
        return [e async for e in app.aevents(Command(resume=5), thread(), linger=FOREVER)][-1]

    done = asyncio.run(asyncio.wait_for(go(), 10))  # a write that waits out the linger fails here, not hangs
    assert done.reason == "END" and app.get_state(thread()).values == {"x": 5}
