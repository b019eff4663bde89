"""The import swap: every name LangGraph 1.2 offers graph authors, kept or left out with a reason.

``LANGGRAPH`` pins, module by module, the public names of LangGraph 1.2.22
(their ``__all__``, or for modules without one the classes and functions a
program imports from them), as printed there. Each is importable from the
engine's module of the same path, or listed in ``LEFT_OUT`` with why.
"""

from __future__ import annotations

import importlib

import pytest

LANGGRAPH: dict[str, set[str]] = {
    "graph": {"END", "MessageGraph", "MessagesState", "START", "StateGraph", "add_messages"},
    "graph.message": {"MessageGraph", "MessagesState", "REMOVE_ALL_MESSAGES", "add_messages"},
    "graph.state": {"CompiledStateGraph", "StateGraph"},
    "types": {
        "All", "CachePolicy", "CheckpointPayload", "CheckpointStreamPart", "CheckpointTask", "Checkpointer", "Command",
        "CustomStreamPart", "DebugPayload", "DebugStreamPart", "Durability", "GraphOutput", "Interrupt",
        "MessagesStreamPart", "Overwrite", "PregelExecutableTask", "PregelTask", "RetryPolicy", "Send", "StateSnapshot",
        "StateUpdate", "StreamMode", "StreamPart", "StreamWriter", "TaskPayload", "TaskResultPayload", "TasksStreamPart",
        "TimeoutPolicy", "TracePolicy", "UpdatesStreamPart", "ValuesStreamPart", "ensure_valid_checkpointer",
        "interrupt", "omit_payload",
    },
    "errors": {
        "EmptyChannelError", "EmptyInputError", "ErrorCode", "GraphBubbleUp", "GraphDrained", "GraphInterrupt",
        "GraphRecursionError", "InvalidUpdateError", "NodeCancelledError", "NodeError", "NodeInterrupt",
        "NodeTimeoutError", "ParentCommand", "TaskNotFound", "UnknownInterruptError", "is_invalid_resume",
    },
    "config": {"get_config", "get_store", "get_stream_writer", "RunnableConfig", "StreamWriter"},
    "cache.base": {"BaseCache", "FullKey", "Namespace"},
    "cache.memory": {"InMemoryCache"},
    "cache.sqlite": {"SqliteCache"},
    "cache.redis": {"RedisCache"},
    "runtime": {"BaseUser", "ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime"},
    "prebuilt": {
        "InjectedState", "InjectedStore", "ToolCallTransformer", "ToolNode", "ToolRuntime", "ValidationNode",
        "create_react_agent", "tools_condition",
    },
    "prebuilt.chat_agent_executor": {
        "AgentState", "AgentStatePydantic", "AgentStateWithStructuredResponse",
        "AgentStateWithStructuredResponsePydantic", "create_react_agent", "create_tool_calling_executor",
        "StructuredResponse", "StructuredResponseSchema", "StateSchemaType", "Prompt",
    },
    "prebuilt.tool_node": {
        "InjectedState", "InjectedStore", "ToolNode", "ToolRuntime", "tools_condition", "msg_content_output",
        "ToolCallRequest", "ToolCallWrapper", "AsyncToolCallWrapper", "ToolCallWithContext", "ToolInvocationError",
        "INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_CALL_ERROR_TEMPLATE", "TOOL_EXECUTION_ERROR_TEMPLATE",
        "TOOL_INVOCATION_ERROR_TEMPLATE",
    },
    "prebuilt.tool_validator": {"ValidationNode"},
    "prebuilt.interrupt": {"HumanInterruptConfig", "ActionRequest", "HumanInterrupt", "HumanResponse"},
    "warnings": {
        "LangGraphDeprecationWarning", "LangGraphDeprecatedSinceV05", "LangGraphDeprecatedSinceV10",
        "LangGraphDeprecatedSinceV11",
    },
    "func": {"entrypoint", "task"},
    "checkpoint.memory": {"InMemorySaver", "MemorySaver"},
    "checkpoint.sqlite": {"SqliteSaver"},
    "checkpoint.postgres": {"PostgresSaver", "BasePostgresSaver", "ShallowPostgresSaver", "Conn"},
    "checkpoint.sqlite.aio": {"AsyncSqliteSaver"},
    "managed": {"IsLastStep", "RemainingSteps"},
    "constants": {"TAG_NOSTREAM", "TAG_HIDDEN", "START", "END", "CONF", "TASKS", "CONFIG_KEY_CHECKPOINTER"},
    "checkpoint.postgres.aio": {"AsyncPostgresSaver", "AsyncShallowPostgresSaver", "Conn"},
    "typing": {
        "StateT", "StateT_co", "StateT_contra", "ContextT", "ContextT_contra", "InputT", "OutputT", "NodeInputT",
        "NodeInputT_contra",
    },
    "stream": {
        "AsyncGraphRunStream", "AsyncSubgraphRunStream", "CheckpointsTransformer", "CustomTransformer",
        "DebugTransformer", "GraphRunStream", "LifecyclePayload", "LifecycleTransformer", "ProtocolEvent",
        "StreamChannel", "StreamTransformer", "SubgraphRunStream", "SubgraphStatus", "SubgraphTransformer",
        "TasksTransformer", "UpdatesTransformer",
    },
    "stream._mux": {"StreamMux", "TransformerFactory"},
    "stream.transformers": {"SubgraphStatus", "_TasksLifecycleBase"},
    "pregel.remote": {"RemoteGraph"},
    "pregel.debug": {"map_debug_tasks", "map_task_result_writes", "rm_pregel_keys", "get_colored_text", "get_bolded_text"},
    # LangGraph's private names that LangChain 1.x's agents, langgraph-supervisor and langgraph-swarm import
    "_internal._runnable": {"RunnableCallable", "RunnableLike"},
    "_internal._config": {"patch_configurable", "DEFAULT_RECURSION_LIMIT", "get_async_callback_manager_for_config", "get_callback_manager_for_config"},
    "_internal._typing": {"DeprecatedKwargs", "MISSING"},
}  # fmt: skip

