"""ToolNode and tools_condition: the tools half of a tool-calling agent.

Written from LangGraph 1.2's observed behaviour (tests/sidebyside/tool_node.py):

* :class:`ToolNode` runs every tool call of the last AIMessage in the state
  (``messages_key``, default "messages"; or a list of messages), all at once,
  and returns their ToolMessages in call order: ``{"messages": [...]}`` (a list
  for list input). A tool returning a ``Command`` contributes its update and
  goto; the node then returns one Command with everything.
* Errors become ToolMessages (``status="error"``) the model can read: an
  unknown tool name, and arguments that fail the tool's schema, always (unless
  ``handle_tool_errors=False``); an exception the tool raises only when
  ``handle_tool_errors`` says so (True: LangGraph's "Error: ...  Please fix
  your mistakes."; a string: that text; a callable: what it returns; an
  exception class or tuple: those classes), otherwise it propagates.
* Arguments the graph fills (``InjectedState``, ``InjectedStore``,
  ``ToolRuntime``, LangChain's ``InjectedToolCallId``, any ``InjectedToolArg``)
  are never shown to the model, and a model's values for them never reach the
  tool (engine.prebuilt._injected says how each is filled).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_executor_for_config
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as create_tool
from pydantic import BaseModel, ValidationError

from engine._internal._unsupported import refuse
from engine.prebuilt._injected import InjectedState, InjectedStore, Injections, ToolRuntime, inject, injections_of, runtime_for
from engine.types import END, Command, Send

__all__ = ["ToolNode", "tools_condition", "InjectedState", "InjectedStore", "ToolRuntime", "msg_content_output"]

INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n {error}\n Please fix the error and try again."
)


ErrorHandling = bool | str | Callable[..., str] | type[Exception] | tuple[type[Exception], ...]


def msg_content_output(output: Any) -> str | list[Any]:
    """A tool's return value as ToolMessage content: text, content blocks, or JSON."""
    import json

    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(b, dict) and "type" in b for b in output):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except Exception:  # not JSON: its text
        return str(output)


def _invocation_error(tool: BaseTool, call: ToolCall, e: ValidationError, filled: frozenset[str]) -> str:
    """The message a model reads when its arguments fail the tool's schema.

    It shows the arguments the model sent and the errors it can fix: none
    about a parameter the node fills, and none without a location.
    """
    lines = [
        f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
        for err in e.errors()
        if err["loc"] and str(err["loc"][0]) not in filled
    ]
    return TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=tool.name, tool_kwargs=call["args"], error="\n".join(lines))


