"""create_react_agent: a model node and a tools node joined by one conditional edge.

Written from LangGraph 1.2's observed behaviour (tests/sidebyside/react_agent.py):
``agent`` calls the model (tools bound) on the prompt and the messages; when
its reply asks for tools, each call is sent to ``tools`` as its own task (the
"v2" agent; ``version="v1"`` runs them all in one task), and ``tools`` goes
back to ``agent``; a reply without tool calls ends the run. When the run is
about to hit its recursion limit with tool calls still asked for, the agent
answers "Sorry, need more steps to process this request." instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from langchain_core.callbacks import CallbackManager
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool
from pydantic import BaseModel
from typing_extensions import NotRequired, TypedDict

from engine._internal._unsupported import WHERE_IT_DIFFERS, refuse
from engine.graph import END, START, StateGraph, add_messages
from engine.managed import RemainingSteps
from engine.prebuilt._tool_node import ToolNode
from engine.types import Send

__all__ = ["AgentState", "AgentStatePydantic", "create_react_agent", "create_tool_calling_executor"]

SORRY = "Sorry, need more steps to process this request."
TOOL_CALL_WITH_CONTEXT = "tool_call_with_context"


class AgentState(TypedDict):
    """The agent's state: its messages, and the steps the call has left (a managed value, not stored)."""

    messages: Annotated[list[AnyMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


class AgentStatePydantic(BaseModel):
    """:class:`AgentState` as a Pydantic model, as LangGraph's."""

    messages: Annotated[list[AnyMessage], add_messages]
    remaining_steps: RemainingSteps = 25


def _prompt_runnable(prompt: Any) -> Runnable[Any, Any]:
    if prompt is None:
        return RunnableLambda(lambda state: _messages(state), name="Prompt")
    if isinstance(prompt, str):
        system = SystemMessage(content=prompt)
        return RunnableLambda(lambda state: [system, *_messages(state)], name="Prompt")
    if isinstance(prompt, SystemMessage):
        return RunnableLambda(lambda state: [prompt, *_messages(state)], name="Prompt")
    if isinstance(prompt, Runnable):
        return prompt
    if callable(prompt):
        return RunnableLambda(prompt, name="Prompt")
    raise ValueError(f"Got unexpected type for prompt: {type(prompt)}")


def _messages(state: Any) -> list[Any]:
    return list(state["messages"] if isinstance(state, dict) else getattr(state, "messages"))


def _bound_tool_names(model: Any) -> set[str] | None:
    """Names of the tools already bound to ``model`` (None: none are)."""
    if isinstance(model, RunnableBinding) and "tools" in model.kwargs:
        names = set()
        for t in model.kwargs["tools"]:
            fn = t.get("function", t) if isinstance(t, dict) else t
            names.add(fn.get("name") if isinstance(fn, dict) else getattr(fn, "name", None))
        return names
    return None


def _remaining_steps(config: RunnableConfig) -> int:
    step = int((config.get("metadata") or {}).get("langgraph_step", 0))
    limit = config.get("recursion_limit")
    if limit is None:
        from engine.pregel._pregel import DEFAULT_RECURSION_LIMIT

        limit = DEFAULT_RECURSION_LIMIT
    return int(limit) - step


def create_react_agent(
    model: Any,
    tools: Sequence[BaseTool | Callable[..., Any]] | ToolNode,
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated_kwargs: Any,
) -> Any:
    """A tool-calling agent graph, compiled (see the module docstring)."""
    refuse(
        "create_react_agent", response_format=response_format, pre_model_hook=pre_model_hook,
        post_model_hook=post_model_hook, context_schema=context_schema, debug=debug, **deprecated_kwargs,
    )
    if version not in ("v1", "v2"):
        raise ValueError(f"Invalid version {version}, supported versions are 'v1' and 'v2'")
    if isinstance(model, str) or (callable(model) and not isinstance(model, Runnable)):
        raise NotImplementedError(f"create_react_agent: a model given by name or function is not supported yet; see {WHERE_IT_DIFFERS}")
    tool_node = tools if isinstance(tools, ToolNode) else ToolNode(list(tools))
    tool_list = list(tool_node.tools_by_name.values())
    return_direct = {t.name for t in tool_list if t.return_direct}
    bound = _bound_tool_names(model)
    if tool_list and bound is None and isinstance(model, BaseChatModel):
        model = model.bind_tools(tool_list)
    elif bound is not None and tool_list and bound != set(tool_node.tools_by_name):
        raise ValueError("Number of tools in the model.bind_tools() and tools passed to create_react_agent must match")
    runnable = _prompt_runnable(prompt) | model

    def reply(response: Any, config: RunnableConfig) -> dict[str, Any]:
        if isinstance(response, AIMessage):
            response.name = name  # as LangGraph: the agent's name on its replies (None without one)
        has_calls = isinstance(response, AIMessage) and bool(response.tool_calls)
        all_direct = has_calls and all(c["name"] in return_direct for c in response.tool_calls)
        remaining = _remaining_steps(config)
        if (remaining < 1 and all_direct) or (remaining < 2 and has_calls):
            return {"messages": [AIMessage(id=response.id, content=SORRY)]}
        return {"messages": [response]}

    async def agent(state: Any, config: RunnableConfig) -> dict[str, Any]:
        # As LangGraph's: a "call_model" run beside the model's, which gets the node's config.
        run = _traced_call(config, state)
        try:
            out = reply(await runnable.ainvoke(state, config), config)
        except BaseException as e:
            if run is not None:
                run.on_chain_error(e)
            raise
        if run is not None:
            run.on_chain_end(out)
        return out

    def should_continue(state: Any) -> Any:
        last = _messages(state)[-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return END
        if version == "v1":
            return "tools"
        return [
            Send("tools", {"__type": TOOL_CALL_WITH_CONTEXT, "tool_call": call, "state": state})
            for call in last.tool_calls
        ]

    graph = StateGraph(state_schema or AgentState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    if not tool_list:
        graph.add_edge("agent", END)
    else:
        graph.add_node("tools", tool_node)
        graph.add_conditional_edges("agent", should_continue, ["tools", END])
        if return_direct:

            def after_tools(state: Any) -> str:
                for m in reversed(_messages(state)):
                    if not isinstance(m, ToolMessage):
                        break
                    if m.name in return_direct:
                        return END
                return "agent"

            graph.add_conditional_edges("tools", after_tools, ["agent", END])
        else:
            graph.add_edge("tools", "agent")
    return graph.compile(
        checkpointer=checkpointer, store=store, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
        name=name,
    )


def _traced_call(config: RunnableConfig, state: Any) -> Any:
    """The node's "call_model" chain run for the caller's callbacks, or None without callbacks."""
    callbacks = config.get("callbacks")
    if not callbacks:
        return None
    manager = CallbackManager.configure(callbacks, inheritable_tags=config.get("tags"), inheritable_metadata=config.get("metadata"))
    return manager.on_chain_start(None, state, name="call_model")


create_tool_calling_executor = create_react_agent
