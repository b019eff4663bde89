"""The functional API (``engine.func``), as LangGraph 1.2's (issue 18 item 8).

Observed on LangGraph 1.2.22 by ``tests/sidebyside/functional_api.py``: an
entrypoint is a graph of one node; its thread has an "input" version and,
once the function returns, one "loop" version; its tasks' results are
pending writes of the input version, so a resumed entrypoint runs again from
its first line and its finished tasks are not run again.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine.func import entrypoint, task
from engine.graph import START, StateGraph
from engine.types import Command, RetryPolicy, Send, interrupt

CFG = {"configurable": {"thread_id": "t"}}


class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def test_a_resumed_entrypoint_does_not_run_finished_tasks_again(checkpointer: Any) -> None:
    calls: list = []

    @task
    def add_one(x: int) -> int:
        calls.append(("add_one", x))
        return x + 1

    @task
    def ask(x: int) -> str:
        calls.append(("ask", x))
        return f"{x}:{interrupt({'question': x})}"

    @entrypoint(checkpointer=checkpointer)
    def wf(n: int) -> dict:
        calls.append(("wf", n))
        a = add_one(n).result()
        return {"a": a, "c": ask(a).result()}

    out = wf.invoke(1, CFG)
    (question,) = out["__interrupt__"]
    assert question.value == {"question": 2}
    assert calls == [("wf", 1), ("add_one", 1), ("ask", 2)]
    snap = wf.get_state(CFG)
    assert snap.values is None and snap.next == ("wf",) and snap.metadata["source"] == "input"
    assert [(t.name, t.interrupts) for t in snap.tasks] == [("wf", (question,))]
    calls.clear()
    assert list(wf.stream(Command(resume="yes"), CFG)) == [{"ask": "2:yes"}, {"wf": {"a": 2, "c": "2:yes"}}]
    assert calls == [("wf", 1), ("ask", 2)]  # add_one's result came from the checkpoint
    history = list(wf.get_state_history(CFG))
    assert [(h.metadata["source"], h.metadata["step"], h.values, h.next) for h in history] == [
        ("loop", 0, {"a": 2, "c": "2:yes"}, ()),
        ("input", -1, None, ("wf",)),
    ]
    assert [(t.name, t.result) for t in history[1].tasks] == [("wf", {"a": 2, "c": "2:yes"})]
    assert wf.get_state(CFG).values == {"a": 2, "c": "2:yes"}


def test_interrupts_in_tasks_and_in_the_entrypoint_are_answered_in_turn(checkpointer: Any) -> None:
    @task
    def ask(x: int) -> str:
        return f"{x}:{interrupt(x)}"

    @entrypoint(checkpointer=checkpointer)
    def wf(n: int) -> list:
        return [ask(n).result(), interrupt("direct"), ask(n + 1).result()]

    asked = [wf.invoke(1, CFG)["__interrupt__"][0].value]
    for answer in ("r1", "r2"):
        asked.append(wf.invoke(Command(resume=answer), CFG)["__interrupt__"][0].value)
    assert asked == [1, "direct", 2]
    assert wf.invoke(Command(resume="r3"), CFG) == ["1:r1", "r2", "2:r3"]
    assert len(list(wf.get_state_history(CFG))) == 2


def test_final_returns_one_value_and_saves_another_for_previous(checkpointer: Any) -> None:
    @entrypoint(checkpointer=checkpointer)
    def counter(n: int, *, previous: Any = None) -> entrypoint.final[int, int]:
        return entrypoint.final(value=previous, save=(previous or 0) + n)

    assert [counter.invoke(n, CFG) for n in (3, 4, 5)] == [None, 3, 7]
    assert counter.get_state(CFG).values == 7  # the value returned; previous holds 12
    assert counter.invoke(1, CFG) == 12
    # each call: an input version and a loop version
    assert [h.metadata["step"] for h in counter.get_state_history(CFG)] == [6, 5, 4, 3, 2, 1, 0, -1]


def test_retry_policies_and_continuing_after_an_error(checkpointer: Any) -> None:
    attempts = {"flaky": 0, "broken": 0}

    @task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=ValueError))
    def flaky(x: int) -> int:
        attempts["flaky"] += 1
        if attempts["flaky"] < 3:
            raise ValueError("not yet")
        return x * 2

    @task
    def broken(x: int) -> int:
        attempts["broken"] += 1
        if attempts["broken"] == 1:
            raise KeyError("first time")
        return x * 3

    @entrypoint(checkpointer=checkpointer)
    def wf(x: int) -> list:
        return [flaky(x).result(), broken(x).result()]

    with pytest.raises(KeyError):
        wf.invoke(2, CFG)
    assert attempts == {"flaky": 3, "broken": 1}
    assert wf.get_state(CFG).tasks[0].error is not None
    assert wf.invoke(None, CFG) == [4, 6]
    assert attempts == {"flaky": 3, "broken": 2}  # flaky's result was kept


def test_the_entrypoints_retry_policy_runs_it_again(checkpointer: Any) -> None:
    runs: list = []

    @task
    def add_one(x: int) -> int:
        runs.append("task")
        return x + 1

    @entrypoint(checkpointer=checkpointer, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False))
    def wf(x: int) -> int:
        runs.append("wf")
        y = add_one(x).result()
        if runs.count("wf") == 1:
            raise ConnectionError("once")  # retried by default (a ValueError is not: test_errors.py)
        return y

    assert wf.invoke(3, CFG) == 4
    assert runs == ["wf", "task", "wf", "task"]  # as LangGraph: the retry calls its tasks again


def test_sync_tasks_run_concurrently_and_futures_keep_call_order(checkpointer: Any) -> None:
    both = threading.Barrier(2, timeout=30)  # each task waits for the other: they must overlap

    @task
    def meet(x: int) -> int:
        both.wait()
        return x * 10

    @entrypoint(checkpointer=checkpointer)
    def wf(xs: list) -> list:
        futures = [meet(x) for x in xs]
        return [f.result() for f in futures]

    assert wf.invoke([1, 2], CFG) == [10, 20]


def test_async_entrypoints_await_tasks(checkpointer: Any) -> None:
    @task
    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    @task
    def triple(x: int) -> int:  # a sync task from async code: a future to await too
        return x * 3

    @entrypoint(checkpointer=checkpointer)
    async def wf(xs: list) -> dict:
        first = await double(xs[0])
        rest = await asyncio.gather(*[double(x) for x in xs[1:]])
        return {"first": first, "rest": list(rest), "tripled": await triple(xs[0])}

    assert asyncio.run(wf.ainvoke([1, 2, 3], CFG)) == {"first": 2, "rest": [4, 6], "tripled": 3}
    assert wf.invoke([5], {"configurable": {"thread_id": "sync face"}}) == {"first": 10, "rest": [], "tripled": 15}


def test_a_task_calling_a_task_that_asks(checkpointer: Any) -> None:
    ran: list = []

    @task
    def ask(x: int) -> str:
        ran.append("ask")
        return f"{x}:{interrupt(x)}"

    @task
    def outer(x: int) -> str:
        ran.append("outer")
        return ask(x).result() + "!"

    @entrypoint(checkpointer=checkpointer)
    def wf(x: int) -> str:
        return outer(x).result()

    assert wf.invoke(7, CFG)["__interrupt__"][0].value == 7
    assert wf.invoke(Command(resume="yes"), CFG) == "7:yes!"
    assert ran == ["outer", "ask", "outer", "ask"]


def test_stream_modes(checkpointer: Any) -> None:
    @task
    def add_one(x: int) -> int:
        return x + 1

    @entrypoint(checkpointer=checkpointer)
    def wf(x: int, *, writer: Any, config: Any) -> int:
        writer({"thread": config["configurable"]["thread_id"]})
        return add_one(x).result()

    assert list(wf.stream(1, CFG, stream_mode=["custom", "updates", "values"])) == [
        ("custom", {"thread": "t"}),
        ("updates", {"add_one": 2}),
        ("updates", {"wf": 2}),
        ("values", 2),
    ]
    chunks = list(wf.stream(5, CFG, stream_mode="checkpoints"))
    assert [(c["values"], c["next"], c["metadata"]["source"]) for c in chunks] == [(2, ["wf"], "input"), (6, [], "loop")]
    assert [(e.source, e.target, e.conditional) for e in wf.get_graph().edges] == [("__start__", "wf", False), ("wf", "__end__", True)]


def test_without_a_checkpointer() -> None:
    @task
    def add_one(x: int) -> int:
        return x + 1

    @entrypoint()
    def wf(x: int) -> int:
        return add_one(x).result() * 10

    assert wf.invoke(1) == 20
    assert list(wf.stream(1)) == [{"add_one": 2}, {"wf": 20}]


def test_a_task_outside_a_run_is_an_error() -> None:
    @task
    def add_one(x: int) -> int:
        return x + 1

    with pytest.raises(RuntimeError, match="inside a running"):
        add_one(1)


@pytest.mark.parametrize(
    "make",
    [
        lambda: entrypoint()(_generator),
        lambda: task(_generator),
    ],
)
def test_options_not_honoured_are_refused(make: Any) -> None:
    with pytest.raises(NotImplementedError):
        make()


def _generator(x: int) -> Any:
    yield x


def test_command_update_as_input_is_refused(checkpointer: Any) -> None:
    @entrypoint(checkpointer=checkpointer)
    def wf(x: int) -> int:
        return x

    wf.invoke(1, CFG)
    with pytest.raises(NotImplementedError):
        wf.invoke(Command(update={"x": 1}), CFG)


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_finished_tasks_are_kept_in_every_durability(checkpointer: Any, durability: str) -> None:
    ran: list = []

    @task
    def one(x: int) -> int:
        ran.append(x)
        return x

    @task
    def ask(x: int) -> Any:
        return interrupt(x)

    @entrypoint(checkpointer=checkpointer)
    def wf(x: int) -> list:
        return [one(x).result(), ask(x).result()]

    assert wf.invoke(1, CFG, durability=durability)["__interrupt__"][0].value == 1
    assert wf.invoke(Command(resume="a"), CFG, durability=durability) == [1, "a"]
    assert ran == [1]


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_tasks_inside_graph_nodes(checkpointer: Any, kind: str) -> None:
    ran: list = []

    @task
    def double(x: int) -> int:
        ran.append(x)
        return x * 2

    @task
    def ask(x: int) -> Any:
        return interrupt(x)

    def node(s: S) -> dict:
        y = double(s["x"]).result()
        return {"x": y, "log": [ask(y).result()]}

    async def anode(s: S) -> dict:
        y = await double(s["x"])
        return {"x": y, "log": [await ask(y)]}

    g = StateGraph(S).add_node("node", node if kind == "sync" else anode).add_edge(START, "node").compile(checkpointer=checkpointer)
    assert g.invoke({"x": 2, "log": []}, CFG)["__interrupt__"][0].value == 4
    assert list(g.stream(Command(resume="ok"), CFG, stream_mode="updates")) == [{"ask": "ok"}, {"node": {"x": 4, "log": ["ok"]}}]
    assert ran == [2]
    assert [h.metadata["step"] for h in g.get_state_history(CFG)] == [1, 0, -1]


def test_an_interrupted_call_returns_the_last_dict_value_with_the_questions(checkpointer: Any) -> None:
    """As LangGraph 1.2 (tests/sidebyside/func_chat.py): at an interrupt, invoke returns the value
    the entrypoint returned last, when it is a dict, beside ``__interrupt__``; otherwise only that."""

    @task
    def ask(x: str) -> Any:
        return interrupt(f"ok {x}?")

    @entrypoint(checkpointer=checkpointer)
    def wf(x: Any) -> Any:
        if x == "ask":
            return {"answer": ask(x).result()}
        return {"plain": x} if isinstance(x, str) else x * 2

    cfg = {"configurable": {"thread_id": "dict"}}
    assert wf.invoke("first", cfg) == {"plain": "first"}
    asked = wf.invoke("ask", cfg)
    assert asked["plain"] == "first" and [i.value for i in asked["__interrupt__"]] == ["ok ask?"]
    assert wf.invoke(Command(resume="y"), cfg) == {"answer": "y"}
    cfg = {"configurable": {"thread_id": "int"}}
    assert wf.invoke(3, cfg) == 6
    assert list(wf.invoke("ask", cfg)) == ["__interrupt__"]


def test_the_tasks_mode_shows_writes_as_langgraph(checkpointer: Any) -> None:
    """tests/sidebyside/func_tasks_mode.py: a call's result is ``{"__return__": value}``, the
    entrypoint's ``{"__end__": value}``; on a resume the stored calls start again (their stored
    results are taken: no result chunk); a Send's task is triggered by ``__pregel_push``."""

    @task
    def double(x: int) -> int:
        return x * 2

    @task
    def ask(x: int) -> str:
        return interrupt("q?")

    @entrypoint(checkpointer=checkpointer)
    def wf(x: int) -> dict:
        return {"d": double(x).result(), "a": ask(x).result()}

    def shown(chunks: Any) -> list:
        return [(c["name"], c.get("result", c.get("triggers"))) for c in chunks]

    assert shown(wf.stream(1, CFG, stream_mode="tasks")) == [
        ("wf", ("__start__",)), ("double", ("__pregel_push",)), ("double", {"__return__": 2}),
        ("ask", ("__pregel_push",)), ("wf", {}),
    ]
    assert shown(wf.stream(Command(resume="yes"), CFG, stream_mode="tasks")) == [
        ("wf", ("__start__",)), ("double", ("__pregel_push",)), ("ask", ("__pregel_push",)),
        ("ask", {"__return__": "yes"}), ("wf", {"__end__": {"d": 2, "a": "yes"}}),
    ]
    g = StateGraph(S).add_node("sent", lambda a: {"log": [a["i"]]})
    g.add_conditional_edges(START, lambda s: [Send("sent", {"i": 5})], ["sent"])
    chunks = list(g.compile(checkpointer=checkpointer).stream({"x": 1, "log": []}, {"configurable": {"thread_id": "g"}},
                                                              stream_mode="tasks"))
    assert shown(chunks) == [("sent", ("__pregel_push",)), ("sent", {"log": [5]})]


