"""``python -m tests.replicas._serve_crons serve ...``: ``graphwire serve`` that records each claim of the crons due.

Instrumentation for tests/replicas/test_crons_across_replicas.py: the
PostgreSQL cron store's ``aclaim_due`` appends one line to
``cron-claims-<pid>`` in the gates directory after each claim it made: the
ids it claimed (none: an empty line). A test so sees that every replica's
scheduler claimed, and what. Everything else is the real server.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any

from engine.checkpoint.postgres._crons import PostgresCrons
from server.cli import main
from tests.graphs import gate_path

_real_claim = PostgresCrons.aclaim_due


async def _recorded_claim(self: PostgresCrons, now: datetime, **kwargs: Any) -> Any:
    claimed = await _real_claim(self, now, **kwargs)
    with open(gate_path(f"cron-claims-{os.getpid()}"), "a", encoding="utf-8") as f:
        f.write(" ".join(c.cron_id for c in claimed) + "\n")
    return claimed


PostgresCrons.aclaim_due = _recorded_claim  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main())
