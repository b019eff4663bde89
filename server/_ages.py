"""Ages in settings and flags: ``"7d"``, ``"12h"``; and the threads' TTLs a config gives each graph.

Apart from the modules that use them, so that the config (:mod:`server.config`)
checks them with nothing of the server imported.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

__all__ = ["STRATEGIES", "TtlRule", "parse_age", "parse_thread_ttl"]

#: A thread's TTL: (seconds, strategy: one of :data:`STRATEGIES`).
TtlRule = tuple[int, str]
STRATEGIES = ("delete", "keep_latest")

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> timedelta:
    """``"7d"``, ``"12h"``, ``"30m"``, ``"90s"``, ``"2w"`` → a timedelta.

    Raises:
        ValueError: anything else.
    """
    match = _AGE.match(text)
    if not match:
        raise ValueError(f"an age looks like 30s, 15m, 12h, 7d or 2w, not {text!r}")
    return timedelta(seconds=float(match.group(1)) * _UNIT[match.group(2)])


def parse_thread_ttl(table: Mapping[str, Any], graphs: Mapping[str, Any]) -> dict[str, TtlRule]:
    """``[thread_ttl]``: graph = "7d", or graph = { ttl = "7d", strategy = "keep_latest" };
    ValueError naming what is wrong."""
    out: dict[str, TtlRule] = {}
    for graph, value in table.items():
        if graph not in graphs:
            raise ValueError(f"thread_ttl: {graph!r} is not one of the graphs ({', '.join(sorted(graphs))})")
        spec = value if isinstance(value, dict) else {"ttl": value}
        unknown = set(spec) - {"ttl", "strategy"}
        if unknown or not isinstance(spec.get("ttl"), str):
            raise ValueError(f'thread_ttl: graph {graph!r} takes an age ("7d") or {{ ttl = "7d", strategy = "delete" | "keep_latest" }}')
        strategy = spec.get("strategy", "delete")
        if strategy not in STRATEGIES:
            raise ValueError(f'thread_ttl: graph {graph!r}: strategy is "delete" or "keep_latest", not {strategy!r}')
        try:
            seconds = int(parse_age(spec["ttl"]).total_seconds())
        except ValueError as e:
            raise ValueError(f"thread_ttl: graph {graph!r}: {e}") from None
        if seconds < 1:
            raise ValueError(f"thread_ttl: graph {graph!r}: a TTL of at least one second, not {spec['ttl']!r}")
        out[graph] = (seconds, strategy)
    return out
