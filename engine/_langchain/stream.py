"""Stream mode "messages" for LangChain chat models: a callback handler, as LangGraph's.

When a run streams "messages", each node runs with a
:class:`MessagesHandler` among its config's callbacks. Being a streaming
handler (LangChain's ``_StreamingCallbackHandler`` protocol), it makes a chat
model stream even when the node calls ``model.invoke``; each token arrives in
``on_llm_new_token`` and goes out as a ``MessageChunk`` event, with the
model's run metadata (``langgraph_node``, ``langgraph_step``, the caller's
metadata, ``ls_*``, and ``tags``). A model that did not stream sends its
whole message at the end. Models tagged ``nostream`` send nothing.

Messages a node returns that neither a model streamed nor the node received
are sent too (metadata ``ls_integration: "langgraph"``), so a hand-made
AIMessage or a ToolNode's ToolMessages reach a chat UI, as on LangGraph.

Only imported where langchain-core is (by :mod:`engine.graph._nodes`).
"""

from __future__ import annotations

from typing import Any, Callable, cast
from uuid import UUID, uuid4

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager, CallbackManager
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.runnables import RunnableConfig, RunnableSequence
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers._streaming import _StreamingCallbackHandler, _V2StreamingCallbackHandler

from engine._internal._task import CURRENT
from engine._langchain.tools import ToolsHandler
from engine._langchain.runs import enter, leave, recorded, split
from engine.pregel._v2 import MESSAGES_V2
from engine.types import Command


__all__ = ["MessagesHandler", "MessagesHandlerV2", "TaskMessages", "child_config", "enter", "leave", "NOSTREAM", "run_node_runnable", "streams_events", "tap_output"]

NOSTREAM = "nostream"
Emit = Callable[[Any, "dict[str, Any] | None"], None]


class MessagesHandler(BaseCallbackHandler):
    """Turns a chat model's tokens into message chunks of one task."""

    run_inline = True  # in the model's thread, in order

    def __init__(self, emit: Emit, seen: set[str]) -> None:
        self.emit = emit
        self.seen = seen
        self.runs: dict[UUID, dict[str, Any]] = {}
        self.streamed: set[UUID] = set()

    # LangChain's _StreamingCallbackHandler protocol: its presence makes models stream.
    def tap_output_aiter(self, run_id: UUID, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: UUID, output: Any) -> Any:
        return output

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if not tags or NOSTREAM not in tags:
            meta = {**(metadata or {})}
            # As LangGraph: the caller's tags, without the run tree's seq:step:<n> ones; no key without any
            if user_tags := [t for t in tags or () if not t.startswith("seq:step")]:
                meta["tags"] = user_tags
            self.runs[run_id] = meta

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        meta = self.runs.get(run_id)
        if meta is None or not isinstance(chunk, ChatGenerationChunk):
            return
        self.streamed.add(run_id)
        if chunk.message.id is not None:
            self.seen.add(chunk.message.id)
        self.emit(chunk.message, meta)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        meta = self.runs.pop(run_id, None)
        if meta is None or run_id in self.streamed:
            self.streamed.discard(run_id)
            return
        for generations in getattr(response, "generations", ()) or ():
            for g in generations:
                message = getattr(g, "message", None)
                if isinstance(message, BaseMessage) and message.id not in self.seen:
                    if message.id is not None:
                        self.seen.add(message.id)
                    self.emit(message, meta)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.runs.pop(run_id, None)
        self.streamed.discard(run_id)


class MessagesHandlerV2(MessagesHandler, _V2StreamingCallbackHandler):
    """The "messages" handler of a v3 run (``stream_events(version="v3")``): a LangChain v2 streaming
    handler, so a chat model sends its protocol events (``on_stream_event``: message-start, content
    blocks, message-finish) instead of tokens; each goes out as it is, with the model call's
    ``run_id`` in the metadata, which the v3 stream's MessagesTransformer routes by. A streamed
    reply's final message counts as sent (the node returning it sends nothing more)."""

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        return None  # a v3 run takes protocol events only (a model called by .stream() still sends tokens)

    def on_stream_event(
        self, event: Any, *, run_id: UUID, parent_run_id: UUID | None = None, tags: list[str] | None = None, **kwargs: Any
    ) -> None:
        """A chat model's protocol event (a ``MessagesData`` dict), sent as it is."""
        meta = self.runs.get(run_id)
        if meta is None:
            return
        if event.get("event") == "message-start":
            self.streamed.add(run_id)
            if message_id := event.get("message_id"):
                self.seen.add(message_id)
        self.emit(event, {**meta, "run_id": str(run_id)})

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id in self.streamed:
            for generations in getattr(response, "generations", ()) or ():
                for g in generations[:1]:
                    message = getattr(g, "message", None)
                    if isinstance(message, BaseMessage):
                        if message.id is None:
                            message.id = str(uuid4())
                        self.seen.add(message.id)
        super().on_llm_end(response, run_id=run_id, **kwargs)