class ToolNode(Runnable[Any, Any]):
    """A node that runs the tool calls of the last AIMessage.

    Args:
        tools: LangChain tools, or plain functions (made tools with ``@tool``'s rules).
        name: the node's name when added without one.
        tags: tags of its runs.
        handle_tool_errors: which exceptions raised by a tool become ToolMessages (see module).
        messages_key: the state key holding the messages.
    """

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: ErrorHandling | None = None,
        messages_key: str = "messages",
        **kwargs: Any,
    ) -> None:
        refuse("ToolNode", **kwargs)
        self.name = name
        self.tags = tags
        self.handle_tool_errors = handle_tool_errors
        self.messages_key = messages_key
        self.tools_by_name: dict[str, BaseTool] = {}
        self._injected: dict[str, Injections] = {}
        for t in tools:
            made = t if isinstance(t, BaseTool) else create_tool(t)
            self.tools_by_name[made.name] = made
            self._injected[made.name] = injections_of(made)

    # -- input and output --------------------------------------------------
    def _calls(self, input: Any) -> tuple[list[ToolCall], Any]:
        if isinstance(input, dict) and input.get("__type") == "tool_call_with_context":
            # one call sent by create_react_agent, with the state it was made in
            return [{**input["tool_call"], "type": "tool_call"}], input["state"]
        if isinstance(input, list):
            messages = input
        elif isinstance(input, dict):
            messages = input.get(self.messages_key, [])
        elif isinstance(input, BaseModel):
            messages = getattr(input, self.messages_key, [])
        else:
            raise ValueError(f"ToolNode: no messages found in input of type {type(input).__name__}")
        last = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last is None:
            raise ValueError("ToolNode: no AIMessage found in input")
        return [{**c, "type": "tool_call"} for c in last.tool_calls], input  # type: ignore[typeddict-item]

    def _output(self, results: list[ToolMessage | Command], input: Any) -> Any:
        parent = _parent_command(results)
        if parent is not None:
            return parent
        messages: list[Any] = []
        updates: dict[str, Any] = {}
        gotos: list[Any] = []
        commands = False
        for r in results:
            if isinstance(r, Command):
                commands = True
                update = dict(r.update or {}) if isinstance(r.update, dict) else {}
                messages.extend(update.pop(self.messages_key, []) or [])
                updates.update(update)
                goto = r.goto
                gotos.extend(goto if isinstance(goto, (list, tuple)) else [goto] if goto else [])
            else:
                messages.append(r)
        if isinstance(input, list) and not commands:
            return messages
        if not commands:
            return {self.messages_key: messages}
        return Command(update={self.messages_key: messages, **updates}, goto=gotos)

    # -- one call ------------------------------------------------------------
    def _prepare(self, call: ToolCall, runtime: ToolRuntime[Any, Any]) -> tuple[BaseTool | None, ToolCall]:
        """The tool and the call as it receives it: the model's arguments less injected ones, plus the graph's."""
        tool = self.tools_by_name.get(call["name"])
        if tool is None:
            return None, call
        args = inject(call["args"], self._injected[tool.name], runtime, tool.name, self.messages_key)
        return tool, {**call, "args": args}

    def _unknown(self, call: ToolCall) -> ToolMessage:
        content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
            requested_tool=call["name"], available_tools=", ".join(self.tools_by_name)
        )
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _failed(self, tool: BaseTool, call: ToolCall, e: Exception) -> ToolMessage:
        """The ToolMessage for a failed call (``call`` as the model made it), or the exception raised again."""
        flag = self.handle_tool_errors
        if isinstance(e, ValidationError) and flag is not False:
            content = _invocation_error(tool, call, e, self._injected[tool.name].filled)
        elif flag is None or flag is False:
            raise e
        elif flag is True:
            content = TOOL_CALL_ERROR_TEMPLATE.format(error=repr(e))
        elif isinstance(flag, str):
            content = flag
        elif isinstance(flag, type) and issubclass(flag, Exception) or isinstance(flag, tuple):
            if not isinstance(e, flag):
                raise e
            content = TOOL_CALL_ERROR_TEMPLATE.format(error=repr(e))
        elif callable(flag):
            content = flag(e)
        else:
            raise e
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _done(self, out: Any, call: ToolCall) -> ToolMessage | Command:
        if isinstance(out, Command):
            update = out.update if isinstance(out.update, dict) else {}
            for m in update.get(self.messages_key) or ():
                if isinstance(m, ToolMessage) and m.name is None and m.tool_call_id == call["id"]:
                    m.name = call["name"]  # its answer is named after the tool, as any other
            return out
        if isinstance(out, ToolMessage):
            return out
        return ToolMessage(msg_content_output(out), name=call["name"], tool_call_id=call["id"])

    def _run_one(self, call: ToolCall, runtime: ToolRuntime[Any, Any]) -> ToolMessage | Command:
        tool, prepared = self._prepare(call, runtime)
        if tool is None:
            return self._unknown(call)
        try:
            return self._done(tool.invoke(prepared, runtime.config), call)
        except Exception as e:
            if _is_control_flow(e):
                raise
            return self._failed(tool, call, e)

    async def _arun_one(self, call: ToolCall, runtime: ToolRuntime[Any, Any]) -> ToolMessage | Command:
        tool, prepared = self._prepare(call, runtime)
        if tool is None:
            return self._unknown(call)
        try:
            return self._done(await tool.ainvoke(prepared, runtime.config), call)
        except Exception as e:
            if _is_control_flow(e):
                raise
            return self._failed(tool, call, e)

    def _runtimes(self, calls: list[ToolCall], state: Any, config: RunnableConfig) -> list[ToolRuntime[Any, Any]]:
        tools = list(self.tools_by_name.values())
        return [runtime_for(c["id"], state, config, tools) for c in calls]

    # -- the Runnable ----------------------------------------------------------
    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return name or self.name

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        calls, input = self._calls(input)
        cfg: RunnableConfig = config or {}
        runtimes = self._runtimes(calls, input, cfg)
        with get_executor_for_config(cfg) as executor:
            results = list(executor.map(self._run_one, calls, runtimes))
        return self._output(results, input)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        calls, input = self._calls(input)
        cfg: RunnableConfig = config or {}
        results = await asyncio.gather(*(self._arun_one(c, rt) for c, rt in zip(calls, self._runtimes(calls, input, cfg))))
        return self._output(list(results), input)


def _is_control_flow(e: BaseException) -> bool:
    # interrupt() inside a tool stops the run; it is not the tool failing.
    from engine.errors import GraphInterrupt

    return isinstance(e, GraphInterrupt)


def tools_condition(state: Any, messages_key: str = "messages") -> Literal["tools", "__end__"]:
    """"tools" when the last message asks for tool calls, else END."""
    if isinstance(state, list):
        messages: Any = state
    elif isinstance(state, dict):
        messages = state.get(messages_key, [])
    else:
        messages = getattr(state, messages_key, [])
    if not messages:
        raise ValueError(f"No messages found in input state to tool_edge: {state}")
    last: AnyMessage = messages[-1]
    if getattr(last, "tool_calls", None):
        return "tools"
    return END  # type: ignore[return-value]


def _parent_command(results: list[Any]) -> Command | None:
    """The ``Command(graph=Command.PARENT)`` the node hands its graph's parent, if a tool returned one.

    As LangGraph: such a Command ends the node (its other results are not
    applied, the parent gets the Command); Commands that only send to the
    parent (``goto`` a list of ``Send``) are merged into one, behind the others.
    """
    parents = [r for r in results if isinstance(r, Command) and r.graph == Command.PARENT]
    if not parents:
        return None
    sends = [p for p in parents if isinstance(p.goto, list) and all(isinstance(g, Send) for g in p.goto)]
    plain = [p for p in parents if p not in sends]
    if plain:
        return plain[0]
    return Command(graph=Command.PARENT, goto=[g for p in sends for g in p.goto])
