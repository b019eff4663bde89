"""The parts create_react_agent is made of: its state schemas, its prompt, its model checks.

Written from LangGraph 1.2.22's observed behaviour (langgraph.prebuilt.chat_agent_executor):
the names, the deprecations (LangGraph moved the agent to LangChain's
``create_agent`` in 1.0) and the messages a program sees are LangGraph's.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig, RunnableLambda, RunnableSequence
from langchain_core.tools import BaseTool
from pydantic import BaseModel
from typing_extensions import NotRequired, TypedDict, deprecated

from engine._internal._task import CURRENT
from engine.graph import add_messages
from engine.managed import RemainingSteps
from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = [
    "AgentState", "AgentStatePydantic", "AgentStateWithStructuredResponse", "AgentStateWithStructuredResponsePydantic",
    "StructuredResponse", "StructuredResponseSchema", "StateSchema", "StateSchemaType", "Prompt", "PROMPT_RUNNABLE_NAME",
    "state_value", "prompt_runnable", "should_bind_tools", "chat_model", "validate_chat_history",
]  # fmt: skip

StructuredResponse = dict | BaseModel
StructuredResponseSchema = dict | type[BaseModel]


@deprecated(
    "AgentState has been moved to `langchain.agents`. Please update your import to `from langchain.agents import AgentState`.",
    category=LangGraphDeprecatedSinceV10,
)
class AgentState(TypedDict):
    """The state of the agent."""

    # The docstrings of these states are LangGraph's words: they are the "description" of the
    # graph's input and output JSON schemas. remaining_steps is a managed value (never stored).

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


@deprecated(
    "AgentStatePydantic has been deprecated in favor of AgentState in `langchain.agents`.",
    category=LangGraphDeprecatedSinceV10,
)
class AgentStatePydantic(BaseModel):
    """The state of the agent."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: RemainingSteps = 25


with warnings.catch_warnings():  # deriving from the deprecated states is ours, not the program's
    warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)

    @deprecated(
        "AgentStateWithStructuredResponse has been deprecated in favor of AgentState in `langchain.agents`.",
        category=LangGraphDeprecatedSinceV10,
    )
    class AgentStateWithStructuredResponse(AgentState):
        """The state of the agent with a structured response."""

        structured_response: StructuredResponse

    @deprecated(
        "AgentStateWithStructuredResponsePydantic has been deprecated in favor of AgentState in `langchain.agents`.",
        category=LangGraphDeprecatedSinceV10,
    )
    class AgentStateWithStructuredResponsePydantic(AgentStatePydantic):
        """The state of the agent with a structured response."""

        structured_response: StructuredResponse

    StateSchema = TypeVar("StateSchema", bound=AgentState | AgentStatePydantic)
    StateSchemaType = type[StateSchema]  # type: ignore[valid-type]

PROMPT_RUNNABLE_NAME = "Prompt"
Prompt = SystemMessage | str | Callable[[Any], Any] | Runnable[Any, Any]


def state_value(state: Any, key: str, default: Any = None) -> Any:
    """``state[key]`` of a dict state, its attribute of an object state."""
    return state.get(key, default) if isinstance(state, dict) else getattr(state, key, default)


def _with_graph_args(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(state, ...)`` given what it asks for by name, as a node is: ``config``, ``store``, ``runtime``, ``writer``."""
    from engine.graph._nodes import _accepts_store, _injected, _kwargs

    wanted = _injected(fn, PROMPT_RUNNABLE_NAME)
    store = _accepts_store(fn)

    def kwargs(config: RunnableConfig) -> dict[str, Any]:
        ctx = CURRENT.get()
        return _kwargs(wanted, config, {"store": ctx.store if ctx is not None else None} if store else {})

    if inspect.iscoroutinefunction(fn):

        async def acall(state: Any, config: RunnableConfig) -> Any:
            return await fn(state, **kwargs(config))

        return acall

    def call(state: Any, config: RunnableConfig) -> Any:
        return fn(state, **kwargs(config))

    return call


def prompt_runnable(prompt: Prompt | None) -> Runnable[Any, Any]:
    """The "Prompt" step before the model: the state's messages, behind a system message or through a function."""
    if prompt is None:
        return RunnableLambda(lambda state: state_value(state, "messages"), name=PROMPT_RUNNABLE_NAME)
    if isinstance(prompt, str):
        prompt = SystemMessage(content=prompt)
    if isinstance(prompt, SystemMessage):
        system = prompt
        return RunnableLambda(lambda state: [system, *state_value(state, "messages")], name=PROMPT_RUNNABLE_NAME)
    if isinstance(prompt, Runnable):
        return prompt
    if callable(prompt):
        return RunnableLambda(_with_graph_args(prompt), name=PROMPT_RUNNABLE_NAME)
    raise ValueError(f"Got unexpected type for `prompt`: {type(prompt)}")


def _model_step(model: Any) -> Any:
    """The chat model (or its binding) inside a sequence such as ``prompt | model``."""
    if isinstance(model, RunnableSequence):
        return next((s for s in model.steps if isinstance(s, (RunnableBinding, BaseChatModel))), model)
    return model


def should_bind_tools(model: Any, tools: Sequence[BaseTool], num_builtin: int = 0) -> bool:
    """Whether the agent binds ``tools`` to ``model`` itself: not when the model has tools bound already.

    Raises:
        ValueError: the tools bound are not the agent's (a different number,
            or one of the agent's is missing).
    """
    model = _model_step(model)
    if not isinstance(model, RunnableBinding) or "tools" not in model.kwargs:
        return True
    bound = model.kwargs["tools"]
    if len(tools) != len(bound) - num_builtin:
        raise ValueError(
            "Number of tools in the model.bind_tools() and tools passed to create_react_agent must match"
            f" Got {len(tools)} tools, expected {len(bound) - num_builtin}"
        )
    names = set()
    for t in bound:
        if t.get("type") == "function":  # OpenAI's form
            names.add(t["function"]["name"])
        elif t.get("name"):  # Anthropic's
            names.add(t["name"])
    if missing := {t.name for t in tools} - names:
        raise ValueError(f"Missing tools '{missing}' in the model.bind_tools()")
    return False


def chat_model(model: Any) -> BaseChatModel:
    """The chat model under ``model`` (a binding or a sequence), for ``with_structured_output``.

    Raises:
        TypeError: there is none.
    """
    model = _model_step(model)
    if isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise TypeError(
            f"Expected `model` to be a ChatModel or RunnableBinding (e.g. model.bind_tools(...)), got {type(model)}"
        )
    return model


def validate_chat_history(messages: Sequence[AnyMessage]) -> None:
    """Refuse a history with a tool call left unanswered: the model providers refuse it too.

    Raises:
        ValueError: LangGraph's INVALID_CHAT_HISTORY message, with up to three such calls.
    """
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    unanswered = [c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls if c["id"] not in answered]
    if not unanswered:
        return
    raise ValueError(
        "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. "
        f"Here are the first few of those tool calls: {unanswered[:3]}.\n\n"
        "Every tool call (LLM requesting to call a tool) in the message history MUST have a corresponding ToolMessage "
        "(result of a tool invocation to return to the LLM) - this is required by most LLM providers.\n"
        "For troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/INVALID_CHAT_HISTORY"
    )