def _without_tool_messages(emit: Emit) -> Emit:
    """``emit`` leaving out tool results: a v3 run shows them on the state and the tools mode, not as messages."""

    def send(message: Any, meta: dict[str, Any] | None) -> None:
        if not isinstance(message, ToolMessage):
            emit(message, meta)

    return send


#: the handlers of a task's stream modes ("messages", "tools"), not a caller's streaming handlers
_MODES = (MessagesHandler, ToolsHandler)


class TaskMessages:
    """One task's LangChain side: its chain run for the caller's callbacks, and for
    "messages" mode the message ids it has seen, to send those it returns once.

    The node's run stays open until the task's writer has run (:meth:`close`,
    called by the runner): its routers run as its children, as on LangGraph,
    where a node is a sequence of its function, its writes and its branches.
    """

    __slots__ = ("emit", "seen", "meta", "run", "result", "config", "shown")

    def __init__(self, emit: Emit | None, seen: set[str], meta: dict[str, Any], run: Any = None) -> None:
        self.emit = emit
        self.seen = seen
        self.meta = meta
        self.run = run
        self.result: Any = None
        self.config: dict[str, Any] = {}  # the node's config (its routers' calls see it)
        # what the node's run records of its output (add_node(trace_policy=)'s process_outputs)
        self.shown: Callable[[Any], Any] | None = None

    def pushed(self, message: Any) -> None:
        """Send ``message`` now (``push_message``), whether or not it was sent before; not again on return."""
        if self.emit is not None:
            self.seen.add(message.id)
            self.emit(message, self.meta)

    def failed(self, error: BaseException) -> None:
        run, self.run = self.run, None
        if run is not None:
            run.on_chain_error(error)

    def returned(self, result: Any) -> Any:
        """``result`` unchanged, after sending its messages nobody streamed."""
        if self.run is not None:  # kept for close() (the shared no-run task keeps nothing)
            self.result = result
        if self.emit is not None:
            for m in _messages_in(result):
                if m.id is None or m.id not in self.seen:
                    if m.id is not None:
                        self.seen.add(m.id)
                    self.emit(m, self.meta)
        return result

    def close(self, error: BaseException | None = None) -> None:
        """The task's writer ran (or failed): the node's run ends, its output shown to streaming handlers."""
        if error is not None:
            self.failed(error)
            return
        run, self.run = self.run, None
        if run is not None:
            tap_output(run, self.result)
            out = self.result
            shown = recorded(out, self.shown)
            if shown is out:
                run.on_chain_end(out)
            else:  # the tracers record what the node's trace policy makes of it; the others get it as it is
                real, tracers = split(run)
                tracers.on_chain_end(shown)
                real.on_chain_end(out)

    def route(self, path: Callable[[Any], Any], arg: Any, name: str, position: int) -> Any:
        """Call the router ``path`` as a child run of the node (tagged ``seq:step:<position>``)."""
        run = self.run
        if run is None:
            return path(arg)
        router = run.get_child(f"seq:step:{position}").on_chain_start(None, arg, name=name)
        token = var_child_runnable_config.set(cast(RunnableConfig, {**self.config, "callbacks": router.get_child()}))
        try:
            out = path(arg)
        except BaseException as e:
            router.on_chain_error(e)
            raise
        finally:
            var_child_runnable_config.reset(token)
        router.on_chain_end(out)
        return out


def streams_events(run: Any) -> bool:
    """Whether ``run``'s handlers stream every run's output (``astream_events``, ``astream_log``)."""
    return any(isinstance(h, _StreamingCallbackHandler) and not isinstance(h, _MODES) for h in run.handlers)


