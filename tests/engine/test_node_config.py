"""Issue 18 item 7: the config a node receives, and what versions' metadata gains from the call's config.

Key by key as LangGraph 1.2.22 gives it (tests/sidebyside/node_config.py
prints both): ``configurable`` is the call's plus ``checkpoint_map``,
``checkpoint_id`` None and the task's ``checkpoint_ns``; ``metadata`` is the
call's plus ``thread_id`` (and a ``checkpoint_id`` the call named) and the
``langgraph_*`` keys; tags and ``recursion_limit`` are the call's; the run's
``run_id``/``run_name`` are not passed on; the ``config`` parameter is
``get_config()``.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.config import get_config
from engine.graph import START, StateGraph
from engine.types import Send


class S(TypedDict, total=False):
    seen: Annotated[list, operator.add]


SEEN: list[tuple[dict[str, Any], bool]] = []


def _graph(checkpointer: Any) -> Any:
    SEEN.clear()

    def first(state: S, config):
        SEEN.append((config, config is get_config()))
        return {"seen": ["first"]}

    def each(arg):
        SEEN.append((get_config(), True))
        return {"seen": ["each"]}

    b = StateGraph(S).add_node(first).add_node(each)
    b.add_edge(START, "first").add_conditional_edges("first", lambda s: [Send("each", 1)], ["each"])
    return b.compile(checkpointer=checkpointer)


CALL = {
    "configurable": {"thread_id": "t1", "user": "bob", "n": 3, "obj": {"a": 1}, "__hidden": 1},
    "tags": ["a"],
    "metadata": {"m": 1},
    "recursion_limit": 30,
    "run_name": "mine",
}


def test_a_node_gets_langgraphs_config(checkpointer):
    app = _graph(checkpointer)
    assert app.invoke({}, CALL)["seen"] == ["first", "each"]
    (first, same), (each, _) = SEEN
    assert same
    history = list(app.get_state_history({"configurable": {"thread_id": "t1"}}))
    input_version = history[-1].config["configurable"]["checkpoint_id"]
    conf = first["configurable"]
    assert conf["checkpoint_map"] == {"": history[-2].config["configurable"]["checkpoint_id"]} != {"": input_version}
    assert conf["checkpoint_id"] is None and conf["checkpoint_ns"].startswith("first:")
    assert {k: conf[k] for k in ("thread_id", "user", "n", "obj", "__hidden")} == CALL["configurable"]
    assert first["metadata"] == {
        "m": 1,
        "thread_id": "t1",
        "langgraph_step": 1,
        "langgraph_node": "first",
        "langgraph_triggers": ("branch:to:first",),
        "langgraph_path": ("__pregel_pull", "first"),
        "langgraph_checkpoint_ns": conf["checkpoint_ns"],
    }
    assert first["tags"] == ["a"] and first["recursion_limit"] == 30
    assert "run_id" not in first and "run_name" not in first
    assert each["metadata"]["langgraph_triggers"] == ("__pregel_push",)
    assert each["metadata"]["langgraph_path"] == ("__pregel_push", 0, False)


def test_versions_gain_the_calls_plain_configurable_keys(checkpointer):
    app = _graph(checkpointer)
    app.invoke({}, CALL)
    for snap in app.get_state_history({"configurable": {"thread_id": "t1"}}):
        meta = {k: v for k, v in snap.metadata.items() if k not in ("run_id", "source", "step", "parents")}
        assert meta == {"m": 1, "user": "bob", "n": 3}  # not the thread id, the object, nor "__" keys
    app.update_state({"configurable": {"thread_id": "t1", "who": "me"}}, {"seen": []})
    assert app.get_state({"configurable": {"thread_id": "t1"}}).metadata["who"] == "me"


def test_a_call_naming_a_version_puts_its_id_in_the_metadata(checkpointer):
    app = _graph(checkpointer)
    app.invoke({}, CALL)
    older = list(app.get_state_history({"configurable": {"thread_id": "t1"}}))[-2].config
    app.invoke(None, older)
    assert SEEN[-2][0]["metadata"]["checkpoint_id"] == older["configurable"]["checkpoint_id"]


def test_a_nodes_config_carries_its_runs_durability_under_langgraphs_key() -> None:
    """As LangGraph's nodes find it: ``configurable["__pregel_durability"]``, when the call chose one
    (``checkpoint_during`` maps onto it); absent otherwise."""
    import warnings

    seen: list[str] = []

    def node(state: dict[str, Any]) -> dict[str, Any]:
        seen.append(get_config()["configurable"].get("__pregel_durability"))
        return {}

    g = StateGraph(TypedDict("D", {"x": int}))  # type: ignore[operator]
    g.add_node("node", node)
    g.add_edge(START, "node")
    graph = g.compile()
    graph.invoke({"x": 1})
    graph.invoke({"x": 1}, durability="exit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph.invoke({"x": 1}, checkpoint_during=False)
    assert seen == [None, "exit", "exit"]
