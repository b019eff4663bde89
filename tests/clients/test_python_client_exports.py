"""Pins the public names of the ``graphwire`` package: adding or removing one
is an API change, and should be made here on purpose."""

from __future__ import annotations

import graphwire

EXPECTED = {
    # clients
    "Client",
    "AsyncClient",
    "RunOptions",
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
    "Retry",
    "Run",
    "AsyncRun",
    "RunInfo",
    "RunPage",
    "RunStatus",
    "OnDisconnect",
    "MultitaskStrategy",
    "IfInterrupted",
    "TurnRefused",
    "RunResult",
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
}


def test_all_is_pinned() -> None:
    assert set(graphwire.__all__) == EXPECTED
    assert len(graphwire.__all__) == len(EXPECTED), "a name is listed twice"


def test_every_exported_name_exists() -> None:
    for name in graphwire.__all__:
        assert hasattr(graphwire, name), name


def test_package_is_typed() -> None:
    from importlib.resources import files

    assert files("graphwire").joinpath("py.typed").is_file()
