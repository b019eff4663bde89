"""What a ToolNode returns: each call's result checked, then all of them as the node's update.

A tool called with a tool call answers with a ToolMessage, a ``Command``, or
a list of them (LangChain wraps a plain return value into a ToolMessage).
As LangGraph's (observed on langgraph-prebuilt 1.1.3):

* every tool call needs exactly one answer in the history, so a Command for
  this graph must carry a ToolMessage for its call (named after the tool),
  and a list must hold exactly one, loose or inside its Commands;
* a Command's update is a dict of state keys when the node was given a
  state, a list of messages when it was given messages;
* the node's return value is ``{messages_key: [ToolMessage, ...]}`` (a list
  for a list of messages) without Commands; with Commands, a list of
  updates in call order (a ToolMessage as its own update), the Commands for
  the parent graph that only ``Send`` merged into one at the end.
"""

from __future__ import annotations

import json
from copy import deepcopy
from dataclasses import replace
from typing import Any, Literal

from langchain_core.messages import RemoveMessage, ToolCall, ToolMessage, convert_to_messages
from langchain_core.tools.base import TOOL_MESSAGE_BLOCK_TYPES

from engine.graph.message import REMOVE_ALL_MESSAGES
from engine.types import Command, Send

__all__ = ["InputType", "msg_content_output", "normalize", "combine"]

InputType = Literal["list", "dict", "tool_calls"]
Result = ToolMessage | Command


def msg_content_output(output: Any) -> str | list[Any]:
    """A tool's return value as ToolMessage content: text or content blocks as they are, else JSON (else its str)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(b, dict) and b.get("type") in TOOL_MESSAGE_BLOCK_TYPES for b in output):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except Exception:  # not JSON: its text
        return str(output)


def normalize(response: Any, call: ToolCall, input_type: InputType, messages_key: str) -> Result | list[Result]:
    """One call's result, checked (see the module).

    Raises:
        TypeError: the tool answered with something else.
        ValueError: a Command or list breaks the one-answer-per-call rule or
            has an update of the wrong shape for the node's input.
    """
    if isinstance(response, Command):
        return _command(response, call, input_type, messages_key)
    if isinstance(response, ToolMessage):
        response.content = msg_content_output(response.content)
        return response
    if isinstance(response, list):
        if all(isinstance(r, (Command, ToolMessage)) for r in response):
            return _several(response, call, input_type, messages_key)
        raise TypeError(f"Tool {call['name']} returned a list with invalid element types: expected all Command or ToolMessage")
    raise TypeError(f"Tool {call['name']} returned unexpected type: {type(response)}")


def _several(response: list[Result], call: ToolCall, input_type: InputType, messages_key: str) -> list[Result]:
    answers = 0
    for item in response:
        if isinstance(item, ToolMessage):
            answers += item.tool_call_id == call["id"]
        elif isinstance(item.update, dict):
            answers += sum(
                isinstance(m, ToolMessage) and m.tool_call_id == call["id"] for m in item.update.get(messages_key, [])
            )
    if answers != 1:
        raise ValueError(
            f"Tool {call['name']} returned a list with {answers} messages bound to tool_call_id {call['id']!r}; "
            "expected exactly one terminating ToolMessage."
        )
    out: list[Result] = []
    for item in response:
        if isinstance(item, Command):
            out.append(_command(item, call, input_type, messages_key, answered=True))
        else:
            item.content = msg_content_output(item.content)
            out.append(item)
    return out


def _command(command: Command, call: ToolCall, input_type: InputType, messages_key: str, *, answered: bool = False) -> Command:
    """``command`` with its answer to ``call`` named after the tool, or the error saying it lacks one."""
    if isinstance(command.update, dict):
        if input_type not in ("dict", "tool_calls"):
            raise ValueError(
                f"Tools can provide a dict in Command.update only when using dict with '{messages_key}' key as "
                f"ToolNode input, got: {command.update} for tool '{call['name']}'"
            )
        command = deepcopy(command)
        messages = (command.update or {}).get(messages_key, [])  # type: ignore[union-attr]
    elif isinstance(command.update, list):
        if input_type != "list":
            raise ValueError(
                "Tools can provide a list of messages in Command.update only when using list of messages as "
                f"ToolNode input, got: {command.update} for tool '{call['name']}'"
            )
        command = deepcopy(command)
        messages = command.update
    else:
        return command
    messages = convert_to_messages(messages)
    if messages == [RemoveMessage(id=REMOVE_ALL_MESSAGES)]:  # clearing the history needs no answer
        return command
    for m in messages:
        if isinstance(m, ToolMessage) and m.tool_call_id == call["id"]:
            m.name = call["name"]
            answered = True
    if not answered and command.graph is None:
        example = (
            '`Command(update={"messages": [ToolMessage("Success", tool_call_id=tool_call_id), ...]}, ...)`'
            if input_type == "dict"
            else '`Command(update=[ToolMessage("Success", tool_call_id=tool_call_id), ...], ...)`'
        )
        raise ValueError(
            f"Expected to have a matching ToolMessage in Command.update for tool '{call['name']}', got: {messages}. "
            "Every tool call (LLM requesting to call a tool) in the message history MUST have a corresponding "
            f"ToolMessage. You can fix it by modifying the tool to return {example}."
        )
    return command


def combine(outputs: list[Result | list[Result]], input_type: InputType, messages_key: str) -> Any:
    """The node's return value from its calls' results, in call order (see the module)."""
    flat: list[Result] = []
    for o in outputs:
        flat.extend(o) if isinstance(o, list) else flat.append(o)
    if not any(isinstance(o, Command) for o in flat):
        return flat if input_type == "list" else {messages_key: flat}
    combined: list[Any] = []
    parent: Command | None = None
    for o in flat:
        if not isinstance(o, Command):
            combined.append([o] if input_type == "list" else {messages_key: [o]})
        elif o.graph == Command.PARENT and isinstance(o.goto, list) and all(isinstance(s, Send) for s in o.goto):
            # Sends to the parent graph travel together, as one Command
            parent = Command(graph=Command.PARENT, goto=o.goto) if parent is None else replace(parent, goto=[*parent.goto, *o.goto])  # type: ignore[misc]
        else:
            combined.append(o)
    if parent is not None:
        combined.append(parent)
    return combined
