"""What the loop reports to OpenTelemetry, through the API only.

Without an SDK configured every call here is a no-op costing well under a
microsecond. With one, a run is a ``graphwire.run`` span (a child of whatever
span is current when the run starts, e.g. the caller's, extracted from
``traceparent`` by the server), each superstep a ``graphwire.step`` span
under it, each task a ``node <name>`` span under its step (current while the
node runs, so spans the node makes itself nest under it), and each checkpoint
write a ``graphwire.checkpoint.write`` event on the run span (with its
duration; an event because a span costs far more and a write overlaps the
next step).
"""

from __future__ import annotations

import time
from contextlib import aclosing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, AsyncGenerator, Awaitable, Callable, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.attributes import BoundedAttributes  # the API's; the SDK keeps a span's attributes in one
from opentelemetry.trace import Span, Status, StatusCode

if TYPE_CHECKING:
    from engine._internal._interrupt import Interrupt

__all__ = [
    "traced_run",
    "tracer",
    "RUNS",
    "STEPS",
    "NODE_DURATION",
    "CHECKPOINT_WRITE",
    "ACTIVE_RUNS",
    "restore",
    "timed_write",
    "fail",
    "RunTrace",
]

T = TypeVar("T")

tracer = trace.get_tracer("graphwire.engine")
_meter = metrics.get_meter("graphwire.engine")
RUNS = _meter.create_counter("graphwire.runs", unit="{run}", description="Runs, by graph and outcome")
STEPS = _meter.create_counter("graphwire.supersteps", unit="{step}", description="Supersteps run")
NODE_DURATION = _meter.create_histogram("graphwire.node.duration", unit="s", description="Time a node task took")
CHECKPOINT_WRITE = _meter.create_histogram(
    "graphwire.checkpoint.write.duration",
    unit="s",
    description="Time a checkpoint write took (one write may store several versions: async durability batches them)",
)
ACTIVE_RUNS = _meter.create_up_down_counter("graphwire.runs.active", unit="{run}", description="Runs in progress")


def set_plain(span: Span, key: str, value: int | str) -> None:
    """``span.set_attribute(key, value)`` for a span this module just started and a value the
    SDK keeps as given (an int, or a str when no length limit is set), written to the span's
    attributes directly when they are the SDK's ``BoundedAttributes`` with room for it.

    The SDK's ``set_attribute`` takes two locks and checks the value's type and length: about
    10,000 instructions, most of what a step's and a node's spans cost beyond the SDK's floor
    (bench/tracing_instructions.py); none of it changes a value of these types. Anything else
    (another SDK, a length limit on text, an attribute limit reached, an ended span) goes
    through ``set_attribute``.
    """
    attrs = getattr(span, "_attributes", None)
    if (
        type(attrs) is BoundedAttributes
        and not attrs._immutable
        and (attrs.max_value_len is None or type(value) is int)
        and (attrs.maxlen is None or len(attrs._dict) < attrs.maxlen)
        and getattr(span, "_end_time", 0) is None
    ):
        attrs._dict[key] = value
    else:
        span.set_attribute(key, value)


def restore(token: object | None) -> None:
    if token is not None:
        otel_context.detach(token)  # type: ignore[arg-type]


def fail(span: Span, exc: BaseException) -> None:
    span.record_exception(exc)
    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    span.set_attribute("graphwire.error.type", type(exc).__name__)


async def timed_write(coro: Awaitable[T], span: Span | None, events: list[dict[str, Any]] | None, attrs: dict[str, Any]) -> T:
    """Await a checkpoint write (of one version or several in one call); record its
    duration, and when tracing an event on ``span`` per version written (``events``: None, or
    no ``span``, when not tracing)."""
    t0 = time.perf_counter()
    try:
        return await coro
    except BaseException as e:
        for event in events or ():
            event["graphwire.error.type"] = type(e).__name__
        raise
    finally:
        took = time.perf_counter() - t0
        if span is not None and events:
            for event in events:
                event["graphwire.duration_ms"] = took * 1e3
                span.add_event("graphwire.checkpoint.write", event)
        CHECKPOINT_WRITE.record(took, attrs)


