"""What the loop runs: a compiled node, and the constants the loop reserves."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from engine.types import RetryPolicy

__all__ = ["NodeSpec", "TASKS", "INTERRUPT_SEEN", "NULL_TASK_ID", "NO_WRITES", "Writer"]

# Topic channel that carries Send packets to the next step.
TASKS = "__pregel_tasks"
# versions_seen key recording channel versions at the last static breakpoint.
INTERRUPT_SEEN = "__interrupt__"
# task id under which a resume answer meant for "whichever task is waiting" is stored.
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
# pending write of a task that finished without writing anything (so it reads as finished).
NO_WRITES = "__no_writes__"

# writer(result, state, config) -> [(channel, value), ...] (or an awaitable of it);
# ``state`` is the state as the task saw it when planned.
Writer = Callable[[Any, Any, dict], "list[tuple[str, Any]]"]


@dataclass(slots=True)
class NodeSpec:
    """A node as the loop sees it, independent of how the graph was built.

    ``read`` builds the node's input from the channels when it is planned;
    ``proc`` is the user's function; ``writer`` turns its return value (and
    the state the task was planned with) into channel writes: state updates, edges taken,
    Sends. ``accepts_config`` says whether ``proc`` takes a ``config`` argument.
    """

    name: str
    triggers: tuple[str, ...]
    read: Callable[[dict[str, Any]], Any]
    proc: Callable[..., Any] | None
    writer: Writer
    is_async: bool = False
    accepts_config: bool = False
    # whether ``proc`` takes a ``store`` argument (LangGraph's injection: by name, typed BaseStore or untyped)
    accepts_store: bool = False
    retry_policy: Sequence[RetryPolicy] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    # keys of state channels, for reporting a node's update
    state_keys: frozenset[str] = frozenset()
