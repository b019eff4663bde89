import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_RUN_STARTED: _ClassVar[EventKind]
    EVENT_KIND_STEP_STARTED: _ClassVar[EventKind]
    EVENT_KIND_STEP_FINISHED: _ClassVar[EventKind]
    EVENT_KIND_TASK_STARTED: _ClassVar[EventKind]
    EVENT_KIND_TASK_FINISHED: _ClassVar[EventKind]
    EVENT_KIND_VALUES: _ClassVar[EventKind]
    EVENT_KIND_CUSTOM: _ClassVar[EventKind]
    EVENT_KIND_MESSAGE_CHUNK: _ClassVar[EventKind]
    EVENT_KIND_CHECKPOINT_SAVED: _ClassVar[EventKind]
    EVENT_KIND_INTERRUPT: _ClassVar[EventKind]
    EVENT_KIND_RUN_FINISHED: _ClassVar[EventKind]
    EVENT_KIND_CALLBACK: _ClassVar[EventKind]

class Durability(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DURABILITY_UNSPECIFIED: _ClassVar[Durability]
    DURABILITY_ASYNC: _ClassVar[Durability]
    DURABILITY_SYNC: _ClassVar[Durability]
    DURABILITY_EXIT: _ClassVar[Durability]

class OnDisconnect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ON_DISCONNECT_UNSPECIFIED: _ClassVar[OnDisconnect]
    ON_DISCONNECT_CANCEL: _ClassVar[OnDisconnect]
    ON_DISCONNECT_CONTINUE: _ClassVar[OnDisconnect]

class IfInterrupted(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IF_INTERRUPTED_UNSPECIFIED: _ClassVar[IfInterrupted]
    IF_INTERRUPTED_DROP: _ClassVar[IfInterrupted]
    IF_INTERRUPTED_REJECT: _ClassVar[IfInterrupted]

class MultitaskStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MULTITASK_STRATEGY_UNSPECIFIED: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_REJECT: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_ENQUEUE: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_INTERRUPT: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_ROLLBACK: _ClassVar[MultitaskStrategy]

class TurnRefusedReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TURN_REFUSED_REASON_UNSPECIFIED: _ClassVar[TurnRefusedReason]
    TURN_REFUSED_REASON_INTERRUPTED: _ClassVar[TurnRefusedReason]
    TURN_REFUSED_REASON_STALE_CHECKPOINT: _ClassVar[TurnRefusedReason]

class FinishReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_REASON_UNSPECIFIED: _ClassVar[FinishReason]
    FINISH_REASON_END: _ClassVar[FinishReason]
    FINISH_REASON_INTERRUPT: _ClassVar[FinishReason]
    FINISH_REASON_ERROR: _ClassVar[FinishReason]
    FINISH_REASON_RECURSION_LIMIT: _ClassVar[FinishReason]
    FINISH_REASON_CANCELLED: _ClassVar[FinishReason]

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_PENDING: _ClassVar[RunStatus]
    RUN_STATUS_RUNNING: _ClassVar[RunStatus]
    RUN_STATUS_INTERRUPTED: _ClassVar[RunStatus]
    RUN_STATUS_SUCCESS: _ClassVar[RunStatus]
    RUN_STATUS_ERROR: _ClassVar[RunStatus]
    RUN_STATUS_CANCELLED: _ClassVar[RunStatus]
    RUN_STATUS_RECOVERING: _ClassVar[RunStatus]
    RUN_STATUS_ROLLED_BACK: _ClassVar[RunStatus]

class ThreadStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    THREAD_STATUS_UNSPECIFIED: _ClassVar[ThreadStatus]
    THREAD_STATUS_IDLE: _ClassVar[ThreadStatus]
    THREAD_STATUS_BUSY: _ClassVar[ThreadStatus]
    THREAD_STATUS_INTERRUPTED: _ClassVar[ThreadStatus]
    THREAD_STATUS_ERROR: _ClassVar[ThreadStatus]

class TtlStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TTL_STRATEGY_UNSPECIFIED: _ClassVar[TtlStrategy]
    TTL_STRATEGY_DELETE: _ClassVar[TtlStrategy]
    TTL_STRATEGY_KEEP_LATEST: _ClassVar[TtlStrategy]

class IfExists(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IF_EXISTS_UNSPECIFIED: _ClassVar[IfExists]
    IF_EXISTS_RAISE: _ClassVar[IfExists]
    IF_EXISTS_DO_NOTHING: _ClassVar[IfExists]

class ThreadSortBy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    THREAD_SORT_BY_UNSPECIFIED: _ClassVar[ThreadSortBy]
    THREAD_SORT_BY_CREATED_AT: _ClassVar[ThreadSortBy]
    THREAD_SORT_BY_UPDATED_AT: _ClassVar[ThreadSortBy]

class SortOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SORT_ORDER_UNSPECIFIED: _ClassVar[SortOrder]
    SORT_ORDER_DESC: _ClassVar[SortOrder]
    SORT_ORDER_ASC: _ClassVar[SortOrder]

class AssistantSortBy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ASSISTANT_SORT_BY_UNSPECIFIED: _ClassVar[AssistantSortBy]
    ASSISTANT_SORT_BY_ASSISTANT_ID: _ClassVar[AssistantSortBy]
    ASSISTANT_SORT_BY_GRAPH: _ClassVar[AssistantSortBy]
    ASSISTANT_SORT_BY_NAME: _ClassVar[AssistantSortBy]
    ASSISTANT_SORT_BY_CREATED_AT: _ClassVar[AssistantSortBy]
    ASSISTANT_SORT_BY_UPDATED_AT: _ClassVar[AssistantSortBy]
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_RUN_STARTED: EventKind
EVENT_KIND_STEP_STARTED: EventKind
EVENT_KIND_STEP_FINISHED: EventKind
EVENT_KIND_TASK_STARTED: EventKind
EVENT_KIND_TASK_FINISHED: EventKind
EVENT_KIND_VALUES: EventKind
EVENT_KIND_CUSTOM: EventKind
EVENT_KIND_MESSAGE_CHUNK: EventKind
EVENT_KIND_CHECKPOINT_SAVED: EventKind
EVENT_KIND_INTERRUPT: EventKind
EVENT_KIND_RUN_FINISHED: EventKind
EVENT_KIND_CALLBACK: EventKind
DURABILITY_UNSPECIFIED: Durability
DURABILITY_ASYNC: Durability
DURABILITY_SYNC: Durability
DURABILITY_EXIT: Durability
ON_DISCONNECT_UNSPECIFIED: OnDisconnect
ON_DISCONNECT_CANCEL: OnDisconnect
ON_DISCONNECT_CONTINUE: OnDisconnect
IF_INTERRUPTED_UNSPECIFIED: IfInterrupted
IF_INTERRUPTED_DROP: IfInterrupted
IF_INTERRUPTED_REJECT: IfInterrupted
MULTITASK_STRATEGY_UNSPECIFIED: MultitaskStrategy
MULTITASK_STRATEGY_REJECT: MultitaskStrategy
MULTITASK_STRATEGY_ENQUEUE: MultitaskStrategy
MULTITASK_STRATEGY_INTERRUPT: MultitaskStrategy
MULTITASK_STRATEGY_ROLLBACK: MultitaskStrategy
TURN_REFUSED_REASON_UNSPECIFIED: TurnRefusedReason
TURN_REFUSED_REASON_INTERRUPTED: TurnRefusedReason
TURN_REFUSED_REASON_STALE_CHECKPOINT: TurnRefusedReason
FINISH_REASON_UNSPECIFIED: FinishReason
FINISH_REASON_END: FinishReason
FINISH_REASON_INTERRUPT: FinishReason
FINISH_REASON_ERROR: FinishReason
FINISH_REASON_RECURSION_LIMIT: FinishReason
FINISH_REASON_CANCELLED: FinishReason
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_PENDING: RunStatus
RUN_STATUS_RUNNING: RunStatus
RUN_STATUS_INTERRUPTED: RunStatus
RUN_STATUS_SUCCESS: RunStatus
RUN_STATUS_ERROR: RunStatus
RUN_STATUS_CANCELLED: RunStatus
RUN_STATUS_RECOVERING: RunStatus
RUN_STATUS_ROLLED_BACK: RunStatus
THREAD_STATUS_UNSPECIFIED: ThreadStatus
THREAD_STATUS_IDLE: ThreadStatus
THREAD_STATUS_BUSY: ThreadStatus
THREAD_STATUS_INTERRUPTED: ThreadStatus
THREAD_STATUS_ERROR: ThreadStatus
TTL_STRATEGY_UNSPECIFIED: TtlStrategy
TTL_STRATEGY_DELETE: TtlStrategy
TTL_STRATEGY_KEEP_LATEST: TtlStrategy
IF_EXISTS_UNSPECIFIED: IfExists
IF_EXISTS_RAISE: IfExists
IF_EXISTS_DO_NOTHING: IfExists
THREAD_SORT_BY_UNSPECIFIED: ThreadSortBy
THREAD_SORT_BY_CREATED_AT: ThreadSortBy
THREAD_SORT_BY_UPDATED_AT: ThreadSortBy
SORT_ORDER_UNSPECIFIED: SortOrder
SORT_ORDER_DESC: SortOrder
SORT_ORDER_ASC: SortOrder
ASSISTANT_SORT_BY_UNSPECIFIED: AssistantSortBy
ASSISTANT_SORT_BY_ASSISTANT_ID: AssistantSortBy
ASSISTANT_SORT_BY_GRAPH: AssistantSortBy
ASSISTANT_SORT_BY_NAME: AssistantSortBy
ASSISTANT_SORT_BY_CREATED_AT: AssistantSortBy
ASSISTANT_SORT_BY_UPDATED_AT: AssistantSortBy

class RunConfig(_message.Message):
    __slots__ = ("recursion_limit", "durability", "metadata_json", "interrupt_before", "interrupt_after", "context_json", "configurable_json", "tags")
    RECURSION_LIMIT_FIELD_NUMBER: _ClassVar[int]
    DURABILITY_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_AFTER_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_JSON_FIELD_NUMBER: _ClassVar[int]
    CONFIGURABLE_JSON_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    recursion_limit: int
    durability: Durability
    metadata_json: str
    interrupt_before: _containers.RepeatedScalarFieldContainer[str]
    interrupt_after: _containers.RepeatedScalarFieldContainer[str]
    context_json: str
    configurable_json: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, recursion_limit: _Optional[int] = ..., durability: _Optional[_Union[Durability, str]] = ..., metadata_json: _Optional[str] = ..., interrupt_before: _Optional[_Iterable[str]] = ..., interrupt_after: _Optional[_Iterable[str]] = ..., context_json: _Optional[str] = ..., configurable_json: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class InvokeRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "input_json", "checkpoint_id", "event_kinds", "enqueue", "config", "request_id", "on_disconnect", "background", "if_interrupted", "expect_checkpoint_id", "multitask_strategy", "assistant_id", "command_json")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    INPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    IF_INTERRUPTED_FIELD_NUMBER: _ClassVar[int]
    EXPECT_CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    MULTITASK_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_JSON_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    input_json: str
    checkpoint_id: str
    event_kinds: _containers.RepeatedScalarFieldContainer[EventKind]
    enqueue: bool
    config: RunConfig
    request_id: str
    on_disconnect: OnDisconnect
    background: bool
    if_interrupted: IfInterrupted
    expect_checkpoint_id: str
    multitask_strategy: MultitaskStrategy
    assistant_id: str
    command_json: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., input_json: _Optional[str] = ..., checkpoint_id: _Optional[str] = ..., event_kinds: _Optional[_Iterable[_Union[EventKind, str]]] = ..., enqueue: _Optional[bool] = ..., config: _Optional[_Union[RunConfig, _Mapping]] = ..., request_id: _Optional[str] = ..., on_disconnect: _Optional[_Union[OnDisconnect, str]] = ..., background: _Optional[bool] = ..., if_interrupted: _Optional[_Union[IfInterrupted, str]] = ..., expect_checkpoint_id: _Optional[str] = ..., multitask_strategy: _Optional[_Union[MultitaskStrategy, str]] = ..., assistant_id: _Optional[str] = ..., command_json: _Optional[str] = ...) -> None: ...

class ResumeRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "resume_json", "resumes_json", "event_kinds", "enqueue", "config", "request_id", "on_disconnect", "background", "expect_checkpoint_id", "multitask_strategy", "assistant_id")
    class ResumesJsonEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    RESUME_JSON_FIELD_NUMBER: _ClassVar[int]
    RESUMES_JSON_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    EXPECT_CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    MULTITASK_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    resume_json: str
    resumes_json: _containers.ScalarMap[str, str]
    event_kinds: _containers.RepeatedScalarFieldContainer[EventKind]
    enqueue: bool
    config: RunConfig
    request_id: str
    on_disconnect: OnDisconnect
    background: bool
    expect_checkpoint_id: str
    multitask_strategy: MultitaskStrategy
    assistant_id: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., resume_json: _Optional[str] = ..., resumes_json: _Optional[_Mapping[str, str]] = ..., event_kinds: _Optional[_Iterable[_Union[EventKind, str]]] = ..., enqueue: _Optional[bool] = ..., config: _Optional[_Union[RunConfig, _Mapping]] = ..., request_id: _Optional[str] = ..., on_disconnect: _Optional[_Union[OnDisconnect, str]] = ..., background: _Optional[bool] = ..., expect_checkpoint_id: _Optional[str] = ..., multitask_strategy: _Optional[_Union[MultitaskStrategy, str]] = ..., assistant_id: _Optional[str] = ...) -> None: ...

class ForkRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "checkpoint_id", "update_json", "as_node", "event_kinds", "enqueue", "config", "request_id", "on_disconnect", "background", "expect_checkpoint_id", "multitask_strategy", "assistant_id")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_JSON_FIELD_NUMBER: _ClassVar[int]
    AS_NODE_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    EXPECT_CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    MULTITASK_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    checkpoint_id: str
    update_json: str
    as_node: str
    event_kinds: _containers.RepeatedScalarFieldContainer[EventKind]
    enqueue: bool
    config: RunConfig
    request_id: str
    on_disconnect: OnDisconnect
    background: bool
    expect_checkpoint_id: str
    multitask_strategy: MultitaskStrategy
    assistant_id: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., checkpoint_id: _Optional[str] = ..., update_json: _Optional[str] = ..., as_node: _Optional[str] = ..., event_kinds: _Optional[_Iterable[_Union[EventKind, str]]] = ..., enqueue: _Optional[bool] = ..., config: _Optional[_Union[RunConfig, _Mapping]] = ..., request_id: _Optional[str] = ..., on_disconnect: _Optional[_Union[OnDisconnect, str]] = ..., background: _Optional[bool] = ..., expect_checkpoint_id: _Optional[str] = ..., multitask_strategy: _Optional[_Union[MultitaskStrategy, str]] = ..., assistant_id: _Optional[str] = ...) -> None: ...

