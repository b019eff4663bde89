"""graphwire: the Python client of the graphwire service.

``Client`` (blocking) and ``AsyncClient`` (asyncio) call a graphwire server,
which runs LangGraph-style agent graphs, one turn per call::

    from graphwire import Client

    with Client("127.0.0.1:50051") as client:
        result = client.invoke("reminders", "thread-1", {"messages": [{"role": "user", "content": "hi"}]})
        while result.interrupted:
            answer = input(result.interrupts[0].value)
            result = client.resume("reminders", "thread-1", answer)
        print(result.values)

``invoke``/``resume``/``fork`` return a ``RunResult``; ``stream``,
``stream_resume`` and ``stream_fork`` return a ``Run`` (``AsyncRun``) that
yields the run's events (``RunStarted`` ... ``RunFinished``) as they happen
and knows its ``run_id`` and ``seq``; ``join_run`` follows a run from any
replica. Calls that fail with UNAVAILABLE are retried (``Retry``), each run
call with one ``request_id`` so the server applies it once. Values are plain Python decoded from
JSON. Failed calls raise a subclass of ``GraphwireError`` named after the
gRPC status code; a node's error is not raised but reported in the result.
``client.store`` reads and writes the server's store (long-term memory shared
by threads): ``put_item``, ``get_item``, ``search_items``, ``delete_item``,
``list_namespaces``, as in LangGraph's SDK.
The generated stubs are the package ``graphwire_proto`` (``graphwire_proto.v1``),
the distribution ``graphwire-proto`` that this client and the server share.
"""

from graphwire._async_client import AsyncClient
from graphwire._async_run import AsyncRun
from graphwire._async_assistants import AsyncAssistantsClient
from graphwire._async_store import AsyncStoreClient
from graphwire._async_threads import AsyncThreadsClient
from graphwire._errors import (
    Aborted,
    AlreadyExists,
    Cancelled,
    DataLoss,
    DeadlineExceeded,
    FailedPrecondition,
    GraphwireError,
    Internal,
    InvalidArgument,
    NotFound,
    OutOfRange,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    Unknown,
)
from graphwire._events import (
    CallbackEvent,
    CheckpointSaved,
    CustomEvent,
    Event,
    InterruptEvent,
    MessageChunk,
    RunFinished,
    RunStarted,
    StepFinished,
    StepStarted,
    TaskFinished,
    TaskRef,
    TaskStarted,
    ValuesEvent,
)
from graphwire._messages import Message, ToolCall, message_role, message_text, tool_calls, user_message
from graphwire._options import RunOptions
from graphwire._retry import Retry
from graphwire._run import RunResult
from graphwire._sync_client import Client
from graphwire._sync_run import Run
from graphwire._sync_assistants import AssistantsClient
from graphwire._sync_store import StoreClient
from graphwire._sync_threads import ThreadsClient
from graphwire._types import (
    Assistant,
    CheckpointRef,
    Durability,
    ErrorInfo,
    EventKind,
    FinishReason,
    GraphEdge,
    GraphInfo,
    GraphNode,
    Interrupt,
    IfInterrupted,
    Item,
    MultitaskStrategy,
    OnDisconnect,
    RunInfo,
    RunPage,
    RunStatus,
    StateSnapshot,
    TaskState,
    Thread,
    ThreadPage,
    ThreadStatus,
    TurnRefused,
)
from graphwire._version import __version__

__all__ = [
    # clients
    "Client",
    "AsyncClient",
    "StoreClient",
    "AsyncStoreClient",
    "ThreadsClient",
    "AsyncThreadsClient",
    # thread records
    "Thread",
    "ThreadPage",
    "ThreadStatus",
    "AssistantsClient",
    "AsyncAssistantsClient",
    "Assistant",
    # runs and results
    "RunOptions",
    "Retry",
    "Run",
    "AsyncRun",
    "RunResult",
    "RunInfo",
    "RunPage",
    "RunStatus",
    "OnDisconnect",
    "MultitaskStrategy",
    "IfInterrupted",
    "TurnRefused",
    "StateSnapshot",
    "CheckpointRef",
    "TaskState",
    "Interrupt",
    "ErrorInfo",
    "GraphInfo",
    "GraphNode",
    "GraphEdge",
    "EventKind",
    "FinishReason",
    "Durability",
    "Item",
    # chat messages
    "Message",
    "ToolCall",
    "message_role",
    "message_text",
    "tool_calls",
    "user_message",
    # events
    "Event",
    "RunStarted",
    "StepStarted",
    "StepFinished",
    "TaskRef",
    "TaskStarted",
    "TaskFinished",
    "ValuesEvent",
    "CustomEvent",
    "MessageChunk",
    "CallbackEvent",
    "CheckpointSaved",
    "InterruptEvent",
    "RunFinished",
    # errors
    "GraphwireError",
    "NotFound",
    "InvalidArgument",
    "FailedPrecondition",
    "Aborted",
    "ResourceExhausted",
    "Unauthenticated",
    "PermissionDenied",
    "Unavailable",
    "Cancelled",
    "DeadlineExceeded",
    "AlreadyExists",
    "OutOfRange",
    "Unimplemented",
    "Internal",
    "DataLoss",
    "Unknown",
    "__version__",
]
