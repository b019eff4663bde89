"""The supervisor graph: supervisor → researcher (subgraph) → writer (subgraph, asks to publish).

- ``supervisor`` reads the newest user message and sends the work to the
  researcher (``Command(goto="researcher")``).
- ``researcher`` is an agent subgraph: ``research`` (its model streams
  notes), then ``handoff``, which returns
  ``Command(graph=Command.PARENT, goto="writer", update=...)``: the parent
  gets the notes and runs the writer next.
- ``writer`` is an agent subgraph: ``draft`` (its model streams a draft),
  then ``approve``, which ``interrupt()``\\s with the draft; an answer
  starting with "y" publishes it, anything else discards it.

The models are scripted (:func:`scripted_reply`): deterministic, no network.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal, TypedDict

from engine import END, START, Command, StateGraph, add_messages, get_message_writer, interrupt

__all__ = ["State", "build_graph", "scripted_reply"]


class State(TypedDict):
    messages: Annotated[list, add_messages]


def _content(m: Any) -> str:
    return str(m.get("content", "") if isinstance(m, dict) else getattr(m, "content", ""))


def _role(m: Any) -> str:
    role = m.get("role") or m.get("type") if isinstance(m, dict) else getattr(m, "type", "")
    return {"human": "user", "ai": "assistant"}.get(role, role or "")


def _request(messages: list[Any]) -> str:
    """The newest user message's text."""
    for m in reversed(messages):
        if _role(m) == "user":
            return _content(m).strip()
    return ""


def scripted_reply(agent: str, messages: list[Any]) -> str:
    """What the agent's scripted model says, given the conversation."""
    topic = _request(messages) or "nothing in particular"
    if agent == "researcher":
        return f"Notes on {topic}: three sources agree it matters, one disagrees."
    return f"Draft: {topic}, explained in one paragraph from the researcher's notes."


def _speak(agent: str, messages: list[Any]) -> dict[str, Any]:
    """Run the agent's model: stream its words as tokens, return the whole message."""
    text = scripted_reply(agent, messages)
    msg_id = f"msg-{uuid.uuid4().hex[:12]}"
    write = get_message_writer()
    words = text.split(" ")
    for i, word in enumerate(words):
        write({"id": msg_id, "role": "assistant", "content": word + (" " if i < len(words) - 1 else "")}, {"agent": agent})
    return {"id": msg_id, "role": "assistant", "content": text, "name": agent}


def _researcher() -> Any:
    def research(state: State) -> dict[str, Any]:
        return {"messages": [_speak("researcher", state["messages"])]}

    def handoff(state: State) -> Command:
        # To the parent graph: the notes go into its conversation, and the writer runs next.
        return Command(graph=Command.PARENT, goto="writer", update={"messages": [state["messages"][-1]]})

    b = StateGraph(State)
    b.add_node("research", research)
    b.add_node("handoff", handoff)
    b.add_edge(START, "research")
    b.add_edge("research", "handoff")
    return b.compile()


def _writer() -> Any:
    def draft(state: State) -> dict[str, Any]:
        return {"messages": [_speak("writer", state["messages"])]}

    def approve(state: State) -> dict[str, Any]:
        answer = interrupt({"question": "Publish this draft?", "draft": _content(state["messages"][-1])})
        verdict = "Published." if str(answer).strip().lower().startswith("y") else "Discarded."
        return {"messages": [{"id": f"msg-{uuid.uuid4().hex[:12]}", "role": "assistant", "content": verdict, "name": "writer"}]}

    b = StateGraph(State)
    b.add_node("draft", draft)
    b.add_node("approve", approve)
    b.add_edge(START, "draft")
    b.add_edge("draft", "approve")
    return b.compile()


def build_graph() -> StateGraph:
    """The builder: supervisor, researcher and writer (the two agents compiled as subgraphs)."""

    def supervisor(state: State) -> Command[Literal["researcher"]]:
        return Command(goto="researcher")

    b = StateGraph(State)
    b.add_node("supervisor", supervisor)
    # The researcher hands off to the writer from inside (Command.PARENT): said here so drawings show it.
    b.add_node("researcher", _researcher(), destinations=("writer",))
    b.add_node("writer", _writer())
    b.add_edge(START, "supervisor")
    b.add_edge("writer", END)
    return b
