"""The client's arguments → request messages. Pure functions; no I/O.

Both clients build every request here, so the sync and async clients cannot
disagree about what a call sends. Values are JSON-encoded here too, which
means a value JSON cannot carry fails with ``TypeError``/``ValueError``
before anything is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from google.protobuf.timestamp_pb2 import Timestamp

from graphwire._payload import encode
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire._types import Durability, EventKind, IfInterrupted, MultitaskStrategy, OnDisconnect

__all__ = [
    "cancel_run",
    "delete_item",
    "delete_thread",
    "get_item",
    "kinds_field",
    "fork",
    "get_graph",
    "get_state",
    "invoke",
    "join_run",
    "get_run",
    "list_graphs",
    "list_runs",
    "list_history",
    "list_namespaces",
    "put_item",
    "resume",
    "run_config",
    "search_items",
    "update_state",
]

_EVENT_KINDS: Mapping[EventKind, pb.EventKind] = {
    EventKind.RUN_STARTED: pb.EVENT_KIND_RUN_STARTED,
    EventKind.STEP_STARTED: pb.EVENT_KIND_STEP_STARTED,
    EventKind.STEP_FINISHED: pb.EVENT_KIND_STEP_FINISHED,
    EventKind.TASK_STARTED: pb.EVENT_KIND_TASK_STARTED,
    EventKind.TASK_FINISHED: pb.EVENT_KIND_TASK_FINISHED,
    EventKind.VALUES: pb.EVENT_KIND_VALUES,
    EventKind.CUSTOM: pb.EVENT_KIND_CUSTOM,
    EventKind.MESSAGE_CHUNK: pb.EVENT_KIND_MESSAGE_CHUNK,
    EventKind.CHECKPOINT_SAVED: pb.EVENT_KIND_CHECKPOINT_SAVED,
    EventKind.INTERRUPT: pb.EVENT_KIND_INTERRUPT,
    EventKind.RUN_FINISHED: pb.EVENT_KIND_RUN_FINISHED,
    EventKind.CALLBACK: pb.EVENT_KIND_CALLBACK,
}

_DURABILITIES: Mapping[Durability, pb.Durability] = {
    Durability.ASYNC: pb.DURABILITY_ASYNC,
    Durability.SYNC: pb.DURABILITY_SYNC,
    Durability.EXIT: pb.DURABILITY_EXIT,
}


def _on_disconnect(value: OnDisconnect | str | None) -> int:
    if value is None:
        return 0  # ON_DISCONNECT_UNSPECIFIED: the server's default, CANCEL
    kind = OnDisconnect(str(value).lower())
    return pb.ON_DISCONNECT_CONTINUE if kind is OnDisconnect.CONTINUE else pb.ON_DISCONNECT_CANCEL


def durable_fields(
    request: pb.InvokeRequest | pb.ResumeRequest | pb.ForkRequest,
    *,
    request_id: str | None,
    on_disconnect: OnDisconnect | str | None,
    background: bool,
) -> None:
    """Set what a run request says about retries and its caller leaving."""
    if request_id:
        request.request_id = request_id
    request.on_disconnect = _on_disconnect(on_disconnect)  # type: ignore[assignment]
    request.background = background


_STRATEGIES: Mapping[MultitaskStrategy, int] = {
    MultitaskStrategy.REJECT: pb.MULTITASK_STRATEGY_REJECT,
    MultitaskStrategy.ENQUEUE: pb.MULTITASK_STRATEGY_ENQUEUE,
    MultitaskStrategy.INTERRUPT: pb.MULTITASK_STRATEGY_INTERRUPT,
    MultitaskStrategy.ROLLBACK: pb.MULTITASK_STRATEGY_ROLLBACK,
}

_IF_INTERRUPTED: Mapping[IfInterrupted, int] = {IfInterrupted.DROP: pb.IF_INTERRUPTED_DROP, IfInterrupted.REJECT: pb.IF_INTERRUPTED_REJECT}


def turn_fields(
    request: pb.InvokeRequest | pb.ResumeRequest | pb.ForkRequest,
    *,
    multitask_strategy: MultitaskStrategy | str | None,
    expect_checkpoint_id: str | None,
    if_interrupted: IfInterrupted | str | None,
) -> None:
    """Set what a run request asks of a busy thread and of the version it runs on."""
    if multitask_strategy is not None:
        request.multitask_strategy = _STRATEGIES[MultitaskStrategy(str(multitask_strategy).lower())]  # type: ignore[assignment]
    if expect_checkpoint_id:
        request.expect_checkpoint_id = expect_checkpoint_id
    if if_interrupted is not None:
        if not isinstance(request, pb.InvokeRequest):
            raise ValueError("if_interrupted is an invoke option (resume answers the interrupt; fork names its version)")
        request.if_interrupted = _IF_INTERRUPTED[IfInterrupted(str(if_interrupted).lower())]  # type: ignore[assignment]


def kinds_field(kinds: Iterable[EventKind | str] | None) -> list[pb.EventKind]:
    """``event_kinds=`` → the request's ``event_kinds`` field (empty: every kind).

    Accepts ``EventKind`` members or their names (``"values"``, ``"custom"``).
    """
    if kinds is None:
        return []
    if isinstance(kinds, str):  # a lone "values" is a kind, not five letters
        kinds = [kinds]
    return sorted({_EVENT_KINDS[EventKind(str(kind).lower())] for kind in kinds})


def run_config(
    *,
    recursion_limit: int | None,
    durability: Durability | str | None,
    run_metadata: Mapping[str, Any] | None,
    interrupt_before: Sequence[str] | None,
    interrupt_after: Sequence[str] | None,
    context: Mapping[str, Any] | None = None,
    configurable: Mapping[str, Any] | None = None,
    tags: Sequence[str] | None = None,
) -> pb.RunConfig | None:
    """The per-run overrides, or None when there are none."""
    config = pb.RunConfig(
        durability=(
            _DURABILITIES[Durability(str(durability).lower())] if durability is not None else pb.DURABILITY_UNSPECIFIED
        ),
        interrupt_before=list(interrupt_before or ()),
        interrupt_after=list(interrupt_after or ()),
        tags=list(tags or ()),
    )
    if recursion_limit is not None:
        config.recursion_limit = recursion_limit
    if run_metadata is not None:
        config.metadata_json = encode(run_metadata, "run_metadata")
    if context is not None:
        config.context_json = encode(context, "context")
    if configurable is not None:
        config.configurable_json = encode(configurable, "configurable")
    return config if config.ByteSize() else None  # an explicit recursion_limit counts, even 0


def invoke(
    graph: str,
    thread_id: str,
    input: Any,
    *,
    checkpoint_id: str | None,
    event_kinds: Iterable[EventKind | str] | None,
    enqueue: bool,
    config: pb.RunConfig | None,
) -> pb.InvokeRequest:
    request = pb.InvokeRequest(graph=graph, thread_id=thread_id, event_kinds=kinds_field(event_kinds), enqueue=enqueue)
    if input is not None:
        request.input_json = encode(input, "input")
    if checkpoint_id is not None:
        request.checkpoint_id = checkpoint_id
    if config is not None:
        request.config.CopyFrom(config)
    return request


def resume(
    graph: str,
    thread_id: str,
    answer: Any,
    *,
    resumes: Mapping[str, Any] | None,
    event_kinds: Iterable[EventKind | str] | None,
    enqueue: bool,
    config: pb.RunConfig | None,
) -> pb.ResumeRequest:
    """``answer`` is sent (None as JSON null) unless ``resumes`` is given."""
    if resumes is not None and answer is not None:
        raise ValueError("pass either answer or resumes={interrupt_id: answer}, not both")
    request = pb.ResumeRequest(graph=graph, thread_id=thread_id, event_kinds=kinds_field(event_kinds), enqueue=enqueue)
    if resumes is not None:
        if not resumes:
            raise ValueError("resumes is empty: name at least one interrupt id")
        for interrupt_id, value in resumes.items():
            request.resumes_json[interrupt_id] = encode(value, f"resumes[{interrupt_id!r}]")
    else:
        request.resume_json = encode(answer, "answer")
    if config is not None:
        request.config.CopyFrom(config)
    return request


def fork(
    graph: str,
    thread_id: str,
    checkpoint_id: str,
    *,
    update: Any,
    as_node: str | None,
    event_kinds: Iterable[EventKind | str] | None,
    enqueue: bool,
    config: pb.RunConfig | None,
) -> pb.ForkRequest:
    request = pb.ForkRequest(
        graph=graph,
        thread_id=thread_id,
        checkpoint_id=checkpoint_id,
        event_kinds=kinds_field(event_kinds),
        enqueue=enqueue,
    )
    if update is not None:
        request.update_json = encode(update, "update")
    if as_node is not None:
        request.as_node = as_node
    if config is not None:
        request.config.CopyFrom(config)
    return request


def get_state(
    graph: str, thread_id: str, checkpoint_id: str | None, *, subgraphs: bool = False, checkpoint_ns: str = ""
) -> pb.GetStateRequest:
    request = pb.GetStateRequest(graph=graph, thread_id=thread_id, subgraphs=subgraphs, checkpoint_ns=checkpoint_ns)
    if checkpoint_id is not None:
        request.checkpoint_id = checkpoint_id
    return request


def list_history(
    graph: str,
    thread_id: str,
    *,
    limit: int | None,
    before: str | None,
    filter: Mapping[str, Any] | None,
    checkpoint_ns: str = "",
) -> pb.ListHistoryRequest:
    request = pb.ListHistoryRequest(graph=graph, thread_id=thread_id, checkpoint_ns=checkpoint_ns)
    if limit is not None:
        request.limit = limit
    if before is not None:
        request.before = before
    if filter is not None:
        request.filter_json = encode(filter, "filter")
    return request


def update_state(
    graph: str,
    thread_id: str,
    values: Any,
    *,
    as_node: str | None,
    checkpoint_id: str | None,
    request_id: str | None = None,
    configurable: Mapping[str, Any] | None = None,
    checkpoint_ns: str = "",
) -> pb.UpdateStateRequest:
    request = pb.UpdateStateRequest(graph=graph, thread_id=thread_id, values_json=encode(values, "values"), checkpoint_ns=checkpoint_ns)
    if configurable is not None:
        request.configurable_json = encode(configurable, "configurable")
    if request_id:
        request.request_id = request_id
    if as_node is not None:
        request.as_node = as_node
    if checkpoint_id is not None:
        request.checkpoint_id = checkpoint_id
    return request


def list_graphs() -> pb.ListGraphsRequest:
    return pb.ListGraphsRequest()


def get_graph(graph: str) -> pb.GetGraphRequest:
    return pb.GetGraphRequest(graph=graph)


def cancel_run(graph: str, thread_id: str, run_id: str | None) -> pb.CancelRunRequest:
    return pb.CancelRunRequest(graph=graph, thread_id=thread_id, run_id=run_id or "")


def join_run(run_id: str, *, after_seq: int, event_kinds: Iterable[EventKind | str] | None) -> pb.JoinRunRequest:
    if not run_id:
        raise ValueError("run_id is empty: name the run to join (Run.run_id, RunStarted.run_id)")
    if after_seq < 0:
        raise ValueError(f"after_seq is a seq already received (0: from the start), not {after_seq}")
    return pb.JoinRunRequest(run_id=run_id, after_seq=after_seq, event_kinds=kinds_field(event_kinds))


def get_run(run_id: str) -> pb.GetRunRequest:
    return pb.GetRunRequest(run_id=run_id)


def list_runs(graph: str, thread_id: str, *, limit: int | None, before: str | None, include_values: bool) -> pb.ListRunsRequest:
    request = pb.ListRunsRequest(graph=graph, thread_id=thread_id, include_values=include_values)
    if limit is not None:
        request.limit = limit
    if before is not None:
        request.before = before
    return request


def delete_thread(graph: str, thread_id: str) -> pb.DeleteThreadRequest:
    return pb.DeleteThreadRequest(graph=graph, thread_id=thread_id)


# -- the store ---------------------------------------------------------------------


def _labels(namespace: Sequence[str], what: str) -> list[str]:
    if isinstance(namespace, str):  # ("memories") is a string, not a one-label namespace
        raise TypeError(f"{what} is a sequence of labels, not a string: use ({namespace!r},)")
    return list(namespace)


def put_item(
    namespace: Sequence[str],
    key: str,
    value: Mapping[str, Any],
    *,
    index: Literal[False] | Sequence[str] | None,
    ttl: float | None,
) -> pb.PutItemRequest:
    """``index``: None for the store's fields, False for none, or paths; ``ttl``: minutes, 0 never, None the default."""
    if not isinstance(value, Mapping):
        raise TypeError(f"an item's value is a dict (a JSON object), not {type(value).__name__}")
    request = pb.PutItemRequest(namespace=_labels(namespace, "namespace"), key=key, value_json=encode(value))
    if index is False:
        request.no_index = True
    elif index is not None:
        request.index_fields.extend(_labels(index, "index"))
    if ttl is not None:
        request.ttl_minutes = ttl
    return request


