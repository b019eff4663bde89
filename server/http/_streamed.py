"""The HTTP API's streamed answers (``/wait``'s and the SSE streams'), and a caller's leaving.

A run's answer goes out as the run goes (a stream) or at its end (``/wait``), and a caller that
leaves before it ends ends the run's call, which cancels the run or lets it go on, as its
``on_disconnect`` says. uvicorn tells a route of the leaving only through ``receive`` (ASGI 2.3:
once the request's body is read, the next message is ``http.disconnect``), so something must wait
on it while the answer is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi.responses import StreamingResponse

__all__ = ["Streamed", "gone_from"]


class Streamed(StreamingResponse):
    """A streamed answer whose body is closed when the response ends, also when the caller left
    mid-way: closing it ends the run's call.

    It is sent in the request's own task while one more task waits for the caller to leave and, if
    it does, cancels the sending where it is (Starlette's ``StreamingResponse`` does the same through
    an anyio task group, whose cancel scopes cost ~4 % of an HTTP run's CPU); a sending so cut
    ends the response quietly, as Starlette's does, and a cancellation from outside goes on.
    """

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        sending = asyncio.current_task()
        assert sending is not None
        watch = asyncio.ensure_future(_cut_when_gone(receive, sending))
        try:
            await self.stream_response(send)
        except asyncio.CancelledError:
            if not (watch.done() and not watch.cancelled() and watch.result()) or sending.uncancel():
                raise  # not (only) the caller's leaving
        finally:
            watch.cancel()
            close = getattr(self.body_iterator, "aclose", None)
            if close is not None:
                await close()


async def gone_from(receive: Callable[[], Awaitable[Any]]) -> None:
    """Until the caller disconnects (its body is read: the next thing it can send is its going)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _cut_when_gone(receive: Callable[[], Awaitable[Any]], sending: asyncio.Task[Any]) -> bool:
    """Wait for the caller to leave, then cancel ``sending``; True then."""
    await gone_from(receive)
    sending.cancel()
    return True
