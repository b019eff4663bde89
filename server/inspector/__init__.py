"""The inspector: a web page graphwire serves itself, showing a graph, its
threads' versions and branches, and the runs in flight.

``graphwire serve --inspector 127.0.0.1:8080`` (or ``inspector = "..."`` in
graphwire.toml) starts it in the server's own process and event loop, beside
the gRPC server, as every web port of graphwire's is (:mod:`server._web`:
uvicorn behind graphwire's connection gate, stopped by
:func:`server.app.serve` on SIGTERM). The app itself is in
:mod:`server.inspector._app`; the page is plain HTML, CSS and JS under
``static/`` (no build step, nothing loaded from elsewhere).
"""

from __future__ import annotations

import socket

from server._gate import Limits
from server._web import is_loopback
from server._web import bind as _bind
from server.config import parse_address
from server.inspector._app import STATIC, build_app

__all__ = ["STATIC", "Limits", "bind", "build_app", "is_loopback", "parse_address"]


def bind(address: str) -> socket.socket:
    """A listening socket on the inspector's ``address`` (port 0 picks a free one); ValueError when it cannot be had."""
    return _bind(address, what="inspector address")

