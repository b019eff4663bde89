"""LangGraph's private config helpers (``langgraph._internal._config``), as its ecosystem and tests use them."""

from __future__ import annotations

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager

from engine._internal._config import (
    DEFAULT_RECURSION_LIMIT,
    _tracer_metadata,
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
