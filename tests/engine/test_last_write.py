"""A host that takes a run's last write (``Landing(takes_last=True)``, engine/pregel/_landing.py).

The run hands the versions it still holds at its end to the host, prepared by the saver,
instead of writing them; its RunFinished names the last of them. A saver that prepares no
write (``prepare_many``: the SQL savers' have it), or a value the saver refuses, and the run
writes as ever. The host's side (storing them with the run's end) is
tests/checkpoint/test_run_end_with_versions.py and tests/server/test_run_end_write.py.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from engine import END, START, StateGraph
from engine.events import CheckpointSaved, RunFinished
from engine.host import Landing
from engine.testing import checkpoint_ids, thread
from tests.engine.test_writer_linger import FOREVER, Writes, X, chain


async def _events(app: Any, config: dict[str, Any], landing: Landing) -> list[Any]:
    async def drive() -> list[Any]:
        return [e async for e in app.aevents({"x": 0}, config, linger=FOREVER, landing=landing)]

    return await asyncio.wait_for(drive(), 30)


def test_a_run_hands_its_last_write_to_a_host_that_takes_it(checkpointer: Any) -> None:
    writes = Writes(checkpointer)
    app = chain(checkpointer, 3)
    landing = Landing(takes_last=True)
    events = asyncio.run(_events(app, thread(), landing))
    end = events[-1]
    assert isinstance(end, RunFinished) and end.reason == "END"
    made = [e.checkpoint_id for e in events if isinstance(e, CheckpointSaved)]  # input, __start__, n0, n1, n2
    if not hasattr(checkpointer, "prepare_many"):  # the run writes as ever
        assert landing.last is None and writes.calls == [made]
        assert landing.newest == end.checkpoint_id == made[-1]
        return
    last = landing.last
    assert last is not None and last.last_id == end.checkpoint_id == made[-1]
    assert writes.calls == [] and checkpoint_ids(app, thread()) == [] and landing.newest == ""  # nothing written yet
    asyncio.run(last.astore())  # the host's write (a server's: with the run's end, in one statement)
    assert list(reversed(checkpoint_ids(app, thread()))) == made and landing.newest == made[-1]
    assert landing.last is None  # tried: no longer the landing's


def test_a_last_write_the_saver_refuses_is_the_runs_own_failure_as_ever(checkpointer: Any) -> None:
    # A value the saver cannot store, in the versions the run still holds at its end: whether or not
    # a host takes the last write, the run stores the versions before it and ends in the refusal.
    g = StateGraph(X)
    g.add_node("fine", lambda s: {"x": s["x"] + 1})
    g.add_node("bad", lambda s: {"x": threading.Lock()})  # no saver stores a lock
    g.add_edge(START, "fine")
    g.add_edge("fine", "bad")
    g.add_edge("bad", END)
    app = g.compile(checkpointer=checkpointer)

    def ended(takes_last: bool) -> tuple[RunFinished, list[str], Landing]:
        config = thread(f"taken-{takes_last}")
        landing = Landing(takes_last=takes_last)
        events = asyncio.run(_events(app, config, landing))
        assert isinstance(events[-1], RunFinished)
        return events[-1], checkpoint_ids(app, config), landing

    taken, taken_ids, landing = ended(True)
    plain, plain_ids, _ = ended(False)
    assert landing.last is None  # nothing handed over
    assert taken.reason == plain.reason == "ERROR" and taken.error_type == plain.error_type is not None
    assert taken.error_type == "SerializationError"
    assert len(taken_ids) == len(plain_ids) == 3  # the versions before the refused one: input, __start__, fine


def test_a_run_stopped_by_an_interrupt_hands_over_its_record_with_its_last_versions(checkpointer: Any) -> None:
    from engine.types import Command, interrupt

    def ask(s: X) -> X:
        return {"x": s["x"] + interrupt("how many?")}

    g = StateGraph(X)
    g.add_node("first", lambda s: {"x": s["x"] + 1})
    g.add_node("ask", ask)
    g.add_edge(START, "first")
    g.add_edge("first", "ask")
    g.add_edge("ask", END)
    app = g.compile(checkpointer=checkpointer)

    def state(takes_last: bool) -> Any:
        config = thread(f"asked-{takes_last}")
        landing = Landing(takes_last=takes_last)
        events = asyncio.run(_events(app, config, landing))
        assert isinstance(events[-1], RunFinished) and events[-1].reason == "INTERRUPT"
        assert (landing.last is not None) == (takes_last and hasattr(checkpointer, "prepare_many"))
        if landing.last is not None:
            assert checkpoint_ids(app, config) == []  # the versions and the interrupt's record: with the end
            asyncio.run(landing.last.astore())
        return config, app.get_state(config)

    config, taken = state(True)
    _, plain = state(False)
    assert taken.next == plain.next == ("ask",)
    assert [i.value for t in taken.tasks for i in t.interrupts] == [i.value for t in plain.tasks for i in t.interrupts] == ["how many?"]
    assert app.invoke(Command(resume=10), config) == {"x": 11}  # the record read back: resumed as ever
