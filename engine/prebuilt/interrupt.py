"""``langgraph.prebuilt.interrupt``: the shapes of a human-in-the-loop question and its answer.

Plain TypedDicts a program passes to ``interrupt()`` and reads back from
``Command(resume=...)`` (the Agent Inbox's format). LangGraph 1.0 moved them
to ``langchain.agents.interrupt`` and deprecated these, with its warnings.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict, deprecated

from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = ["HumanInterruptConfig", "ActionRequest", "HumanInterrupt", "HumanResponse"]


def _moved(name: str) -> str:
    return (
        f"{name} has been moved to `langchain.agents.interrupt`. "
        f"Please update your import to `from langchain.agents.interrupt import {name}`."
    )


@deprecated(_moved("HumanInterruptConfig"), category=LangGraphDeprecatedSinceV10)
class HumanInterruptConfig(TypedDict):
    """Which answers the human may give: ignore, respond in text, edit the action, accept it."""

    allow_ignore: bool
    allow_respond: bool
    allow_edit: bool
    allow_accept: bool


@deprecated(_moved("ActionRequest"), category=LangGraphDeprecatedSinceV10)
class ActionRequest(TypedDict):
    """The action put to the human: its name and arguments."""

    action: str
    args: dict


@deprecated(_moved("HumanInterrupt"), category=LangGraphDeprecatedSinceV10)
class HumanInterrupt(TypedDict):
    """The question: the action, the answers allowed, and an optional description."""

    action_request: ActionRequest
    config: HumanInterruptConfig
    description: str | None


class HumanResponse(TypedDict):
    """The answer: its kind, and text (a response) or the edited action (an edit)."""

    type: Literal["accept", "ignore", "response", "edit"]
    args: None | str | ActionRequest
