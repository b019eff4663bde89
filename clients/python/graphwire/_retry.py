"""Retrying calls that failed with UNAVAILABLE: the policy, as one value.

A call to graphwire crosses a network and often a load balancer, and
replicas restart; UNAVAILABLE ("the server could not be reached, or the
connection dropped") is the status such moments give. Both clients retry it
by default:

* a run call (``invoke``, ``resume``, ``fork``, their ``stream_`` forms) and
  ``update_state`` carry a ``request_id`` (a new UUID per logical call unless
  the caller names one), sent unchanged with every attempt, so the server
  never applies the call twice (it answers a retry of a finished call with
  the first attempt's outcome, and joins one still running);
* a run call is retried only while none of its events has arrived; after
  that, a run asked to continue without its caller
  (``on_disconnect="continue"``) is re-joined with ``JoinRun`` from the last
  event received, and any other run has been cancelled with its connection,
  so the error is raised;
* reads (``get_state``, ``history``, ``graphs``, ``graph``, ``get_run``,
  ``list_runs``) are retried as they are: they change nothing.

The wait before retry ``n`` (1, 2, ...) is ``initial_backoff *
multiplier**(n-1)``, capped at ``max_backoff``, then spread by ``jitter``
(a random factor in ``[1 - jitter, 1 + jitter]``) so that callers cut off
together do not come back together. A call's ``timeout`` bounds the whole
logical call: no retry starts that could not finish before it.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass

__all__ = ["DEFAULT_RETRY", "NO_RETRY", "Retry", "async_pause", "new_request_id", "pause", "resolve"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Retry:
    """How a client retries calls that failed with UNAVAILABLE (see the module docstring).

    Attributes:
        attempts: The most tries of one call in a row without progress (the
            first included); 1 turns retrying off. A re-joined run that
            receives an event starts counting again.
        initial_backoff: Seconds before the first retry.
        max_backoff: The longest wait between two tries.
        multiplier: How much each wait grows over the previous one.
        jitter: How far (a fraction) a wait may stray from its nominal value.
    """

    attempts: int = 5
    initial_backoff: float = 0.2
    max_backoff: float = 5.0
    multiplier: float = 2.0
    jitter: float = 0.2

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"Retry.attempts is at least 1 (1: no retry), not {self.attempts}")
        if self.initial_backoff < 0 or self.max_backoff < 0:
            raise ValueError("Retry backoffs are seconds, at least 0")
        if self.multiplier < 1:
            raise ValueError(f"Retry.multiplier is at least 1, not {self.multiplier}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"Retry.jitter is a fraction between 0 and 1, not {self.jitter}")

    @property
    def enabled(self) -> bool:
        return self.attempts > 1

    def backoff(self, retry: int, rand: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first)."""
        nominal = min(self.max_backoff, self.initial_backoff * self.multiplier ** (retry - 1))
        spread = (rand or _RANDOM).uniform(1 - self.jitter, 1 + self.jitter)
        return min(self.max_backoff, nominal * spread)


#: The clients' default: 5 tries, waiting about 0.2, 0.4, 0.8 and 1.6 s between them.
DEFAULT_RETRY = Retry()
#: No retry at all (and no generated ``request_id``).
NO_RETRY = Retry(attempts=1)

_RANDOM = random.Random()


def resolve(value: Retry | bool | None, default: Retry) -> Retry:
    """A ``retry=`` argument as a policy: True the defaults, False none, None ``default``."""
    if value is None:
        return default
    if value is True:
        return DEFAULT_RETRY
    if value is False:
        return NO_RETRY
    if isinstance(value, Retry):
        return value
    raise TypeError(f"retry must be a graphwire.Retry or a bool, not {type(value).__name__}")


def new_request_id() -> str:
    """A fresh id for one logical call (a version-4 UUID)."""
    return str(uuid.uuid4())


def pause(seconds: float) -> None:
    time.sleep(seconds)


async def async_pause(seconds: float) -> None:
    await asyncio.sleep(seconds)
