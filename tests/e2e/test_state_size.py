"""A thread never outgrows what the server can send back.

By default the checkpointer refuses a state over half the server's send limit
(16 MiB unless ``max_message_bytes`` is larger), so a thread that keeps
growing gets RESOURCE_EXHAUSTED for the call that would pass it and stays
readable at its last version. With the limit switched off (``0``) a thread
can pass the send limit; its runs then still end normally, RunFinished
without values, and GetState says why it cannot answer. An event too large
to send (a node's custom event) is left out of the stream; the run goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graphwire import FinishReason, ResourceExhausted, message_role

from engine.checkpoint import SqliteSaver
from engine.testing import said
from server.config import MIN_SEND_BYTES, ServerConfig, load_config

CHUNK = "x" * 3_500_000  # under the default 4 MiB request limit


def _grow(client: Any, thread: str, times: int) -> int:
    """Append ``times`` big messages; how many were stored before one was refused."""
    for i in range(times):
        try:
            client.update_state("reminders", thread, {"messages": [{"role": "user", "content": CHUNK}]})
        except ResourceExhausted as exc:
            assert "max_state_bytes" in exc.message
            return i
    return times


def test_by_default_a_thread_stops_growing_before_it_cannot_be_sent(start_server: Any) -> None:
    server = start_server()
    with server.client() as client:
        stored = _grow(client, "big", 4)
        assert stored == 2  # 7 MB fits under 8 MiB; 10.5 MB does not
        state = client.get_state("reminders", "big")
        assert [len(m["content"]) for m in state.values["messages"]] == [len(CHUNK)] * 2
        result = client.invoke("reminders", "big", {"messages": [{"role": "user", "content": "hello"}]})
        assert result.values is not None and message_role(result.values["messages"][-1]) == "assistant"
    assert "max_state_bytes" not in server.log()  # the default raises no warning


def test_with_no_limit_an_oversized_thread_ends_runs_without_values(start_server: Any) -> None:
    server = start_server(args=["--max-state-bytes", "0"])
    assert "can be stored but not read back" in server.log()
    with server.client() as client:
        assert _grow(client, "huge", 5) == 5  # 17.5 MB, past the 16 MiB send limit
        result = client.invoke("reminders", "huge", {"messages": [{"role": "user", "content": "hello"}]})
        assert result.reason == FinishReason.END
        assert result.values is None and result.checkpoint is not None
        with pytest.raises(ResourceExhausted, match="more than the server sends in one message"):
            client.get_state("reminders", "huge")
        with pytest.raises(ResourceExhausted, match="more than the server sends in one message"):
            client.history("reminders", "huge", limit=1)  # no smaller page would help
    assert "RunFinished is sent without values" in server.log()
    # The run stored its version: the thread's newest is the one RunFinished named.
    saver = SqliteSaver(server.db)
    try:
        newest = saver.get_tuple({"configurable": {"thread_id": "reminders:huge", "checkpoint_ns": ""}})
        assert newest is not None and newest.checkpoint["id"] == result.checkpoint.checkpoint_id
        assert said(newest.checkpoint["channel_values"]["messages"][-1])[0] == "assistant"
    finally:
        saver.close()


def test_the_state_limit_follows_the_send_limit(tmp_path: Path) -> None:
    assert ServerConfig().state_limit() == MIN_SEND_BYTES // 2
    assert ServerConfig(max_message_bytes=64 << 20).state_limit() == 32 << 20
    assert ServerConfig(max_state_bytes=1000).state_limit() == 1000
    assert ServerConfig(max_state_bytes=0).state_limit() is None
    empty = tmp_path / "graphwire.toml"
    empty.write_text("")
    for bad in (-1, 1.5, True, "8MiB"):
        with pytest.raises(ValueError, match="max_state_bytes must be a whole number"):
            load_config(str(empty), {"max_state_bytes": bad})


def test_an_event_too_large_to_send_is_left_out_and_the_run_goes_on(start_server: Any) -> None:
    from graphwire import CustomEvent, RunFinished

    server = start_server(graphs={"shout": "tests.graphs:shout"})
    with server.client() as client:
        small = list(client.stream("shout", "small", {"size": 10}, timeout=60))
        [custom] = [e for e in small if isinstance(e, CustomEvent)]
        assert custom.payload == {"text": "x" * 10}
        # 17 MB of text: over the 16 MiB send limit, so it cannot be sent.
        events = list(client.stream("shout", "big", {"size": 17_000_000}, timeout=60))
        assert not [e for e in events if isinstance(e, CustomEvent)]
        assert isinstance(events[-1], RunFinished) and events[-1].reason == FinishReason.END
        assert events[-1].values == {"size": 17_000_000}
        seqs = [e.seq for e in events]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[-1] == len(events) + 1  # one number skipped
    assert "(custom) takes" in server.log() and "left out" in server.log()
