"""The engine's own threads for sync nodes.

A sync node (a plain ``def``) runs on a thread, so the event loop goes on with
other runs meanwhile. Python cannot stop a thread: when a run is cancelled
(its caller left, ``CancelRun``, a deadline), its sync node runs on to its
end. On the event loop's default executor such nodes would keep its threads
busy, and every later run's sync nodes, and whatever else uses that executor,
would queue behind them.

So sync nodes get threads of their own, :class:`NodeThreads`, sized
:data:`DEFAULT_SIZE` by default (``min(32, CPUs + 4)``, the default executor's
rule) or by :func:`set_node_threads` (the server's ``sync_node_threads``):

* up to ``size`` threads run the sync nodes of live runs; a node beyond that
  waits for a thread, and the first wait of a busy spell logs a warning
  ("saturated"), at most once per :data:`WARN_EVERY_SECONDS` (a server under
  steady load has many short spells a second: the next warning counts them);
* a node whose run was cancelled no longer counts: its thread is replaced, so
  live runs keep ``size`` threads. At most ``size`` threads more may be held
  by such nodes; past that they count again, and a warning says so. So the
  engine never has more than ``2 * size`` node threads;
* a thread whose abandoned node returns goes back to work if fewer than
  ``size`` threads are working, else it ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections import deque
from typing import Any, Callable

from engine._internal._worker import settle_soon

__all__ = ["DEFAULT_SIZE", "NodeThreads", "node_threads", "set_node_threads"]

log = logging.getLogger("graphwire.engine")

#: Threads for the sync nodes of live runs, unless set otherwise (the default executor's size).
DEFAULT_SIZE = min(32, (os.cpu_count() or 1) + 4)
#: The saturation warning is logged at most this often.
WARN_EVERY_SECONDS = 60.0
_clock = time.monotonic  # a module global: a test moves it on

_QUEUED, _RUNNING, _DROPPED = 0, 1, 2


class _Job:
    __slots__ = ("abandoned", "args", "fn", "future", "loop", "state")

    def __init__(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.loop = loop
        self.future = future
        self.fn = fn
        self.args = args
        self.state = _QUEUED
        self.abandoned = False


class NodeThreads:
    """A bounded pool of threads for sync nodes, which a cancelled run's node cannot starve.

    Args:
        size: threads for the nodes of live runs (at least 1).
    """

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"sync node threads must be a whole number above 0, got {size!r}")
        self.size = size
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._jobs: deque[_Job] = deque()
        self._working = 0  # threads counted against size: idle, or running a live run's node
        self._idle = 0  # threads asleep waiting for a job, not yet claimed by one
        self._abandoned = 0  # threads running the node of a cancelled run
        self._saturated = False
        self._spells = 0  # busy spells since the last saturation warning
        self._warned_at: float | None = None  # when it was (time.monotonic)
        self._over = False
        self._closed = False

    @property
    def threads(self) -> int:
        """Threads alive now (working, idle, or finishing an abandoned node)."""
        with self._lock:
            return self._working + self._abandoned

    @property
    def abandoned(self) -> int:
        """Threads running a node whose run was cancelled."""
        with self._lock:
            return self._abandoned

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on one of the threads; cancelling the caller abandons the call, not the thread's work."""
        loop = asyncio.get_running_loop()
        job = _Job(loop, loop.create_future(), fn, args)
        with self._lock:
            self._jobs.append(job)
            self._dispatch()
        try:
            return await job.future
        except asyncio.CancelledError:
            with self._lock:
                if job.state == _QUEUED:
                    job.state = _DROPPED
                elif job.state == _RUNNING and not job.abandoned:
                    self._abandon(job)
            raise

    def close(self) -> None:
        """Idle threads end, and busy ones once their node returns (queued jobs still run)."""
        with self._lock:
            self._closed = True
            self._idle = 0
            self._work.notify_all()

    # -- under the lock ----------------------------------------------------------
    def _dispatch(self) -> None:
        """A queued job needs a thread: wake an idle one, start one, or wait (saturated)."""
        if self._idle:
            self._idle -= 1  # claimed now: a second job must not count on the same sleeper
            self._work.notify()
        elif self._working < self.size:
            self._start()
        elif not self._saturated:
            self._saturated = True
            self._spells += 1
            at = _clock()
            if self._warned_at is None or at - self._warned_at >= WARN_EVERY_SECONDS:
                since = f"; {self._spells} busy spells since the last warning" if self._warned_at is not None else ""
                self._warned_at, self._spells = at, 0
                log.warning(
                    "all %d sync node threads are busy (%d more held by nodes of cancelled runs): "
                    "sync nodes wait for a thread%s", self.size, self._abandoned, since,
                )  # fmt: skip

    def _abandon(self, job: _Job) -> None:
        """The run of a running job was cancelled: its thread stops counting, if the cap allows."""
        if self._abandoned >= self.size:
            if not self._over:
                self._over = True
                log.warning(
                    "%d sync node threads are held by nodes of cancelled runs, the most the engine replaces; "
                    "further ones keep their thread from live runs until they return", self._abandoned,
                )  # fmt: skip
            return
        job.abandoned = True
        self._working -= 1
        self._abandoned += 1
        if self._jobs and not self._idle:
            self._start()

    def _start(self) -> None:
        self._working += 1
        threading.Thread(target=self._serve, name="graphwire-sync-node", daemon=True).start()

    # -- a thread ------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            with self._lock:
                while True:
                    while not self._jobs:
                        self._saturated = False
                        if self._closed:
                            self._working -= 1
                            return
                        self._idle += 1
                        self._work.wait()  # whoever woke it took it off _idle
                    job = self._jobs.popleft()
                    if job.state != _DROPPED:
                        break
                job.state = _RUNNING
            try:
                result, error = job.fn(*job.args), None
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting run
                result, error = None, exc
            settle_soon(job.loop, job.future, result, error)  # (nothing if the run's loop is closed)
            # Nothing of the node stays with the thread while it waits for the next: its input, result,
            # or failure (whose traceback holds the node's frames, and through them its run's objects).
            result = error = None
            with self._lock:
                abandoned = job.abandoned
                del job
                if not abandoned:
                    continue
                self._abandoned -= 1
                if self._abandoned < self.size:
                    self._over = False
                if self._working >= self.size:
                    return  # live runs have their threads: this one ends
                self._working += 1


_threads: NodeThreads | None = None
_create = threading.Lock()


def node_threads() -> NodeThreads:
    """The process's threads for sync nodes (created on first use, :data:`DEFAULT_SIZE`)."""
    global _threads
    if _threads is None:
        with _create:
            if _threads is None:
                _threads = NodeThreads(DEFAULT_SIZE)
    return _threads


def set_node_threads(size: int) -> NodeThreads:
    """Use ``size`` threads for the sync nodes of live runs from now on (runs already on the old pool finish there)."""
    global _threads
    new = NodeThreads(size)
    with _create:
        old, _threads = _threads, new
    if old is not None:
        old.close()
    return new
