"""The version writer: how a run's versions reach its saver, by durability.

``"sync"`` waits for each version to land before the next step; ``"exit"``
keeps only the newest and writes it when the run ends; ``"async"`` (the
default) queues each version and lets the run go on with the next step while
a writer task stores the queue, every version that waited in it in one call
(``aput_many``: one transaction, one commit flush, on savers that have one).
So steps faster than a commit do not wait for one each; the queue is bounded
(:data:`MAX_QUEUED`), so a saver slower than the graph slows the run down
instead of filling memory. A host may give the run a *linger* (``aevents(...,
linger=seconds)``): a writer task waits that long before its first write, so
the versions made meanwhile go in that write too (a run of fast steps: all of
them in one write at its end, not one for its input and more as it goes). The
run's end, a task's pending writes and a full queue cut the wait short; the
versions are still written while the run goes on, as "async" says, at most
``linger`` later than without it (a host that needs a version stored sooner, to
store an event naming it, asks through the run's :class:`Landing`, which also
tells it which versions are stored). A call the sync face started in place has no loop
to run that task until it first waits: its writer starts then, beside it, and
a call that never waits (the in-memory saver, SQLite under a sync call) stores
its queue itself when it flushes, with no task at all. A version is *saved* (:attr:`VersionWriter.last_saved_id`,
what ``RunFinished`` names) only once its write returned.

The writer also stores the run's other pending writes (a task's writes as
it finishes, a stopped step's record, a resume's answers) after whatever is
queued, so they always attach to a version that has landed, and it owns how
the run addresses its saver (thread, ``checkpoint_ns``, lease).

A version may carry the pending writes of its parent: what the tasks of the
step between them wrote (a single task's step records its writes this way,
in the same batch, so it costs no wait of its own). They are stored with the
version, all or none on savers with transactions.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine._internal._ids import checkpoint_id as new_checkpoint_id
from engine._internal._ids import now_iso
from engine._internal._sync import at_first_wait, forget_first_wait
from engine.checkpoint._made import MadeCheckpoint
from engine.checkpoint.base import ERROR, INTERRUPT, LEASE_KEY, RESUME, Checkpoint, Lease, empty_checkpoint
from engine.errors import SerializationError, is_invalid_resume
from engine.pregel import _telemetry as tel
from engine.pregel._algo import restore_channels
from engine.pregel._delta import hydrate, takes_task_path, task_path_str
from engine.pregel._exit_deltas import ExitDeltas
from engine.pregel._io import output_values
from engine.pregel._landing import Landing, LastWrite
from engine.pregel._spec import CHECKPOINT_FORMAT, NO_WRITES, TASKS, GraphSpec
from engine.types import DeltaSnapshot, Send

if TYPE_CHECKING:
    from engine.pregel._algo import Task

__all__ = ["MAX_QUEUED", "Version", "VersionWriter", "new_version"]

#: Versions an async-durability run may compute ahead of its writer before it waits.
MAX_QUEUED = 64


def new_version(ck: Checkpoint) -> Checkpoint:
    """The next version of a run's checkpoint ``ck``, to store: a new id and time,
    its maps copied (the run goes on changing ``ck``, which takes the new id).

    A :class:`~engine.checkpoint._made.MadeCheckpoint`: a saver checks only its put's new versions."""
    snapshot = MadeCheckpoint(
        v=CHECKPOINT_FORMAT,
        id=new_checkpoint_id(),
        ts=now_iso(),
        channel_values=dict(ck["channel_values"]),
        channel_versions=dict(ck["channel_versions"]),
        versions_seen=dict(ck["versions_seen"]),
        updated_channels=ck.get("updated_channels"),
    )
    ck["id"] = snapshot["id"]
    return snapshot  # type: ignore[return-value]


@dataclass(slots=True)
class Version:
    """One version to store, the parent's pending writes that go with it."""

    parent: str | None
    checkpoint: Checkpoint
    metadata: dict[str, Any]
    new_versions: dict[str, int]
    # (task id, writes[, task path]) of tasks of the step that started at ``parent``
    parent_writes: list[tuple[Any, ...]] = field(default_factory=list)


