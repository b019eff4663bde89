"""A graph's stream part (``{"type", "ns", "data", "interrupts"?}``) as a v3 :class:`ProtocolEvent`."""

from __future__ import annotations

import time
from typing import Any, Mapping

from engine.stream._types import ProtocolEvent, _ProtocolEventParams

__all__ = ["convert_to_protocol_event"]


def convert_to_protocol_event(part: Mapping[str, Any]) -> ProtocolEvent:
    """The event of ``part``: its mode as ``method``, its namespace as a list, stamped with the time now."""
    params: _ProtocolEventParams = {"namespace": list(part["ns"]), "timestamp": int(time.time() * 1000), "data": part["data"]}
    if "interrupts" in part:
        params["interrupts"] = part["interrupts"]
    return {"type": "event", "method": part["type"], "params": params}
