"""ToolNode and tools_condition: the tools half of a tool-calling agent.

Written from LangGraph 1.2.22 / langgraph-prebuilt 1.1.3's observed
behaviour (tests/sidebyside/tool_node.py, tool_wrappers.py):

* Input: a state (dict or object) whose ``messages_key`` holds messages, a
  list of messages (the calls of the last AIMessage run), a list of tool-call
  dicts (those calls run; in a graph, e.g. a ``Send("tools", [call])``, the
  tools see the graph's state), or create_react_agent's one call with the
  state it was made in.
* Every call runs at once (threads for ``invoke``, tasks for ``ainvoke``),
  each with its own :class:`ToolRuntime`, and results come back in call order
  (engine.prebuilt._tool_output says in what shape).
* ``wrap_tool_call`` / ``awrap_tool_call`` wrap each call
  (engine.prebuilt._tool_call); an async run uses the sync wrapper when it
  has no async one.
* Errors: engine.prebuilt._tool_errors. An interrupt (or a Command for the
  parent graph) raised inside a tool is never a tool error: it leaves the node.
* Arguments the graph fills are never shown to the model and a model's values
  for them never reach the tool (engine.prebuilt._injected).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_config_list, get_executor_for_config
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as create_tool
from pydantic import ValidationError

from engine._internal._task import CURRENT
from engine.errors import GraphBubbleUp
from engine.pregel._local import local_read
from engine.prebuilt._injected import Injections, ToolRuntime, graph_state, inject, injections_of, runtime_for
from engine.prebuilt._tool_call import TOOL_CALL_WITH_CONTEXT, AsyncToolCallWrapper, ToolCallRequest, ToolCallWrapper
from engine.prebuilt._tool_errors import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    ErrorHandling,
    ToolInvocationError,
    default_handle_tool_errors,
    error_content,
    handles,
    is_invalid_resume,
    model_errors,
)
from engine.prebuilt._tool_output import InputType, Result, combine, normalize
from engine.types import END

__all__ = ["ToolNode", "tools_condition"]

# the config keys of LangGraph's state readers (its ``langgraph._internal._constants``); the engine sets neither
_READ_STATE = "__pregel_read_state"
_READ = "__pregel_read"


class ToolNode(Runnable[Any, Any]):
    """A node that runs tool calls (see the module).

    Args:
        tools: LangChain tools, or plain functions (made tools with ``@tool``'s rules).
        name: the node's name when added without one.
        tags: tags of its runs.
        handle_tool_errors: which exceptions become error ToolMessages
            (engine.prebuilt._tool_errors); by default, bad arguments only.
        messages_key: the state key holding the messages, and the key of its update.
        wrap_tool_call: ``(request, execute) -> ToolMessage | Command`` around each call.
        awrap_tool_call: its async twin, for ``ainvoke``.
    """

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: ErrorHandling = default_handle_tool_errors,
        messages_key: str = "messages",
        wrap_tool_call: ToolCallWrapper | None = None,
        awrap_tool_call: AsyncToolCallWrapper | None = None,
    ) -> None:
        self.name = name
        self.tags = tags
        # LangGraph's attribute names: langgraph-supervisor copies a ToolNode through them
        self._handle_tool_errors = handle_tool_errors
        self._messages_key = messages_key
        self._wrap_tool_call = wrap_tool_call
        self._awrap_tool_call = awrap_tool_call
        self._tools_by_name: dict[str, BaseTool] = {}
        self._injected: dict[str, Injections] = {}
        for t in tools:
            made = t if isinstance(t, BaseTool) else create_tool(t)
            self._tools_by_name[made.name] = made
            self._injected[made.name] = injections_of(made)

    @property
    def tools_by_name(self) -> dict[str, BaseTool]:
        """The node's tools by name."""
        return self._tools_by_name

    # -- input -------------------------------------------------------------
    def _parse(self, input: Any) -> tuple[list[ToolCall], InputType]:
        input_type: InputType
        if isinstance(input, list):
            if input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call":
                return list(input), "tool_calls"
            messages, input_type = input, "list"
        elif isinstance(input, dict) and input.get("__type") == TOOL_CALL_WITH_CONTEXT:
            return [input["tool_call"]], "tool_calls"
        elif isinstance(input, dict) and (messages := input.get(self._messages_key, [])):
            input_type = "dict"
        elif messages := getattr(input, self._messages_key, []):
            input_type = "dict"
        else:
            raise ValueError("No message found in input")
        last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last is None:
            raise ValueError("No AIMessage found in input")
        return list(last.tool_calls), input_type

    def _state(self, input: Any, config: RunnableConfig) -> Any:
        """The state the calls were made in: what came with them, else (for bare tool calls) the graph's.

        Bare calls invoked outside a graph with LangGraph's state readers in the config
        (``__pregel_read_state``, or ``__pregel_read``: a partial of Pregel's ``local_read`` whose second
        argument is the channels) read the state from them, as langgraph-prebuilt's ToolNode does.
        """
        if isinstance(input, dict) and input.get("__type") == TOOL_CALL_WITH_CONTEXT:
            return input["state"]
        if isinstance(input, list) and input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call":
            conf = config.get("configurable") or {}
            if (read_state := conf.get(_READ_STATE)) is not None:
                return read_state()
            if (read := conf.get(_READ)) is not None and getattr(read, "func", None) is not local_read:  # (the engine's own: below)
                return read(list(read.args[1]), True)
            return graph_state()
        return input

    def _runtimes(self, input: Any, calls: list[ToolCall], config: RunnableConfig) -> list[ToolRuntime[Any, Any]]:
        state = self._state(input, config)
        tools = list(self._tools_by_name.values())
        configs = get_config_list(config, len(calls))
        return [runtime_for(c["id"], state, cfg, tools) for c, cfg in zip(calls, configs)]

    # -- one call ------------------------------------------------------------
    def _prepared(self, request: ToolCallRequest) -> tuple[BaseTool, dict[str, Any]] | ToolMessage:
        """The tool and the call it receives (injected arguments added), or the unknown-name error."""
        call, tool = request.tool_call, request.tool
        if tool is None:
            if call["name"] in self._tools_by_name:  # a wrapper took the tool away from a known name
                raise TypeError(f"Tool {call['name']} is not registered with ToolNode")
            content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
                requested_tool=call["name"], available_tools=", ".join(self._tools_by_name)
            )
            return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")
        inj = self._injected.get(call["name"]) or injections_of(tool)  # a wrapper's own tool: found now
        args = inject(call["args"], inj, request.runtime, call["name"], self._messages_key)
        return tool, {**call, "args": args, "type": "tool_call"}

    def _caught(self, request: ToolCallRequest, tool: BaseTool, e: Exception) -> ToolMessage:
        """What a call whose tool raised ``e`` answers: an error ToolMessage, or ``e`` raised on.

        Control flow (an interrupt, a Command for the parent) always leaves the
        node. A schema's ValidationError is the model's bad arguments
        (a ToolInvocationError), unless it refuses a resume answer.
        """
        if isinstance(e, GraphBubbleUp):
            raise e
        if isinstance(e, ValidationError) and not is_invalid_resume(e):
            call = request.tool_call
            inj = self._injected.get(call["name"]) or injections_of(tool)
            invalid = ToolInvocationError(call["name"], e, call["args"], model_errors(e, inj.filled))
            invalid.__cause__ = e
            e = invalid
        return self._failed(request, e)

    def _failed(self, request: ToolCallRequest, e: Exception) -> ToolMessage:
        """The error ToolMessage for ``e``, or ``e`` raised again when ``handle_tool_errors`` does not cover it."""
        if is_invalid_resume(e) or not handles(self._handle_tool_errors, e):
            raise e
        call = request.tool_call
        content = error_content(e, self._handle_tool_errors)
        return ToolMessage(content=content, name=call["name"], tool_call_id=call["id"], status="error")

    def _answer(self, request: ToolCallRequest, tool: BaseTool, response: Any, input_type: InputType) -> Result | list[Result]:
        try:
            return normalize(response, request.tool_call, input_type, self._messages_key)
        except Exception as e:  # a malformed answer is the tool's failure, handled as one
            return self._caught(request, tool, e)

    # The unknown-name answer and the injection happen before the handled part, as LangGraph's:
    # the graph failing to fill an argument (no store, a missing state key) is no tool error.
    def _execute(self, request: ToolCallRequest, input_type: InputType) -> Result | list[Result]:
        prepared = self._prepared(request)
        if isinstance(prepared, ToolMessage):
            return prepared
        tool, call = prepared
        try:
            response = tool.invoke(call, request.runtime.config)
        except Exception as e:
            return self._caught(request, tool, e)
        return self._answer(request, tool, response, input_type)

    async def _aexecute(self, request: ToolCallRequest, input_type: InputType) -> Result | list[Result]:
        prepared = self._prepared(request)
        if isinstance(prepared, ToolMessage):
            return prepared
        tool, call = prepared
        try:
            response = await tool.ainvoke(call, request.runtime.config)
        except Exception as e:
            return self._caught(request, tool, e)
        return self._answer(request, tool, response, input_type)

    def _request(self, call: ToolCall, runtime: ToolRuntime[Any, Any]) -> ToolCallRequest:
        return ToolCallRequest(tool_call=call, tool=self._tools_by_name.get(call["name"]), state=runtime.state, runtime=runtime)

    def _run_one(self, call: ToolCall, input_type: InputType, runtime: ToolRuntime[Any, Any]) -> Result | list[Result]:
        request = self._request(call, runtime)
        if self._wrap_tool_call is None:
            return self._execute(request, input_type)
        try:
            return self._wrap_tool_call(request, lambda req: self._execute(req, input_type))  # type: ignore[arg-type,return-value]
        except GraphBubbleUp:
            raise
        except Exception as e:  # the wrapper's own failure: handled as the tool's would be
            return self._wrapper_failed(request, e)

    async def _arun_one(self, call: ToolCall, input_type: InputType, runtime: ToolRuntime[Any, Any]) -> Result | list[Result]:
        request = self._request(call, runtime)
        try:
            if self._awrap_tool_call is not None:

                async def execute(req: ToolCallRequest) -> Any:
                    return await self._aexecute(req, input_type)

                return await self._awrap_tool_call(request, execute)
            if self._wrap_tool_call is not None:
                return self._wrap_tool_call(request, lambda req: self._execute(req, input_type))  # type: ignore[arg-type,return-value]
        except GraphBubbleUp:
            raise
        except Exception as e:
            return self._wrapper_failed(request, e)
        return await self._aexecute(request, input_type)

    def _wrapper_failed(self, request: ToolCallRequest, e: Exception) -> ToolMessage:
        # As LangGraph: any handle_tool_errors but False covers a wrapper's exception
        # (the default handler then raises all but bad arguments again).
        if not self._handle_tool_errors or is_invalid_resume(e):
            raise e
        call = request.tool_call
        content = error_content(e, self._handle_tool_errors)
        return ToolMessage(content=content, name=call["name"], tool_call_id=call["id"], status="error")

    # -- the Runnable ----------------------------------------------------------
    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return name or self.name or "tools"  # self.name: always a str here (Runnable's is optional)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        calls, input_type = self._parse(input)
        cfg: RunnableConfig = config or {}
        runtimes = self._runtimes(input, calls, cfg)
        with get_executor_for_config(cfg) as executor:
            outputs = list(executor.map(self._run_one, calls, [input_type] * len(calls), runtimes))
        return combine(outputs, input_type, self._messages_key)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        ctx = CURRENT.get()
        if ctx is not None and ctx.sync_call and self._wrap_tool_call is not None:
            # a node of a graph called synchronously: as LangGraph's sync run, the sync wrapper (in a thread)
            return await asyncio.to_thread(self.invoke, input, config, **kwargs)
        calls, input_type = self._parse(input)
        cfg: RunnableConfig = config or {}
        runtimes = self._runtimes(input, calls, cfg)
        outputs = await asyncio.gather(*(self._arun_one(c, input_type, rt) for c, rt in zip(calls, runtimes)))
        return combine(list(outputs), input_type, self._messages_key)


def tools_condition(state: Any, messages_key: str = "messages") -> Literal["tools", "__end__"]:
    """"tools" when the last message asks for tool calls, else END."""
    if isinstance(state, list):
        last: AnyMessage = state[-1]
    elif (isinstance(state, dict) and (messages := state.get(messages_key, []))) or (
        messages := getattr(state, messages_key, [])
    ):
        last = messages[-1]
    else:
        raise ValueError(f"No messages found in input state to tool_edge: {state}")
    if getattr(last, "tool_calls", None):
        return "tools"
    return END  # type: ignore[return-value]
