"""Persistence faults for the hardening suite: a saver that fails on purpose, and a workload.

:class:`FaultySaver` wraps any saver and delegates every method to it. On a
seeded fraction of ``aput`` / ``aput_writes`` / ``aget_tuple`` / ``alist``
calls it raises :class:`~engine.errors.CheckpointError` ("injected fault:
...") in one of three ways:

* ``error``: before the inner saver is called (nothing stored);
* ``timeout``: after a short wait, before the inner saver is called, as a
  timeout (chained from :class:`TimeoutError`; nothing stored);
* ``committed``: after the inner saver returned, as if it had timed out (the
  write *is* stored, the caller is told it failed).

Whether call number *n* of method *m* on thread *t* fails is a function of
``(seed, m, t, n)`` alone, not of the order in which concurrent threads
reach the saver (for ``aput_writes``, *n* counts per set of channels
written). So a workload whose threads each make their calls in one order
(``chain3``, the reminders agent) gets the same faults on every run. One
with parallel tasks (``fanout``) may not: which task's writes are saved
first, and so what a failed run had stored, depends on which finished first.
``aput_many`` (versions a run queued while a write was in flight, written
in one call) draws one decision with ``aput``'s count; how many versions
queue depends on timing, so where the faults fall within a run can differ
between runs. ``enabled = False`` switches faults off.

The workload: :func:`scripts` gives each thread a list of :class:`Op`\\ s
(chain3 turns; reminders conversations with interrupt and resume);
:func:`drive` runs one thread's ops through the client, and after a failed
call brings the thread back (:func:`recover`: re-send the turn when nothing
of it was stored, else continue with ``invoke(None)`` or answer the pending
interrupt again).
"""

from __future__ import annotations

import asyncio
import operator
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Annotated, Any, TypedDict

from graphwire import Aborted, FinishReason, GraphwireError, NotFound, Unavailable

from engine import END, START, StateGraph
from engine.checkpoint.base import (
    BaseCheckpointSaver,
    CheckpointTuple,
    Lease,
    ThreadInfo,
)
from engine.errors import CheckpointError
from examples.reminders import build_graph

__all__ = [
    "FAULT_KINDS",
    "FaultySaver",
    "Op",
    "Script",
    "drive",
    "fanout",
    "normalize",
    "recover",
    "reminders",
    "scripts",
    "turn",
]

FAULT_KINDS = ("error", "timeout", "committed")
FAULTY_METHODS = ("aget_tuple", "alist", "aput", "aput_writes")  # aput_many counts as aput
#: The reminders agent without the forecast tool's deliberate delay.
reminders = build_graph(forecast_delay=0)


class FanoutState(TypedDict, total=False):
    left: int
    right: int
    log: Annotated[list, operator.add]


def _fanout() -> StateGraph:
    """START → (left ∥ right) → join → END: two tasks in one step, so each task's writes are
    saved on their own as it finishes (``aput_writes``), and a continued run reuses them."""
    g = StateGraph(FanoutState)
    g.add_node("left", lambda s: {"left": s.get("left", 0) + 1})
    g.add_node("right", lambda s: {"right": s.get("right", 0) + 10})
    g.add_node("join", lambda s: {"log": [f"join {s.get('left', 0)}/{s.get('right', 0)}"]})
    g.add_edge(START, "left")
    g.add_edge(START, "right")
    g.add_edge("left", "join")
    g.add_edge("right", "join")
    g.add_edge("join", END)
    return g


fanout = _fanout()


