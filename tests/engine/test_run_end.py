"""How a run ends is the engine's: cancellation, storage failures, a host's resumes.

The pure part (:mod:`engine.pregel._resume`'s plan and check) is driven with
hand-built snapshots, as a table; the rest runs real graphs on every saver.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from engine import END, START, Command, StateGraph, interrupt
from engine import events as ev
from engine.errors import CheckpointError, InvalidResumeError, NotFoundError
from engine.pregel import Resume
from engine.pregel._resume import check_resume, is_resume_map, plan_resume
from engine.testing import thread
from engine.types import Interrupt, PregelTask, StateSnapshot

A, B = "a" * 32, "b" * 32


def snap(*, interrupts: tuple[Interrupt, ...] = (), next: tuple[str, ...] = (), cid: str = "ck1", exists: bool = True) -> StateSnapshot:
    tasks = tuple(PregelTask(f"t{n}", name, (), None, tuple(i for i in interrupts if i.value == name)) for n, name in enumerate(next))
    return StateSnapshot(
        {}, next, {"configurable": {"thread_id": "k", "checkpoint_id": cid}}, {"step": 0} if exists else None, None, None, tasks, interrupts
    )


ASKING = snap(interrupts=(Interrupt("ask", A), Interrupt("check", B)), next=("ask", "check"))
AT_BREAKPOINT = snap(next=("b",))
ENDED = snap()


# -- the plan, pure ------------------------------------------------------------
@pytest.mark.parametrize(
    ("state", "kwargs", "planned"),
    [
        (ASKING, {"answer": "yes"}, Resume({A: "yes"})),  # one answer: the first pending
        (ASKING, {"answer": {B: "not a map"}}, Resume({A: {B: "not a map"}})),  # an answer shaped like a map stays one
        (ASKING, {"answers": {B: 1}}, Resume({B: 1})),
        (AT_BREAKPOINT, {"answer": None}, Resume(at="ck1", due=("b",))),  # a static breakpoint: continue
    ],
)
def test_plan_resume(state: StateSnapshot, kwargs: dict[str, Any], planned: Resume) -> None:
    assert plan_resume(state, thread="t", graph="g", **kwargs) == planned


@pytest.mark.parametrize(
    ("state", "kwargs", "error", "words"),
    [
        (snap(exists=False), {"answer": 1}, NotFoundError, ("'t' does not exist in graph 'g'",)),
        (ENDED, {"answer": 1}, InvalidResumeError, ("'t' has no pending interrupt",)),
        (AT_BREAKPOINT, {"answer": 1}, InvalidResumeError, ("no pending interrupt",)),  # an answer nobody asked for
        (ENDED, {"answers": {"x": 1}}, InvalidResumeError, ("no pending interrupt",)),
        (ASKING, {"answers": {"x": 1}}, ValueError, ("given: ['x'] are not interrupt ids", A)),
        (ASKING, {"answers": {"c" * 32: 1}}, InvalidResumeError, ("not pending;", f"pending now: {A} (ask), {B} (check)")),
    ],
)
def test_plan_resume_refuses(state: StateSnapshot, kwargs: dict[str, Any], error: type, words: tuple[str, ...]) -> None:
    with pytest.raises(error) as refused:
        plan_resume(state, thread="t", graph="g", answers_name="given", **kwargs)
    for w in words:
        assert w in str(refused.value)


def test_check_resume_once_the_thread_moved_on() -> None:
    check_resume(Resume({A: 1}), ASKING, thread="t")  # still pending: fine
    with pytest.raises(InvalidResumeError, match=r"\['a+'\] not pending any more \(answered while"):
        check_resume(Resume({A: 1}), snap(interrupts=(Interrupt("check", B),), next=("check",)), thread="t")
    with pytest.raises(InvalidResumeError, match="no pending interrupt to resume .answered while"):
        check_resume(Resume({A: 1}), ENDED, thread="t")
    check_resume(Resume(at="ck1", due=("b",)), AT_BREAKPOINT, thread="t")
    with pytest.raises(InvalidResumeError, match=r"moved on .* version ck1 \(next: \['b'\]\); no interrupt pending now \(the thread's last run ended\)"):
        check_resume(Resume(at="ck1", due=("b",)), snap(cid="ck2"), thread="t")


def test_is_resume_map_is_langgraphs_rule() -> None:
    assert is_resume_map({A: 1, B: 2}) and is_resume_map({})
    assert not is_resume_map({A: 1, "x": 2}) and not is_resume_map("yes") and not is_resume_map([A])


# -- runs ----------------------------------------------------------------------
class X(TypedDict):
    x: int


def asking(checkpointer: Any, got: list[Any]) -> Any:
    def ask(s: X) -> dict[str, int]:
        got.append(interrupt("q?"))
        return {"x": s["x"] + 1}

    g = StateGraph(X)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=checkpointer)


async def collect(events: Any) -> list[ev.Event]:
    return [e async for e in events]


def test_a_cancelled_run_ends_with_runfinished_cancelled_then_raises(checkpointer: Any) -> None:
    entered = asyncio.Event()

    async def wait(s: X) -> dict[str, int]:
        entered.set()
        await asyncio.Event().wait()  # until cancelled
        return {"x": 0}

    g = StateGraph(X)
    g.add_node("first", lambda s: {"x": s["x"] + 1})
    g.add_node("wait", wait)
    g.add_edge(START, "first")
    g.add_edge("first", "wait")
    app = g.compile(checkpointer=checkpointer)

    async def main() -> tuple[list[ev.Event], BaseException | None]:
        seen: list[ev.Event] = []

        async def run() -> None:
            async for e in app.aevents({"x": 1}, thread(), thread_name="caller's t1"):
                seen.append(e)

        task = asyncio.ensure_future(run())
        await entered.wait()
        task.cancel()
        try:
            await task
        except BaseException as e:  # noqa: BLE001 - what the task ended with
            return seen, e
        return seen, None

    seen, raised = asyncio.run(main())
    assert isinstance(raised, asyncio.CancelledError)  # the cancellation goes on after the event
    finished = [e for e in seen if isinstance(e, ev.RunFinished)]
    assert len(finished) == 1 and seen[-1] is finished[0]
    saved = [e for e in seen if isinstance(e, ev.CheckpointSaved)]
    assert finished[0].reason == "CANCELLED" and finished[0].error_type is None
    assert finished[0].checkpoint_id == saved[-1].checkpoint_id == app.get_state(thread()).config["configurable"]["checkpoint_id"]
    assert finished[0].values == {"x": 2}
    started = seen[0]
    assert isinstance(started, ev.RunStarted) and started.thread_id == "caller's t1"


def test_a_storage_failure_raises_checkpoint_error_without_runfinished(checkpointer: Any) -> None:
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_edge(START, "a")
    app = g.compile(checkpointer=checkpointer)
    seen: list[ev.Event] = []

    async def refuse(*args: Any, **kwargs: Any) -> Any:
        raise CheckpointError("injected: the database went away")

    async def main() -> None:
        async for e in app.aevents({"x": 1}, thread(), durability="sync"):
            seen.append(e)
            if isinstance(e, ev.CheckpointSaved):  # the input version landed; the next write fails
                checkpointer.aput = checkpointer.aput_many = refuse

    with pytest.raises(CheckpointError, match="injected"):
        asyncio.run(main())
    assert not any(isinstance(e, ev.RunFinished) for e in seen)
    assert isinstance(seen[0], ev.RunStarted)


def test_a_hosts_resume_is_a_map_by_id_whatever_the_answer_looks_like(checkpointer: Any) -> None:
    got: list[Any] = []
    app = asyncio.run(_asked(checkpointer, got))
    answer = {"0" * 32: "an answer that looks like a map of answers"}
    resume = asyncio.run(app.aplan_resume(thread(), answer=answer))
    assert list(resume.answers) == [app.get_state(thread()).interrupts[0].id]
    [*_, end] = asyncio.run(collect(app.aevents(resume, thread())))
    assert end.reason == "END" and got == [answer]


def test_a_planned_resume_refuses_a_question_answered_meanwhile(checkpointer: Any) -> None:
    got: list[Any] = []
    app = asyncio.run(_asked(checkpointer, got))
    resume = asyncio.run(app.aplan_resume(thread(), answer="late", thread_name="mine"))
    app.invoke(Command(resume="first"), thread())  # another call answers it first
    with pytest.raises(InvalidResumeError, match="thread 'mine' has no pending interrupt to resume .answered while"):
        asyncio.run(collect(app.aevents(resume, thread(), thread_name="mine")))
    assert got == ["first"]


def test_a_planned_continue_at_a_static_breakpoint(checkpointer: Any) -> None:
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("b", lambda s: {"x": s["x"] * 10})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    app = g.compile(checkpointer=checkpointer, interrupt_before=["b"])
    app.invoke({"x": 1}, thread())
    resume = asyncio.run(app.aplan_resume(thread(), answer=None))
    assert resume.answers == {} and resume.due == ("b",)
    [*_, end] = asyncio.run(collect(app.aevents(resume, thread())))
    assert end.reason == "END" and end.values == {"x": 20}
    with pytest.raises(InvalidResumeError, match="moved on while this Resume waited"):
        asyncio.run(collect(app.aevents(resume, thread())))  # the thread is past that breakpoint now


async def _asked(checkpointer: Any, got: list[Any]) -> Any:
    app = asking(checkpointer, got)
    out = await app.ainvoke({"x": 1}, thread())
    assert out["__interrupt__"]
    return app
