"""A host's resume: the question it answers, decided once, checked when the run loads the thread.

``Command(resume=value)`` keeps LangGraph's rule for graph authors (a dict
whose keys all look like interrupt ids is a map of answers, anything else is
one answer). A host answering for a remote caller needs no guessing: it
hands the run a :class:`Resume`, whose ``answers`` are always a map of
interrupt id to answer, or, with ``at``, "continue from the static
breakpoint the thread waited at when the call arrived" (``at``).

Between the call's arrival and its run the thread may move on (the call
waited for the thread, another run answered the question), so a resume is
checked twice against the thread's live view (:class:`StateSnapshot`):
:func:`plan_resume` when the call arrives decides what it answers (a single
answer answers the first interrupt pending then), and :func:`check_resume`
when its run has loaded the thread refuses a question no longer pending
(:class:`~engine.errors.InvalidResumeError`, naming what is pending now), so
an answer is never applied to a question nobody asked it. ``thread`` in
both is the caller's name of the thread, for the messages. Pure: snapshots
in, a Resume or an error out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from engine.errors import InvalidResumeError, NotFoundError, UnknownInterruptError
from engine.types import StateSnapshot

__all__ = ["CONFIG_KEY_STRICT_RESUME", "NO_ANSWER", "Resume", "check_resume", "is_resume_map", "plan_resume", "refuse_unmatched"]

#: LangGraph 1.2's configurable key turning strict resume mode on (:func:`refuse_unmatched`)
CONFIG_KEY_STRICT_RESUME = "__pregel_strict_resume"

#: An interrupt id's shape (as LangGraph's: 32 lowercase hex digits).
_INTERRUPT_ID = re.compile(r"[0-9a-f]{32}")

#: ``plan_resume``'s ``answer`` when the caller sent a map (``answers``) instead.
NO_ANSWER: Any = object()


@dataclass(frozen=True, slots=True)
class Resume:
    """What a run answers: ``answers`` by interrupt id; or, with ``at``, nothing: it continues from that version."""

    answers: Mapping[str, Any] = field(default_factory=dict)
    at: str | None = None  # a static breakpoint: the version the thread waited at
    due: tuple[str, ...] = ()  # ...and the nodes due there then


def is_resume_map(resume: Any) -> bool:
    """Whether ``Command(resume=...)``'s value is a map of interrupt id → answer rather than one answer.

    LangGraph's rule: a dict whose keys all have an interrupt id's shape (32
    lowercase hex digits), whether or not they are pending now. So a stale id
    is never handed to a node as if the map were its answer.
    """
    return isinstance(resume, Mapping) and all(isinstance(k, str) and _INTERRUPT_ID.fullmatch(k) for k in resume)


def plan_resume(
    state: StateSnapshot,
    *,
    thread: str,
    graph: str,
    answer: Any = NO_ANSWER,
    answers: Mapping[str, Any] | None = None,
    answers_name: str = "answers",
) -> Resume:
    """What a resume arriving now answers, given the thread's live view ``state``.

    ``answers``: a map of interrupt id to answer; else ``answer``, one answer
    for the first interrupt pending now (keyed by its id, so an answer that is
    itself a JSON object is never read as a map), or, with ``None`` and no
    interrupt pending but nodes due, a continue from the static breakpoint.
    A key of ``answers`` that is no interrupt id at all is the caller's
    mistake: ValueError, its message starting with ``answers_name``.
    """
    if state.metadata is None:
        raise NotFoundError(f"thread {thread!r} does not exist in graph {graph!r}")
    if answers is None and not state.interrupts and state.next and answer is None:
        return Resume(at=_checkpoint_id(state), due=tuple(state.next))
    if answers is not None:
        named = dict(answers)
        malformed = sorted(k for k in named if not _INTERRUPT_ID.fullmatch(k))
        if malformed and state.interrupts:
            pending = [i.id for i in state.interrupts]
            raise ValueError(f"{answers_name}: {malformed} are not interrupt ids (pending on thread {thread!r}: {pending})")
    elif state.interrupts:
        named = {state.interrupts[0].id: answer}
    else:
        named = {}
    resume = Resume(answers=named)
    check_resume(resume, state, thread=thread, when="")
    return resume


def check_resume(resume: Resume, state: StateSnapshot, *, thread: str, when: str = " while this Resume waited for the thread") -> None:
    """Raise InvalidResumeError unless ``resume`` still applies to the thread's live view ``state``."""
    if resume.at is not None:
        if _checkpoint_id(state) != resume.at or state.interrupts or not state.next:
            raise InvalidResumeError(
                f"thread {thread!r} moved on while this Resume waited for it: it waited at version "
                f"{resume.at} (next: {list(resume.due)}); {_pending(state)}"
            )
        return
    pending = {i.id for i in state.interrupts}
    named = sorted(resume.answers)
    if not pending:
        raise InvalidResumeError(
            f"thread {thread!r} has no pending interrupt to resume" + (f" (answered{when}: {named})" if when else "")
        )
    gone = sorted(set(named) - pending)
    if gone:
        raise InvalidResumeError(
            f"thread {thread!r}: interrupt(s) {gone} not pending{' any more' if when else ''}"
            f"{(' (answered' + when + ')') if when else ''}; {_pending(state)}"
        )


def _pending(state: StateSnapshot) -> str:
    """What the thread waits for now, for a message."""
    if state.interrupts:
        return "pending now: " + ", ".join(f"{i.id} ({_node_of(state, i.id)})" for i in state.interrupts)
    if state.next:
        return f"no interrupt pending now (next: {list(state.next)})"
    return "no interrupt pending now (the thread's last run ended)"


def _node_of(state: StateSnapshot, interrupt_id: str) -> str:
    return next((t.name for t in state.tasks for i in t.interrupts if i.id == interrupt_id), "?")


def _checkpoint_id(state: StateSnapshot) -> str | None:
    return (state.config or {}).get("configurable", {}).get("checkpoint_id")


def refuse_unmatched(resume: Any, pending: set[str], *, keyed: bool = False) -> None:
    """Strict resume mode (LangGraph's ``__pregel_strict_resume``): raise UnknownInterruptError unless
    ``resume`` matches the interrupts ``pending``: a map naming only pending ones, or one answer while at
    most one is pending (with none, it goes on from a static breakpoint)."""
    if keyed or is_resume_map(resume):
        if not resume:
            raise UnknownInterruptError("The resume map names no interrupt", reason="empty_map", pending_ids=sorted(pending))
        if unknown := sorted(set(resume) - pending):
            raise UnknownInterruptError(
                f"Unknown or already-consumed interrupt: {unknown[0]}", reason="not_pending", interrupt_ids=unknown,
                pending_ids=sorted(pending),
            )
    elif len(pending) > 1:
        raise UnknownInterruptError(
            "When there are multiple pending interrupts, you must specify the interrupt id when resuming.",
            reason="ambiguous", pending_ids=sorted(pending),
        )