class RunTrace:
    """One run's spans and metrics: the run span, its current step's, its tasks'.

    Without an SDK every span here is the API's non-recording one, and a run
    costs a few attribute lookups per step. A run its sampler leaves out makes
    no step or node spans either (its nodes run under its span, so spans they
    make are left out with it). Otherwise the contexts its spans start in are
    made once (the run's at its start, a step's at the step's), and a step's
    and a task's attributes are set on the started span: given to
    ``start_span``, the SDK checks them as a mapping, which costs more than
    ``set_attribute`` (see bench/README.md, ``--tracing``). A sampler sees none
    of them; spans under a run follow the run's sampling anyway.
    """

    __slots__ = ("span", "attrs", "_step", "_nodes", "traced", "_recording", "_context", "_step_context")

    def __init__(self, graph: str) -> None:
        self.span: Span = trace.INVALID_SPAN  # until start()
        #: the attributes of every metric the run records
        self.attrs: dict[str, Any] = {"graphwire.graph": graph}
        self._step: Span | None = None
        self._nodes: dict[str, dict[str, Any]] = {}  # each node's metric attributes, made once
        #: the run has a real span (an SDK is set up; it may still be sampled out): without
        #: one, its steps and tasks make no spans and nothing is made current
        self.traced = False
        #: the run's span records (it was sampled): its steps and tasks get spans
        self._recording = False
        #: the context the run started in, with its span: its steps' spans start in it
        self._context: Context | None = None
        #: the current step's: its tasks' spans start in it
        self._step_context: Context | None = None

    def start(self, attributes: dict[str, Any]) -> None:
        """The run starts: its span, a child of the current one (the caller's)."""
        self.span = tracer.start_span("graphwire.run", attributes={**self.attrs, **attributes})
        self.traced = self.span.get_span_context().is_valid
        if self.traced:
            self._recording = self.span.is_recording()
            self._context = trace.set_span_in_context(self.span)

    def trace_id(self) -> str:
        """The run's trace id (32 hex digits), or "" when it is not traced."""
        sc = self.span.get_span_context()
        return format(sc.trace_id, "032x") if sc.is_valid else ""

    def step(self, step: int) -> None:
        """A superstep starts: its span, under the run's."""
        # Only the step: its tasks are its children (a list attribute costs as
        # much as a span's other attributes together).
        if self._recording:
            self._step = span = tracer.start_span("graphwire.step", context=self._context)
            set_plain(span, "graphwire.step", step)
            self._step_context = trace.set_span_in_context(span, self._context)
        STEPS.add(1, self.attrs)

    def end_step(self, error: BaseException | None) -> None:
        span, self._step = self._step, None
        self._step_context = None
        if span is not None:
            if error is not None:
                fail(span, error)
            span.end()

    def task(self, node: str, task_id: str) -> Span:
        """A task's span, under its step's (the caller ends it, by :meth:`task_done`); the
        run's span when the run records nothing."""
        if not self._recording:
            return self.span
        span = tracer.start_span(f"node {node}", context=self._step_context or self._context)
        set_plain(span, "graphwire.task_id", task_id)  # the node is the span's name, not an attribute too
        return span

    def enter(self, span: Span) -> object | None:
        """Make a task's ``span`` current while its node runs, so spans the node makes nest
        under it (for a run its sampler left out, the run's: they are left out with it);
        :func:`restore` the token it returns after. Nothing without an SDK."""
        if not self.traced:
            return None
        return otel_context.attach(trace.set_span_in_context(span, self._step_context or self._context))

    def task_done(self, span: Span, node: str, started: float, error: BaseException | None, interrupts: Sequence[Interrupt]) -> None:
        if span is not self.span:
            if error is not None:
                fail(span, error)
            if interrupts:
                span.set_attribute("graphwire.interrupt_ids", [i.id for i in interrupts])
            span.end()
        attrs = self._nodes.get(node)
        if attrs is None:
            attrs = self._nodes[node] = {**self.attrs, "graphwire.node": node}
        NODE_DURATION.record(time.perf_counter() - started, attrs)

    def finished(self, reason: str, *, steps: int, checkpoint_id: str | None, interrupt_ids: list[str], error: BaseException | None) -> None:
        """How the run ended, on its span and in the runs counter (the span is ended by :meth:`end`)."""
        span = self.span
        if span.is_recording():
            # One by one, each written as set_plain writes it: cheaper than set_attributes' checks.
            set_plain(span, "graphwire.finish_reason", reason)
            set_plain(span, "graphwire.steps", steps)
            if checkpoint_id:
                set_plain(span, "graphwire.checkpoint_id", checkpoint_id)
            if interrupt_ids:
                span.set_attribute("graphwire.interrupt_ids", interrupt_ids)
            if error is not None:
                fail(span, error)
        RUNS.add(1, {**self.attrs, "graphwire.finish_reason": reason})

    def end(self) -> None:
        self.end_step(None)
        self.span.end()
        self._context = None


async def traced_run(
    run: RunTrace, attributes: dict[str, Any], setup: Callable[[], Awaitable[None]], events: Callable[[], AsyncGenerator[T, None]],
    done: Callable[[], None],
) -> AsyncGenerator[T, None]:
    """A run's ``events()`` under its span: ``setup`` (a failure there ends the span with it),
    then the events, counted in the active runs while they come; ``done()`` once they end,
    however they do (the run's queue closes: one generator less than a wrapper of its own)."""
    run.start(attributes)
    try:
        await setup()
    except BaseException as e:
        fail(run.span, e)
        run.end()
        raise
    ACTIVE_RUNS.add(1, run.attrs)
    try:
        try:
            async with aclosing(events()) as inner:
                async for ev in inner:
                    yield ev
        finally:
            done()
    finally:
        ACTIVE_RUNS.add(-1, run.attrs)
        run.end()
