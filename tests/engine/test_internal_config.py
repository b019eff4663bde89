"""LangGraph's private config helpers (``langgraph._internal._config``), as its ecosystem and tests use them."""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager

from engine._internal._config import (
    DEFAULT_RECURSION_LIMIT,
    _tracer_metadata,
    ensure_config,
    merge_configs,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)
from engine.graph import StateGraph


def test_the_default_recursion_limit_is_an_int_of_a_type_of_its_own() -> None:
    assert DEFAULT_RECURSION_LIMIT == 10007 and isinstance(DEFAULT_RECURSION_LIMIT, int)
    assert type(DEFAULT_RECURSION_LIMIT) is not int  # a limit a caller sets to the same number is not "the default"


def test_a_new_manager_carries_the_configs_tags_then_the_given_ones() -> None:
    manager = get_async_callback_manager_for_config({"callbacks": None, "tags": ["a"]}, tags=["b"])
    assert isinstance(manager, AsyncCallbackManager)
    assert manager.inheritable_tags == ["a", "b"]
    assert get_callback_manager_for_config({}, tags=["x"]).inheritable_tags == ["x"]


def test_a_configs_own_manager_is_used_and_given_the_tags_and_metadata() -> None:
    own = CallbackManager.configure()
    manager = get_callback_manager_for_config({"callbacks": own, "metadata": {"user": "u1"}}, tags=["t"])
    assert manager is own
    assert "t" in own.tags and own.metadata["user"] == "u1"


def test_credentials_and_objects_in_the_configurable_are_not_traced() -> None:
    config = {"configurable": {"thread_id": "t1", "api_key": "s3cret", "Auth_Header": "x", "n": 3, "__pregel_x": 1, "obj": object()}}
    assert _tracer_metadata(config) == {"thread_id": "t1", "n": 3}
    assert _tracer_metadata({}) is None


def test_with_config_keeps_a_bound_recursion_limit_equal_to_the_default() -> None:
    builder = StateGraph(dict)
    builder.add_node("node", lambda state: state)
    builder.add_edge("__start__", "node")
    graph = builder.compile().with_config(recursion_limit=int(DEFAULT_RECURSION_LIMIT) + 1)
    assert graph.with_config(recursion_limit=int(DEFAULT_RECURSION_LIMIT)).config["recursion_limit"] == DEFAULT_RECURSION_LIMIT


def test_merge_configs_joins_lc_versions_one_level_and_copies_what_it_keeps() -> None:
    a_versions = {"langgraph": "1.2.4", "nested": {"a": 1}}
    a = {"metadata": {"lc_versions": a_versions, "mode": "bound"}, "tags": ["x", "y"]}
    b = {"metadata": {"lc_versions": {"langchain-core": "1.2.0", "nested": {"b": 2}}, "mode": {"from": "b"}}, "tags": ["x"]}
    merged = merge_configs(a, b)
    assert merged["metadata"] == {
        "lc_versions": {"langgraph": "1.2.4", "langchain-core": "1.2.0", "nested": {"b": 2}},  # one level, later wins
        "mode": {"from": "b"},
    }
    assert merged["tags"] == ["x", "y", "x"]  # joined in order, as LangGraph's
    assert merged["configurable"] == {}
    merged["metadata"]["lc_versions"]["langgraph"] = "changed"
    assert a_versions["langgraph"] == "1.2.4"  # the inputs are not changed
    assert merge_configs({"metadata": {"lc_versions": "runtime"}}, {"metadata": {"lc_versions": {"x": "1"}}})["metadata"] == {
        "lc_versions": {"x": "1"}
    }


def test_merge_configs_keeps_a_chosen_limit_over_the_filled_in_default() -> None:
    assert merge_configs({"recursion_limit": 50}, ensure_config())["recursion_limit"] == 50
    assert merge_configs({"recursion_limit": 50}, {"recursion_limit": 10007})["recursion_limit"] == 10007


def test_ensure_config_fills_every_key_and_puts_unknown_keys_in_the_configurable() -> None:
    out = ensure_config({"tags": ["a"], "metadata": {"lc_versions": {"p": "1"}}}, {"tags": ["b"], "thread_id": "t1"})
    assert out["tags"] == ["a", "b"] and out["callbacks"] is None and out["recursion_limit"] == DEFAULT_RECURSION_LIMIT
    assert out["configurable"] == {"thread_id": "t1"}
    assert out["metadata"] == {"lc_versions": {"p": "1"}, "thread_id": "t1"}  # the ids a tracer groups by


def test_ensure_config_inside_a_node_starts_from_the_callers_config_unless_a_thread_is_named() -> None:
    seen: dict[str, Any] = {}

    def node(state: dict[str, Any]) -> dict[str, Any]:
        seen["ambient"] = ensure_config({"tags": ["mine"]})
        seen["own"] = ensure_config({"configurable": {"thread_id": "other"}})
        return {}

    g = StateGraph(TypedDict("S", {"x": int}))  # type: ignore[operator]
    g.add_node("node", node)
    g.set_entry_point("node")
    g.compile().invoke({"x": 1}, {"configurable": {"user": "u1"}, "tags": ["call"]})
    assert seen["ambient"]["configurable"]["user"] == "u1"
    assert seen["ambient"]["tags"].count("call") == 1 and seen["ambient"]["tags"][-1] == "mine"
    assert seen["own"]["configurable"] == {"thread_id": "other"}  # a lineage of its own: no ambient configurable
