"""The Python clients' chat-safe and double-texting options, against the live test server (issue 33 items 3, 4).

``if_interrupted``, ``expect_checkpoint_id`` and ``multitask_strategy`` are run
options (keyword arguments or ``RunOptions``) of both clients; a refusal is a
``FailedPrecondition`` whose ``refused`` decodes the server's ``TurnRefused``;
``RunInfo`` names the replaced and replacing runs.
"""

from __future__ import annotations

import asyncio

import pytest

from graphwire import (
    CustomEvent,
    FailedPrecondition,
    FinishReason,
    IfInterrupted,
    InvalidArgument,
    MultitaskStrategy,
    RunOptions,
    RunStatus,
)

from tests.conftest import ServerProcess


def test_the_sync_client_refuses_and_decodes_the_interrupts(server: ServerProcess, thread_id: str) -> None:
    with server.client() as client:
        asked = client.invoke("gated_question", thread_id, {"label": "q"})
        assert asked.reason is FinishReason.INTERRUPT
        with pytest.raises(FailedPrecondition) as info:
            client.invoke("gated_question", thread_id, {"label": "new"}, if_interrupted=IfInterrupted.REJECT)
        refused = info.value.refused
        assert refused is not None and refused.reason == "interrupted"
        assert refused.checkpoint_id == asked.checkpoint.checkpoint_id
        assert [(i.interrupt_id, i.value) for i in refused.interrupts] == [(asked.interrupts[0].interrupt_id, "Go on with q?")]
        # A stale caller, with options kept in a RunOptions value.
        careful = RunOptions(expect_checkpoint_id="an-old-version")
        with pytest.raises(FailedPrecondition) as stale:
            client.resume("gated_question", thread_id, "yes", options=careful)
        assert stale.value.refused is not None and stale.value.refused.reason == "stale_checkpoint"
        assert stale.value.refused.checkpoint_id == asked.checkpoint.checkpoint_id
        done = client.resume("gated_question", thread_id, "yes", options=careful.replace(expect_checkpoint_id=asked.checkpoint.checkpoint_id))
        assert done.reason is FinishReason.END
        # Any other failed precondition has no refusal.
        with pytest.raises(FailedPrecondition) as other:
            client.resume("gated_question", thread_id, "again")
        assert other.value.refused is None
        with pytest.raises(InvalidArgument, match="multitask_strategy"):
            client.invoke("gated_question", thread_id, {"label": "x"}, enqueue=True, multitask_strategy="interrupt")
        with pytest.raises(ValueError, match="if_interrupted"):
            client.resume("gated_question", thread_id, "x", if_interrupted="reject")


def test_the_async_client_rolls_a_running_run_back(server: ServerProcess, thread_id: str) -> None:
    gate = f"{thread_id}-never"

    async def body() -> None:
        async with server.async_client() as client:
            await client.invoke("gated", thread_id, {"label": "first"})
            held = client.stream("gated", thread_id, {"gate": gate, "label": "held"})
            async for e in held:
                if isinstance(e, CustomEvent):
                    break
            held_id = held.run_id
            third = await client.invoke(
                "gated", thread_id, {"gate": None, "label": "third"}, multitask_strategy=MultitaskStrategy.ROLLBACK
            )
            rest = [e async for e in held]
            assert rest[-1].reason is FinishReason.CANCELLED
            assert third.values["log"] == ["first", "third"]
            assert all(s.metadata.get("run_id") != held_id for s in await client.history("gated", thread_id))
            info = await client.get_run(held_id)
            assert info.status is RunStatus.ROLLED_BACK and info.replaced_by == third.run_id
            assert (await client.get_run(third.run_id)).replaces == held_id

    asyncio.run(body())
