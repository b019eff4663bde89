"""Node error handlers (issue 29), as LangGraph 1.2.22's: add_node(error_handler=), set_node_defaults().

The twin of tests/sidebyside/node_error_handlers.py, which checks the same against LangGraph.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.errors import NodeError
from engine.types import Command, RetryPolicy


class S(TypedDict):
    foo: str


class L(TypedDict):
    log: Annotated[list, operator.add]


def default_handler(state: L, error: NodeError) -> L:
    return {"log": [f"default:{error.node}"]}


def sub_handler(state: S, error: NodeError) -> S:
    return {"foo": f"{error.node}:{error.error}"}


def boom(state: Any) -> Any:
    raise ValueError("boom")


def _retry(n: int) -> RetryPolicy:
    return RetryPolicy(max_attempts=n, initial_interval=0, jitter=False, retry_on=ValueError)


def test_the_handler_gets_the_failure_after_the_retries_and_routes_on() -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []
    attempts: list[int] = []

    def bad(state: S) -> S:
        attempts.append(1)
        raise ValueError("boom")

    def handler(state: S, error: NodeError) -> Command:
        seen.append((error.node, repr(error.error), dict(state)))
        return Command(update={"foo": "handled"}, goto="after")

    graph = (
        StateGraph(S)
        .add_node("bad", bad, error_handler=handler, retry_policy=_retry(2))
        .add_node("after", lambda s: {"foo": s["foo"] + "_after"})
        .add_edge(START, "bad")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "t"}}
    chunks = list(graph.stream({"foo": ""}, config, stream_mode=["updates", "tasks"]))
    assert len(attempts) == 2
    assert seen == [("bad", "ValueError('boom')", {"foo": ""})]
    assert [c for mode, c in chunks if mode == "updates"] == [
        {"__error_handler__bad": {"foo": "handled"}},
        {"after": {"foo": "handled_after"}},
    ]
    # "tasks": the failed task starts and fails; the handler's only reports its result
    tasks = [(c["name"], "input" in c, repr(c.get("error"))) for mode, c in chunks if mode == "tasks"]
    assert tasks[:3] == [("bad", True, "None"), ("bad", False, "ValueError('boom')"), ("__error_handler__bad", False, "None")]
    states = list(graph.get_state_history(config))
    assert [s.values for s in states] == [{"foo": "handled_after"}, {"foo": "handled"}, {"foo": ""}, {}]
    step0 = states[2]
    assert [(t.name, t.error) for t in step0.tasks] == [("bad", "ValueError('boom')")]
    saved = graph.checkpointer.get_tuple(step0.config)
    assert sorted((c, v) for _, c, v in saved.pending_writes) == [
        ("__error__", "ValueError('boom')"), ("__error_source_node__", "bad"), ("branch:to:after", None), ("foo", "handled"),
    ]  # fmt: skip


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_a_failing_handler_fails_the_run_and_a_resume_runs_the_handler_not_the_node(durability: str) -> None:
    calls = {"node": 0, "handler": 0}
    crash = [True]
    errors: list[Any] = []

    def node(state: S) -> S:
        calls["node"] += 1
        raise RuntimeError("node failed")

    def handler(state: S, error: NodeError) -> S:
        calls["handler"] += 1
        errors.append(error.error)
        if crash[0]:
            raise RuntimeError("handler crash")
        return {"foo": "recovered"}

    graph = StateGraph(S).add_node("n", node, error_handler=handler).add_edge(START, "n").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="handler crash"):
        graph.invoke({"foo": ""}, config, durability=durability)
    assert calls == {"node": 1, "handler": 1}
    assert isinstance(errors[0], RuntimeError)
    crash[0] = False
    assert graph.invoke(None, config, durability=durability) == {"foo": "recovered"}
    assert calls == {"node": 1, "handler": 2}
    assert errors[1] == "RuntimeError('node failed')"  # what was stored of it, as LangGraph's resume gives it


def test_node_defaults_handle_every_node_but_one_with_its_own_and_retry_first() -> None:
    attempts: list[int] = []

    def flaky(state: L) -> L:
        attempts.append(1)
        raise ValueError("flaky")

    graph = (
        StateGraph(L)
        .set_node_defaults(retry_policy=_retry(2), error_handler=default_handler)
        .add_node("a", flaky)
        .add_node("b", boom, error_handler=lambda s: {"log": ["own handler"]})
        .add_node("ok", lambda s: {"log": ["ok"]})
        .add_edge(START, "a")
        .add_edge(START, "b")
        .add_edge(START, "ok")
        .compile()
    )
    assert graph.invoke({"log": []}) == {"log": ["default:a", "own handler", "ok"]}
    assert len(attempts) == 2


def test_a_handler_never_handles_a_handlers_failure() -> None:
    def broken(state: S, error: NodeError) -> S:
        raise RuntimeError("handler boom")

    graph = (
        StateGraph(S)
        .set_node_defaults(error_handler=lambda s: {"foo": "default"})
        .add_node("n", boom, error_handler=broken)
        .add_edge(START, "n")
        .compile()
    )
    with pytest.raises(RuntimeError, match="handler boom"):
        graph.invoke({"foo": ""})


def test_the_default_handlers_name_taken_by_a_node_is_refused() -> None:
    builder = (
        StateGraph(S)
        .set_node_defaults(error_handler=lambda s: s)
        .add_node("__default_error_handler__", lambda s: s)
        .add_edge(START, "__default_error_handler__")
    )
    with pytest.raises(ValueError, match="__default_error_handler__"):
        builder.compile()


def test_a_subgraphs_failure_is_handled_by_its_node_in_the_parent() -> None:
    sub = StateGraph(S).add_node("inner", boom).add_edge(START, "inner").compile()
    graph = (
        StateGraph(S)
        .add_node("sub", sub, error_handler=sub_handler)
        .add_edge(START, "sub")
        .compile()
    )
    assert graph.invoke({"foo": ""}) == {"foo": "sub:boom"}


def test_an_interrupt_is_not_a_failure() -> None:
    from engine.types import interrupt

    graph = (
        StateGraph(S)
        .add_node("ask", lambda s: {"foo": interrupt("?")}, error_handler=lambda s: {"foo": "handled"})
        .add_node("other", lambda s: {})
        .add_edge(START, "ask")
        .add_edge(START, "other")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"foo": ""}, config)
    assert [t.interrupts[0].value for t in graph.get_state(config).tasks if t.interrupts] == ["?"]


@pytest.mark.parametrize("parallel", [False, True])
def test_async_and_beside_siblings(parallel: bool) -> None:
    builder = StateGraph(L).add_node("bad", boom, error_handler=lambda s: {"log": ["handled"]}).add_edge(START, "bad")
    if parallel:
        builder.add_node("sibling", lambda s: {"log": ["sibling"]}).add_edge(START, "sibling")
    graph = builder.compile()
    assert asyncio.run(graph.ainvoke({"log": []})) == {"log": ["handled", "sibling"] if parallel else ["handled"]}
    assert [c[-1] for c in graph.stream({"log": []}, stream_mode=["custom", "values"])][-1]["log"][0] == "handled"