async def run_node_runnable(runnable: Any, arg: Any, config: dict[str, Any], task: TaskMessages, *, streams: bool) -> Any:
    """A Runnable node's body, as LangGraph runs one: under the node's run, a sequence's
    steps each as its own child (``seq:step:<n>``), anything else as the first; for a
    caller streaming events (``streams``), the last one by ``astream``, its chunks added
    up (a chunk that does not add replaces, as in LangChain)."""
    run = task.run
    if run is None:
        return await runnable.ainvoke(arg, cast(RunnableConfig, config))
    steps = list(runnable.steps) if isinstance(runnable, RunnableSequence) else [runnable]
    streamed = streams and streams_events(run)
    for i, step in enumerate(steps, 1):
        cfg = cast(RunnableConfig, {**config, "callbacks": run.get_child(f"seq:step:{i}")})
        if not (streamed and i == len(steps)):
            arg = await step.ainvoke(arg, cfg)
            continue
        final: Any = None
        adds = True
        async for chunk in step.astream(arg, cfg):
            if final is None:
                final = chunk
            elif adds:
                try:
                    final = final + chunk
                except TypeError:
                    final, adds = chunk, False
        arg = final
    return arg


def tap_output(run: Any, chunk: Any) -> None:
    """Show ``chunk`` as output of the chain ``run`` to the caller's streaming handlers
    (``astream_events``, ``astream_log``): an ``on_chain_stream`` event, as LangGraph
    sends one for each node's output and each chunk of the graph's stream). A handler is one by
    inheritance, as LangGraph tells them (a custom handler that merely has the tap methods is not)."""
    for h in run.handlers:
        if _StreamingCallbackHandler in type(h).__mro__ and not isinstance(h, _MODES):
            for _ in h.tap_output_iter(run.run_id, iter((chunk,))):
                pass


def _messages_in(value: Any) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    items = value if isinstance(value, (list, tuple)) else [value]
    for item in items:
        if isinstance(item, Command):
            item = item.update
        if isinstance(item, BaseMessage):
            out.append(item)
        elif isinstance(item, dict) or (hasattr(item, "__dict__") and not isinstance(item, type)):
            # a Pydantic or dataclass state too (its fields), as LangGraph's handler reads them
            for v in (item if isinstance(item, dict) else vars(item)).values():
                if isinstance(v, BaseMessage):
                    out.append(v)
                elif isinstance(v, (list, tuple)):
                    out.extend(x for x in v if isinstance(x, BaseMessage))
    return out


_NO_TASK = TaskMessages(None, set(), {})


def _node_run(child: dict[str, Any], state: Any, name: str, step: int, trace: Any = None) -> Any:
    """The node's chain run, as LangGraph reports one per task to the caller's callbacks.

    The node's own calls are its children, tagged ``seq:step:1`` (on LangGraph
    a node is a sequence whose first step is the function). With a trace policy
    (``trace``) whose ``process_inputs`` records something else, the tracers start
    the run with that and the other handlers with ``state`` itself, as LangGraph's.
    """
    callbacks = child.get("callbacks")
    if isinstance(callbacks, CallbackManager):  # the run's: a copy, as LangGraph uses the run's own (no handler added again)
        manager = callbacks.copy()
        manager.add_tags(child.get("tags") or [])
        manager.add_metadata(child.get("metadata") or {})
    else:  # a list of handlers: LangChain's managers add theirs (a tracer when tracing is on, its hooks')
        manager = CallbackManager.configure(callbacks, inheritable_tags=child.get("tags"), inheritable_metadata=child.get("metadata"))
    manager.tags.insert(0, f"graph:step:{step}")  # first, as LangGraph lists it; not inherited
    shown = recorded(state, getattr(trace, "process_inputs", None))
    if shown is state:
        run = manager.on_chain_start(None, state, name=name)
    else:
        real, tracers = split(manager)
        run = real.on_chain_start(None, state, name=name)
        tracers.on_chain_start(None, shown, name=name, run_id=run.run_id)
        run.handlers = manager.handlers
    child["callbacks"] = run.get_child("seq:step:1")
    return run


