"""``RunOptions``: how a run goes, as one value.

Every run method (``invoke``, ``resume``, ``fork`` and their ``stream_``
forms, on both clients) takes the same options, and they are defined here
only: a method takes ``options=RunOptions(...)`` and, as sugar, the same
fields as keyword arguments, which override those of ``options``. A value
can be kept, shared between calls and varied::

    sync = RunOptions(durability="sync", timeout=30)
    client.invoke("reminders", "t1", inp, options=sync)
    client.invoke("reminders", "t2", inp, options=sync, enqueue=True)   # sync, and enqueue
    client.stream("reminders", "t3", inp, options=sync.replace(event_kinds=["values"]))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphwire import _requests
from graphwire._channel import CallMetadata
from graphwire._retry import Retry
from graphwire._types import Durability, EventKind, IfInterrupted, MultitaskStrategy, OnDisconnect
from graphwire_proto.v1 import graphwire_pb2 as pb

__all__ = ["DEFAULT", "RunOptions", "run_options"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """The options of a run (``invoke``, ``resume``, ``fork`` and their ``stream_`` forms).

    Attributes:
        event_kinds: The event kinds to receive (``EventKind`` or names such
            as ``"values"``); None: all (``invoke``/``resume``/``fork``: the
            first and last only). The first and last events always come.
        enqueue: If the thread is busy, wait for its run instead of failing
            with ``Aborted``.
        recursion_limit: The most supersteps the run may take.
        durability: When versions are written: ``"async"`` (default),
            ``"sync"`` or ``"exit"``.
        run_metadata: A JSON object stored in the metadata of every version
            the run saves (``history(filter=...)`` finds them).
        interrupt_before, interrupt_after: Nodes to pause before/after,
            replacing the graph's own breakpoints.
        context: The run's context (a JSON object, such as
            ``{"user_id": "u1"}``): what the graph's nodes read as
            ``runtime.context``, checked against its ``context_schema``
            (``InvalidArgument`` naming a bad field). Not stored in state.
        configurable: The run's ``configurable`` (a JSON object, such as
            ``{"model": "small", "user_id": "u1"}``): what LangGraph's
            ``config={"configurable": ...}`` passes; nodes, tools and chat
            models read it from their ``config["configurable"]``, beside the
            thread id. ``thread_id``, ``checkpoint_id``, ``checkpoint_ns``,
            ``checkpoint_map`` and keys starting with ``__`` are the
            service's (``InvalidArgument`` naming the key).
        tags: The run's tags: what LangGraph's ``config={"tags": [...]}``
            passes; nodes, tools and chat models see them in
            ``config["tags"]``, and every LangChain callback event of the run
            carries them (at most 64, each 1 to 256 characters).
        timeout: Seconds for the whole call; its deadline cancels the run.
        metadata: Extra call metadata (such as W3C ``traceparent``), sent
            after the client's own.
        request_id: The id of this logical call, sent with each of its
            retries so the server applies it once. None: a new UUID per
            call while retrying is on (none when it is off).
        on_disconnect: What the run does when the caller's stream drops:
            ``"cancel"`` (the server's default) or ``"continue"``, with
            which the client re-joins the run after a dropped connection and
            the caller sees each event once, in order.
        background: Return right after ``RunStarted``; the run goes on with
            no caller (``join_run``, ``get_run`` follow it). Only the
            ``stream*`` methods take it.
        multitask_strategy: What to do when the thread already has a run:
            ``"reject"`` (``Aborted``), ``"enqueue"`` (wait; as
            ``enqueue=True``), ``"interrupt"`` (cancel it, keep its versions,
            run) or ``"rollback"`` (cancel it, delete its versions, run).
            None: ``enqueue`` decides.
        expect_checkpoint_id: Run only if the thread's newest version is this
            one (the one the caller displayed); else ``FailedPrecondition``
            whose ``refused`` names the newest.
        if_interrupted: ``invoke`` only: ``"reject"`` refuses a thread waiting
            at an interrupt (``FailedPrecondition``, ``refused.interrupts``)
            instead of dropping it (``"drop"``, the server's default).
        retry: How UNAVAILABLE is retried (see :class:`Retry`): None the
            client's policy, False none, True the defaults.
        assistant_id: Run as this assistant (``client.assistants``): its
            graph, with its config and context as defaults (this call's own
            values win, key by key). The graph argument may then be ``""``
            (or must name the assistant's graph). A graph's name stands for
            its default assistant.
    """

    event_kinds: Iterable[EventKind | str] | None = None
    enqueue: bool = False
    recursion_limit: int | None = None
    durability: Durability | str | None = None
    run_metadata: Mapping[str, Any] | None = None
    interrupt_before: Sequence[str] | None = None
    interrupt_after: Sequence[str] | None = None
    context: Mapping[str, Any] | None = None
    configurable: Mapping[str, Any] | None = None
    tags: Sequence[str] | None = None
    timeout: float | None = None
    metadata: CallMetadata | None = None
    request_id: str | None = None
    on_disconnect: OnDisconnect | str | None = None
    background: bool = False
    retry: Retry | bool | None = None
    multitask_strategy: MultitaskStrategy | str | None = None
    expect_checkpoint_id: str | None = None
    if_interrupted: IfInterrupted | str | None = None
    assistant_id: str | None = None

    def __post_init__(self) -> None:
        # A value is used again and again: iterables become tuples, once.
        kinds = self.event_kinds
        if kinds is not None and not isinstance(kinds, str):
            object.__setattr__(self, "event_kinds", tuple(kinds))
        for name in ("interrupt_before", "interrupt_after", "metadata", "tags"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value))

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with ``changes`` (fields, by name) applied."""
        return run_options(self, changes)

    def run_config(self) -> pb.RunConfig | None:
        """The request's ``config``: the per-run overrides, or None when there are none."""
        return _requests.run_config(
            recursion_limit=self.recursion_limit,
            durability=self.durability,
            run_metadata=self.run_metadata,
            interrupt_before=self.interrupt_before,
            interrupt_after=self.interrupt_after,
            context=self.context,
            configurable=self.configurable,
            tags=self.tags,
        )


_FIELDS = frozenset(f.name for f in dataclasses.fields(RunOptions))
#: The options of a call that names none (shared: a value never changes).
DEFAULT = RunOptions()


def run_options(options: RunOptions | None, overrides: Mapping[str, Any]) -> RunOptions:
    """``options`` (default: ``RunOptions()``) with ``overrides`` applied; TypeError naming an unknown one."""
    base = DEFAULT if options is None else options
    if not isinstance(base, RunOptions):
        raise TypeError(f"options must be a RunOptions, not {type(base).__name__}")
    if not overrides:
        return base
    unknown = sorted(set(overrides) - _FIELDS)
    if unknown:
        raise TypeError(f"unknown run option(s) {unknown}; RunOptions has {sorted(_FIELDS)}")
    return dataclasses.replace(base, **overrides)
