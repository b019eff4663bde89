"""``AsyncRun``: one run's events, across the retries and re-joins of its call.

``stream``, ``stream_resume``, ``stream_fork`` and ``join_run`` return one;
``invoke``, ``resume`` and ``fork`` are its ``result()``. The blocking
``Run`` in ``_sync_run.py`` is generated from this module (see
``_async_client.py``).

Theory of operation. A logical call is one request (one ``request_id``) and
any number of gRPC calls: the first attempt, its retries, and the ``JoinRun``
calls that pick the run up again after a dropped connection. The loop in
``_events`` makes one gRPC call at a time and reads it:

* every message's ``seq`` is remembered; one at or below the last seq of the
  same run is dropped (a join or a joined retry never shows an event twice);
* UNAVAILABLE before any event of the run arrived: the same request again
  (same ``request_id``: the server joins or answers the first attempt);
* UNAVAILABLE once the run's id is known: ``JoinRun(run_id, after_seq)`` when
  the run goes on without its caller (``on_disconnect="continue"``,
  ``background``, a join), else the error is raised (such a run was
  cancelled with its connection);
* tries in a row that bring no event are bounded by ``Retry.attempts``, waits
  between them by its backoff, and the whole by the call's ``timeout``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from graphwire import _decode
from graphwire._errors import GraphwireError, Unavailable, error_from_rpc
from graphwire._events import Event
from graphwire._retry import Retry, async_pause
from graphwire._run import RunCollector, RunResult

__all__ = ["AsyncRun"]

#: Starts one gRPC streaming call, given the seconds left of the call's timeout (None: no deadline).
StartCall = Callable[[float | None], Any]
#: Starts a ``JoinRun`` of ``run_id`` after ``after_seq``, with the seconds left.
StartJoin = Callable[[str, int, float | None], Any]


class AsyncRun:
    """A run's events as they happen: ``async for event in run``, then or instead ``await run.result()``.

    Attributes:
        run_id: The run's id, once its first event arrived (None before).
        seq: The ``seq`` of the last event received (0 before any): what a
            later ``client.join_run(run.run_id, after_seq=run.seq)`` continues from.
        request_id: The id sent with each attempt of the call (None when it had none).
        calls: The gRPC calls made so far (1, plus one per retry or re-join).
    """

    def __init__(
        self,
        thread_id: str,
        start: StartCall | None,
        *,
        join: StartJoin,
        retry: Retry,
        rejoin: bool,
        timeout: float | None,
        request_id: str | None,
        run_id: str | None = None,
        after_seq: int = 0,
    ) -> None:
        # With no ``start`` (a join), ``run_id`` is given and every call is a JoinRun.
        self.run_id: str | None = run_id
        self.seq = after_seq
        self.request_id = request_id
        self.calls = 0
        self._collector = RunCollector(thread_id)
        self._events_gen = self._events(start, join, retry, rejoin, timeout)

    def __aiter__(self) -> AsyncRun:
        return self

    async def __anext__(self) -> Event:
        return await self._events_gen.__anext__()

    async def aclose(self) -> None:
        """Stop reading: cancels the gRPC call (and with it a run that does not continue without its caller)."""
        await self._events_gen.aclose()

    async def __aenter__(self) -> AsyncRun:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def result(self) -> RunResult:
        """Read the rest of the run and return how it ended (events already read count too).

        Raises:
            Unknown: the stream ended with no ``RunFinished`` (a background
                run's call ends after ``RunStarted``: join it for its end).
        """
        async for _event in self:
            pass
        return self._collector.result()

    async def _events(
        self, start: StartCall | None, join: StartJoin, retry: Retry, rejoin: bool, timeout: float | None
    ) -> AsyncIterator[Event]:
        deadline = None if timeout is None else time.monotonic() + timeout
        fruitless = 0  # tries in a row that brought no event
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if self.run_id is None:
                assert start is not None
                call = start(left)
            else:
                call = join(self.run_id, self.seq, left)
            self.calls += 1
            try:
                async for message in call:
                    if message.run_id == self.run_id and message.seq <= self.seq:
                        continue  # already seen, before the connection dropped
                    self.run_id = message.run_id or self.run_id
                    self.seq = message.seq
                    fruitless = 0
                    event = _decode.event(message)
                    if event is None:  # a kind from a newer server: skip it
                        continue
                    self._collector.add(event)
                    yield event
                return
            except grpc.RpcError as exc:
                error = error_from_rpc(exc)
                fruitless += 1
                wait = self._retry_wait(error, retry, rejoin, fruitless, deadline)
                if wait is None:
                    raise self._failed(error, rejoin) from exc
            finally:
                call.cancel()  # no-op once the call has ended; cancels it if we left early
            await async_pause(wait)

    def _failed(self, error: GraphwireError, rejoin: bool) -> GraphwireError:
        """``error`` naming the run and the call; a run stopped by a dropped connection says
        how to finish it (a call with a new request id would apply its input again)."""
        error.run_id, error.request_id = self.run_id, self.request_id
        if isinstance(error, Unavailable) and self.run_id is not None and not rejoin:
            how = (
                f"call again with request_id={self.request_id!r} to finish it without applying its input twice"
                if self.request_id
                else "pass request_id= to make a call again the same call"
            )
            error.message += f" (the connection dropped while run {self.run_id} ran, which stopped with it; {how})"
        return error

    def _retry_wait(
        self, error: GraphwireError, retry: Retry, rejoin: bool, fruitless: int, deadline: float | None
    ) -> float | None:
        """Seconds to wait before trying again, or None to raise ``error``."""
        if not isinstance(error, Unavailable) or fruitless >= retry.attempts:
            return None
        if self.run_id is not None and not rejoin:
            return None  # the run was cancelled with its connection
        wait = retry.backoff(fruitless)
        if deadline is not None and time.monotonic() + wait >= deadline:
            return None
        return wait
