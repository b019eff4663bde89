"""The run hub in process: what watchers receive, and what it costs when nobody watches."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from engine import events as ev
from server._hub import VALUES_LIMIT, RunHub
from server._tenants import TENANT


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def a_run(track: Any, *, thread: str = "t1") -> None:
    """What the engine reports for a one-node run: start, input version, START, work, END."""
    track(ev.RunStarted("r1", f"g:{thread}", "g", None))
    track(ev.CheckpointSaved("c1", None, -1, "input", ("__start__",), created_at="2026-01-01T00:00:00+00:00"))
    track(ev.TaskStarted(-1, "t-start", "__start__"))
    track(ev.TaskFinished(-1, "t-start", "__start__", update={}))
    track(ev.CheckpointSaved("c2", "c1", 0, "loop", ("work",)))
    track(ev.TaskStarted(0, "t-work", "work"))


def drain(sub: Any) -> list[dict[str, Any]]:
    out = []
    while not sub._queue.empty():
        msg = sub._queue.get_nowait()
        out.append(msg)
    return out


def test_nobody_watching_builds_no_message_and_asks_nothing_more_of_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    hub = RunHub()
    built: list[Any] = []
    monkeypatch.setattr(hub, "_publish", built.append)
    assert hub.engine_kinds() == frozenset()
    track = hub.track("g", "t1", "r1")
    a_run(track)
    assert built == []
    # The live runs are kept all the same, for a watcher arriving mid-run.
    assert hub.live_runs() == [{"graph": "g", "thread_id": "t1", "run_id": "r1", "nodes": ["work"], "checkpoint_id": "c2"}]
    track(ev.RunFinished("END", "c3"))
    assert hub.live_runs() == []


def test_a_watcher_sees_the_run_move() -> None:
    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        assert hub.engine_kinds() == {ev.TaskStarted, ev.TaskFinished, ev.ValuesEvent, ev.MessageChunk, ev.ToolEvent}
        track = hub.track("g", "t1", "r1")
        a_run(track)
        track(ev.TaskFinished(0, "t-work", "work", update={"log": ["x"]}))
        track(ev.CheckpointSaved("c3", "c2", 1, "loop", ()))
        track(ev.RunFinished("END", "c3"))
        track.close()  # after RunFinished: nothing more
        msgs = [await sub.get(1) for _ in range(10)]
        assert sub._queue.empty()
        return msgs

    msgs = run(main())
    assert [(m["type"], m.get("node"), m.get("nodes")) for m in msgs] == [
        ("live", None, None),
        ("run_started", None, []),
        ("checkpoint_saved", None, ["__start__"]),
        ("node_started", "__start__", ["__start__"]),
        ("node_finished", "__start__", []),
        ("checkpoint_saved", None, ["work"]),
        ("node_started", "work", ["work"]),
        ("node_finished", "work", []),
        ("checkpoint_saved", None, []),
        ("run_finished", None, []),
    ]
    assert (msgs[-1]["reason"], msgs[-1]["checkpoint_id"]) == ("END", "c3")
    assert msgs[7]["error"] is None and msgs[7]["interrupted"] is False
    assert msgs[0]["runs"] == []
    assert {m["graph"] for m in msgs[1:]} == {"g"} and {m["thread_id"] for m in msgs[1:]} == {"t1"}
    assert msgs[2]["checkpoint"] == {
        "checkpoint_id": "c1",
        "parent_id": None,
        "step": -1,
        "source": "input",
        "next": ["__start__"],
        "created_at": "2026-01-01T00:00:00+00:00",
    }


def test_a_watcher_sees_the_state_held_and_what_a_node_calls() -> None:
    """Values per step, a chat model's tokens and a tool's progress, each naming the node (issue 35, items 3 and 4)."""

    class Chunk:  # what a chat model streams: something with a ``content``
        def __init__(self, content: Any) -> None:
            self.content = content

    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        a_run(track)
        track(ev.ValuesEvent(0, {"messages": ["hi"]}))
        track(ev.MessageChunk(0, "t-work", "work", Chunk("Let me ")))
        track(ev.MessageChunk(0, "t-work", "work", Chunk([{"type": "text", "text": "look"}, "."])))
        started = {"event": "tool-started", "tool_call_id": "c1", "tool_name": "forecast", "input": {"city": "Oslo"}}
        track(ev.ToolEvent(0, "t-work", "work", started))
        assert hub.live_runs()[0]["nodes"] == ["work"]  # none of it moves the run
        return drain(sub)

    msgs = run(main())[-4:]
    assert [m["type"] for m in msgs] == ["values", "inner", "inner", "inner"]
    assert (msgs[0]["step"], msgs[0]["values"], msgs[0]["nodes"]) == (0, {"messages": ["hi"]}, ["work"])
    assert [(m["kind"], m["node"], m["task_id"], m["ns"]) for m in msgs[1:]] == [("message", "work", "t-work", [])] * 2 + [
        ("tool", "work", "t-work", [])
    ]
    assert [m["text"] for m in msgs[1:3]] == ["Let me ", "look."]
    assert msgs[3]["payload"]["input"] == {"city": "Oslo"}


def test_a_bulky_state_is_sent_as_its_size() -> None:
    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        a_run(track)
        track(ev.ValuesEvent(0, {"blob": "x" * VALUES_LIMIT}))
        track(ev.ValuesEvent(1, {"blob": "x" * 10}))
        return drain(sub)

    big, small = [m for m in run(main()) if m["type"] == "values"]
    assert (big["values"], big["values_bytes"]) == (None, VALUES_LIMIT + len('{"blob":""}'))
    assert small["values"] == {"blob": "x" * 10} and "values_bytes" not in small


def test_a_subgraphs_events_leave_the_run_at_its_node() -> None:
    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        a_run(track)  # at "work", which runs a subgraph
        ns = ("work:t-work",)
        track(ev.CheckpointSaved("s1", None, -1, "input", ("__start__",), ns=ns))
        track(ev.TaskStarted(0, "t-inner", "inner", ns=ns))
        track(ev.TaskFinished(0, "t-inner", "inner", update={}, ns=ns))
        assert hub.live_runs()[0]["nodes"] == ["work"] and hub.live_runs()[0]["checkpoint_id"] == "c2"
        return drain(sub)

    msgs = run(main())
    # The run stays at "work"; the subgraph's tasks come as what work calls ("inner"), nothing else of it.
    *before, started, finished = msgs
    assert before[-1]["type"] == "node_started" and before[-1]["node"] == "work"
    assert [(m["type"], m["kind"], m["ns"], m["node"], m["nodes"]) for m in (started, finished)] == [
        ("inner", "task_started", ["work:t-work"], "inner", ["work"]),
        ("inner", "task_finished", ["work:t-work"], "inner", ["work"]),
    ]


def test_run_finished_closes_the_run() -> None:
    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        track = hub.track("g", "t1", "r1")
        track(ev.RunStarted("r1", "g:t1", "g", "c0"))
        sub = hub.subscribe()  # arrives mid-run: told where it is
        track(ev.RunFinished("INTERRUPT", "c0"))
        return [await sub.get(1), await sub.get(1)]

    live, finished = run(main())
    assert live == {"type": "live", "runs": [{"graph": "g", "thread_id": "t1", "run_id": "r1", "nodes": [], "checkpoint_id": "c0"}]}
    assert (finished["type"], finished["reason"], finished["checkpoint_id"]) == ("run_finished", "INTERRUPT", "c0")


@pytest.mark.parametrize(("exc", "reason"), [(None, "CANCELLED"), (GeneratorExit(), "CANCELLED"), (RuntimeError("bug"), "ERROR")])
def test_a_call_that_ends_without_run_finished_still_ends_the_run(exc: BaseException | None, reason: str) -> None:
    async def main() -> dict[str, Any]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        track(ev.RunStarted("r1", "g:t1", "g", None))
        track.close(exc)
        msgs = [await sub.get(1) for _ in range(3)]
        assert hub.live_runs() == []
        return msgs[-1]

    last = run(main())
    assert (last["type"], last["reason"]) == ("run_finished", reason)


def test_a_run_that_never_started_is_not_reported() -> None:
    async def main() -> None:
        hub = RunHub()
        sub = hub.subscribe()
        hub.track("g", "t1", "r1").close(RuntimeError("NOT_FOUND before the run"))
        assert (await sub.get(1))["type"] == "live"
        with pytest.raises(TimeoutError):
            await sub.get(0.01)

    run(main())


def test_a_slow_watcher_gets_a_resync_instead_of_slowing_runs() -> None:
    async def main() -> list[dict[str, Any]]:
        hub = RunHub(max_pending=3)
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        a_run(track)  # 6 messages + "live": more than 3
        return [await sub.get(1)] + drain(sub)

    msgs = run(main())
    assert msgs == [{"type": "resync", "runs": [{"graph": "g", "thread_id": "t1", "run_id": "r1", "nodes": ["work"], "checkpoint_id": "c2"}]}]


def test_close_ends_every_subscription() -> None:
    async def main() -> None:
        hub = RunHub()
        sub = hub.subscribe()
        waiting = asyncio.ensure_future(sub.get())
        await asyncio.sleep(0)
        assert (await waiting)["type"] == "live"
        waiting = asyncio.ensure_future(sub.get())
        await asyncio.sleep(0)
        hub.close()
        assert await asyncio.wait_for(waiting, 1) is None
        assert [m async for m in sub] == []
        late = hub.subscribe()
        assert await late.get(1) is None
        assert not hub.watched

    run(main())


@contextlib.contextmanager
def as_tenant(tenant: str) -> Iterator[None]:
    """Calls made inside run as ``tenant``, as the auth interceptor runs a tenant's call."""
    reset = TENANT.set(tenant)
    try:
        yield
    finally:
        TENANT.reset(reset)