def get_item(namespace: Sequence[str], key: str, *, refresh_ttl: bool | None) -> pb.GetItemRequest:
    request = pb.GetItemRequest(namespace=_labels(namespace, "namespace"), key=key)
    if refresh_ttl is not None:
        request.refresh_ttl = refresh_ttl
    return request


def search_items(
    namespace_prefix: Sequence[str],
    *,
    filter: Mapping[str, Any] | None,
    limit: int,
    offset: int,
    query: str | None,
    refresh_ttl: bool | None,
) -> pb.SearchItemsRequest:
    request = pb.SearchItemsRequest(
        namespace_prefix=_labels(namespace_prefix, "namespace_prefix"), limit=limit, offset=offset, query=query or ""
    )
    if filter is not None:
        request.filter_json = encode(filter, "filter")
    if refresh_ttl is not None:
        request.refresh_ttl = refresh_ttl
    return request


def delete_item(namespace: Sequence[str], key: str) -> pb.DeleteItemRequest:
    return pb.DeleteItemRequest(namespace=_labels(namespace, "namespace"), key=key)


def list_namespaces(
    *,
    prefix: Sequence[str] | None,
    suffix: Sequence[str] | None,
    max_depth: int | None,
    limit: int,
    offset: int,
) -> pb.ListNamespacesRequest:
    request = pb.ListNamespacesRequest(
        prefix=_labels(prefix or (), "prefix"), suffix=_labels(suffix or (), "suffix"), limit=limit, offset=offset
    )
    if max_depth is not None:
        request.max_depth = max_depth
    return request