class VersionWriter:
    """Stores one run's versions and pending writes in order, as its durability mode says.

    It owns how the run addresses its saver: the thread, the run's
    ``checkpoint_ns`` ("" at the root; a subgraph's run has its own writer on
    its parent's saver) and the lease every write carries as its fencing token.
    """

    def __init__(
        self,
        saver: Any,
        *,
        thread_id: Any,
        checkpoint_ns: str = "",
        lease: Lease | None = None,
        durability: str,
        trace: tel.RunTrace,
        untracked: frozenset[str] = frozenset(),
        linger: float = 0.0,
        landing: Landing | None = None,
    ) -> None:
        self.saver = saver
        #: "async": seconds a writer task waits before its first write (see the module's doc)
        self.linger = linger
        self._cut: asyncio.Future[None] | None = None  # while a writer task lingers: done cuts it short
        #: the host's view of what this run stored (see :class:`Landing`)
        self.landing = landing
        if landing is not None:
            landing.attach(self)
        #: channels no version stores (UntrackedValue): left out of versions and writes
        self.untracked = untracked
        #: the graph's DeltaChannels (name -> channel): messages written to them get ids before they are stored
        self.delta_channels: dict[str, Any] = {}
        #: the saver's put_writes takes a task path (a saver written before the parameter existed does not)
        self.takes_paths = saver is not None and takes_task_path(saver)
        self.durability = durability
        self.thread_id = thread_id
        self.checkpoint_ns = checkpoint_ns
        self.lease = lease
        self._trace = trace
        self.last_saved_id: str | None = None
        #: channels changed since the last version handed to :meth:`put`
        self.dirty: dict[str, int] = {}
        self._unsaved: Version | None = None  # "exit": the newest version, not written yet
        self._queued: list[Version] = []
        self._task: asyncio.Task[None] | None = None
        self._deferred = False  # the task waits for the call's first wait (see put)
        self._held: list[tuple[str | None, list[tuple[str, Any]], str]] = []  # "exit": calls' writes (put_call_writes)
        self._stopped: list[tuple[Any, ...]] = []  # a stopped step's record, to go with the last write (save_stopped)
        #: "exit" with delta channels: their writes, stored with the one version (engine.pregel._exit_deltas)
        self.exit: ExitDeltas | None = None

    def config(self, checkpoint_id: str | None) -> dict[str, Any]:
        """The config naming the run's thread (and a version of it) on the saver."""
        c = {"thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns}
        if checkpoint_id:
            c["checkpoint_id"] = checkpoint_id
        if self.lease is not None:
            c[LEASE_KEY] = self.lease  # the saver checks this fencing token on every write
        return {"configurable": c}

    def parent_of_next(self, parent: str | None) -> str | None:
        """The parent the next version is stored under: with ``"exit"``, the last saved one."""
        return self.last_saved_id if self.durability == "exit" else parent

    async def put(
        self,
        parent: str | None,
        checkpoint: Checkpoint,
        metadata: dict[str, Any],
        parent_writes: list[tuple[Any, ...]],
        new_versions: dict[str, Any] | None = None,
    ) -> None:
        """Hand over the next version (and the pending writes of ``parent`` that go with it).

        ``new_versions`` ("exit"): what the version stores anew, when not :attr:`dirty`."""
        if self.untracked:
            values = checkpoint["channel_values"]
            for k in self.untracked:
                values.pop(k, None)
            if TASKS in values:
                values[TASKS] = [v for _, v in self.tracked([(TASKS, send) for send in values[TASKS]])]
            parent_writes = [(tid, self.tracked(w), *path) for tid, w, *path in parent_writes]
        if self.durability == "exit":
            # Only the last version is written, under the last saved one; the
            # writes of steps in between belong to versions never stored.
            self._unsaved = Version(self.last_saved_id, checkpoint, metadata, dict(self.dirty) if new_versions is None else new_versions)
            return
        new_versions, self.dirty = self.dirty, {}
        item = Version(parent, checkpoint, metadata, new_versions, parent_writes)
        if self.durability == "sync":
            await self._store([item])
            return
        task = self._task
        if len(self._queued) >= MAX_QUEUED or (task is not None and task.done()):
            await self.written()  # a failed write ends the run here; a full queue waits
        self._queued.append(item)
        if self._task is None and not self._deferred:
            if asyncio.current_task() is None:
                # The sync face started the call in place: no loop runs a task until the
                # call first waits (then the writer starts, beside it), or the call
                # stores the queue itself first (written()): no task, no loop turn.
                self._deferred = True
                at_first_wait(self._start)
            else:
                self._launch(asyncio.get_running_loop())

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        """The deferred writer task starts on ``loop`` (the call started in place now waits)."""
        self._deferred = False
        if self._task is None and self._queued:
            self._launch(loop)

    def _launch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the writer task. Its linger's cut exists from now on: a :meth:`hurry` before the task
        first runs (a step's writes, a resume's answers, right after the version) cuts it short too."""
        if self.linger:
            self._cut = loop.create_future()
        self._task = loop.create_task(self._write_queued())

    async def _write_queued(self, linger: bool = True) -> None:
        """The writer task: store what is queued, all of it at once, until nothing is (after the
        run's linger, if it has one and ``linger``)."""
        if self.linger and linger:
            await self._lingered()
        while self._queued:
            batch, self._queued = self._queued, []
            await self._store(batch)

    async def _lingered(self) -> None:
        """Wait :attr:`linger` seconds, or until :meth:`hurry` cuts the wait short (also before this began)."""
        loop = asyncio.get_running_loop()
        cut = self._cut
        if cut is None:
            cut = self._cut = loop.create_future()
        timer = loop.call_later(self.linger, _cut_short, cut)
        try:
            await cut
        finally:
            timer.cancel()
            self._cut = None

    def hurry(self) -> None:
        """A lingering writer task writes now (the run does not wait for it)."""
        if self._cut is not None:
            _cut_short(self._cut)

    async def written(self) -> None:
        """Wait until every queued version has landed; raise the writer's error if one did not.

        After a failed write, what was still queued is dropped: it continues a
        version that is not stored, so storing it would leave a gap in the chain.
        """
        self.hurry()  # a lingering writer writes now: the run waits for it
        task, self._task = self._task, None
        if self._deferred:  # stored here, in place: the writer need not start
            self._deferred = False
            forget_first_wait(self._start)
        if task is None and not self._queued:
            return
        landed = False
        try:
            await (task if task is not None else self._write_queued(linger=False))
            landed = True
        finally:
            if not landed:
                self._queued.clear()

    async def flush(self, *, last: bool = False) -> None:
        """Everything handed over is stored (``"exit"``: its one version now). ``last``: the run
        ends here; a host that takes its last write (:attr:`Landing.takes_last`) gets what is
        queued, prepared by the saver, instead (engine/pregel/_landing.py)."""
        if last and self._hands_over():
            (batch, self._queued), (stopped, self._stopped) = (self._queued, []), (self._stopped, [])
            await self.written()  # a write in flight lands first: the batch continues it
            if self._hand_over(batch, stopped):
                return
            self._queued, self._stopped = batch, stopped  # stored as ever
        await self.written()
        if self._unsaved is not None:
            item, self._unsaved = self._unsaved, None
            if self.exit is not None:
                await self._store_exit_deltas(item)
            self.dirty = {}  # (what changed after the version was made is in no stored version)
            await self._store([item])
        held, self._held = self._held, []
        for parent, writes, task_id in held:
            if parent == self.last_saved_id:  # the version they belong to is the one written
                await self.saver.aput_writes(self.config(parent), writes, task_id)
        stopped, self._stopped = self._stopped, []
        for write in stopped:  # a stopped step's record (save_stopped), after the version it belongs to
            await self.saver.aput_writes(*write)

    async def _store_exit_deltas(self, item: Version) -> None:
        """``"exit"``: the run's writes to the delta channels its version does not snapshot, stored
        on the version's parent first (a stub version's on a new thread), where reading it folds them."""
        exit_deltas, self.exit = self.exit, None
        assert exit_deltas is not None
        values = item.checkpoint["channel_values"]
        rows = exit_deltas.rows({k for k in exit_deltas.names if isinstance(values.get(k), DeltaSnapshot)})
        if not rows:
            return
        if item.parent is None:
            stub = empty_checkpoint()
            stub["id"] = exit_deltas.stub_id
            stub["ts"] = now_iso()
            await self.saver.aput(self.config(None), stub, {"step": -2}, {})
            item.parent = stub["id"]
        for (task_id, path), writes in rows.items():
            await self.put_writes(item.parent, writes, task_id, path)

    def tracked(self, writes: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """``writes`` as stored: none to an untracked channel, and a Send's dict argument without its untracked keys."""
        if not self.untracked:
            return writes
        out = []
        for chan, value in writes:
            if chan in self.untracked:
                continue
            if chan == TASKS and isinstance(value, Send) and isinstance(value.arg, dict):
                value = Send(value.node, {k: v for k, v in value.arg.items() if k not in self.untracked})
            out.append((chan, value))
        return out

    def discard_unsaved(self) -> None:
        """``"exit"``: forget the version (and calls' writes) not written yet, so :meth:`flush` writes none."""
        self._unsaved = None
        self._held = []
        if self.exit is not None:
            self.exit.clear()

    async def put_call_writes(self, parent: str | None, writes: list[tuple[str, Any]], task_id: str) -> None:
        """The writes of a task a node called (``@task``): stored now, or with ``"exit"`` at the
        end, if the version they belong to (the one the step started from) is the one written."""
        if self.durability == "exit":
            self._held.append((parent, writes, task_id))
        else:
            await self.put_writes(parent, writes, task_id)

    async def put_writes(self, parent: str | None, writes: list[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        """Store pending writes of version ``parent`` now (after what is queued: they attach to a version that landed).

        ``task_path`` (the task's :func:`~engine.pregel._delta.task_path_str`) orders a
        version's writes as the step applied them, when the saver takes it."""
        await self.written()
        if task_path and self.takes_paths:
            await self.saver.aput_writes(self.config(parent), self.tracked(writes), task_id, task_path)
        else:
            await self.saver.aput_writes(self.config(parent), self.tracked(writes), task_id)

    async def save_stopped(self, parent: str | None, tasks: list[Task]) -> None:
        """A step that did not finish: what its tasks did, as pending writes of ``parent``.

        Errors and interrupts are recorded as such (a failed task with the writes its node made
        before a router raised, if any); a finished task's writes
        (at least :data:`~engine.pregel._spec.NO_WRITES`) unless already stored. The run ends after
        this: for a host that takes its last write, they go with the versions still queued.
        """
        stopped = self._stopped_writes(self.config(parent), tasks)
        if self._hands_over() and self._queued[-1].checkpoint["id"] == parent:
            self._stopped = stopped  # the run ends here: they go with its last versions (flush)
            return
        await self.flush()
        for write in stopped:
            await self.saver.aput_writes(*write)

    def _stopped_writes(self, cfg: dict[str, Any], tasks: list[Task]) -> list[tuple[Any, ...]]:
        """:meth:`save_stopped`'s pending writes, each ``aput_writes``' arguments."""
        out = []
        for t in sorted(tasks, key=lambda t: t.sort_key):
            if t.error is not None and is_invalid_resume(t.error):
                # As LangGraph: an answer its question's response_schema refused is not kept,
                # so the question is pending again (the answers before it stay); the task shows the error.
                kept = (t.resume or [])[: getattr(t.error, "graphwire_answered", 0)]
                writes = [(RESUME, kept), (ERROR, repr(t.error))]
            elif t.error is not None:
                # A router that raised leaves its node's writes made (as LangGraph's): stored beside the error.
                writes = [*self.tracked(t.writes or []), (ERROR, repr(t.error))]
            elif t.interrupts:
                answered = [(RESUME, list(t.resume))] if t.took_null and t.resume else []
                writes = [*answered, (INTERRUPT, list(t.interrupts))]
            elif t.paused or t.saved:
                continue  # paused, as LangGraph: nothing recorded, so the task is due again (its subgraph goes on)
            else:
                writes = self.tracked(t.writes) or [(NO_WRITES, None)]
            out.append((cfg, writes, t.id, task_path_str(t.path)) if self.takes_paths else (cfg, writes, t.id))
        return out

    async def last_saved_values(self, spec: GraphSpec) -> dict[str, Any] | None:
        """The values of the last version that landed, read back (None: none did, or it cannot be read now).

        After a failed write the run's channels may hold what was never stored;
        what it reports is what its thread holds.
        """
        if self.last_saved_id is None:
            return None
        try:
            saved = await self.saver.aget_tuple(self.config(self.last_saved_id))
        except Exception:  # the store failed too; the caller reads the thread later
            return None
        if saved is None:
            return None
        try:
            saved = await hydrate(self.saver, saved, spec.channels)
        except Exception:  # its delta channels' history cannot be read now either
            return None
        values: dict[str, Any] | None = output_values(restore_channels(spec.channels, saved.checkpoint), spec.output_keys)
        return values

    async def flush_quietly(self) -> None:
        try:
            await self.flush()
        except Exception:
            pass

    async def _store(self, batch: list[Version]) -> None:
        """Write versions, each the parent of the next; only once they have landed is the
        last one the run's last saved version.

        A batch is one transaction, all or none. If the saver refuses one of its
        versions (:class:`~engine.errors.SerializationError`: a value it cannot
        store, a state over its size limit), the versions before that one are
        stored one by one, and the refusal is raised where it recurs: what a run
        stores never depends on how its versions happened to be batched (the
        same as with ``"sync"``).
        """
        try:
            await self._store_batch(batch)
        except SerializationError:
            if len(batch) == 1:
                raise
            for v in batch:
                await self._store_batch([v])  # raises at the refused one

    def _hands_over(self) -> bool:
        """Whether the run's last write can be handed over: a host that takes it, versions queued
        ("async", its own namespace's; nothing else held) and a saver that prepares writes."""
        return (
            self.landing is not None and self.landing.takes_last and bool(self._queued) and self.durability == "async"
            and not self.checkpoint_ns and self._unsaved is None and not self._held
            and getattr(self.saver, "prepare_many", None) is not None
        )  # fmt: skip

    def _hand_over(self, batch: list[Version], stopped: list[tuple[Any, ...]]) -> bool:
        """The run's last ``batch`` (and the ``stopped`` step's record, see :meth:`save_stopped`), prepared
        by the saver, to its host (whether it was: a value the saver refuses, or a chain it cannot prepare,
        and the run stores it as ever, the refusal raised there)."""
        cfg = self.config
        puts = [(cfg(v.parent), v.checkpoint, v.metadata, v.new_versions) for v in batch]
        try:
            prepared = self.saver.prepare_many(puts, writes=self._writes_of(batch) + stopped)
        except SerializationError:
            return False
        if prepared is None:
            return False
        span = self._trace.span
        if span.is_recording():  # (the run's span ends before the host writes: its events are added now)
            for event in self._write_events(batch):
                event["graphwire.with_run_end"] = True
                span.add_event("graphwire.checkpoint.write", event)
        self.last_saved_id = last_id = batch[-1].checkpoint["id"]  # what RunFinished names: stored with the end, or the run fails
        landing = self.landing
        assert landing is not None  # (_hands_over)
        landing.last = LastWrite(prepared, last_id, landing, self._trace.attrs)
        return True

    @staticmethod
    def _write_events(batch: list[Version]) -> list[dict[str, Any]]:
        # Events on the run span rather than spans of their own: a span costs
        # ~17 µs with the SDK, and a write completes while the next step runs.
        return [
            {
                "graphwire.checkpoint_id": v.checkpoint["id"],
                "graphwire.parent_checkpoint_id": v.parent or "",
                "graphwire.step": v.metadata["step"],
                "graphwire.source": v.metadata["source"],
            }
            for v in batch
        ]

    def _writes_of(self, batch: list[Version]) -> list[tuple[Any, ...]]:
        """The pending writes the versions of ``batch`` carry, as ``aput_many`` takes them."""
        cfg, paths = self.config, self.takes_paths
        return [(cfg(v.parent), w, tid, *(path if paths else ())) for v in batch for tid, w, *path in v.parent_writes]

    async def _store_batch(self, batch: list[Version]) -> None:
        span = self._trace.span
        events = self._write_events(batch) if span.is_recording() else None
        cfg = self.config
        writes = self._writes_of(batch)
        if len(batch) == 1 and not writes:
            v = batch[0]
            coro: Any = self.saver.aput(cfg(v.parent), v.checkpoint, v.metadata, v.new_versions)
        else:
            puts = [(cfg(v.parent), v.checkpoint, v.metadata, v.new_versions) for v in batch]
            coro = self.saver.aput_many(puts, writes=writes)
        await tel.timed_write(coro, span, events, self._trace.attrs)
        self.last_saved_id = batch[-1].checkpoint["id"]
        if self.landing is not None:
            self.landing.landed(self.last_saved_id)


def _cut_short(cut: asyncio.Future[None]) -> None:
    """A lingering writer task goes on (its timer ran out, or the run needs its writes now)."""
    if not cut.done():
        cut.set_result(None)
