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
* a host's :class:`~engine.pregel._resume.Resume` → checked against the
  loaded version (:func:`~engine.pregel._resume.check_resume`), then its
  answers by id, or with none the run continues (a static breakpoint).

:class:`InputFolding` is a part of :class:`~engine.pregel._loop.RunLoop`
(its attributes are the loop's); it lives here so the loop reads as the
superstep loop.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from engine._internal._unsupported import WHERE_IT_DIFFERS
from engine.checkpoint.base import RESUME, Checkpoint, CheckpointTuple, copy_checkpoint
from engine.errors import EmptyInputError, InvalidResumeError, NotFoundError
from engine.events import CheckpointLoaded, RunFinished, RunStarted
from engine.pregel._algo import Task, apply_null_writes, apply_writes, mark_interrupt_seen, prepare_next_tasks, restore_channels
from engine.pregel._context import interrupt_id
from engine.pregel._io import input_writes
from engine.pregel._nested import NestedHost, Replay, resume_input
from engine.pregel._resume import Resume, check_resume, is_resume_map
from engine.pregel._snapshot import build_snapshot, task_states
from engine.pregel._spec import NULL_TASK_ID, GraphSpec
from engine.pregel._status import null_writes, read_statuses
from engine.types import START, Command, StateSnapshot

if TYPE_CHECKING:
    from engine.pregel._telemetry import RunTrace
    from engine.pregel._writer import VersionWriter

__all__ = ["InputFolding"]


class InputFolding:
    """The loop's set-up: load the thread, fold the call's input in."""

    # attributes and methods of RunLoop these use
    spec: GraphSpec
    saver: Any
    writer: VersionWriter
    trace: RunTrace
    input: Any
    configurable: dict[str, Any]
    thread_id: Any
    thread_name: str  # the caller's name of the thread, for messages
    checkpoint: Any
    channels: Any
    step: int
    stop: int
    recursion_limit: int
    parent_id: str | None
    pending_writes: list[Any]
    kinds: Any
    run_id: str
    _planned: Any
    host: NestedHost | None
    stable_ns: bool
    resuming: bool
    resume_map: dict[str, Any]
    #: this run went back in time (a root's fork), or its host's did: where subgraphs start from
    replay: Replay | None = None

    async def _setup(self) -> None:
        saved: CheckpointTuple | None = None
        if self.host is not None:
            self.replay = self.host.replay
        elif self.configurable.get("checkpoint_ns") and self.configurable.get("checkpoint_id"):
            # LangGraph forks the parent and replays the subgraph from that version (through checkpoint_map).
            raise NotImplementedError(
                f"running graph {self.spec.name!r} from a subgraph's version (checkpoint_ns "
                f"{self.configurable['checkpoint_ns']!r}) is not supported yet: name one of the graph's own "
                f"versions; see {WHERE_IT_DIFFERS}"
            )
        if self.saver is not None:
            if self.thread_id is None:
                raise ValueError("a graph with a checkpointer needs config['configurable']['thread_id']")
            replayed = self.replay is not None and self.replay.first(self.checkpoint_ns)
            if replayed:  # a subgraph of a run that went back in time: from its version of then
                saved = await self.replay.load(self.saver, {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns}})
            else:
                saved = await self.saver.aget_tuple(self.writer.config(self.configurable.get("checkpoint_id")))
            if saved is None and self.configurable.get("checkpoint_id"):
                raise NotFoundError(
                    f"thread {self.thread_name!r} has no checkpoint {self.configurable['checkpoint_id']!r}"
                )
        if saved is None:  # a new thread: the version before its first, never stored, needs no id or time
            self.checkpoint = Checkpoint(v=1, id="", ts="", channel_values={}, channel_versions={}, versions_seen={},
                                         updated_channels=None)  # fmt: skip
        else:
            self.checkpoint = copy_checkpoint(saved.checkpoint)
            self.step = int(saved.metadata.get("step", -1))
            self.parent_id = self.writer.last_saved_id = saved.checkpoint["id"]
            self.pending_writes = [tuple(w) for w in saved.pending_writes]  # type: ignore[misc]
            if self.host is not None and not replayed:
                # A subgraph whose task runs again continues its own version.
                continues, inp = resume_input(self.host, saved, stable=self.stable_ns)
                if continues:
                    self.input = inp
        self.stop = self.step + self.recursion_limit + 2
        self.runner.stop = self.stop  # for the managed values (engine.managed) its tasks read
        self.channels = restore_channels(self.spec.channels, self.checkpoint)
        if self._want(RunStarted):
            self._emit(RunStarted(self.run_id, self.thread_name, self.spec.name, self.parent_id, self.trace.trace_id()))
        # As LangGraph: the step's input writes (a Command's) stored on this
        # version apply before anything else, whatever this call brings.
        if self.pending_writes and (nulls := null_writes(self.pending_writes)):
            self._apply_nulls(nulls)
        inp = self.input
        by_id = isinstance(inp, Resume)  # a host's answers: a map by interrupt id, whatever its shape
        if by_id:
            live = build_snapshot(self.spec, saved, live=True) if saved else StateSnapshot({}, (), {}, None, None, None, (), ())
            check_resume(inp, live, thread=self.thread_name)
            inp = Command(resume=dict(inp.answers)) if inp.at is None else None
        cmd = inp if isinstance(inp, Command) else None
        if cmd is not None and cmd.resume is not None and saved is None:
            raise InvalidResumeError(f"thread {self.thread_name!r} does not exist, so there is nothing to resume")
        if cmd is not None and saved is not None and (cmd.resume is not None or cmd.update or cmd.goto):
            # A Command continues the thread's version: no input version, START's
            # edges not taken; its update and goto are the step's input writes.
            if cmd.resume is not None:
                await self._apply_resume(cmd.resume, keyed=by_id)
            if writes := self.spec.command_writes(cmd):
                await self._put_nulls(writes)
            self._continue(saved)
        elif inp is None or (cmd is not None and cmd.resume is None and not cmd.update and not cmd.goto):
            if saved is None:
                raise EmptyInputError("no input, and the thread has no checkpoint to continue from")
            if self.configurable.get("checkpoint_id"):
                # Back in time: the subgraphs start from their versions of then.
                self.replay = Replay.of(saved)
            if self.configurable.get("checkpoint_id") and not await self._continues(saved):
                # Naming a version (even the newest) continues from a copy of it.
                await self._fork(saved)
                mark_interrupt_seen(self.checkpoint)
            else:
                self._continue(saved)
        else:
            await self._apply_input(inp)

    def _folds_start(self) -> bool:
        """Whether nothing can see the input step's version or START's: no saver stores
        them, no event shows them (``invoke`` asks for RunFinished only), no breakpoint or
        span marks them, and START's task is its writer alone (no routers)."""
        return (self.saver is None and self.host is None and self.kinds is not None and not self.kinds - {RunFinished}
                and not self.interrupt_before and not self.interrupt_after and not self.trace.traced
                and getattr(self.spec.nodes.get(START), "bare", False))

    def _start_writes(self, inp: Any) -> list[tuple[str, Any]] | None:
        """START's writes of ``inp``; None if it is not the graph's input (the unfolded run reports that)."""
        try:
            return self.spec.nodes[START].writer(inp, {}, {})  # type: ignore[no-any-return]
        except Exception:
            return None

    def _apply_nulls(self, writes: list[tuple[str, Any]]) -> None:
        for c in apply_null_writes(self.checkpoint, self.channels, writes):
            self.writer.dirty[c] = self.checkpoint["channel_versions"][c]

    async def _put_nulls(self, writes: list[tuple[str, Any]]) -> None:
        """Store a Command's update and goto on the version the run continues, then apply them.

        As LangGraph, they add to the input writes already there (which keep
        their places: a saver keys a write by its index), and stay there until a
        step runs from this version.
        """
        stored = null_writes(self.pending_writes)
        await self.writer.put_writes(self.parent_id, [*stored, *writes], NULL_TASK_ID)
        self.pending_writes.extend((NULL_TASK_ID, c, v) for c, v in writes)
        self._apply_nulls(writes)

    def _continue(self, saved: CheckpointTuple) -> None:
        """The run goes on from the loaded version itself (no version saved first)."""
        self.resuming = True
        mark_interrupt_seen(self.checkpoint)
        self._emit_values()
        if self.kinds is None or CheckpointLoaded not in self.kinds:
            return  # only to callers that ask for it by kind (the stream's checkpoints mode)
        planned = self._plan()
        self._planned = (self.checkpoint["id"], planned)
        statuses = read_statuses(self.pending_writes)
        self._emit(
            CheckpointLoaded(
                saved.checkpoint["id"],
                (saved.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
                self.step,
                str(saved.metadata.get("source", "")),
                tuple(t.name for t in planned),
                self.values(),
                dict(saved.metadata),
                saved.checkpoint.get("ts", ""),
                tasks=task_states(planned, statuses, self.spec.stream_keys, live=False),
            )
        )

    async def _continues(self, saved: CheckpointTuple) -> bool:
        """Whether a named version is itself a fresh branch head ("update"/"fork")
        that the run continues from directly, without another fork copy."""
        if saved.metadata.get("source") not in ("update", "fork"):
            return False
        head = await self.saver.aget_tuple(self.writer.config(None))
        return head is not None and head.checkpoint["id"] == saved.checkpoint["id"]

    async def _fork(self, saved: CheckpointTuple) -> None:
        self.pending_writes = []
        self.step += 1
        self.writer.dirty = dict(self.checkpoint["channel_versions"])
        self._emit_values()  # before the fork's checkpoint event, as LangGraph streams them
        await self._save("fork")

    async def _apply_input(self, inp: Any) -> None:
        # Whatever was due at this checkpoint (an interrupted turn) is dropped; a new thread has nothing due.
        discard = (
            prepare_next_tasks(self.checkpoint, self.channels, self.spec.nodes, self.step + 1, self.spec.triggers_to_nodes)
            if self.checkpoint["channel_versions"] else []
        )  # fmt: skip
        start = Task(id="", name=START, path=("input",), input=None, triggers=(), node=None)  # type: ignore[arg-type]
        started = time.perf_counter()
        if self._folds_start() and (writes := self._start_writes(inp)) is not None:
            # START's writes are made with the input step's: one plan, one step's writes and one id less.
            start.writes = writes
            apply_writes(self.checkpoint, self.channels, [*discard, start])
            self.step += 2
            self.executed += 1
            self.trace.step(0)
            self.trace.task_done(self.trace.span, START, started, None, ())
            await self._save("loop")  # no saver, nobody watching: the version gets its id only
            return
        start.writes = input_writes(inp)
        _, changed = apply_writes(self.checkpoint, self.channels, [*discard, start])
        self.pending_writes = []
        self.step += 1
        for c in changed:
            self.writer.dirty[c] = self.checkpoint["channel_versions"][c]
        await self._save("input")

    async def _apply_resume(self, resume: Any, *, keyed: bool) -> None:
        # As LangGraph: only an unfinished task's interrupt waits for an answer.
        statuses = read_statuses(self.pending_writes)
        waiting = {tid: st.pending_interrupts for tid, st in statuses.items() if st.pending_interrupts}
        answers = {tid: list(st.resume or ()) for tid, st in statuses.items()}
        if not waiting:
            raise InvalidResumeError(f"thread {self.thread_name!r} has no pending interrupt to resume")
        by_id = _askers(waiting, answers)
        if keyed or is_resume_map(resume):
            # As LangGraph 1.2: ids not pending (already answered, say) answer
            # nothing; if none is pending, the waiting tasks run again and ask again.
            chosen = {by_id[k]: v for k, v in resume.items() if k in by_id}
        elif len(set(by_id.values())) == 1:
            tid = next(iter(by_id.values()))
            chosen = {tid: resume}
            first = next(iter(by_id))  # a subgraph's task may wait on several: the first is answered
            by_id = {first: tid}
            resume = {first: resume}
        else:
            raise InvalidResumeError(
                f"thread {self.thread_name!r} has {len(by_id)} pending interrupts; resume with a map of "
                f"interrupt id to answer (ids: {', '.join(sorted(by_id))})"
            )
        # Nested runs (subgraphs) pick their answers by interrupt id.
        self.resume_map = {k: v for k, v in resume.items() if k in by_id}
        for tid, answer in chosen.items():
            new = [*answers.get(tid, []), answer]
            await self.writer.put_writes(self.parent_id, [(RESUME, new)], tid)
            # Its interrupt stays on record (LangGraph's history shows it, answered).
            self.pending_writes = [w for w in self.pending_writes if not (w[0] == tid and w[1] == RESUME)]
            self.pending_writes.append((tid, RESUME, new))


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
