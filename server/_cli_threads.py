"""``graphwire threads``: a running server's thread records, from a terminal.

``list`` (alias ``search``) pages through the threads (filters: graph, status,
metadata; order: created or updated, newest first unless ``--asc``), ``count``
counts them, ``get`` prints one record (``--values``: with its newest values),
``copy``, ``delete`` and ``prune`` act on one thread. The server is found as
``graphwire history`` finds it (:mod:`server._cli_client`): ``--address``,
``--token``, ``--config``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from server._cli_client import _client, _failure, _reach, configurable_arg

__all__ = ["add_parser"]

_ACTIONS = ("list", "search", "count", "get", "copy", "delete", "prune")


def add_parser(sub: Any) -> None:
    t = sub.add_parser("threads", help="list, search, count, read, copy, delete or prune a running server's threads")
    t.add_argument("action", choices=_ACTIONS, help="what to do (search is list)")
    t.add_argument("thread", nargs="?", help="the thread (get, copy, delete, prune)")
    t.add_argument("--config", help="where serve's settings are (default: as serve reads them)")
    t.add_argument("--address", help="server address (default: the configured one)")
    t.add_argument("--token", help="bearer token (default: env GRAPHWIRE_AUTH_TOKEN, or the configured auth_token)")
    t.add_argument("--graph", help="graph name (list, count: default every graph; else: the server's one graph)")
    t.add_argument("--status", action="append", choices=("idle", "busy", "interrupted", "error"), help="only threads in it (repeatable)")
    t.add_argument("--metadata", type=configurable_arg, metavar="JSON", help="only threads whose metadata contains this JSON object")
    t.add_argument("--sort", choices=("created_at", "updated_at"), default="created_at", help="list's order (default: created_at)")
    t.add_argument("--asc", action="store_true", help="oldest first (default: newest first)")
    t.add_argument("--limit", type=int, default=20, help="threads per page (list; default 20)")
    t.add_argument("--page-token", help="the next page (list prints it)")
    t.add_argument("--values", action="store_true", help="get: with the thread's newest values")
    t.add_argument("--to", help="copy: the new thread's id (default: a new one)")
    t.add_argument("--keep-last", type=int, default=1, metavar="N", help="prune: keep the newest N versions (default 1)")
    t.set_defaults(func=threads)


def _line(t: Any) -> str:
    when = t.updated_at.isoformat(timespec="seconds") if t.updated_at else "-"
    waiting = f" ({len(t.interrupts)} pending)" if t.interrupts else ""
    return f"{t.thread_id}  {t.graph}  {t.status.value}{waiting}  updated {when}  {json.dumps(t.metadata, ensure_ascii=False)}"


def _record(t: Any) -> dict[str, Any]:
    out = {
        "thread_id": t.thread_id, "graph": t.graph, "status": t.status.value, "metadata": t.metadata,
        "created_at": t.created_at.isoformat() if t.created_at else None, "updated_at": t.updated_at.isoformat() if t.updated_at else None,
        "interrupts": [{"interrupt_id": i.interrupt_id, "node": i.node, "value": i.value} for i in t.interrupts],
        "ttl": {"seconds": t.ttl[0], "strategy": t.ttl[1]} if t.ttl else None,
        "expires_at": t.expires_at.isoformat() if t.expires_at else None,
    }  # fmt: skip
    if t.values is not None:
        out["values"] = t.values
    return out


def threads(args: argparse.Namespace) -> int:
    from graphwire import Client, GraphwireError

    needs_thread = args.action in ("get", "copy", "delete", "prune")
    if needs_thread and not args.thread:
        print(f"graphwire threads {args.action}: name the thread", file=sys.stderr)
        return 2
    try:
        if needs_thread:
            client = _client(args)
        else:
            args.address, options = _reach(args)
            client = Client(args.address, **options)
        with client:
            return _act(client, args)
    except (GraphwireError, ValueError) as e:
        print(f"graphwire: {_failure(e, args.address)}", file=sys.stderr)
        return 1


def _act(client: Any, args: argparse.Namespace) -> int:
    th = client.threads
    if args.action in ("list", "search"):
        page = th.search_page(
            graph=args.graph, metadata=args.metadata, status=args.status, sort_by=args.sort, sort_order="asc" if args.asc else "desc",
            limit=args.limit, page_token=args.page_token,
        )  # fmt: skip
        for t in page.threads:
            print(_line(t))
        if page.next_page_token:
            print(f"more: --page-token {page.next_page_token}")
    elif args.action == "count":
        print(th.count(graph=args.graph, metadata=args.metadata, status=args.status))
    elif args.action == "get":
        print(json.dumps(_record(th.get(args.graph, args.thread, include_values=args.values)), indent=2, ensure_ascii=False))
    elif args.action == "copy":
        made = th.copy(args.graph, args.thread, args.to)
        print(f"copied {args.thread!r} to {made.thread_id!r}")
    elif args.action == "delete":
        th.delete(args.graph, args.thread)
        print(f"deleted {args.thread!r}")
    else:
        print(f"pruned {args.thread!r}: {th.prune(args.graph, args.thread, keep_last=args.keep_last)} version(s) deleted")
    return 0