_STREAM_TYPES = "typed stream-part and payload TypedDicts (LangGraph's v2 stream format): the engine streams v1 tuples"
_ERRORS = "engine/errors.py keeps its own tree (GraphwireError); the rest of LangGraph's run errors: issue 14"
LEFT_OUT: dict[str, dict[str, str]] = {
    "types": {
        "TimeoutPolicy": "node timeouts: issue 18",
        "PregelExecutableTask": "the loop's own task type, not an authoring name",
        "ensure_valid_checkpointer": "internal to LangGraph's compile",
        **{n: _STREAM_TYPES for n in (
            "CheckpointPayload", "CheckpointStreamPart", "CheckpointTask", "CustomStreamPart", "DebugPayload",
            "DebugStreamPart", "GraphOutput", "MessagesStreamPart", "StreamPart", "TaskPayload", "TaskResultPayload",
            "TasksStreamPart", "UpdatesStreamPart", "ValuesStreamPart",
        )},
    },
    "errors": {n: _ERRORS for n in (
        "EmptyChannelError", "ErrorCode", "GraphDrained", "NodeCancelledError", "NodeError",
        "NodeTimeoutError", "TaskNotFound", "UnknownInterruptError", "is_invalid_resume",
    )},
    "runtime": {
        "BaseUser": "LangGraph Server's authenticated user (langgraph_sdk); graphwire's tenants are its own",
        "RunControl": "cooperative draining (invoke(control=)) is not supported yet",
    },
    "checkpoint.postgres": {
        "BasePostgresSaver": "one PostgresSaver (async at heart, with a derived sync face)",
        "ShallowPostgresSaver": "deprecated in LangGraph; durability='exit' keeps one version per call",
        "Conn": "PostgresSaver takes a DSN or a psycopg pool",
    },
    "constants": {
        "TAG_HIDDEN": "hiding a node from streams and traces is not supported",
        **{n: "LangGraph's private constants (deprecated there)" for n in ("CONF", "TASKS", "CONFIG_KEY_CHECKPOINTER")},
    },
    "checkpoint.postgres.aio": {
        "AsyncShallowPostgresSaver": "deprecated in LangGraph; durability='exit' keeps one version per call",
        "Conn": "AsyncPostgresSaver takes a DSN or a psycopg pool",
    },
}  # fmt: skip

CASES = sorted((m, n) for m, names in LANGGRAPH.items() for n in names)


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_langgraph_name_is_kept_or_left_out_with_a_reason(module: str, name: str) -> None:
    left_out = LEFT_OUT.get(module, {})
    if name in left_out:
        assert left_out[name], "a name left out says why"
        return
    engine_module = importlib.import_module(f"engine.{module}")
    assert hasattr(engine_module, name), f"engine.{module} lacks {name!r} (add it, or list it in LEFT_OUT with why)"


def test_left_out_names_are_langgraph_names() -> None:
    for module, names in LEFT_OUT.items():
        assert set(names) <= LANGGRAPH[module], module


def test_kept_names_are_the_same_objects_across_modules() -> None:
    import engine
    import engine.graph
    import engine.graph.message
    import engine.prebuilt
    import engine.prebuilt.tool_node
    import engine.types

    assert engine.types.interrupt is engine.interrupt
    assert engine.graph.add_messages is engine.graph.message.add_messages is engine.add_messages
    assert engine.prebuilt.ToolNode is engine.prebuilt.tool_node.ToolNode
    assert engine.prebuilt.ToolRuntime is engine.prebuilt.tool_node.ToolRuntime


def test_constants_module() -> None:
    import warnings

    import engine.constants
    import engine.types
    from engine._langchain.stream import NOSTREAM

    assert (engine.constants.START, engine.constants.END) == (engine.types.START, engine.types.END)
    assert engine.constants.TAG_NOSTREAM == NOSTREAM
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert engine.constants.Send is engine.types.Send  # deprecated there, still found
    assert seen and issubclass(seen[0].category, DeprecationWarning)