# -- thread records ----------------------------------------------------------------

_IF_EXISTS = {"raise": pb.IF_EXISTS_RAISE, "do_nothing": pb.IF_EXISTS_DO_NOTHING}
_TTL_STRATEGIES = {"delete": pb.TTL_STRATEGY_DELETE, "keep_latest": pb.TTL_STRATEGY_KEEP_LATEST}
_THREAD_STATUSES = {
    "idle": pb.THREAD_STATUS_IDLE, "busy": pb.THREAD_STATUS_BUSY, "interrupted": pb.THREAD_STATUS_INTERRUPTED,
    "error": pb.THREAD_STATUS_ERROR,
}  # fmt: skip


def _metadata_json(metadata: Mapping[str, Any] | None) -> str:
    if metadata is None:
        return ""
    if not isinstance(metadata, Mapping):
        raise TypeError(f"a thread's metadata is a dict (a JSON object), not {type(metadata).__name__}")
    return encode(metadata)


def thread_ttl(ttl: float | None, strategy: str) -> pb.ThreadTtl | None:
    """``ttl``: seconds (0: none); None: not set."""
    if ttl is None:
        return None
    if strategy not in _TTL_STRATEGIES:
        raise ValueError(f'a thread\'s ttl strategy is "delete" or "keep_latest", not {strategy!r}')
    return pb.ThreadTtl(seconds=int(ttl), strategy=_TTL_STRATEGIES[strategy])


