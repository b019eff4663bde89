"""create_react_agent: a model node and a tools node joined by conditional edges.

Written from LangGraph 1.2.22's observed behaviour (tests/sidebyside/react_agent.py,
react_agent_options.py): ``agent`` calls the model (tools bound) on the
prompt and the messages; when its reply asks for tools, each call is sent to
``tools`` as its own task with the state it was made in (the "v2" agent;
``version="v1"`` runs them all in one task), and ``tools`` goes back to the
agent (or ends the run after a ``return_direct`` tool). A reply without tool
calls ends the run. With the step budget (``remaining_steps``) too small for
another tool turn, the agent answers "Sorry, need more steps to process this
request." instead. Around it:

* ``model``: a chat model, a name (``"provider:model"``, made by LangChain's
  ``init_chat_model``), or a function ``(state, runtime) -> model`` (sync or
  async) called on every turn;
* ``pre_model_hook``: a node before every model call (its
  ``llm_input_messages`` are what the model reads instead of ``messages``);
  ``post_model_hook``: a node after every model call, which routes on;
* ``response_format``: a last node asking the model for a structured answer
  (``structured_response``), with a system prompt when given as a pair.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_type_hints

from langchain_core.callbacks import CallbackManager
from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import BaseModel, create_model
from typing_extensions import deprecated

from engine._internal._task import runtime_of_task
from engine.graph import END, StateGraph
from engine.prebuilt._agent_parts import (
    AgentState,
    AgentStateWithStructuredResponse,
    chat_model,
    prompt_runnable,
    should_bind_tools,
    state_value,
    validate_chat_history,
)
from engine.prebuilt._tool_call import TOOL_CALL_WITH_CONTEXT
from engine.prebuilt._tool_node import ToolNode
from engine.types import Send
from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = ["create_react_agent", "create_tool_calling_executor"]

SORRY = "Sorry, need more steps to process this request."


def _send_calls(calls: Sequence[Any], state: Any) -> list[Send]:
    return [Send("tools", {"__type": TOOL_CALL_WITH_CONTEXT, "tool_call": c, "state": state}) for c in calls]


def _chat_model_named(model: str) -> Any:
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ImportError(
            "Please install langchain (`pip install langchain`) to use '<provider>:<model>' string syntax for `model` parameter."
        ) from None
    return init_chat_model(model)


class _Model:
    """The model of each turn: the static one (prompt and tools joined once), or the one a function picks."""

    def __init__(self, model: Any, prompt: Any, tools: list[Any], builtin: list[dict[str, Any]]) -> None:
        self.prompt = prompt
        self.dynamic = not isinstance(model, (str, Runnable)) and callable(model)
        self.func = model
        self.static: Runnable[Any, Any] | None = None
        if not self.dynamic:
            if isinstance(model, str):
                model = _chat_model_named(model)
            if should_bind_tools(model, tools, num_builtin=len(builtin)) and tools + builtin:
                model = model.bind_tools(tools + builtin)
            self.static = prompt_runnable(prompt) | model

    async def resolve(self, state: Any) -> Runnable[Any, Any]:
        if self.static is not None:
            return self.static
        picked = self.func(state, runtime_of_task())
        if inspect.isawaitable(picked):
            picked = await picked
        return prompt_runnable(self.prompt) | picked


def _input_schema(state_schema: Any) -> Any:
    """The agent node's input with a pre-model hook: the state plus the hook's ``llm_input_messages``."""
    if isinstance(state_schema, type) and issubclass(state_schema, BaseModel):
        return create_model("CallModelInputSchema", llm_input_messages=(list[AnyMessage], ...), __base__=state_schema)

    class CallModelInputSchema(state_schema):  # type: ignore[misc,valid-type]
        llm_input_messages: list[AnyMessage]

    return CallModelInputSchema


@deprecated(
    "create_react_agent has been moved to `langchain.agents`. Please update your import to `from langchain.agents import create_agent`.",
    category=LangGraphDeprecatedSinceV10,
)
def create_react_agent(
    model: Any,
    tools: Sequence[BaseTool | Callable[..., Any] | dict[str, Any]] | ToolNode,
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Any = None,
    context_schema: type[Any] | None = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated_kwargs: Any,
) -> Any:
    """A tool-calling agent graph, compiled (see the module docstring).

    Raises:
        TypeError: an unknown keyword argument.
        ValueError: an unknown ``version``, a ``state_schema`` without the
            agent's keys, or a model whose bound tools are not ``tools``.
    """
    if "config_schema" in deprecated_kwargs:
        warnings.warn(
            "`config_schema` is deprecated and will be removed. Please use `context_schema` instead.",
            category=LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        config_schema = deprecated_kwargs.pop("config_schema")
        context_schema = context_schema if context_schema is not None else config_schema
    if deprecated_kwargs:
        raise TypeError(f"create_react_agent() got unexpected keyword arguments: {deprecated_kwargs}")
    if version not in ("v1", "v2"):
        raise ValueError(f"Invalid version {version}. Supported versions are 'v1' and 'v2'.")
    if state_schema is not None:
        required = {"messages", "remaining_steps"} | ({"structured_response"} if response_format is not None else set())
        if missing := required - set(get_type_hints(state_schema)):
            raise ValueError(f"Missing required key(s) {missing} in state_schema")
    else:
        state_schema = AgentStateWithStructuredResponse if response_format is not None else AgentState

    builtin: list[dict[str, Any]] = []
    if isinstance(tools, ToolNode):
        tool_node = tools
    else:
        builtin = [t for t in tools if isinstance(t, dict)]
        tool_node = ToolNode([t for t in tools if not isinstance(t, dict)])
    tool_list = list(tool_node.tools_by_name.values())
    turn = _Model(model, prompt, tool_list, builtin)
    return_direct = {t.name for t in tool_list if t.return_direct}
    pydantic_state = isinstance(state_schema, type) and issubclass(state_schema, BaseModel)

    def more_steps_needed(state: Any, response: Any) -> bool:
        calls = response.tool_calls if isinstance(response, AIMessage) else []
        remaining = state_value(state, "remaining_steps")
        if remaining is None:
            return False
        all_direct = isinstance(response, AIMessage) and all(c["name"] in return_direct for c in calls)
        return (remaining < 1 and all_direct) or (remaining < 2 and bool(calls))

    def model_input(state: Any) -> Any:
        if pre_model_hook is not None:
            messages = state_value(state, "llm_input_messages") or state_value(state, "messages")
            expected = "'llm_input_messages' or 'messages' key"
        else:
            messages, expected = state_value(state, "messages"), "'messages' key"
        if messages is None:
            raise ValueError(f"Expected input to call_model to have {expected}, but got {state}")
        validate_chat_history(messages)
        # the prompt reads the messages under "messages"
        if pydantic_state:
            state.messages = messages
        else:
            state["messages"] = messages
        return state

    async def call_model(state: Any, config: RunnableConfig) -> Any:
        state = model_input(state)
        response = await (await turn.resolve(state)).ainvoke(state, config)
        response.name = name  # the agent's name on its replies (None without one)
        if more_steps_needed(state, response):
            return {"messages": [AIMessage(id=response.id, content=SORRY)]}
        return {"messages": [response]}

    async def generate_structured_response(state: Any, config: RunnableConfig) -> Any:
        messages = state_value(state, "messages")
        schema = response_format
        if isinstance(response_format, tuple):
            system, schema = response_format
            messages = [SystemMessage(content=system), *messages]
        structured = chat_model(await turn.resolve(state)).with_structured_output(schema)
        return {"structured_response": await structured.ainvoke(messages, config)}

    async def agent(state: Any, config: RunnableConfig) -> Any:
        return await _traced("call_model", call_model, state, config)

    async def structured_node(state: Any, config: RunnableConfig) -> Any:
        return await _traced("generate_structured_response", generate_structured_response, state, config)

    graph = StateGraph(state_schema=state_schema, context_schema=context_schema)
    input_schema = _input_schema(state_schema) if pre_model_hook is not None else state_schema
    graph.add_node("agent", agent, input_schema=input_schema)
    entry = "agent"
    if pre_model_hook is not None:
        graph.add_node("pre_model_hook", pre_model_hook)
        graph.add_edge("pre_model_hook", "agent")
        entry = "pre_model_hook"
    graph.set_entry_point(entry)
    if post_model_hook is not None:
        graph.add_node("post_model_hook", post_model_hook)
        graph.add_edge("agent", "post_model_hook")
    if response_format is not None:
        graph.add_node("generate_structured_response", structured_node)
    after_model = "post_model_hook" if post_model_hook is not None else "agent"
    finish = "generate_structured_response" if response_format is not None else END

    if not tool_list:
        if response_format is not None:
            graph.add_edge(after_model, "generate_structured_response")
        return _compile(graph, checkpointer, store, interrupt_before, interrupt_after, debug, name)

    def should_continue(state: Any) -> Any:
        last = state_value(state, "messages")[-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return "post_model_hook" if post_model_hook is not None else finish
        if version == "v1":
            return "tools"
        if post_model_hook is not None:
            return "post_model_hook"
        return _send_calls(last.tool_calls, state)

    graph.add_node("tools", tool_node)
    if post_model_hook is not None:

        def post_model_hook_router(state: Any) -> Any:
            # Tool calls the hook left unanswered run; an answer the hook wrote goes back to the model.
            messages = state_value(state, "messages")
            answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
            last_ai = next(m for m in reversed(messages) if isinstance(m, AIMessage))
            if pending := [c for c in last_ai.tool_calls if c["id"] not in answered]:
                return _send_calls(pending, state)
            if isinstance(messages[-1], ToolMessage):
                return entry
            return finish

        graph.add_conditional_edges("post_model_hook", post_model_hook_router, path_map=[entry, "tools", finish])
        graph.add_conditional_edges("agent", should_continue, path_map=["post_model_hook"])
    else:
        graph.add_conditional_edges("agent", should_continue, path_map=["tools", finish])

    if return_direct:

        def route_tool_responses(state: Any) -> str:
            m: Any = None
            for m in reversed(state_value(state, "messages")):
                if not isinstance(m, ToolMessage):
                    break
                if m.name in return_direct:
                    return END
            # parallel calls: the return_direct one ran in another Send's task
            if isinstance(m, AIMessage) and any(c["name"] in return_direct for c in m.tool_calls):
                return END
            return entry

        graph.add_conditional_edges("tools", route_tool_responses, path_map=[entry, END])
    else:
        graph.add_edge("tools", entry)
    return _compile(graph, checkpointer, store, interrupt_before, interrupt_after, debug, name)


async def _traced(run_name: str, fn: Callable[[Any, RunnableConfig], Any], state: Any, config: RunnableConfig) -> Any:
    """``fn(state, config)`` under a chain run of its own for the caller's callbacks, as LangGraph's node functions.

    As there, the function gets the node's config, not the run's child: the
    model's run sits beside this one under the node's.
    """
    callbacks = config.get("callbacks")
    if not callbacks:
        return await fn(state, config)
    manager = CallbackManager.configure(callbacks, inheritable_tags=config.get("tags"), inheritable_metadata=config.get("metadata"))
    run = manager.on_chain_start(None, state, name=run_name)
    try:
        out = await fn(state, config)
    except BaseException as e:
        run.on_chain_error(e)
        raise
    run.on_chain_end(out)
    return out


def _compile(graph: StateGraph, checkpointer: Any, store: Any, before: Any, after: Any, debug: bool, name: str | None) -> Any:
    return graph.compile(
        checkpointer=checkpointer, store=store, interrupt_before=before, interrupt_after=after, debug=debug, name=name
    )


create_tool_calling_executor = create_react_agent