class TurnRefused(_message.Message):
    __slots__ = ("reason", "checkpoint_id", "interrupts")
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    reason: TurnRefusedReason
    checkpoint_id: str
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    def __init__(self, reason: _Optional[_Union[TurnRefusedReason, str]] = ..., checkpoint_id: _Optional[str] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ...) -> None: ...

class RunEvent(_message.Message):
    __slots__ = ("seq", "run_id", "namespace", "run_started", "step_started", "step_finished", "task_started", "task_finished", "values", "custom", "message_chunk", "checkpoint_saved", "interrupt", "run_finished", "callback")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    RUN_STARTED_FIELD_NUMBER: _ClassVar[int]
    STEP_STARTED_FIELD_NUMBER: _ClassVar[int]
    STEP_FINISHED_FIELD_NUMBER: _ClassVar[int]
    TASK_STARTED_FIELD_NUMBER: _ClassVar[int]
    TASK_FINISHED_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_CHUNK_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_SAVED_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_FIELD_NUMBER: _ClassVar[int]
    RUN_FINISHED_FIELD_NUMBER: _ClassVar[int]
    CALLBACK_FIELD_NUMBER: _ClassVar[int]
    seq: int
    run_id: str
    namespace: _containers.RepeatedScalarFieldContainer[str]
    run_started: RunStarted
    step_started: StepStarted
    step_finished: StepFinished
    task_started: TaskStarted
    task_finished: TaskFinished
    values: Values
    custom: Custom
    message_chunk: MessageChunk
    checkpoint_saved: CheckpointSaved
    interrupt: Interrupt
    run_finished: RunFinished
    callback: CallbackEvent
    def __init__(self, seq: _Optional[int] = ..., run_id: _Optional[str] = ..., namespace: _Optional[_Iterable[str]] = ..., run_started: _Optional[_Union[RunStarted, _Mapping]] = ..., step_started: _Optional[_Union[StepStarted, _Mapping]] = ..., step_finished: _Optional[_Union[StepFinished, _Mapping]] = ..., task_started: _Optional[_Union[TaskStarted, _Mapping]] = ..., task_finished: _Optional[_Union[TaskFinished, _Mapping]] = ..., values: _Optional[_Union[Values, _Mapping]] = ..., custom: _Optional[_Union[Custom, _Mapping]] = ..., message_chunk: _Optional[_Union[MessageChunk, _Mapping]] = ..., checkpoint_saved: _Optional[_Union[CheckpointSaved, _Mapping]] = ..., interrupt: _Optional[_Union[Interrupt, _Mapping]] = ..., run_finished: _Optional[_Union[RunFinished, _Mapping]] = ..., callback: _Optional[_Union[CallbackEvent, _Mapping]] = ...) -> None: ...