def test_each_tenant_watches_only_its_own_runs() -> None:
    async def main() -> None:
        hub = RunHub(max_pending=3)
        with as_tenant("acme"):
            acme = hub.subscribe()
            acme_run = hub.track("g", "t1", "r-acme")
        with as_tenant("globex"):
            globex = hub.subscribe()
            globex_run = hub.track("g", "t1", "r-globex")
        a_run(acme_run)  # overflows acme's watcher (max_pending=3): it gets a resync
        globex_run(ev.RunStarted("r-globex", "globex/g:t1", "g", None))

        acme_view = {"graph": "g", "thread_id": "t1", "run_id": "r-acme", "nodes": ["work"], "checkpoint_id": "c2"}
        with as_tenant("acme"):
            assert hub.live_runs() == [acme_view]
        with as_tenant("globex"):
            assert [r["run_id"] for r in hub.live_runs()] == ["r-globex"]
            late = hub.subscribe()  # arrives mid-run: told of its own tenant's run only
        assert hub.live_runs() == []  # no tenant: none of the tenants' runs
        # Read outside any tenant: what a watcher gets is fixed when it subscribed.
        assert await acme.get(1) == {"type": "resync", "runs": [acme_view]}
        assert [(m["type"], m.get("run_id")) for m in [await globex.get(1), await globex.get(1)]] == [
            ("live", None),
            ("run_started", "r-globex"),
        ]
        assert [r["run_id"] for r in (await late.get(1))["runs"]] == ["r-globex"]
        for sub in (acme, globex, late):
            with pytest.raises(TimeoutError):
                await sub.get(0.01)

    run(main())


