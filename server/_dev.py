"""``graphwire dev``: ``graphwire serve --reload`` with LangGraph's HTTP API where ``langgraph dev`` serves it,
and ``langgraph dev``'s own command line taken as it is (see :func:`dev_argv`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

__all__ = ["DEV_HTTP", "add_langgraph_dev_arguments", "dev_argv"]

#: Where ``langgraph dev`` serves LangGraph's HTTP API, and so ``graphwire dev`` by default.
DEV_HTTP = "127.0.0.1:2024"

#: ``langgraph dev``'s options ``graphwire dev`` takes as they are: (flag, takes a value)
_LANGGRAPH_DEV_FLAGS = {"--host": True, "--port": True, "--no-reload": False, "--no-browser": False, "--server-log-level": True}
#: ``langgraph dev``'s options graphwire cannot honour, and what to do instead
_LANGGRAPH_DEV_REFUSED = {
    "--n-jobs-per-worker": "graphwire runs every run it is given at once (no job slots); leave it out",
    "--debug-port": "run it under the debugger yourself: python -m debugpy --listen PORT -m server dev",
    "--wait-for-client": "run it under the debugger yourself: python -m debugpy --listen PORT --wait-for-client -m server dev",
    "--tunnel": "graphwire opens no tunnel; put one in front of its HTTP address",
    "--studio-url": "graphwire opens no LangSmith Studio; point Studio at its HTTP address",
    "--allow-blocking": "graphwire does not check nodes for blocking calls: there is nothing to allow; leave it out",
}


def add_langgraph_dev_arguments(d: argparse.ArgumentParser) -> None:
    """``langgraph dev``'s own options on ``graphwire dev``, so its command line works as it is."""
    lg = d.add_argument_group("as `langgraph dev`")
    lg.add_argument("--host", help="the HTTP API's host (with --port; default 127.0.0.1), as langgraph dev's")
    lg.add_argument("--port", type=int, help="the HTTP API's port (default 2024), as langgraph dev's")
    lg.add_argument("--no-reload", action="store_true", help="serve once: no restart when a file changes")
    lg.add_argument("--no-browser", action="store_true", help="taken for langgraph dev's: graphwire opens no browser")
    lg.add_argument("--server-log-level", metavar="LEVEL", help="the same as --log-level")
    for flag, instead in _LANGGRAPH_DEV_REFUSED.items():
        lg.add_argument(flag, nargs="?", const=True, help=f"refused: {instead}")


def _without_langgraph_dev_flags(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        name = a.partition("=")[0]
        if name in _LANGGRAPH_DEV_FLAGS:
            skip = _LANGGRAPH_DEV_FLAGS[name] and "=" not in a
            continue
        out.append(a)
    return out


def dev_argv(args: argparse.Namespace) -> list[str]:
    """The serve command ``graphwire dev`` stands for: ``serve --reload`` with the same options, and LangGraph's
    HTTP API on :data:`DEV_HTTP` (where ``langgraph dev`` serves it) unless a flag, the environment or the
    config sets ``http``. ``langgraph dev``'s options are taken: ``--host``/``--port`` place the HTTP API,
    ``--no-reload`` serves once, ``--server-log-level`` is ``--log-level``; the ones graphwire cannot honour
    are refused (ValueError) with what to do instead."""
    from server.config import load_config  # the config module imports the engine: only when dev runs

    for flag, instead in _LANGGRAPH_DEV_REFUSED.items():
        if getattr(args, flag[2:].replace("-", "_")) is not None:
            raise ValueError(f"graphwire dev: {flag} is langgraph dev's and not honoured here: {instead}")
    if (args.host is not None or args.port is not None) and args.http is not None:
        raise ValueError("graphwire dev: give --http HOST:PORT, or langgraph dev's --host/--port, not both")
    if args.server_log_level is not None and args.log_level is not None:
        raise ValueError("graphwire dev: give --log-level or --server-log-level, not both")
    argv = ["serve", *_without_langgraph_dev_flags(args.argv[1:])]
    if not args.no_reload:
        argv.append("--reload")
    if args.server_log_level is not None:
        argv += ["--log-level", args.server_log_level]
    if args.host is not None or args.port is not None:
        host, _, port = DEV_HTTP.rpartition(":")
        return [*argv, "--http", f"{args.host or host}:{args.port if args.port is not None else port}"]
    if args.http is None and not os.environ.get("GRAPHWIRE_HTTP"):
        try:
            configured = load_config(args.config, {}).http
        except ValueError:
            configured = None  # serve says what is wrong with the config
        if not configured:
            argv += ["--http", DEV_HTTP]
    return argv
