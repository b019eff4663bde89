"""The engine's one door for hosts: what a program serving graphs to callers uses beyond the graph API.

A host (graphwire's server, or any program that runs graphs for callers across
a network) needs more of the engine than a graph author does: where its run
records live, how it holds a thread across processes, how processes sharing a
database talk, and the limits the engine sets on what a caller may send. They
are here, under public names, so that a host imports no private module of the
engine (``tests/codebase`` enforces it for ``server/``) and the engine may
rearrange its rooms without breaking one.

* **Run records** (durable turns): :class:`RunRecord`, :class:`RunStore` and
  :data:`ACTIVE`. A SQL saver carries its store (``saver.runs``), as it
  carries its leases and messages; :func:`runs_of` gives any saver's (one in
  memory, :class:`MemoryRuns`, for a saver without tables).
* **Thread records**: :class:`ThreadRecord`, :class:`ThreadStore`, :class:`ThreadQuery` (a search)
  and :data:`KEEP`; a SQL saver carries its store (``saver.threads``), :func:`threads_of` gives any
  saver's (:class:`MemoryThreads` for a saver without tables). A :class:`ThreadMark` rides with a
  run's record when the run store writes that thread store's records (``RunStore.threads``).
* **Assistants** (named, versioned configurations of a graph):
  :class:`AssistantRecord`, :class:`AssistantStore` (``saver.assistants``,
  or one in memory from :func:`assistants_of`), :class:`AssistantSearch`,
  :class:`AssistantConflict` and :func:`default_assistant_id`.
* **Crons** (runs started on a schedule): :class:`CronRecord`, :class:`CronStore`
  (``saver.crons``, or one in memory from :func:`crons_of`), :class:`CronSearch`;
  schedules parsed by :func:`parse_schedule`, fired next at :func:`next_fire`.
* **Delayed runs** (``after_seconds``: runs that start later, kept until they start):
  :class:`DelayedRun`, :class:`DelayedRuns` (``saver.delayed``, or one in memory from :func:`delayed_of`).
* **Webhooks to send** (a durable outbox): :class:`WebhookRecord`, :class:`WebhookOutbox`
  (``saver.webhooks``, or one in memory from :func:`webhooks_of`).
* **Leases and messages** (one run per thread across processes):
  :class:`Lease`, :class:`LeaseHolder`, :class:`LeaseStore` (``saver.leases``)
  and :class:`MessageBus` (``saver.messages``); see
  :mod:`engine.checkpoint.base` for how a host, the engine and a saver use a lease.
* **Limits and checks** on what a caller sends: :data:`MAX_METADATA_BYTES`
  (a run's metadata, and its context), :func:`is_unicode` (text a store and
  the wire can carry), :func:`context_from_json` (a run's context from JSON,
  checked against the graph's ``context_schema``; :class:`ContextError` says
  which field is wrong); and on a run's events waiting for their consumer:
  :data:`MAX_WAITING_EVENTS`, :data:`MAX_WAITING_BYTES`, as :func:`weigh_event`
  weighs an event (a host's own buffers hold to the engine's).
* **Which run wrote a version**: :data:`RUN_KEY`, the key under which a
  version records the run that wrote it, beside its metadata (a LangGraph
  program never sees it; ``get_state(..., run_ids=True)`` shows it to a host
  as ``metadata["run_id"]``; a host filters a listing on it).
* **Shapes a host tells apart**: :class:`EntrypointGraph` (a functional-API
  graph, whose input may be any value), :class:`ScopedCache` (a node cache
  under one namespace: a tenant's), :func:`langchain_messages` (LangChain's
  message module, when installed).
* **Resumes planned for another runtime** (a graph LangGraph itself runs behind
  the host's seam): :class:`Resume`, :func:`plan_resume` (what a resume arriving
  now answers, from the thread's snapshot), :func:`check_resume` (whether it
  still applies once the run holds the thread) and :data:`NO_ANSWER`.
* **A saver LangGraph itself runs on** (a graph served on LangGraph): :func:`serve_langgraph`
  (a saver built before LangGraph was imported becomes one of its checkpointers).
* **LangChain's callback events of a run** (LangGraph's server's "events" stream mode):
  :func:`with_callback_events` runs a run under LangChain's event stream handler and gives its
  events as :class:`~engine.events.CallbackEvent`\\ s among the run's own (langchain-core needed).
* **A run's version writes, seen by its host**: ``aevents(..., linger=seconds)`` lets an "async"
  run's writer wait that long so versions made meanwhile share a write; a :class:`Landing` passed as
  ``aevents(..., landing=)`` says which of the run's versions are stored and asks for them sooner
  (a host storing an event that names a version stores it once the version is); with
  ``Landing(takes_last=True)`` the run hands its last write to the host as a :class:`LastWrite`, for the
  host to store with its record of the run's end (``afinish(..., versions=)`` of a run store whose
  ``stores_last_versions`` is true: PostgreSQL's, in one statement).
* **Thread ids a graph sees vs. storage keys**: :class:`ScopedSaver` (a
  checkpointer through which a graph sees its caller's thread ids while the
  rows, and the leases, carry the host's storage keys, e.g. one naming the graph).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from engine.cache._scoped import ScopedCache
from engine.checkpoint._helpers import MAX_METADATA_BYTES, is_unicode
from engine.checkpoint._langgraph import adopt_langgraph_base, langgraph_entries
from engine.checkpoint._lease import Lease, LeaseHolder, LeaseStore, MessageBus
from engine.checkpoint._scoped import ScopedSaver
from engine.checkpoint._assistants import AssistantRecord, AssistantStore, MemoryAssistants, assistants_of, default_assistant_id
from engine.checkpoint._assistants import Conflict as AssistantConflict, Search as AssistantSearch
from engine.checkpoint._cron_schedule import next_fire, parse_schedule, zone_of
from engine.checkpoint._crons import CronRecord, CronSearch, CronStore, MemoryCrons, crons_of
from engine.checkpoint._delayed import DelayedRun, DelayedRuns, MemoryDelayed, delayed_of
from engine.checkpoint._webhooks import MemoryWebhooks, WebhookOutbox, WebhookRecord, webhooks_of
from engine.checkpoint._runs import ACTIVE, MemoryRuns, Outline, RunRecord, RunStore, runs_of
from engine.checkpoint._threads import (
    KEEP, Expected, MemoryThreads, RecordChanged, ThreadMark, ThreadQuery, ThreadRecord, ThreadStore, contains, threads_of,
)  # fmt: skip
from engine.func._entrypoint import EntrypointGraph
from engine._langchain import messages as langchain_messages
from engine.checkpoint.base import RUN_KEY, BaseCheckpointSaver
from engine.events import Event
from engine.pregel._queue import MAX_WAITING_BYTES, MAX_WAITING_EVENTS, weigh_event
from engine.pregel._resume import NO_ANSWER, Resume, check_resume, plan_resume
from engine.pregel._run_context import ContextError, context_from_json
from engine.pregel._landing import Landing, LastWrite
from engine.pregel._updates import REJECTED as UPDATE_REJECTED

__all__ = [
    "contains", "ACTIVE", "DelayedRun", "DelayedRuns", "MemoryDelayed", "delayed_of", "AssistantConflict", "AssistantRecord", "AssistantSearch", "AssistantStore", "CronRecord", "CronSearch", "CronStore", "KEEP", "MAX_METADATA_BYTES",
    "MAX_WAITING_BYTES", "MAX_WAITING_EVENTS", "NO_ANSWER", "ContextError", "EntrypointGraph", "Expected", "Landing", "LastWrite", "Lease", "LeaseHolder",
    "LeaseStore", "MemoryAssistants", "MemoryCrons", "MemoryRuns", "MemoryThreads", "MessageBus", "Outline", "RUN_KEY", "Resume", "RunRecord",
    "RecordChanged", "RunStore", "ScopedCache", "ScopedSaver", "ThreadMark", "ThreadQuery", "ThreadRecord", "ThreadStore", "assistants_of", "check_resume",
    "context_from_json", "crons_of", "default_assistant_id", "is_unicode", "langchain_messages", "next_fire", "parse_schedule", "plan_resume", "runs_of", "serve_langgraph",
    "threads_of", "UPDATE_REJECTED", "weigh_event", "webhooks_of", "with_callback_events", "zone_of", "MemoryWebhooks", "WebhookOutbox", "WebhookRecord",
]  # fmt: skip


def serve_langgraph(saver: Any) -> None:
    """Make ``saver`` (built before LangGraph itself was imported) one LangGraph runs on: its class a
    LangGraph checkpointer (every saver's: the base is shared) and its serializer storing LangGraph's types."""
    adopt_langgraph_base(BaseCheckpointSaver)
    allow = getattr(getattr(saver, "serde", None), "allow_entries", None)
    if allow is not None:
        allow(*langgraph_entries())


def with_callback_events(
    run: Callable[[dict[str, Any]], AsyncIterator[Event]], input: Any, config: dict[str, Any], run_id: str
) -> AsyncIterator[Event]:
    """``run(config)``'s events with the run's LangChain callback events among them, as
    ``astream_events(version="v2")`` gives them (:mod:`engine._langchain.callback_events`).

    Raises:
        RuntimeError: langchain-core is not installed (no callback events to give).
    """
    if langchain_messages() is None:
        raise RuntimeError("LangChain's callback events need langchain-core (the langchain extra)")
    from engine._langchain.callback_events import with_callback_events as wrapped

    return wrapped(run, input, config, run_id)