def test_an_entrypoints_schemas_come_from_its_annotations():
    """As LangGraph: the input schema is the first parameter's type, the output ``entrypoint.final``'s value type."""
    @entrypoint()
    def count(items: list[int], *, previous: Any = None) -> entrypoint.final[int, list[str]]:
        return entrypoint.final(value=len(items), save=[])

    assert count.get_input_jsonschema() == {"items": {"type": "integer"}, "title": "LangGraphInput", "type": "array"}
    assert count.get_output_jsonschema() == {"title": "LangGraphOutput", "type": "integer"}
    assert count.invoke([1, 2]) == 2


def test_a_task_started_before_the_entrypoint_interrupts_runs_once(checkpointer: Any) -> None:
    """As LangGraph: the interrupt waits for the calls already started; the resume gets their stored results."""
    calls: list[int] = []

    @task
    def slow(x: int) -> int:
        calls.append(x)
        return x * 10

    @entrypoint(checkpointer=checkpointer)
    def flow(x: int) -> int:
        fut = slow(x)
        answer = interrupt("go?")
        return fut.result() + answer

    config = {"configurable": {"thread_id": "once"}}
    flow.invoke(2, config)
    assert flow.invoke(Command(resume=1), config) == 21
    assert calls == [2]


def test_an_entrypoint_reads_its_context_through_runtime_and_langgraphs_old_names_warn() -> None:
    from engine.runtime import Runtime
    from engine.warnings import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10

    class Ctx(TypedDict):
        model: str

    @entrypoint(context_schema=Ctx)
    def flow(x: int, runtime: Runtime[Ctx]) -> str:
        return f"{runtime.context['model']}:{x}:{runtime.previous}"

    assert flow.invoke(1, context={"model": "m"}) == "m:1:None"
    assert flow.get_context_jsonschema()["required"] == ["model"]
    with pytest.warns(LangGraphDeprecatedSinceV10, match="`config_schema` is deprecated and will be removed"):
        old = entrypoint(config_schema=Ctx)(lambda x: x)
    assert old.context_schema is Ctx
    with pytest.warns(LangGraphDeprecatedSinceV10, match="`get_config_jsonschema` is deprecated"):
        old.get_config_jsonschema()
    with pytest.warns(LangGraphDeprecatedSinceV05, match="`retry` is deprecated and will be removed. Please use `retry_policy`"):
        task(retry=RetryPolicy())(lambda x: x)