class RunStarted(_message.Message):
    __slots__ = ("run_id", "thread_id", "graph", "checkpoint_id")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    thread_id: str
    graph: str
    checkpoint_id: str
    def __init__(self, run_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., graph: _Optional[str] = ..., checkpoint_id: _Optional[str] = ...) -> None: ...

class TaskRef(_message.Message):
    __slots__ = ("task_id", "node")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    node: str
    def __init__(self, task_id: _Optional[str] = ..., node: _Optional[str] = ...) -> None: ...

class StepStarted(_message.Message):
    __slots__ = ("step", "tasks")
    STEP_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    step: int
    tasks: _containers.RepeatedCompositeFieldContainer[TaskRef]
    def __init__(self, step: _Optional[int] = ..., tasks: _Optional[_Iterable[_Union[TaskRef, _Mapping]]] = ...) -> None: ...

class StepFinished(_message.Message):
    __slots__ = ("step",)
    STEP_FIELD_NUMBER: _ClassVar[int]
    step: int
    def __init__(self, step: _Optional[int] = ...) -> None: ...

class TaskStarted(_message.Message):
    __slots__ = ("step", "task_id", "node", "input_json", "triggers")
    STEP_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    INPUT_JSON_FIELD_NUMBER: _ClassVar[int]
    TRIGGERS_FIELD_NUMBER: _ClassVar[int]
    step: int
    task_id: str
    node: str
    input_json: str
    triggers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, step: _Optional[int] = ..., task_id: _Optional[str] = ..., node: _Optional[str] = ..., input_json: _Optional[str] = ..., triggers: _Optional[_Iterable[str]] = ...) -> None: ...

class TaskFinished(_message.Message):
    __slots__ = ("step", "task_id", "node", "update_json", "error", "interrupts", "cached")
    STEP_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    CACHED_FIELD_NUMBER: _ClassVar[int]
    step: int
    task_id: str
    node: str
    update_json: str
    error: ErrorInfo
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    cached: bool
    def __init__(self, step: _Optional[int] = ..., task_id: _Optional[str] = ..., node: _Optional[str] = ..., update_json: _Optional[str] = ..., error: _Optional[_Union[ErrorInfo, _Mapping]] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ..., cached: _Optional[bool] = ...) -> None: ...

class Values(_message.Message):
    __slots__ = ("step", "values_json")
    STEP_FIELD_NUMBER: _ClassVar[int]
    VALUES_JSON_FIELD_NUMBER: _ClassVar[int]
    step: int
    values_json: str
    def __init__(self, step: _Optional[int] = ..., values_json: _Optional[str] = ...) -> None: ...

class Custom(_message.Message):
    __slots__ = ("step", "task_id", "node", "payload_json")
    STEP_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    step: int
    task_id: str
    node: str
    payload_json: str
    def __init__(self, step: _Optional[int] = ..., task_id: _Optional[str] = ..., node: _Optional[str] = ..., payload_json: _Optional[str] = ...) -> None: ...

class MessageChunk(_message.Message):
    __slots__ = ("step", "task_id", "node", "chunk_json", "metadata_json")
    STEP_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    CHUNK_JSON_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    step: int
    task_id: str
    node: str
    chunk_json: str
    metadata_json: str
    def __init__(self, step: _Optional[int] = ..., task_id: _Optional[str] = ..., node: _Optional[str] = ..., chunk_json: _Optional[str] = ..., metadata_json: _Optional[str] = ...) -> None: ...

class CallbackEvent(_message.Message):
    __slots__ = ("event_json",)
    EVENT_JSON_FIELD_NUMBER: _ClassVar[int]
    event_json: str
    def __init__(self, event_json: _Optional[str] = ...) -> None: ...

class CheckpointSaved(_message.Message):
    __slots__ = ("checkpoint",)
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    checkpoint: CheckpointRef
    def __init__(self, checkpoint: _Optional[_Union[CheckpointRef, _Mapping]] = ...) -> None: ...

