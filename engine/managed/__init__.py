"""Managed values, at LangGraph's import path (``langgraph.managed``): state keys the run fills in.

A key annotated ``RemainingSteps`` or ``IsLastStep`` is no channel: it is
not stored, input and writes to it are ignored, and every node and router
reading the state gets its value for the step it runs in, as LangGraph's:

- ``RemainingSteps``: ``stop - step``, where ``stop`` is the call's last
  step plus one (the step of the version the call loaded, plus the
  recursion limit, plus 2), so a node of a fresh thread's first step sees
  ``recursion_limit - 1``;
- ``IsLastStep``: whether the step is the call's last (one step remains).

``create_react_agent`` custom states declare ``remaining_steps:
RemainingSteps`` this way.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable

from engine._internal._task import CURRENT

__all__ = ["IsLastStep", "RemainingSteps", "ManagedValue", "is_managed_value", "managed_values", "with_managed"]


class ManagedValue:
    """A value computed from the step a node runs in and the call's last step (``get(step, stop)``)."""

    @staticmethod
    def get(step: int, stop: int) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


class IsLastStepManager(ManagedValue):
    @staticmethod
    def get(step: int, stop: int) -> bool:
        return step == stop - 1


class RemainingStepsManager(ManagedValue):
    @staticmethod
    def get(step: int, stop: int) -> int:
        return stop - step


IsLastStep = Annotated[bool, IsLastStepManager]
RemainingSteps = Annotated[int, RemainingStepsManager]

_UNKNOWN = {IsLastStepManager: False, RemainingStepsManager: 0}


def is_managed_value(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, ManagedValue)


def managed_values(managed: dict[str, type[ManagedValue]]) -> dict[str, Any]:
    """The values of ``managed`` keys for the running task (``CURRENT``): its step, its call's stop.

    Outside a task (planning a step) they are placeholders: :func:`with_managed`
    sets them again when the node runs, and routers run inside their task.
    """
    ctx = CURRENT.get()
    scope = getattr(ctx, "calls", None)
    stop = getattr(getattr(scope, "runner", None), "stop", None)
    if ctx is None or stop is None:
        return {k: _UNKNOWN.get(m) for k, m in managed.items()}
    return {k: m.get(ctx.step, stop) for k, m in managed.items()}


def with_managed(proc: Callable[..., Any], managed: dict[str, type[ManagedValue]], is_async: bool) -> Callable[..., Any]:
    """``proc``, given its state with the ``managed`` keys' values for the task that runs it."""

    def fill(state: Any) -> Any:
        values = managed_values(managed)
        if isinstance(state, dict):
            return {**state, **values}
        for k, v in values.items():
            setattr(state, k, v)
        return state

    if is_async:

        async def arun(state: Any, *args: Any, **kwargs: Any) -> Any:
            return await proc(fill(state), *args, **kwargs)

        return arun

    def run(state: Any, *args: Any, **kwargs: Any) -> Any:
        return proc(fill(state), *args, **kwargs)

    return run
