"""``create_checkpoint``, LangGraph's public helper in ``langgraph.checkpoint.base`` (savers' tests and
migration tools build checkpoints with it; langgraph-checkpoint-sqlite's suite imports it)."""

from __future__ import annotations

import pytest

from engine.channels import LastValue
from engine.checkpoint.base import create_checkpoint, empty_checkpoint


def test_it_takes_the_channels_stored_forms_or_the_checkpoints_own_values() -> None:
    base = {**empty_checkpoint(), "channel_values": {"a": 0}, "channel_versions": {"a": 1, "b": 1}, "versions_seen": {"n": {"a": 1}}}
    channels = {"a": LastValue(int, "a").from_checkpoint(5), "b": LastValue(int, "b"), "c": LastValue(int, "c").from_checkpoint(9)}
    made = create_checkpoint(base, channels, 1)  # b is empty, c has no version: both left out
    assert made["channel_values"] == {"a": 5}
    assert made["channel_versions"] == {"a": 1, "b": 1} and made["versions_seen"] == {"n": {"a": 1}}
    assert made["id"] != base["id"] and made["v"] == base["v"] and made["updated_channels"] is None
    assert create_checkpoint(base, None, 2, id="given")["id"] == "given"
    assert create_checkpoint(base, None, 2)["channel_values"] == {"a": 0}
    with pytest.raises(TypeError, match="step must be an int"):
        create_checkpoint(base, None, "2")  # type: ignore[arg-type]