def child_config(config: dict[str, Any], state: Any, trace: Any = None) -> tuple[dict[str, Any], TaskMessages]:
    """The config a node's LangChain calls get, and its LangChain bookkeeping.

    The graph run's ``run_id`` and ``run_name`` name the run, not the node's
    calls, so they are left out (a model would otherwise reuse the run's id).
    With callbacks, the node's run (named after the node) is the parent of
    what it calls; a Runnable node or a subgraph runs as its first child.
    ``trace``: the node's :class:`~engine.types.TracePolicy`, what its run records of
    its input and output.
    """
    child = dict(config)
    child.pop("run_id", None)
    child.pop("run_name", None)
    ctx = CURRENT.get()
    if ctx is None:
        return child, _NO_TASK
    if ctx.beat is not None and ctx.beat.auto:  # an idle timeout that any callback event refreshes (engine.pregel._timeout)
        child["callbacks"] = _with_handler(child.get("callbacks"), Progress(ctx.beat))
    # A task of a nested graph: the enclosing task's "messages" handler leaves its model
    # runs to this task's own (as LangGraph's one handler leaves a subgraph's runs to the
    # subgraph's stream); what this one sends, the enclosing ones count as sent (ctx.seen_by).
    _strip_handlers(child)
    wrap = bool(child.get("callbacks"))
    if ctx.tools is not None:  # stream mode "tools" (engine._langchain.tools)
        child["callbacks"] = _with_handler(child.get("callbacks") or CallbackManager([]), ToolsHandler(ctx.tools))
    emit = ctx.message
    if emit is None:
        if not wrap:
            # As LangGraph: a node's config has callbacks (a manager with none, if the call gave none),
            # and get_config() is the very config the node got.
            child["callbacks"] = child.get("callbacks") or CallbackManager([])
            ctx.config = child
            return child, _NO_TASK
        task = ctx.lc = TaskMessages(None, set(), {}, _node_run(child, state, ctx.node, ctx.step, trace))
        task.shown = getattr(trace, "process_outputs", None)
        ctx.config = task.config = child
        return child, task
    meta = dict(child.get("metadata") or {})
    seen = _Seen()
    seen.outer = ctx.seen_by
    for m in _messages_in(state):  # counted as sent by the enclosing tasks too, as by LangGraph's one handler
        if m.id is not None:
            seen.add(m.id)
    if (child.get("configurable") or {}).get(MESSAGES_V2):  # a v3 run's
        emit = _without_tool_messages(emit)
        handler: MessagesHandler = MessagesHandlerV2(emit, seen)
    else:
        handler = MessagesHandler(emit, seen)
    child["callbacks"] = _with_handler(child.get("callbacks"), handler)
    run = _node_run(child, state, ctx.node, ctx.step, trace) if wrap else None
    ctx.config = child
    task = ctx.messages = TaskMessages(emit, seen, dict(meta, ls_integration=meta.get("ls_integration", "langgraph")), run)
    if run is not None:
        ctx.lc, task.config = task, child
        task.shown = getattr(trace, "process_outputs", None)
    return child, task


class _Seen(set):  # type: ignore[type-arg]
    """Message ids a task's handler sent or received; each also counts as sent for the enclosing tasks."""

    outer: tuple[set[str], ...] = ()

    def add(self, item: Any) -> None:
        super().add(item)
        for ids in self.outer:
            ids.add(item)


def _strip_handlers(child: dict[str, Any]) -> None:
    """Take enclosing tasks' stream mode handlers out of ``child``'s callbacks."""
    callbacks = child.get("callbacks")
    if callbacks is None:  # the common case, before an isinstance of an ABC
        return
    if isinstance(callbacks, BaseCallbackManager):
        found = [h for h in callbacks.handlers if isinstance(h, _MODES)]
        if found:
            manager = callbacks.copy()
            for h in found:
                manager.remove_handler(h)
            child["callbacks"] = manager
    elif isinstance(callbacks, list) and any(isinstance(h, _MODES) for h in callbacks):
        child["callbacks"] = [h for h in callbacks if not isinstance(h, _MODES)]


class Progress(BaseCallbackHandler):
    """Any callback event of a timed attempt's LangChain calls is progress for its idle timeout, as
    LangGraph's ``refresh_on="auto"`` counts it (a model streaming tokens nobody streams further)."""

    run_inline = True

    def __init__(self, beat: Callable[[], None]) -> None:
        self.beat = beat


for _event in (
    "on_llm_start", "on_chat_model_start", "on_llm_new_token", "on_llm_end", "on_llm_error", "on_chain_start",
    "on_chain_end", "on_chain_error", "on_tool_start", "on_tool_end", "on_tool_error", "on_text", "on_retry",
    "on_agent_action", "on_agent_finish", "on_retriever_start", "on_retriever_end", "on_retriever_error", "on_custom_event",
):  # fmt: skip
    setattr(Progress, _event, lambda self, *args, **kwargs: self.beat())


def _with_handler(callbacks: Any, handler: BaseCallbackHandler) -> Any:
    if callbacks is None:
        return [handler]
    if isinstance(callbacks, list):
        return [*callbacks, handler]
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        return manager
    return [callbacks, handler]