class CheckpointRef(_message.Message):
    __slots__ = ("checkpoint_id", "parent_id", "step", "source", "next", "created_at")
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    checkpoint_id: str
    parent_id: str
    step: int
    source: str
    next: _containers.RepeatedScalarFieldContainer[str]
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, checkpoint_id: _Optional[str] = ..., parent_id: _Optional[str] = ..., step: _Optional[int] = ..., source: _Optional[str] = ..., next: _Optional[_Iterable[str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Interrupt(_message.Message):
    __slots__ = ("interrupt_id", "node", "task_id", "value_json", "response_schema_json")
    INTERRUPT_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    interrupt_id: str
    node: str
    task_id: str
    value_json: str
    response_schema_json: str
    def __init__(self, interrupt_id: _Optional[str] = ..., node: _Optional[str] = ..., task_id: _Optional[str] = ..., value_json: _Optional[str] = ..., response_schema_json: _Optional[str] = ...) -> None: ...

class RunFinished(_message.Message):
    __slots__ = ("reason", "checkpoint", "values_json", "error", "interrupts")
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    VALUES_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    reason: FinishReason
    checkpoint: CheckpointRef
    values_json: str
    error: ErrorInfo
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    def __init__(self, reason: _Optional[_Union[FinishReason, str]] = ..., checkpoint: _Optional[_Union[CheckpointRef, _Mapping]] = ..., values_json: _Optional[str] = ..., error: _Optional[_Union[ErrorInfo, _Mapping]] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ...) -> None: ...

class ErrorInfo(_message.Message):
    __slots__ = ("type", "message")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    type: str
    message: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class GetStateRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "checkpoint_id", "subgraphs", "checkpoint_ns")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    SUBGRAPHS_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_NS_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    checkpoint_id: str
    subgraphs: bool
    checkpoint_ns: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., checkpoint_id: _Optional[str] = ..., subgraphs: _Optional[bool] = ..., checkpoint_ns: _Optional[str] = ...) -> None: ...

class StateSnapshot(_message.Message):
    __slots__ = ("values_json", "next", "checkpoint", "metadata_json", "tasks", "interrupts")
    VALUES_JSON_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    TASKS_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    values_json: str
    next: _containers.RepeatedScalarFieldContainer[str]
    checkpoint: CheckpointRef
    metadata_json: str
    tasks: _containers.RepeatedCompositeFieldContainer[TaskState]
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    def __init__(self, values_json: _Optional[str] = ..., next: _Optional[_Iterable[str]] = ..., checkpoint: _Optional[_Union[CheckpointRef, _Mapping]] = ..., metadata_json: _Optional[str] = ..., tasks: _Optional[_Iterable[_Union[TaskState, _Mapping]]] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ...) -> None: ...

class TaskState(_message.Message):
    __slots__ = ("task_id", "node", "interrupts", "error", "result_json", "checkpoint_ns", "state", "path_json")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_NS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PATH_JSON_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    node: str
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    error: ErrorInfo
    result_json: str
    checkpoint_ns: str
    state: StateSnapshot
    path_json: str
    def __init__(self, task_id: _Optional[str] = ..., node: _Optional[str] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ..., error: _Optional[_Union[ErrorInfo, _Mapping]] = ..., result_json: _Optional[str] = ..., checkpoint_ns: _Optional[str] = ..., state: _Optional[_Union[StateSnapshot, _Mapping]] = ..., path_json: _Optional[str] = ...) -> None: ...

class ListHistoryRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "limit", "before", "filter_json", "checkpoint_ns")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    FILTER_JSON_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_NS_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    limit: int
    before: str
    filter_json: str
    checkpoint_ns: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., limit: _Optional[int] = ..., before: _Optional[str] = ..., filter_json: _Optional[str] = ..., checkpoint_ns: _Optional[str] = ...) -> None: ...

class ListHistoryResponse(_message.Message):
    __slots__ = ("snapshots",)
    SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    snapshots: _containers.RepeatedCompositeFieldContainer[StateSnapshot]
    def __init__(self, snapshots: _Optional[_Iterable[_Union[StateSnapshot, _Mapping]]] = ...) -> None: ...

class UpdateStateRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "checkpoint_id", "values_json", "as_node", "request_id", "configurable_json", "checkpoint_ns")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    VALUES_JSON_FIELD_NUMBER: _ClassVar[int]
    AS_NODE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIGURABLE_JSON_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_NS_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    checkpoint_id: str
    values_json: str
    as_node: str
    request_id: str
    configurable_json: str
    checkpoint_ns: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., checkpoint_id: _Optional[str] = ..., values_json: _Optional[str] = ..., as_node: _Optional[str] = ..., request_id: _Optional[str] = ..., configurable_json: _Optional[str] = ..., checkpoint_ns: _Optional[str] = ...) -> None: ...

class UpdateStateResponse(_message.Message):
    __slots__ = ("checkpoint",)
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    checkpoint: CheckpointRef
    def __init__(self, checkpoint: _Optional[_Union[CheckpointRef, _Mapping]] = ...) -> None: ...

class DeleteThreadRequest(_message.Message):
    __slots__ = ("graph", "thread_id")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ...) -> None: ...

class DeleteThreadResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CancelRunRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "run_id")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    run_id: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., run_id: _Optional[str] = ...) -> None: ...

class CancelRunResponse(_message.Message):
    __slots__ = ("cancelled",)
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    cancelled: bool
    def __init__(self, cancelled: _Optional[bool] = ...) -> None: ...

class JoinRunRequest(_message.Message):
    __slots__ = ("run_id", "after_seq", "event_kinds")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    after_seq: int
    event_kinds: _containers.RepeatedScalarFieldContainer[EventKind]
    def __init__(self, run_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., event_kinds: _Optional[_Iterable[_Union[EventKind, str]]] = ...) -> None: ...