def create_thread(
    graph: str, thread_id: str | None, metadata: Mapping[str, Any] | None, if_exists: str, ttl: float | None, ttl_strategy: str
) -> pb.CreateThreadRequest:
    if if_exists not in _IF_EXISTS:
        raise ValueError(f'if_exists is "raise" or "do_nothing", not {if_exists!r}')
    return pb.CreateThreadRequest(
        graph=graph, thread_id=thread_id or "", metadata_json=_metadata_json(metadata), if_exists=_IF_EXISTS[if_exists],
        ttl=thread_ttl(ttl, ttl_strategy),
    )  # fmt: skip


def update_thread(
    graph: str, thread_id: str, metadata: Mapping[str, Any] | None, ttl: float | None, ttl_strategy: str
) -> pb.UpdateThreadRequest:
    return pb.UpdateThreadRequest(graph=graph, thread_id=thread_id, metadata_json=_metadata_json(metadata), ttl=thread_ttl(ttl, ttl_strategy))


def _stamp(value: Any) -> Any:
    if value is None:
        return None
    out = Timestamp()
    out.FromDatetime(value)
    return out


def thread_filter(
    graph: str | None, metadata: Mapping[str, Any] | None, status: Sequence[str] | str | None, thread_ids: Sequence[str] | None,
    created_after: Any, created_before: Any, updated_after: Any, updated_before: Any,
) -> pb.ThreadFilter:  # fmt: skip
    statuses = [status] if isinstance(status, str) else list(status or ())
    wrong = [s for s in statuses if s not in _THREAD_STATUSES]
    if wrong:
        raise ValueError(f"thread statuses are {', '.join(_THREAD_STATUSES)}; not {', '.join(map(repr, wrong))}")
    return pb.ThreadFilter(
        graph=graph or "", metadata_json=_metadata_json(metadata), statuses=[_THREAD_STATUSES[s] for s in statuses],
        thread_ids=list(thread_ids or ()), created_after=_stamp(created_after), created_before=_stamp(created_before),
        updated_after=_stamp(updated_after), updated_before=_stamp(updated_before),
    )  # fmt: skip


def search_threads(
    where: pb.ThreadFilter, sort_by: str, sort_order: str, limit: int, page_token: str | None, include_values: bool
) -> pb.SearchThreadsRequest:
    if sort_by not in ("created_at", "updated_at"):
        raise ValueError(f'sort_by is "created_at" or "updated_at", not {sort_by!r}')
    if sort_order not in ("desc", "asc"):
        raise ValueError(f'sort_order is "desc" or "asc", not {sort_order!r}')
    return pb.SearchThreadsRequest(
        filter=where,
        sort_by=pb.THREAD_SORT_BY_UPDATED_AT if sort_by == "updated_at" else pb.THREAD_SORT_BY_CREATED_AT,
        sort_order=pb.SORT_ORDER_ASC if sort_order == "asc" else pb.SORT_ORDER_DESC,
        limit=limit, page_token=page_token or "", include_values=include_values,
    )  # fmt: skip
