"""``RemoteGraph`` (``langgraph.pregel.remote``): a graph a LangGraph Server runs, called over its HTTP API.

It talks through LangGraph's own Python client, ``langgraph-sdk`` (an
optional dependency, imported when a client is made from a ``url``), to any
server of that API: LangGraph's, or graphwire's own HTTP face
(``graphwire serve --http``). Used on its own it reads and writes the
server's threads (``get_state``, ``update_state``, ``get_state_history``,
``get_graph``) and runs the graph (``invoke``, ``stream``; async twins
``a*``), as LangGraph 1.2's does.

As a node of a graph run by the engine (``add_node(remote_graph)``), it runs
the remote graph on the parent's ``thread_id`` and:

* stops its task at the remote graph's interrupts (GraphInterrupt, with the
  remote interrupts' own ids), so the parent stops there too;
* resumes the remote thread when the parent resumes the task: the answers
  the parent's ``Command(resume=...)`` gave go to the remote thread as a
  run's ``command``, by interrupt id (LangGraph sends them in
  ``configurable`` keys that graphwire's HTTP face does not take);
* passes the remote graph's chunks on to the parent's stream, under its own
  namespace, when the parent's caller streams subgraphs (``ForwardedChunk``
  events; or a :class:`~engine.pregel.protocol.StreamProtocol` given in
  ``configurable`` as LangGraph's code does);
* raises a remote ``Command(graph=Command.PARENT)`` as the parent's command.

The config sent is sanitised (:func:`~engine.pregel._remote_wire.sanitized`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncIterator, Iterator, Mapping, Sequence

from engine._internal._config import merge_configs
from engine._internal._task import CURRENT
from engine._langchain import drawing, runnable_class
from engine.events import ForwardedChunk
from engine.pregel._remote_run_stream import AsyncRunStream, RunStream, refuse_v3_options
from engine.pregel._remote_wire import (
    CONFIG_KEY_STREAM,
    Modes,
    PartRouter,
    RemoteException,
    checkpoint_of,
    command_body,
    config_of,
    last_value,
    sanitized,
    snapshot_of,
)
from engine.pregel._stream import modes_for
from engine.pregel.protocol import PregelProtocol
from engine.types import Command, StateSnapshot

__all__ = ["RemoteGraph", "RemoteException"]

log = logging.getLogger(__name__)

#: ``stream_events(version="v3")``'s keyword arguments a remote run takes (LangGraph's set)
_V3_SUPPORTED_KWARGS = frozenset({"metadata", "headers"})


def _sdk() -> Any:
    """``langgraph_sdk.client``, or an ImportError that names the package to install."""
    try:
        import langgraph_sdk.client as sdk
    except ImportError as e:
        raise ImportError(
            "RemoteGraph(url=...) needs LangGraph's Python client, the `langgraph-sdk` package: pip install langgraph-sdk"
        ) from e
    return sdk


def _merge_tracing_headers(headers: dict[str, str] | None) -> dict[str, str] | None:
    """``headers`` with the current LangSmith run's trace headers (``langsmith-trace``, ``baggage``) added,
    so the server's run continues the caller's trace; as given outside a traced run."""
    try:
        import langsmith
    except ImportError:
        return headers
    tree = langsmith.get_current_run_tree()
    if tree is None:
        return headers
    traced: dict[str, str] = tree.to_headers()
    if not headers:
        return traced
    merged = {**headers, **traced}
    if "baggage" in headers and "baggage" in traced:
        merged["baggage"] = f"{headers['baggage']},{traced['baggage']}"
    return merged


class _HostStream:
    """The parent run's stream, for a RemoteGraph running in one of its tasks: each chunk goes to the
    parent's queue as a ForwardedChunk under its namespace (a StreamProtocol's shape)."""

    __slots__ = ("host", "modes")

    def __init__(self, host: Any) -> None:
        self.host = host
        self.modes = set(modes_for(host.kinds))

    def __call__(self, chunk: tuple[tuple[str, ...], str, Any]) -> None:
        ns, mode, payload = chunk
        self.host.emit(ForwardedChunk(mode, payload, ns=ns))


class RemoteGraph(runnable_class() or object):  # type: ignore[misc]  # a Runnable when langchain-core is installed
    """A graph on a LangGraph Server (its assistant or graph id), run and read through ``langgraph-sdk``.

    Give ``url`` (clients are made for it, with ``api_key`` and ``headers``), or the clients themselves
    (``client``: async, ``sync_client``: sync). ``name``: the node's name when added to a graph (default:
    ``assistant_id``). ``distributed_tracing``: send the current LangSmith trace's headers with each run.
    """

    def __init__(
        self,
        assistant_id: str,
        /,
        *,
        url: str | None = None,
        api_key: str | None = None,
        headers: dict[str, str] | None = None,
        client: Any = None,
        sync_client: Any = None,
        config: Mapping[str, Any] | None = None,
        name: str | None = None,
        distributed_tracing: bool = False,
    ) -> None:
        self.assistant_id = assistant_id
        self.name = assistant_id if name is None else name
        self.config = config
        self.distributed_tracing = distributed_tracing
        if url is not None and (client is None or sync_client is None):
            sdk = _sdk()
            if client is None:
                client = sdk.get_client(url=url, api_key=api_key, headers=headers)
            if sync_client is None:
                sync_client = sdk.get_sync_client(url=url, api_key=api_key, headers=headers)
        self.client = client
        self.sync_client = sync_client

    # -- copies ---------------------------------------------------------------

    def copy(self, update: Mapping[str, Any]) -> RemoteGraph:
        """A RemoteGraph with this one's settings, ``update``'s instead where given."""
        kept = {
            "name": self.name, "config": self.config, "distributed_tracing": self.distributed_tracing,
            "client": self.client, "sync_client": self.sync_client,
        }  # fmt: skip
        kept.update(update)
        return type(self)(kept.pop("assistant_id", self.assistant_id), **kept)

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> RemoteGraph:
        """A copy whose config is this one's with ``config`` (and ``kwargs``' keys) merged on top."""
        return self.copy({"config": merge_configs(self.config, config, kwargs)})

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        base = name or self.name
        return f"{base}{suffix}" if suffix else base

    # -- clients --------------------------------------------------------------

    def _sync(self) -> Any:
        if self.sync_client is None:
            raise ValueError("RemoteGraph has no sync client: give `url` or `sync_client` when making it.")
        return self.sync_client

    def _async(self) -> Any:
        if self.client is None:
            raise ValueError("RemoteGraph has no async client: give `url` or `client` when making it.")
        return self.client

    def _headers(self, headers: dict[str, str] | None) -> dict[str, str] | None:
        return _merge_tracing_headers(headers) if self.distributed_tracing else headers

    # -- the graph ------------------------------------------------------------

    def get_graph(self, config: Any = None, *, xray: int | bool = False, headers: Any = None, params: Any = None) -> Any:
        """The remote graph's drawing (``GET /assistants/{id}/graph``) as LangChain's drawable Graph."""
        drawn = self._sync().assistants.get_graph(assistant_id=self.assistant_id, xray=xray, headers=headers, params=params)
        return _drawable(drawn)

    async def aget_graph(self, config: Any = None, *, xray: int | bool = False, headers: Any = None, params: Any = None) -> Any:
        """``get_graph`` with the async client."""
        drawn = await self._async().assistants.get_graph(assistant_id=self.assistant_id, xray=xray, headers=headers, params=params)
        return _drawable(drawn)

    # -- state ----------------------------------------------------------------

    def _state_request(self, config: Mapping[str, Any], subgraphs: bool, headers: Any, params: Any) -> dict[str, Any]:
        merged = merge_configs(self.config, config)
        return {
            "thread_id": merged["configurable"]["thread_id"], "checkpoint": checkpoint_of(merged), "subgraphs": subgraphs,
            "headers": headers, "params": params,
        }  # fmt: skip

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False, headers: Any = None, params: Any = None) -> StateSnapshot:
        """The thread's state (at the config's checkpoint, if it names one) on the server."""
        return snapshot_of(self._sync().threads.get_state(**self._state_request(config, subgraphs, headers, params)))

    async def aget_state(
        self, config: Mapping[str, Any], *, subgraphs: bool = False, headers: Any = None, params: Any = None
    ) -> StateSnapshot:
        """``get_state`` with the async client."""
        return snapshot_of(await self._async().threads.get_state(**self._state_request(config, subgraphs, headers, params)))

    def _history_request(self, config: Mapping[str, Any], filter: Any, before: Any, limit: int | None, headers: Any, params: Any) -> dict[str, Any]:
        merged = merge_configs(self.config, config)
        return {
            "thread_id": merged["configurable"]["thread_id"], "limit": limit or 10, "before": checkpoint_of(before),
            "metadata": filter, "checkpoint": checkpoint_of(merged), "headers": headers, "params": params,
        }  # fmt: skip

    def get_state_history(
        self, config: Mapping[str, Any], *, filter: Mapping[str, Any] | None = None, before: Mapping[str, Any] | None = None,
        limit: int | None = None, headers: Any = None, params: Any = None,
    ) -> Iterator[StateSnapshot]:  # fmt: skip
        """The thread's versions on the server, newest first (``limit``: 10 unless given)."""
        for state in self._sync().threads.get_history(**self._history_request(config, filter, before, limit, headers, params)):
            yield snapshot_of(state)

    async def aget_state_history(
        self, config: Mapping[str, Any], *, filter: Mapping[str, Any] | None = None, before: Mapping[str, Any] | None = None,
        limit: int | None = None, headers: Any = None, params: Any = None,
    ) -> AsyncIterator[StateSnapshot]:  # fmt: skip
        """``get_state_history`` with the async client."""
        for state in await self._async().threads.get_history(**self._history_request(config, filter, before, limit, headers, params)):
            yield snapshot_of(state)

    def _update_request(self, config: Mapping[str, Any], values: Any, as_node: str | None, headers: Any, params: Any) -> dict[str, Any]:
        merged = merge_configs(self.config, config)
        return {
            "thread_id": merged["configurable"]["thread_id"], "values": values, "as_node": as_node,
            "checkpoint": checkpoint_of(merged), "headers": headers, "params": params,
        }  # fmt: skip

    def update_state(
        self, config: Mapping[str, Any], values: Any, as_node: str | None = None, *, headers: Any = None, params: Any = None
    ) -> dict[str, Any]:
        """Write ``values`` to the thread on the server (as ``as_node``); the config of the version made."""
        done = self._sync().threads.update_state(**self._update_request(config, values, as_node, headers, params))
        return config_of(done["checkpoint"])

    async def aupdate_state(
        self, config: Mapping[str, Any], values: Any, as_node: str | None = None, *, headers: Any = None, params: Any = None
    ) -> dict[str, Any]:
        """``update_state`` with the async client."""
        done = await self._async().threads.update_state(**self._update_request(config, values, as_node, headers, params))
        return config_of(done["checkpoint"])

    def bulk_update_state(self, config: Mapping[str, Any], updates: Sequence[Any]) -> dict[str, Any]:
        raise NotImplementedError("RemoteGraph.bulk_update_state: the server's API has no such call (as LangGraph's)")

    async def abulk_update_state(self, config: Mapping[str, Any], updates: Sequence[Any]) -> dict[str, Any]:
        raise NotImplementedError("RemoteGraph.abulk_update_state: the server's API has no such call (as LangGraph's)")

    # -- runs -----------------------------------------------------------------

    def _sanitize_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """What of ``config`` a run is sent (LangGraph's private name, which its tests call)."""
        return sanitized(config)

    def _run(
        self, input: Any, config: Mapping[str, Any] | None, *, context: Any, stream_mode: Any, interrupt_before: Any,
        interrupt_after: Any, subgraphs: bool, headers: Any, params: Any, version: str, kwargs: dict[str, Any],
    ) -> tuple[dict[str, Any], PartRouter]:  # fmt: skip
        """The ``runs.stream`` request of one call, and the router of its parts."""
        configurable = (config or {}).get("configurable") or {}
        # Inside a task (its config names the task's namespace), whatever thread the call names (a
        # supervisor gives each agent one of its own): the task's host, for its stream and its resume.
        task = CURRENT.get() if "checkpoint_ns" in configurable else None
        host = task.nest() if task is not None and task.nest is not None else None
        parent = configurable.get(CONFIG_KEY_STREAM)
        if parent is None and host is not None and host.want(ForwardedChunk):
            parent = _HostStream(host)
        modes = Modes.of(stream_mode, parent)
        sent = sanitized(merge_configs(self.config, config))
        thread_id = sent.get("configurable", {}).pop("thread_id", None)
        command = None
        if isinstance(input, Command):
            command, input = command_body(input), None
        elif host is not None and host.resuming and host.resume_map:
            # The parent goes on from its version with answers (by interrupt id): so does the remote
            # thread, with them. With none to give (a breakpoint before the node), a run with the input.
            command, input = {"resume": dict(host.resume_map)}, None
        request = {
            "thread_id": thread_id, "assistant_id": self.assistant_id, "input": input, "command": command, "config": sent,
            "context": context, "stream_mode": modes.sent, "interrupt_before": interrupt_before,
            "interrupt_after": interrupt_after, "stream_subgraphs": subgraphs or parent is not None,
            "if_not_exists": "create", "headers": self._headers(headers), "params": params, **kwargs,
        }  # fmt: skip
        router = PartRouter(modes, caller_ns=configurable.get("checkpoint_ns"), parent=parent, subgraphs=subgraphs, version=version)
        return request, router

    def stream(
        self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None, stream_mode: Any = None,
        interrupt_before: Any = None, interrupt_after: Any = None, subgraphs: bool = False, headers: Any = None,
        params: Any = None, version: str = "v1", **kwargs: Any,
    ) -> Iterator[Any]:  # fmt: skip
        """Run the remote graph (``POST /threads/{id}/runs/stream``, or ``/runs/stream`` without a
        thread) and yield its chunks as a local graph's ``stream`` would."""
        request, router = self._run(
            input, config, context=context, stream_mode=stream_mode, interrupt_before=interrupt_before,
            interrupt_after=interrupt_after, subgraphs=subgraphs, headers=headers, params=params, version=version,
            kwargs=kwargs,
        )  # fmt: skip
        for part in self._sync().runs.stream(**request):
            yield from router.route(part)

    async def astream(
        self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None, stream_mode: Any = None,
        interrupt_before: Any = None, interrupt_after: Any = None, subgraphs: bool = False, headers: Any = None,
        params: Any = None, version: str = "v1", **kwargs: Any,
    ) -> AsyncIterator[Any]:  # fmt: skip
        """``stream`` with the async client."""
        request, router = self._run(
            input, config, context=context, stream_mode=stream_mode, interrupt_before=interrupt_before,
            interrupt_after=interrupt_after, subgraphs=subgraphs, headers=headers, params=params, version=version,
            kwargs=kwargs,
        )  # fmt: skip
        async for part in self._async().runs.stream(**request):
            for chunk in router.route(part):
                yield chunk

    def invoke(
        self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None, interrupt_before: Any = None,
        interrupt_after: Any = None, headers: Any = None, params: Any = None, version: str = "v1", **kwargs: Any,
    ) -> Any:  # fmt: skip
        """Run the remote graph to its end; its last values (None, logged, if the server sent none)."""
        last: list[Any] = []
        for chunk in self.stream(
            input, config, context=context, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
            headers=headers, stream_mode="values", params=params, version=version, **kwargs,
        ):  # fmt: skip
            last[:] = [chunk]
        return self._value(last, version)

    async def ainvoke(
        self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None, interrupt_before: Any = None,
        interrupt_after: Any = None, headers: Any = None, params: Any = None, version: str = "v1", **kwargs: Any,
    ) -> Any:  # fmt: skip
        """``invoke`` with the async client; as a node of a graph called synchronously, ``invoke`` on a
        thread (the sync client, as LangGraph's sync run calls it: an async client's connections belong
        to the event loop that opened them, and a sync call's loop is its thread's)."""
        task = CURRENT.get()
        if task is not None and task.sync_call and self.sync_client is not None:
            return await asyncio.to_thread(
                self.invoke, input, config, context=context, interrupt_before=interrupt_before,
                interrupt_after=interrupt_after, headers=headers, params=params, version=version, **kwargs,
            )  # fmt: skip
        last: list[Any] = []
        async for chunk in self.astream(
            input, config, context=context, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
            headers=headers, stream_mode="values", params=params, version=version, **kwargs,
        ):  # fmt: skip
            last[:] = [chunk]
        return self._value(last, version)

    @staticmethod
    def _value(last: list[Any], version: str) -> Any:
        if not last:
            log.warning("No events received from remote graph")
        return last_value(last, version)

    # -- v3 event streams -----------------------------------------------------

    def _reject_v3_unsupported(
        self, *, control: Any, transformers: Any, interrupt_before: Any, interrupt_after: Any, extra_kwargs: Mapping[str, Any]
    ) -> None:
        """NotImplementedError for what a remote v3 event stream cannot take."""
        refuse_v3_options(
            {"control": control, "transformers": transformers, "interrupt_before": interrupt_before, "interrupt_after": interrupt_after},
            extra_kwargs, _V3_SUPPORTED_KWARGS,
        )  # fmt: skip

    def _v3_thread(self, client: Any, config: Any, headers: Any) -> tuple[dict[str, Any], Any]:
        """The config a v3 run sends, and the server's thread stream it runs on, through ``client``."""
        sent = sanitized(merge_configs(self.config, config))
        thread_id = sent.get("configurable", {}).pop("thread_id", None)
        return sent, client.threads.stream(thread_id=thread_id, assistant_id=self.assistant_id, headers=self._headers(headers))

    def stream_events(
        self, input: Any, config: Any = None, *, version: str = "v2", interrupt_before: Any = None,
        interrupt_after: Any = None, control: Any = None, transformers: Any = None, headers: Any = None, **kwargs: Any,
    ) -> Any:  # fmt: skip
        """With ``version="v3"``: the run's event stream on the server's thread stream (enter it to start
        the run); other versions: LangChain's ``stream_events`` of a Runnable."""
        if version != "v3":
            base = getattr(super(), "stream_events", None)
            if base is None:
                raise NotImplementedError(f"RemoteGraph.stream_events(version={version!r}) needs langchain-core")
            return base(input, config, version=version, **kwargs)
        self._reject_v3_unsupported(
            control=control, transformers=transformers, interrupt_before=interrupt_before,
            interrupt_after=interrupt_after, extra_kwargs=kwargs,
        )  # fmt: skip
        client = self._sync()
        sent, thread = self._v3_thread(client, config, headers)
        return RunStream(sync_client=client, sdk_thread=thread, input=input, config=sent, metadata=kwargs.get("metadata"))

    async def astream_events(
        self, input: Any, config: Any = None, *, version: str = "v2", interrupt_before: Any = None,
        interrupt_after: Any = None, control: Any = None, transformers: Any = None, headers: Any = None, **kwargs: Any,
    ) -> Any:  # fmt: skip
        """With ``version="v3"``: the run's async event stream (``async with await rg.astream_events(...)``);
        v1 and v2 are refused, as LangGraph's (use ``astream``)."""
        if version != "v3":
            raise NotImplementedError(
                f"RemoteGraph.astream_events(version={version!r}) is not implemented; use astream() or version='v3'"
            )
        self._reject_v3_unsupported(
            control=control, transformers=transformers, interrupt_before=interrupt_before,
            interrupt_after=interrupt_after, extra_kwargs=kwargs,
        )  # fmt: skip
        client = self._async()
        sent, thread = self._v3_thread(client, config, headers)
        return AsyncRunStream(client=client, sdk_thread=thread, input=input, config=sent, metadata=kwargs.get("metadata"))


def _drawable(drawn: Mapping[str, Any]) -> Any:
    """The server's graph JSON as LangChain's drawable Graph (a node's name: its own, its data's, its id);
    without langchain-core, as the engine's own drawing."""
    lc = drawing()
    if lc is not None:
        Graph, Node, Edge = lc.Graph, lc.Node, lc.Edge
    else:
        from engine.graph._draw import DrawableGraph as Graph, Edge, Node
    nodes = {}
    for node in drawn["nodes"]:
        node_id = str(node["id"])
        data = node.get("data", {})
        name = node.get("name")
        if name is None:
            name = data.get("name", node_id) if isinstance(data, dict) else node_id
        nodes[node_id] = Node(id=node_id, name=name, data=data, metadata=node.get("metadata"))
    return Graph(nodes=nodes, edges=[Edge(**edge) for edge in drawn["edges"]])


PregelProtocol.register(RemoteGraph)  # as LangGraph's RemoteGraph, a PregelProtocol (engine.pregel.protocol)