class RunInfo(_message.Message):
    __slots__ = ("run_id", "thread_id", "graph", "status", "request_id", "replica", "attempts", "started_at", "ended_at", "checkpoint_id", "call", "call_json", "reason", "error", "interrupts", "last_seq", "on_disconnect", "background", "values_json", "replaced_by", "replaces")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REPLICA_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CALL_JSON_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    VALUES_JSON_FIELD_NUMBER: _ClassVar[int]
    REPLACED_BY_FIELD_NUMBER: _ClassVar[int]
    REPLACES_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    thread_id: str
    graph: str
    status: RunStatus
    request_id: str
    replica: str
    attempts: int
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    checkpoint_id: str
    call: str
    call_json: str
    reason: FinishReason
    error: ErrorInfo
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    last_seq: int
    on_disconnect: OnDisconnect
    background: bool
    values_json: str
    replaced_by: str
    replaces: str
    def __init__(self, run_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., graph: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., request_id: _Optional[str] = ..., replica: _Optional[str] = ..., attempts: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., checkpoint_id: _Optional[str] = ..., call: _Optional[str] = ..., call_json: _Optional[str] = ..., reason: _Optional[_Union[FinishReason, str]] = ..., error: _Optional[_Union[ErrorInfo, _Mapping]] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ..., last_seq: _Optional[int] = ..., on_disconnect: _Optional[_Union[OnDisconnect, str]] = ..., background: _Optional[bool] = ..., values_json: _Optional[str] = ..., replaced_by: _Optional[str] = ..., replaces: _Optional[str] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "limit", "before", "include_values")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VALUES_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    limit: int
    before: str
    include_values: bool
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., limit: _Optional[int] = ..., before: _Optional[str] = ..., include_values: _Optional[bool] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_before")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[RunInfo]
    next_before: str
    def __init__(self, runs: _Optional[_Iterable[_Union[RunInfo, _Mapping]]] = ..., next_before: _Optional[str] = ...) -> None: ...

class ListGraphsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGraphsResponse(_message.Message):
    __slots__ = ("graphs",)
    GRAPHS_FIELD_NUMBER: _ClassVar[int]
    graphs: _containers.RepeatedCompositeFieldContainer[GraphInfo]
    def __init__(self, graphs: _Optional[_Iterable[_Union[GraphInfo, _Mapping]]] = ...) -> None: ...

class GetGraphRequest(_message.Message):
    __slots__ = ("graph",)
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    graph: str
    def __init__(self, graph: _Optional[str] = ...) -> None: ...

class GraphInfo(_message.Message):
    __slots__ = ("name", "description", "nodes", "edges")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    nodes: _containers.RepeatedCompositeFieldContainer[GraphNode]
    edges: _containers.RepeatedCompositeFieldContainer[GraphEdge]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., nodes: _Optional[_Iterable[_Union[GraphNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[GraphEdge, _Mapping]]] = ...) -> None: ...

class GraphNode(_message.Message):
    __slots__ = ("name", "metadata_json", "subgraph")
    NAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    SUBGRAPH_FIELD_NUMBER: _ClassVar[int]
    name: str
    metadata_json: str
    subgraph: GraphInfo
    def __init__(self, name: _Optional[str] = ..., metadata_json: _Optional[str] = ..., subgraph: _Optional[_Union[GraphInfo, _Mapping]] = ...) -> None: ...

class GraphEdge(_message.Message):
    __slots__ = ("source", "target", "conditional", "label")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CONDITIONAL_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    conditional: bool
    label: str
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ..., conditional: _Optional[bool] = ..., label: _Optional[str] = ...) -> None: ...

class Item(_message.Message):
    __slots__ = ("namespace", "key", "value_json", "created_at", "updated_at", "score")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    namespace: _containers.RepeatedScalarFieldContainer[str]
    key: str
    value_json: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    score: float
    def __init__(self, namespace: _Optional[_Iterable[str]] = ..., key: _Optional[str] = ..., value_json: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., score: _Optional[float] = ...) -> None: ...

class PutItemRequest(_message.Message):
    __slots__ = ("namespace", "key", "value_json", "index_fields", "no_index", "ttl_minutes")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_JSON_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELDS_FIELD_NUMBER: _ClassVar[int]
    NO_INDEX_FIELD_NUMBER: _ClassVar[int]
    TTL_MINUTES_FIELD_NUMBER: _ClassVar[int]
    namespace: _containers.RepeatedScalarFieldContainer[str]
    key: str
    value_json: str
    index_fields: _containers.RepeatedScalarFieldContainer[str]
    no_index: bool
    ttl_minutes: float
    def __init__(self, namespace: _Optional[_Iterable[str]] = ..., key: _Optional[str] = ..., value_json: _Optional[str] = ..., index_fields: _Optional[_Iterable[str]] = ..., no_index: _Optional[bool] = ..., ttl_minutes: _Optional[float] = ...) -> None: ...

class PutItemResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetItemRequest(_message.Message):
    __slots__ = ("namespace", "key", "refresh_ttl")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    namespace: _containers.RepeatedScalarFieldContainer[str]
    key: str
    refresh_ttl: bool
    def __init__(self, namespace: _Optional[_Iterable[str]] = ..., key: _Optional[str] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class SearchItemsRequest(_message.Message):
    __slots__ = ("namespace_prefix", "filter_json", "limit", "offset", "query", "refresh_ttl")
    NAMESPACE_PREFIX_FIELD_NUMBER: _ClassVar[int]
    FILTER_JSON_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TTL_FIELD_NUMBER: _ClassVar[int]
    namespace_prefix: _containers.RepeatedScalarFieldContainer[str]
    filter_json: str
    limit: int
    offset: int
    query: str
    refresh_ttl: bool
    def __init__(self, namespace_prefix: _Optional[_Iterable[str]] = ..., filter_json: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ..., query: _Optional[str] = ..., refresh_ttl: _Optional[bool] = ...) -> None: ...

class SearchItemsResponse(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Item]
    def __init__(self, items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ...) -> None: ...

class DeleteItemRequest(_message.Message):
    __slots__ = ("namespace", "key")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    namespace: _containers.RepeatedScalarFieldContainer[str]
    key: str
    def __init__(self, namespace: _Optional[_Iterable[str]] = ..., key: _Optional[str] = ...) -> None: ...

class DeleteItemResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...

class ListNamespacesRequest(_message.Message):
    __slots__ = ("prefix", "suffix", "max_depth", "limit", "offset")
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    SUFFIX_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    prefix: _containers.RepeatedScalarFieldContainer[str]
    suffix: _containers.RepeatedScalarFieldContainer[str]
    max_depth: int
    limit: int
    offset: int
    def __init__(self, prefix: _Optional[_Iterable[str]] = ..., suffix: _Optional[_Iterable[str]] = ..., max_depth: _Optional[int] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class ListNamespacesResponse(_message.Message):
    __slots__ = ("namespaces",)
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    namespaces: _containers.RepeatedCompositeFieldContainer[Namespace]
    def __init__(self, namespaces: _Optional[_Iterable[_Union[Namespace, _Mapping]]] = ...) -> None: ...

class Namespace(_message.Message):
    __slots__ = ("labels",)
    LABELS_FIELD_NUMBER: _ClassVar[int]
    labels: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, labels: _Optional[_Iterable[str]] = ...) -> None: ...

class ThreadTtl(_message.Message):
    __slots__ = ("seconds", "strategy")
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    seconds: int
    strategy: TtlStrategy
    def __init__(self, seconds: _Optional[int] = ..., strategy: _Optional[_Union[TtlStrategy, str]] = ...) -> None: ...

class ThreadInfo(_message.Message):
    __slots__ = ("thread_id", "graph", "metadata_json", "created_at", "updated_at", "status", "interrupts", "values_json", "ttl", "expires_at", "error")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    VALUES_JSON_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    graph: str
    metadata_json: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    status: ThreadStatus
    interrupts: _containers.RepeatedCompositeFieldContainer[Interrupt]
    values_json: str
    ttl: ThreadTtl
    expires_at: _timestamp_pb2.Timestamp
    error: ErrorInfo
    def __init__(self, thread_id: _Optional[str] = ..., graph: _Optional[str] = ..., metadata_json: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[ThreadStatus, str]] = ..., interrupts: _Optional[_Iterable[_Union[Interrupt, _Mapping]]] = ..., values_json: _Optional[str] = ..., ttl: _Optional[_Union[ThreadTtl, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[_Union[ErrorInfo, _Mapping]] = ...) -> None: ...

class CreateThreadRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "metadata_json", "if_exists", "ttl")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    IF_EXISTS_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    metadata_json: str
    if_exists: IfExists
    ttl: ThreadTtl
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., metadata_json: _Optional[str] = ..., if_exists: _Optional[_Union[IfExists, str]] = ..., ttl: _Optional[_Union[ThreadTtl, _Mapping]] = ...) -> None: ...

class GetThreadRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "include_values")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VALUES_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    include_values: bool
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., include_values: _Optional[bool] = ...) -> None: ...

class UpdateThreadRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "metadata_json", "ttl")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    metadata_json: str
    ttl: ThreadTtl
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., metadata_json: _Optional[str] = ..., ttl: _Optional[_Union[ThreadTtl, _Mapping]] = ...) -> None: ...

