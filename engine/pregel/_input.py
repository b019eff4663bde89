"""Folding a call's input into the version it starts from (the loop's set-up).

A run starts by loading the thread's version (the newest, or the one the
config names) and folding the call's input into it, as LangGraph 1.2 does:

* input writes stored on the version (a ``Command``'s update and goto)
  apply first, whatever the call brings;
* new input → the tasks due at that version are discarded, the input is
  written to the START channel, and an "input" version is saved;
* ``Command(resume=...)`` → the answers are saved as pending writes of the
  interrupted tasks, no version is saved; with ``update``/``goto`` as well,
  or those alone, they are saved as the step's input writes and applied
  (no "input" version, START's edges are not taken);
* ``None`` naming a checkpoint id → a "fork" version, a copy of it, is saved
  and the run continues from the copy;
* ``None`` without a checkpoint id → the run continues where it stopped;
* a config naming a subgraph's version → the graph's run loads the version
  that one belongs to (``checkpoint_map[""]``,
  :func:`~engine.pregel._nested.root_configurable`), and the subgraph's run
  goes back to the version named, as to a named version of its own, its
  answers there dropped (:meth:`InputFolder._travel`);
* a host's :class:`~engine.pregel._resume.Resume` → checked against the
  loaded version (:func:`~engine.pregel._resume.check_resume`), then its
  answers by id, or with none the run continues (a static breakpoint).

:class:`InputFolder` does this for :class:`~engine.pregel._loop.RunLoop`
before its first step, on the run's :class:`~engine.pregel._run.RunState`;
the loop then runs supersteps from where the folding left the run.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from engine.checkpoint.base import INTERRUPT, RESUME, CheckpointTuple
from engine.pregel._migrate import adopt_task_ids, copy_migrated, moved_channels
from engine.errors import EmptyInputError, InvalidResumeError, NotFoundError
from engine.events import CheckpointLoaded, RunFinished, RunStarted
from engine.pregel._delta import DeltaBook, hydrate, input_task_id, stamp_ids
from engine.pregel._algo import Task, apply_null_writes, apply_writes, mark_interrupt_seen, prepare_next_tasks, restore_channels
from engine.pregel._context import interrupt_id
from engine.pregel._io import input_writes, shown_metadata
from engine.pregel._nested import Replay, resume_input, travel_target
from engine.pregel._resume import CONFIG_KEY_STRICT_RESUME, Resume, check_resume, is_resume_map, refuse_unmatched
from engine.pregel._versions import saver_version
from engine.pregel._snapshot import build_snapshot, task_states
from engine.pregel._spec import INPUT_SEEN, NULL_TASK_ID
from engine.pregel._status import null_writes, read_statuses
from engine.types import START, Command, StateSnapshot

if TYPE_CHECKING:
    from engine.pregel._nested import NestedHost
    from engine.pregel._queue import EventQueue
    from engine.pregel._run import RunSettings, RunState
    from engine.pregel._telemetry import RunTrace
    from engine.pregel._versions import RunVersions
    from engine.pregel._writer import VersionWriter

__all__ = ["InputFolder"]


class InputFolder:
    """The run's set-up: load the thread, fold the call's input in (on the run's :class:`RunState`)."""

    def __init__(
        self, settings: RunSettings, state: RunState, versions: RunVersions, *, configurable: Mapping[str, Any],
        thread_id: Any, thread_name: str | None, writer: VersionWriter, queue: EventQueue, trace: RunTrace,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.state = state
        self.versions = versions
        self.configurable = configurable
        self.thread_id = thread_id
        #: the caller's name of the thread, for messages
        self.thread_name = thread_name
        self.writer = writer
        self.queue = queue
        self.trace = trace

    async def setup(self) -> None:
        """Load the thread and fold the call's input in; the run then stands where its first step starts."""
        settings, state = self.settings, self.state
        saved: CheckpointTuple | None = None
        # A subgraph's run, in a call from one of its versions, goes back to that version.
        travel = travel_target(self.configurable, settings.checkpoint_ns) if settings.host is not None else None
        if settings.host is not None:
            state.replay, state.fresh = settings.host.replay, settings.host.fresh
        if settings.saver is not None:
            if self.thread_id is None:
                raise ValueError(  # LangGraph's words
                    "Checkpointer requires one or more of the following 'configurable' keys: thread_id, checkpoint_ns, checkpoint_id"
                )
            replay = None if travel else state.replay if state.replay is not None and state.replay.first(settings.checkpoint_ns) else None
            replayed = replay is not None or travel is not None
            if replay is not None:  # a subgraph of a run that went back in time: from its version of then
                saved = await replay.load(settings.saver, {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": settings.checkpoint_ns}})
            else:
                saved = await settings.saver.aget_tuple(self.writer.config(travel or self.configurable.get("checkpoint_id")))
            if saved is None and self.configurable.get("checkpoint_id"):
                if settings.strict:
                    raise NotFoundError(
                        f"thread {self.thread_name!r} has no checkpoint {self.configurable['checkpoint_id']!r}"
                    )
                # As LangGraph in process: a version the thread does not have is no version (None as
                # input is then EmptyInputError); new input starts from nothing, its version naming it as parent.
                state.parent_id = self.configurable["checkpoint_id"]
        if settings.saver is not None and settings.spec.deltas:
            state.delta = DeltaBook(settings.spec.deltas, saved.metadata if saved is not None else None)
        # A new thread keeps the state's blank version (before its first, never stored: no id or time).
        if saved is not None:
            saved = state.loaded = await hydrate(settings.saver, saved, settings.spec.channels)
            state.checkpoint = copy_migrated(saved.checkpoint, settings.spec)
            self.writer.dirty.update(moved_channels(saved.checkpoint, state.checkpoint))
            state.step = int(saved.metadata.get("step", -1))
            state.parent_id = self.writer.last_saved_id = saved.checkpoint["id"]
            if self.writer.exit is not None and self.configurable.get("checkpoint_id"):
                self.writer.exit.addressed = True
            state.pending_writes = adopt_task_ids(
                state.checkpoint, [(w[0], w[1], w[2]) for w in saved.pending_writes or ()], settings.spec, state.step + 1, settings.checkpoint_ns
            )
            if travel is not None and settings.host is not None and not settings.host.fresh:
                self._travel(saved, settings.host)
                state.input = None  # it continues from (a copy of) the version, its task's input aside
            elif settings.host is not None and not replayed:
                # A subgraph whose task runs again continues its own version.
                continues, inp = resume_input(settings.host, saved, stable=settings.stable_ns)
                if continues:
                    state.input = inp
        state.stop = state.step + settings.recursion_limit + 2
        state.channels = restore_channels(settings.spec.channels, state.checkpoint)
        if self.queue.want(RunStarted):
            self.queue.emit(RunStarted(settings.run_id, self.thread_name, settings.spec.name, state.parent_id, self.trace.trace_id()))
        # As LangGraph: the step's input writes (a Command's) stored on this
        # version apply before anything else, whatever this call brings.
        if state.pending_writes and (nulls := null_writes(state.pending_writes)):
            self._apply_nulls(nulls)
        inp = state.input
        by_id = isinstance(inp, Resume)  # a host's answers: a map by interrupt id, whatever its shape
        if by_id:
            live = build_snapshot(settings.spec, saved, live=True) if saved else StateSnapshot({}, (), {}, None, None, None, (), ())
            check_resume(inp, live, thread=str(self.thread_name))
            inp = Command(resume=dict(inp.answers)) if inp.at is None else None
        cmd = inp if isinstance(inp, Command) else None
        if cmd is not None and cmd.resume is not None and saved is None:
            if settings.saver is None:
                raise InvalidResumeError("Cannot use Command(resume=...) without checkpointer")
            if settings.strict:
                raise InvalidResumeError(f"thread {self.thread_name!r} does not exist, so there is nothing to resume")
            # As LangGraph in process: a new thread's run, from START, with nothing written to the state.
            inp, cmd = None, None
            await self._apply_input(None)
            return
        if cmd is not None and saved is not None and (cmd.resume is not None or cmd.update or cmd.goto):
            # A Command continues the thread's version: no input version, START's
            # edges not taken; its update and goto are the step's input writes.
            superseded = cmd.resume is not None and bool(self.configurable.get("checkpoint_id")) and await self._superseded(saved)
            if superseded:
                # As LangGraph 1.2: a resume at a version the thread has moved past runs that
                # step's finished tasks again (their stored outputs are not taken back); the
                # answers already given stay.
                state.pending_writes = [w for w in state.pending_writes if w[0] == NULL_TASK_ID or w[1] in (RESUME, INTERRUPT)]
            writes = settings.spec.command_writes(cmd)
            if cmd.resume is not None:
                # As LangGraph: one answer goes to the first question asked by a task of the step
                # the Command's goto and update leave due (applied first; they stay stored after it).
                # Strict mode, as LangGraph's: at the root, on a version the thread has not moved past.
                strict = bool(self.configurable.get(CONFIG_KEY_STRICT_RESUME)) and settings.host is None and not superseded
                await self._apply_resume(cmd.resume, keyed=by_id, then=writes, strict=strict)
            if writes and cmd.resume is None and await self._moved_past(saved):
                # A delta channel folds the writes stored on a version's ancestors: a Command from a
                # version the thread moved past runs on a copy of it (a fork), as a new branch, its
                # writes stored on the copy (LangGraph keeps them in the run only: an interrupt in
                # the step would lose them).
                await self._fork(saved)
                mark_interrupt_seen(state.checkpoint)
                await self._put_nulls(writes)
                return
            if writes and cmd.resume is None:
                await self._put_nulls(writes)
            self._continue(saved)
        elif inp is None or (cmd is not None and cmd.resume is None and not cmd.update and not cmd.goto):
            if saved is None:
                raise EmptyInputError("Received no input for __start__")  # LangGraph's words (the thread has no version)
            named = self.configurable.get("checkpoint_id") or travel
            if named and settings.host is None:
                # Back in time: the subgraphs start from their versions of then.
                state.replay = Replay.of(saved)
            if named and not await self._continues(saved):
                # Naming a version (even the newest) continues from a copy of it.
                await self._fork(saved)
                mark_interrupt_seen(state.checkpoint)
            else:
                self._continue(saved)
        else:
            await self._apply_input(inp)

    def _travel(self, saved: CheckpointTuple, host: NestedHost) -> None:
        """A subgraph's run going back to its version ``saved`` (:func:`travel_target`), as LangGraph 1.2:
        the answers given there are dropped (its questions are asked again), and the run continues
        from a copy of it. An answer this call gave one of its waiting questions (or, alone, its
        parent task's) goes to the first question asked: the copy's tasks have new ids, so their
        questions new interrupt ids (LangGraph hands a resume to the first ``interrupt()`` too)."""
        state = self.state
        waiting = [i.id for st in read_statuses(state.pending_writes).values() for i in st.pending_interrupts]
        answers = [host.resume_map[k] for k in waiting if k in host.resume_map]
        if not answers and host.resuming and len(host.resume_map) == 1:
            answers = list(host.resume_map.values())  # the answer to its parent's task, asked at another version
        if answers:
            state.null_resume[:] = answers[:1]
        state.pending_writes = [w for w in state.pending_writes if w[1] != RESUME]

    def _folds_start(self) -> bool:
        """Whether nothing can see the input step's version or START's: no saver stores
        them, no event shows them (``invoke`` asks for RunFinished only), no breakpoint or
        span marks them, and START's task is its writer alone (no routers)."""
        settings = self.settings
        return (settings.saver is None and settings.host is None and settings.kinds is not None and not settings.kinds - {RunFinished}
                and not settings.interrupt_before and not settings.interrupt_after and not self.trace.traced
                and getattr(settings.spec.nodes.get(START), "bare", False))

    def _start_writes(self, inp: Any) -> list[tuple[str, Any]] | None:
        """START's writes of ``inp``; None if it is not the graph's input (the unfolded run reports that)."""
        try:
            writes: list[tuple[str, Any]] | None = self.settings.spec.nodes[START].writer(inp, {}, {})
            return writes
        except Exception:
            return None

    def _apply_nulls(self, writes: list[tuple[str, Any]]) -> None:
        state = self.state
        for c in apply_null_writes(state.checkpoint, state.channels, writes):
            self.writer.dirty[c] = state.checkpoint["channel_versions"][c]

    async def _put_nulls(self, writes: list[tuple[str, Any]]) -> None:
        """Store a Command's update and goto on the version the run continues, then apply them.

        As LangGraph, they add to the input writes already there (which keep
        their places: a saver keys a write by its index), and stay there until a
        step runs from this version.
        """
        state = self.state
        if self.writer.delta_channels:
            writes = stamp_ids(self.writer.delta_channels, list(writes))
        stored = null_writes(state.pending_writes)
        await self.writer.put_writes(state.parent_id, [*stored, *writes], NULL_TASK_ID)
        state.pending_writes.extend((NULL_TASK_ID, c, v) for c, v in writes)
        self._apply_nulls(writes)

    async def _moved_past(self, saved: CheckpointTuple) -> bool:
        """Whether the graph has delta channels and the call named ``saved``, a version the thread moved past."""
        if self.state.delta is None or not self.configurable.get("checkpoint_id"):
            return False
        return await self._superseded(saved)

    async def _superseded(self, saved: CheckpointTuple) -> bool:
        """Whether the thread's newest version (in this namespace) is not ``saved``."""
        head = await self.settings.saver.aget_tuple(self.writer.config(None))
        return head is not None and head.checkpoint["id"] != saved.checkpoint["id"]

    def _continue(self, saved: CheckpointTuple) -> None:
        """The run goes on from the loaded version itself (no version saved first)."""
        settings, state = self.settings, self.state
        state.resuming = state.continued = True
        mark_interrupt_seen(state.checkpoint)
        self.versions.emit_values()
        if settings.kinds is None or CheckpointLoaded not in settings.kinds:
            return  # only to callers that ask for it by kind (the stream's checkpoints mode)
        planned = self.versions.plan()
        state.planned = (state.checkpoint["id"], planned)
        statuses = read_statuses(state.pending_writes)
        self.queue.emit(
            CheckpointLoaded(
                saved.checkpoint["id"],
                (saved.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
                state.step,
                str(saved.metadata.get("source", "")),
                tuple(t.name for t in planned),
                self.versions.version_values(),
                shown_metadata(saved.metadata),
                saved.checkpoint.get("ts", ""),
                tasks=task_states(planned, statuses, settings.spec.version_keys, live=False),
            )
        )

    async def _continues(self, saved: CheckpointTuple) -> bool:
        """Whether a named version is itself a fresh branch head ("update"/"fork")
        that the run continues from directly, without another fork copy."""
        if saved.metadata.get("source") not in ("update", "fork"):
            return False
        head = await self.settings.saver.aget_tuple(self.writer.config(None))
        return head is not None and head.checkpoint["id"] == saved.checkpoint["id"]

    async def _fork(self, saved: CheckpointTuple) -> None:
        state = self.state
        if state.delta is not None:  # a new branch: what the old one went on with is not its history
            state.delta.force_pending(state.pending_writes)
        state.pending_writes = []
        state.step += 1
        self.writer.dirty = dict(state.checkpoint["channel_versions"])
        self.versions.emit_values()  # before the fork's checkpoint event, as LangGraph streams them
        await self.versions.save("fork")

    async def _apply_input(self, inp: Any) -> None:
        settings, state = self.settings, self.state
        state.fresh = state.fresh or settings.host is None
        # Whatever was due at this checkpoint (an interrupted turn) is dropped; a new thread has nothing due.
        discard = (
            prepare_next_tasks(state.checkpoint, state.channels, settings.spec.nodes, state.step + 1, settings.spec.triggers_to_nodes)
            if state.checkpoint["channel_versions"] else []
        )  # fmt: skip
        start = Task(id="", name=START, path=("input",), input=None, triggers=(), node=None)  # type: ignore[arg-type]
        state.checkpoint["versions_seen"].setdefault(INPUT_SEEN, {})
        started = time.perf_counter()
        if self._folds_start() and (writes := self._start_writes(inp)) is not None:
            # START's writes are made with the input step's: one plan, one step's writes and one id less.
            start.writes = writes
            _, changed = apply_writes(  # START's step moves time on
                state.checkpoint, state.channels, [*discard, start], saver_version(self.settings.saver, state.checkpoint), bump=True
            )
            state.step += 2
            self.versions.emit_values(changed)  # START's step's (none is wanted: whether one was due)
            state.executed += 1
            self.trace.step(0)
            self.trace.task_done(self.trace.span, START, started, None, ())
            await self.versions.save("loop")  # no saver, nobody watching: the version gets its id only
            return
        start.writes = (settings.spec.input_writes or input_writes)(inp)
        if self.writer.delta_channels:
            start.writes = stamp_ids(self.writer.delta_channels, list(start.writes))
        if state.delta is not None:
            await self._store_delta_input(start.writes)
        _, changed = apply_writes(state.checkpoint, state.channels, [*discard, start], saver_version(self.settings.saver, state.checkpoint))
        state.pending_writes = []
        state.step += 1
        for c in changed:
            self.writer.dirty[c] = state.checkpoint["channel_versions"][c]
        await self.versions.save("input")

    async def _store_delta_input(self, writes: list[tuple[str, Any]]) -> None:
        """As LangGraph: a new input's delta writes are stored on the version it continues (the
        thread's newest), as pending writes of their own task, so reading the input version folds
        them; on a new thread, or an older version (whose children would read them too), the input
        version snapshots those channels instead. What that version had pending belongs to
        another branch now: the channels it touched snapshot too."""
        state, book = self.state, self.state.delta
        book.force_pending(state.pending_writes)
        mine = [(c, v) for c, v in writes if c in book.names]
        if not mine:
            return
        if self.writer.exit is not None:  # "exit": stored with the run's version (engine.pregel._exit_deltas)
            self.writer.exit.add_input(state.step + 1, mine)
            return
        if state.parent_id is not None and state.checkpoint["id"] and not self.configurable.get("checkpoint_id"):
            await self.writer.put_writes(state.parent_id, mine, input_task_id(state.parent_id))
        else:
            book.forced.update(c for c, _ in mine)

    def _planned_ids(self) -> set[str]:
        settings, state = self.settings, self.state
        spec = settings.spec
        return {t.id for t in prepare_next_tasks(state.checkpoint, state.channels, spec.nodes, state.step + 1, spec.triggers_to_nodes)}

    async def _apply_resume(self, resume: Any, *, keyed: bool, then: list[tuple[str, Any]], strict: bool = False) -> None:
        state = self.state
        # As LangGraph: only an unfinished task's interrupt waits for an answer.
        statuses = read_statuses(state.pending_writes)
        waiting = {tid: st.pending_interrupts for tid, st in statuses.items() if st.pending_interrupts}
        answers = {tid: list(st.resume or ()) for tid, st in statuses.items()}
        if strict:  # before anything is written, so the questions can still be answered
            refuse_unmatched(resume, set(_askers(waiting, answers)) if waiting else set(), keyed=keyed)
        if then:
            await self._put_nulls(then)
        if waiting and not keyed and not is_resume_map(resume) and self._planned_ids().isdisjoint(waiting):
            waiting = {}  # as LangGraph: questions of tasks the step does not plan (another version's) wait for nothing
        if not waiting:
            if self.settings.strict:
                raise InvalidResumeError(f"thread {self.thread_name!r} has no pending interrupt to resume")
            if not keyed and not is_resume_map(resume):
                # As LangGraph in process: the run goes on from the version, and the first question
                # a task of its step asks beyond its own answers takes this one.
                state.null_resume[:] = [resume]
            return
        by_id = _askers(waiting, answers)
        if keyed or is_resume_map(resume):
            # As LangGraph 1.2: ids not pending (already answered, say) answer
            # nothing; if none is pending, the waiting tasks run again and ask again.
            chosen = {by_id[k]: v for k, v in resume.items() if k in by_id}
        elif len(by_id) == 1:  # as LangGraph: one pending question (a subgraph's task waiting on two is ambiguous)
            ((only, tid),) = by_id.items()
            chosen = {tid: resume}
            resume = {only: resume}
        else:
            raise InvalidResumeError(
                "When there are multiple pending interrupts, you must specify the interrupt id when resuming. "
                f"(thread {self.thread_name!r} has {len(by_id)}: resume with a map of interrupt id to answer; "
                f"ids: {', '.join(sorted(by_id))})"
            )
        # Nested runs (subgraphs) pick their answers by interrupt id.
        state.resume_map = {k: v for k, v in resume.items() if k in by_id}
        for tid, answer in chosen.items():
            new = [*answers.get(tid, []), answer]
            await self.writer.put_writes(state.parent_id, [(RESUME, new)], tid)
            # Its interrupt stays on record (LangGraph's history shows it, answered).
            state.pending_writes = [w for w in state.pending_writes if not (w[0] == tid and w[1] == RESUME)]
            state.pending_writes.append((tid, RESUME, new))


def _askers(waiting: Mapping[str, Sequence[Any]], answers: Mapping[str, Sequence[Any]]) -> dict[str, str]:
    """Pending interrupt id -> the task that asked it.

    An interrupt raised in a called ``@task`` is pending on the call and on its
    caller (which stopped with it), as in LangGraph; the answer goes to the
    call, whose id the interrupt's id was made from.
    """
    out: dict[str, str] = {}
    for tid, ints in waiting.items():
        for i in ints:
            asked = any(interrupt_id(tid, k) == i.id for k in range(len(answers.get(tid, ())) + len(ints)))
            if i.id not in out or asked:
                out[i.id] = tid
    return out