class TurnState(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _turn() -> StateGraph:
    """START → reply → END over a list: a chat turn, whose user message must be stored once."""
    g = StateGraph(TurnState)
    g.add_node("reply", lambda s: {"log": ["reply"]})
    g.add_edge(START, "reply")
    g.add_edge("reply", END)
    return g


turn = _turn()


def _thread_of(config: Mapping[str, Any] | None) -> str:
    return str(((config or {}).get("configurable") or {}).get("thread_id", ""))


class FaultySaver(BaseCheckpointSaver):
    """A saver that fails a seeded fraction of its reads and writes (see the module doc)."""

    def __init__(
        self,
        inner: BaseCheckpointSaver,
        *,
        rate: float,
        seed: int,
        kinds: Sequence[str] = FAULT_KINDS,
        timeout_delay: float = 0.001,
    ) -> None:
        super().__init__(serde=inner.serde)
        unknown = set(kinds) - set(FAULT_KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}")
        self.inner = inner
        self.rate = rate
        self.seed = seed
        self.kinds = tuple(kinds)
        self.timeout_delay = timeout_delay
        self.enabled = True
        self.supports_leases = inner.supports_leases
        self.leases = inner.leases  # leases and messages are not faulty: the inner saver's own
        self.messages = inner.messages
        self.calls: Counter[str] = Counter()
        #: Every injected fault: (method, thread, call number, kind).
        self.injected: list[tuple[str, str, int, str]] = []
        self._seq: Counter[tuple[str, str, str]] = Counter()

    def __getattr__(self, name: str) -> Any:  # anything else the inner saver has (schema, ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    # -- deciding ------------------------------------------------------------------
    def _decide(self, method: str, thread: str, what: str = "") -> str | None:
        """The fault of this call, if any: a function of (seed, method, thread, what, call number)."""
        self.calls[method] += 1
        if not self.enabled or self.rate <= 0:
            return None
        n = self._seq[(method, thread, what)]
        self._seq[(method, thread, what)] = n + 1
        rng = random.Random(f"{self.seed}:{method}:{thread}:{what}:{n}")
        if rng.random() >= self.rate:
            return None
        kind = rng.choice(self.kinds)
        self.injected.append((method, thread, n, kind))
        return kind

    async def _before(self, kind: str | None, method: str, thread: str) -> None:
        if kind == "error":
            raise CheckpointError(f"injected fault: {method} on thread {thread!r} failed")
        if kind == "timeout":
            await asyncio.sleep(self.timeout_delay)
            raise CheckpointError(f"injected fault: {method} on thread {thread!r} timed out") from TimeoutError()

    @staticmethod
    def _committed(method: str, thread: str) -> CheckpointError:
        return CheckpointError(f"injected fault: {method} on thread {thread!r} timed out (it was committed)")

    async def _call(self, method: str, thread: str, work: Callable[[], Any], what: str = "") -> Any:
        kind = self._decide(method, thread, what)
        await self._before(kind, method, thread)
        result = await work()
        if kind == "committed":
            raise self._committed(method, thread) from TimeoutError()
        return result

    # -- the faulty four -------------------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await self._call("aget_tuple", _thread_of(config), lambda: self.inner.aget_tuple(config))

    async def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        thread = _thread_of(config)
        kind = self._decide("alist", thread)
        await self._before(kind, "alist", thread)
        found = [t async for t in self.inner.alist(config, filter=filter, before=before, limit=limit)]
        if kind == "committed":
            raise self._committed("alist", thread) from TimeoutError()
        for t in found:
            yield t

    async def aput(self, config: Mapping[str, Any], checkpoint: Any, metadata: Any, new_versions: Any) -> dict[str, Any]:
        return await self._call(
            "aput", _thread_of(config), lambda: self.inner.aput(config, checkpoint, metadata, new_versions)
        )

    async def aput_many(self, puts: Sequence[Any], *, writes: Sequence[Any] = ()) -> list[dict[str, Any]]:
        # One fault decision for the batch, counted with aput: the batch is
        # stored whole or not at all, or (committed) whole and reported lost.
        return await self._call("aput", _thread_of(puts[0][0]), lambda: self.inner.aput_many(puts, writes=writes))

    async def aput_writes(
        self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        # Tasks of one step finish in any order: their writes are told apart by
        # the channels they write, so which of them fails does not depend on timing.
        what = ",".join(sorted({str(c) for c, _ in writes}))
        return await self._call(
            "aput_writes", _thread_of(config), lambda: self.inner.aput_writes(config, writes, task_id, task_path), what
        )

    # -- the rest, delegated as they are ---------------------------------------------
    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:
        await self.inner.adelete_thread(thread_id, lease=lease)

    async def aprune(self, thread_id: str, *, keep_last: int | None = None, older_than: timedelta | None = None) -> int:
        return await self.inner.aprune(thread_id, keep_last=keep_last, older_than=older_than)

    async def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        async for t in self.inner.alist_threads(prefix=prefix, limit=limit):
            yield t

    def get_next_version(self, current: int | None, channel: Any = None) -> int:
        return self.inner.get_next_version(current, channel)

    async def aclose(self) -> None:
        await self.inner.aclose()


# -- the workload ----------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    """One call of a thread's script: a turn (``invoke``) or an answer (``resume``).

    ``marker``: text that is in the thread's state once the turn's input was
    stored (how recovery tells "re-send" from "continue"); ``ends``: how the
    call's run is expected to end.
    """

    kind: str  # "invoke" | "resume"
    payload: Any
    marker: str = ""
    ends: FinishReason = FinishReason.END


@dataclass
class Script:
    graph: str
    thread: str
    ops: list[Op]
    #: What happened: ("ok"|code name, op index, message); filled by drive().
    outcomes: list[tuple[str, int, str]] = field(default_factory=list)


def scripts(
    chain_threads: int = 20, chain_turns: int = 5, chat_threads: int = 6, fanout_threads: int = 6, prefix: str = "f"
) -> list[Script]:
    """The workload: chain3 and fanout threads of several turns, and reminders conversations with interrupts."""
    out = []
    for i in range(chain_threads):
        ops = [Op("invoke", {"log": [f"turn{k}"]}, marker=f"turn{k}") for k in range(chain_turns)]
        out.append(Script("chain3", f"{prefix}-chain-{i:02d}", ops))
    for i in range(fanout_threads):
        ops = [Op("invoke", {"log": [f"turn{k}"]}, marker=f"turn{k}") for k in range(chain_turns)]
        out.append(Script("fanout", f"{prefix}-fan-{i:02d}", ops))
    for i in range(chat_threads):
        first, second = f"water plant {i}", f"call grandma {i}"
        ops = [
            Op("invoke", _user(f"remind me to {first} at 5pm"), marker=first, ends=FinishReason.INTERRUPT),
            Op("resume", "yes"),
            Op("invoke", _user(f"weather in City{i}"), marker=f"City{i}"),
            Op("invoke", _user(f"remind me to {second} at noon"), marker=second, ends=FinishReason.INTERRUPT),
            Op("resume", "no"),
        ]
        out.append(Script("reminders", f"{prefix}-chat-{i:02d}", ops))
    return out


def _user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def _perform(client: Any, s: Script, op: Op) -> None:
    if op.kind == "invoke":
        result = await client.invoke(s.graph, s.thread, op.payload)
    else:
        result = await client.resume(s.graph, s.thread, op.payload)
    assert result.reason is op.ends, f"{s.thread}: {op} ended {result.reason} ({result.error})"


async def _state(client: Any, s: Script) -> Any:
    try:
        return await client.get_state(s.graph, s.thread)
    except NotFound:
        return None


def _stored(state: Any, marker: str) -> bool:
    """Whether the turn ``marker`` names was stored: its input applied, or its input version pending.

    A turn's first version (source "input") holds the input in ``__start__``
    only; the state's keys show it one step later. So a head whose next task
    is ``__start__`` carries this turn's input (every earlier turn finished).
    """
    if state is None:
        return False
    return marker in repr(state.values) or "__start__" in state.next


async def recover(client: Any, s: Script, op: Op) -> None:
    """Finish ``op`` after a call of it failed, whatever of it was stored.

    Nothing of the turn stored: send it again. Its input stored but the run
    unfinished: ``invoke(None)`` continues from the newest version (and runs
    a step whose writes were lost again). An interrupt still pending for a
    ``resume``: answer it again.
    """
    for _ in range(20):
        state = await _state(client, s)
        if op.kind == "invoke" and not _stored(state, op.marker):
            await _perform(client, s, op)
            return
        if state is not None and state.interrupts:
            if op.kind == "invoke":
                return  # the turn ends at its interrupt; the next op answers it
            await client.resume(s.graph, s.thread, op.payload)
            continue
        # A step is due while its version lists tasks: the live view's `next`
        # leaves out the tasks that finished, so a step whose tasks all finished
        # but whose version was lost shows them only in `tasks`.
        if state is not None and (state.next or state.tasks):
            await client.invoke(s.graph, s.thread, None)
            continue
        return
    raise AssertionError(f"{s.thread}: {op} did not settle after 20 recovery calls")


async def drive(client: Any, s: Script, *, start: int = 0, recovering: bool = False, retries: int = 3) -> int | None:
    """Run ``s.ops[start:]``; after a failed call recover (up to ``retries`` times).

    After each op the thread is read back (:func:`_read`; a failed read is
    recorded, not retried). Every failure is recorded in ``s.outcomes``; a failure other than
    UNAVAILABLE or ABORTED ends the script at once. Returns the index of the
    op left unfinished, or None when all are done.
    """
    i = start
    while i < len(s.ops):
        op = s.ops[i]
        try:
            await (recover(client, s, op) if recovering else _perform(client, s, op))
        except GraphwireError as exc:
            s.outcomes.append((type(exc).__name__, i, str(exc)))
            if not isinstance(exc, (Unavailable, Aborted)) or retries <= 0:
                return i
            retries -= 1
            recovering = True
            continue
        s.outcomes.append(("ok", i, ""))
        recovering = False
        i += 1
        await _read(client, s, i - 1)
    return None


async def _read(client: Any, s: Script, i: int) -> None:
    """Read the thread back (GetState, ListHistory), so reads meet faults too; a failed read is recorded."""
    try:
        await client.get_state(s.graph, s.thread)
        await client.history(s.graph, s.thread, limit=3)
    except GraphwireError as exc:
        s.outcomes.append((type(exc).__name__, i, f"(read) {exc}"))


def normalize(value: Any) -> Any:
    """A state without the random parts (message and tool-call ids)."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items() if k not in ("id", "tool_call_id")}
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    return value