def test_a_version_told_once_stored_leaves_the_run_at_the_node_it_reached_since() -> None:
    # A version is told saved once the run stores it (server._hub.Tracker with a Landing), which may be
    # after the run's next node started: the message says where the run is now, not where it was.
    from engine.host import Landing

    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        landing = Landing()
        landing.attached = True  # (as a run reporting its writes makes it)
        track.landing = landing
        a_run(track)  # c1 and c2 made, neither stored yet; work started
        landing.landed("c2")
        track.landed()
        return [await sub.get(1) for _ in range(7)]

    msgs = run(main())
    saved = [(m["checkpoint"]["checkpoint_id"], m["nodes"]) for m in msgs if m["type"] == "checkpoint_saved"]
    assert saved == [("c1", ["work"]), ("c2", ["work"])]
    assert [m["type"] for m in msgs][-2:] == ["checkpoint_saved", "checkpoint_saved"]


def test_a_run_whose_last_versions_go_with_its_end_is_told_saved_then_finished() -> None:
    # The server stores a run's last versions with its end's record (engine/pregel/_landing.py's LastWrite):
    # the engine's RunFinished comes first, the versions are stored after it. A watcher is told of them
    # saved, then of the end; a last write that fails is never told saved (the run's end says ERROR).
    from engine.host import Landing, LastWrite

    class Prepared:
        def __init__(self, fails: bool) -> None:
            self.fails = fails

        async def astore(self) -> None:
            if self.fails:
                raise RuntimeError("refused")

    async def main(fails: bool) -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        landing = Landing(takes_last=True)
        landing.attached = True
        landing.notify = track.landed
        track.landing = landing
        a_run(track)
        track(ev.TaskFinished(0, "t-work", "work", update={}))
        track(ev.CheckpointSaved("c3", "c2", 1, "loop", ()))
        landing.last = LastWrite(Prepared(fails), "c3", landing, {})  # handed over: c1 to c3 not stored yet
        track(ev.RunFinished("END", "c3"))
        assert hub.live_runs() != []  # not told finished before its versions are stored
        with contextlib.suppress(RuntimeError):
            await landing.last.astore()
        track.close(RuntimeError("refused") if fails else None)
        assert hub.live_runs() == []
        return drain(sub)

    told = [(m["type"], m.get("checkpoint", {}).get("checkpoint_id"), m.get("reason")) for m in run(main(False))]
    assert [t for t in told if t[0] in ("checkpoint_saved", "run_finished")] == [
        ("checkpoint_saved", "c1", None), ("checkpoint_saved", "c2", None), ("checkpoint_saved", "c3", None),
        ("run_finished", None, "END"),
    ]
    told = [(m["type"], m.get("reason")) for m in run(main(True))]
    assert [t for t in told if t[0] in ("checkpoint_saved", "run_finished")] == [("run_finished", "ERROR")]


def test_a_run_whose_last_write_was_never_tried_ends_when_its_call_does() -> None:
    # The call ended (its caller went away) before the last write was tried: the run leaves the live runs.
    from engine.host import Landing, LastWrite

    async def main() -> list[dict[str, Any]]:
        hub = RunHub()
        sub = hub.subscribe()
        track = hub.track("g", "t1", "r1")
        landing = Landing(takes_last=True)
        landing.attached = True
        track.landing = landing
        a_run(track)
        landing.last = LastWrite(object(), "c2", landing, {})
        track(ev.RunFinished("END", "c2"))
        track.close(asyncio.CancelledError())
        assert hub.live_runs() == []
        return drain(sub)

    told = [(m["type"], m.get("reason")) for m in run(main())]
    assert [t for t in told if t[0] in ("checkpoint_saved", "run_finished")] == [("run_finished", "CANCELLED")]
