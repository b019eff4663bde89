"""``python -m tests.hardening._serve serve ...``: ``graphwire serve`` with the wiring the
hardening suite needs and ``server/app.py`` / ``server/config.py`` do not do yet.

Each patch stands in for a change asked of the server's owners; delete it once
the server does the same itself:

* the :class:`server._errors.RejectMalformed` interceptor, first in the chain
  (asked: ``interceptors = [RejectMalformed(), *auth]`` in ``server.app._build``),
  so request bytes that do not parse get INVALID_ARGUMENT instead of UNKNOWN.
  Installing it twice is harmless, so this patch may outlive the wiring;
* env ``GRAPHWIRE_TEST_MAX_STATE_BYTES=N``: a SQLite checkpointer is built with
  ``max_state_bytes=N`` (asked: a ``max_state_bytes`` config key and
  ``--max-state-bytes`` flag passed to the saver's constructor).
"""

from __future__ import annotations

import os
from typing import Any

import grpc

MAX_STATE_ENV = "GRAPHWIRE_TEST_MAX_STATE_BYTES"


def install() -> None:
    from server import app
    from server._errors import RejectMalformed

    real_server = grpc.aio.server

    def server_with_rejection(*args: Any, interceptors: Any = None, **kwargs: Any) -> Any:
        return real_server(*args, interceptors=[RejectMalformed(), *(interceptors or ())], **kwargs)

    grpc.aio.server = server_with_rejection  # this process only: it is the server

    limit = os.environ.get(MAX_STATE_ENV)
    if limit:
        real_open = app.open_checkpointer

        def open_checkpointer(spec: str, **kwargs: Any) -> Any:
            if spec.startswith(("postgresql://", "postgres://")) or spec == ":memory:" or kwargs.get("pg_schema"):
                return real_open(spec, **kwargs)
            from engine.checkpoint import SqliteSaver

            return SqliteSaver(spec, max_state_bytes=int(limit))

        app.open_checkpointer = open_checkpointer


if __name__ == "__main__":
    install()
    from server.cli import main

    raise SystemExit(main())