class ThreadFilter(_message.Message):
    __slots__ = ("graph", "metadata_json", "statuses", "thread_ids", "created_after", "created_before", "updated_after", "updated_before")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    THREAD_IDS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    graph: str
    metadata_json: str
    statuses: _containers.RepeatedScalarFieldContainer[ThreadStatus]
    thread_ids: _containers.RepeatedScalarFieldContainer[str]
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    updated_after: _timestamp_pb2.Timestamp
    updated_before: _timestamp_pb2.Timestamp
    def __init__(self, graph: _Optional[str] = ..., metadata_json: _Optional[str] = ..., statuses: _Optional[_Iterable[_Union[ThreadStatus, str]]] = ..., thread_ids: _Optional[_Iterable[str]] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SearchThreadsRequest(_message.Message):
    __slots__ = ("filter", "sort_by", "sort_order", "limit", "page_token", "include_values")
    FILTER_FIELD_NUMBER: _ClassVar[int]
    SORT_BY_FIELD_NUMBER: _ClassVar[int]
    SORT_ORDER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VALUES_FIELD_NUMBER: _ClassVar[int]
    filter: ThreadFilter
    sort_by: ThreadSortBy
    sort_order: SortOrder
    limit: int
    page_token: str
    include_values: bool
    def __init__(self, filter: _Optional[_Union[ThreadFilter, _Mapping]] = ..., sort_by: _Optional[_Union[ThreadSortBy, str]] = ..., sort_order: _Optional[_Union[SortOrder, str]] = ..., limit: _Optional[int] = ..., page_token: _Optional[str] = ..., include_values: _Optional[bool] = ...) -> None: ...

class SearchThreadsResponse(_message.Message):
    __slots__ = ("threads", "next_page_token")
    THREADS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    threads: _containers.RepeatedCompositeFieldContainer[ThreadInfo]
    next_page_token: str
    def __init__(self, threads: _Optional[_Iterable[_Union[ThreadInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CountThreadsRequest(_message.Message):
    __slots__ = ("filter",)
    FILTER_FIELD_NUMBER: _ClassVar[int]
    filter: ThreadFilter
    def __init__(self, filter: _Optional[_Union[ThreadFilter, _Mapping]] = ...) -> None: ...

class CountThreadsResponse(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class CopyThreadRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "new_thread_id")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    NEW_THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    new_thread_id: str
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., new_thread_id: _Optional[str] = ...) -> None: ...

class PruneThreadRequest(_message.Message):
    __slots__ = ("graph", "thread_id", "keep_last")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    KEEP_LAST_FIELD_NUMBER: _ClassVar[int]
    graph: str
    thread_id: str
    keep_last: int
    def __init__(self, graph: _Optional[str] = ..., thread_id: _Optional[str] = ..., keep_last: _Optional[int] = ...) -> None: ...

class PruneThreadResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    def __init__(self, deleted: _Optional[int] = ...) -> None: ...

class Assistant(_message.Message):
    __slots__ = ("assistant_id", "graph", "name", "description", "config_json", "context_json", "metadata_json", "version", "created_at", "updated_at")
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_JSON_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    assistant_id: str
    graph: str
    name: str
    description: str
    config_json: str
    context_json: str
    metadata_json: str
    version: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, assistant_id: _Optional[str] = ..., graph: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., config_json: _Optional[str] = ..., context_json: _Optional[str] = ..., metadata_json: _Optional[str] = ..., version: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateAssistantRequest(_message.Message):
    __slots__ = ("graph", "assistant_id", "name", "description", "config_json", "context_json", "metadata_json", "if_exists")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_JSON_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    IF_EXISTS_FIELD_NUMBER: _ClassVar[int]
    graph: str
    assistant_id: str
    name: str
    description: str
    config_json: str
    context_json: str
    metadata_json: str
    if_exists: IfExists
    def __init__(self, graph: _Optional[str] = ..., assistant_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., config_json: _Optional[str] = ..., context_json: _Optional[str] = ..., metadata_json: _Optional[str] = ..., if_exists: _Optional[_Union[IfExists, str]] = ...) -> None: ...

class GetAssistantRequest(_message.Message):
    __slots__ = ("assistant_id",)
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    assistant_id: str
    def __init__(self, assistant_id: _Optional[str] = ...) -> None: ...

class UpdateAssistantRequest(_message.Message):
    __slots__ = ("assistant_id", "graph", "name", "description", "config_json", "context_json", "metadata_json")
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_JSON_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    assistant_id: str
    graph: str
    name: str
    description: str
    config_json: str
    context_json: str
    metadata_json: str
    def __init__(self, assistant_id: _Optional[str] = ..., graph: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., config_json: _Optional[str] = ..., context_json: _Optional[str] = ..., metadata_json: _Optional[str] = ...) -> None: ...

class SetAssistantVersionRequest(_message.Message):
    __slots__ = ("assistant_id", "version")
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    assistant_id: str
    version: int
    def __init__(self, assistant_id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class ListAssistantVersionsRequest(_message.Message):
    __slots__ = ("assistant_id", "metadata_json", "limit", "offset")
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    assistant_id: str
    metadata_json: str
    limit: int
    offset: int
    def __init__(self, assistant_id: _Optional[str] = ..., metadata_json: _Optional[str] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class ListAssistantVersionsResponse(_message.Message):
    __slots__ = ("versions",)
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[Assistant]
    def __init__(self, versions: _Optional[_Iterable[_Union[Assistant, _Mapping]]] = ...) -> None: ...

class SearchAssistantsRequest(_message.Message):
    __slots__ = ("graph", "name", "metadata_json", "sort_by", "sort_order", "limit", "offset")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    SORT_BY_FIELD_NUMBER: _ClassVar[int]
    SORT_ORDER_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    graph: str
    name: str
    metadata_json: str
    sort_by: AssistantSortBy
    sort_order: SortOrder
    limit: int
    offset: int
    def __init__(self, graph: _Optional[str] = ..., name: _Optional[str] = ..., metadata_json: _Optional[str] = ..., sort_by: _Optional[_Union[AssistantSortBy, str]] = ..., sort_order: _Optional[_Union[SortOrder, str]] = ..., limit: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class SearchAssistantsResponse(_message.Message):
    __slots__ = ("assistants",)
    ASSISTANTS_FIELD_NUMBER: _ClassVar[int]
    assistants: _containers.RepeatedCompositeFieldContainer[Assistant]
    def __init__(self, assistants: _Optional[_Iterable[_Union[Assistant, _Mapping]]] = ...) -> None: ...

class CountAssistantsRequest(_message.Message):
    __slots__ = ("graph", "name", "metadata_json")
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_JSON_FIELD_NUMBER: _ClassVar[int]
    graph: str
    name: str
    metadata_json: str
    def __init__(self, graph: _Optional[str] = ..., name: _Optional[str] = ..., metadata_json: _Optional[str] = ...) -> None: ...

class CountAssistantsResponse(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class DeleteAssistantRequest(_message.Message):
    __slots__ = ("assistant_id",)
    ASSISTANT_ID_FIELD_NUMBER: _ClassVar[int]
    assistant_id: str
    def __init__(self, assistant_id: _Optional[str] = ...) -> None: ...

class DeleteAssistantResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...
