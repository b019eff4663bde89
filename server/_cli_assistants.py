"""``graphwire assistants``: a running server's assistants, from a terminal.

    graphwire assistants list [--graph NAME] [--name TEXT] [--metadata JSON] [--limit N] [--offset N]
                              [--sort-by FIELD] [--asc]                (alias: search)
    graphwire assistants get ID
    graphwire assistants create GRAPH [--name NAME] [--description TEXT] [--config JSON] [--context JSON]
                                [--metadata JSON] [--id ID] [--if-exists raise|do_nothing]
    graphwire assistants update ID [--graph NAME] [--name NAME] [--description TEXT] [--config JSON]
                               [--context JSON] [--metadata JSON]
    graphwire assistants versions ID [--metadata JSON] [--limit N] [--offset N]
    graphwire assistants set-version ID VERSION
    graphwire assistants delete ID

Each finds the server as ``history`` and ``chat`` do (``--address``, else
serve's configured one; ``--token``), except that serve's settings file is
``--server-config``: ``--config`` is the assistant's config, as LangGraph
calls it. Output is a table, or JSON with ``--json`` (an assistant as an
object of the proto's fields, ``*_json`` decoded and named without the
suffix, times in ISO 8601).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from server._cli_client import _failure, _reach, configurable_arg

__all__ = ["add_parser"]

#: What ``list --sort-by`` takes (the Python client's names).
SORT_BY = ("created_at", "updated_at", "assistant_id", "graph", "name")


def _common() -> argparse.ArgumentParser:
    """The options every action takes: where the server is, and how to print."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--server-config", metavar="FILE", help="where serve's settings are (default: as serve: "
                   "GRAPHWIRE_CONFIG, ./graphwire.toml, ./langgraph.json)")  # fmt: skip
    p.add_argument("--address", help="server address (default: the configured one, as serve reads it: 127.0.0.1:50051 unless set)")
    p.add_argument("--token", help="bearer token (default: env GRAPHWIRE_AUTH_TOKEN, or the configured auth_token); "
                   "with per-tenant tokens, the tenant whose assistants these are")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return p


def _count(text: str) -> int:
    """A ``--limit`` or ``--offset``: a whole number, 0 or more (argparse names the option when this raises)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {n}")
    return n


def _object_flags(p: argparse.ArgumentParser, *, metadata_help: str) -> None:
    p.add_argument("--name", help="its name")
    p.add_argument("--description", help="its description")
    p.add_argument("--config", type=configurable_arg, metavar="JSON",
                   help='its config, LangGraph\'s shape: \'{"configurable": {"model": "small"}, "recursion_limit": 50}\'')  # fmt: skip
    p.add_argument("--context", type=configurable_arg, metavar="JSON", help="its context (what nodes read as runtime.context)")
    p.add_argument("--metadata", type=configurable_arg, metavar="JSON", help=metadata_help)


def add_parser(sub: Any) -> None:
    """``assistants`` and its actions, on the CLI's subcommands ``sub``."""
    a = sub.add_parser(
        "assistants", help="list, read, create, change and delete a running server's assistants",
        description="Assistants are named, versioned configurations of the server's graphs (config and context "
        "a run that names one takes as defaults). Each graph has a default one, made by the server.",
    )  # fmt: skip
    actions = a.add_subparsers(dest="action", required=True)
    common = _common()

    ls = actions.add_parser("list", aliases=["search"], parents=[common], help="find assistants (newest first)")
    ls.add_argument("--graph", help="only the assistants of this graph")
    ls.add_argument("--name", help="only those whose name contains this text (ignoring case)")
    ls.add_argument("--metadata", type=configurable_arg, metavar="JSON", help="only those whose metadata contains this object")
    ls.add_argument("--limit", type=_count, default=10, help="the most to print (default 10, at most 1000)")
    ls.add_argument("--offset", type=_count, default=0, help="how many to skip, for paging")
    ls.add_argument("--sort-by", choices=SORT_BY, help="the order (default created_at)")
    ls.add_argument("--asc", action="store_true", help="ascending (default: descending, newest first)")
    ls.set_defaults(func=_list)

    get = actions.add_parser("get", parents=[common], help="print an assistant's current version")
    get.add_argument("id", help="the assistant's id")
    get.set_defaults(func=_get)

    new = actions.add_parser("create", parents=[common], help="make an assistant of a graph (version 1)")
    new.add_argument("graph", help="the registered graph it runs")
    _object_flags(new, metadata_help="its metadata, a JSON object of yours (list --metadata finds it)")
    new.add_argument("--id", help="its id (default: a new UUID)")
    new.add_argument("--if-exists", choices=("raise", "do_nothing"), help="when --id is taken: fail (default) or print that one")
    new.set_defaults(func=_create)

    up = actions.add_parser("update", parents=[common], help="change an assistant: a new version, current from now")
    up.add_argument("id", help="the assistant's id")
    up.add_argument("--graph", help="another registered graph")
    _object_flags(up, metadata_help="a JSON object merged into its metadata, key by key")
    up.set_defaults(func=_update)

    vs = actions.add_parser("versions", parents=[common], help="list an assistant's versions, newest first")
    vs.add_argument("id", help="the assistant's id")
    vs.add_argument("--metadata", type=configurable_arg, metavar="JSON", help="only versions whose metadata contains this object")
    vs.add_argument("--limit", type=_count, default=10, help="the most to print (default 10, at most 1000)")
    vs.add_argument("--offset", type=_count, default=0, help="how many to skip, for paging")
    vs.set_defaults(func=_versions)

    sv = actions.add_parser("set-version", parents=[common], help="make one of an assistant's versions the current one")
    sv.add_argument("id", help="the assistant's id")
    sv.add_argument("version", type=int, help="the version's number (versions lists them)")
    sv.set_defaults(func=_set_version)

    rm = actions.add_parser("delete", parents=[common], help="delete an assistant and all its versions (its threads stay)")
    rm.add_argument("id", help="the assistant's id")
    rm.set_defaults(func=_delete)


# -- printing ----------------------------------------------------------------------------------------


def as_json(a: Any) -> dict[str, Any]:
    """An assistant (the client's ``Assistant``) as a JSON object."""
    return {
        "assistant_id": a.assistant_id, "graph": a.graph, "name": a.name, "description": a.description,
        "config": a.config, "context": a.context, "metadata": a.metadata, "version": a.version,
        "created_at": a.created_at.isoformat(), "updated_at": a.updated_at.isoformat(),
    }  # fmt: skip


def _when(a: Any) -> str:
    return str(a.updated_at.strftime("%Y-%m-%d %H:%M:%S"))


def _compact(value: Any) -> str:
    return "-" if not value else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart; the last column is not padded."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(w) for cell, w in zip(r, widths)), r[-1]]).rstrip() for r in [header, *rows]
    )


def _detail(a: Any) -> str:
    """One assistant, a field a line."""
    lines = [
        f"assistant {a.assistant_id}", f"graph:       {a.graph}", f"name:        {a.name}",
        f"description: {a.description if a.description is not None else '-'}",
        f"version:     {a.version} (current since {_when(a)} UTC; created {a.created_at.strftime('%Y-%m-%d %H:%M:%S')} UTC)",
        f"config:      {_compact(a.config)}", f"context:     {_compact(a.context)}", f"metadata:    {_compact(a.metadata)}",
    ]  # fmt: skip
    return "\n".join(lines)


def _print(args: argparse.Namespace, found: Any) -> None:
    if args.json:
        print(json.dumps(as_json(found) if not isinstance(found, list) else [as_json(a) for a in found], indent=2, ensure_ascii=False))
    else:
        print(_detail(found))


# -- the actions -------------------------------------------------------------------------------------


def _call(args: argparse.Namespace, act: Any) -> int:
    """Runs ``act(client)`` on a client of the server; a failure is one line on stderr and exit 1."""
    from graphwire import Client, GraphwireError

    where = argparse.Namespace(config=args.server_config, address=args.address, token=args.token)
    try:
        args.address, options = _reach(where)
    except ValueError as e:
        print(f"graphwire: {e}", file=sys.stderr)
        return 1
    try:
        with Client(args.address, **options) as client:
            return int(act(client) or 0)
    except GraphwireError as e:
        print(f"graphwire: {_failure(e, args.address)}", file=sys.stderr)
        return 1


def _list(args: argparse.Namespace) -> int:
    def act(client: Any) -> None:
        sort_order = "asc" if args.asc else "desc"
        found = client.assistants.search(graph=args.graph, name=args.name, metadata=args.metadata, limit=args.limit,
                                         offset=args.offset, sort_by=args.sort_by, sort_order=sort_order)  # fmt: skip
        if args.json:
            return _print(args, found)
        total = client.assistants.count(graph=args.graph, name=args.name, metadata=args.metadata)
        rows = [[a.assistant_id, a.graph, a.name, str(a.version), _when(a)] for a in found]
        if rows:
            print(table(["ID", "GRAPH", "NAME", "VERSION", "UPDATED (UTC)"], rows))
        first = args.offset + 1 if rows else args.offset
        print(f"({first}-{args.offset + len(rows)} of {total} assistant(s))" if rows else f"(none of {total} assistant(s))")

    return _call(args, act)


def _get(args: argparse.Namespace) -> int:
    return _call(args, lambda client: _print(args, client.assistants.get(args.id)))


def _fields(args: argparse.Namespace) -> dict[str, Any]:
    """The flags create and update share, those given."""
    names = ("name", "description", "config", "context", "metadata")
    return {k: getattr(args, k) for k in names if getattr(args, k) is not None}


def _create(args: argparse.Namespace) -> int:
    fields = _fields(args)
    config = fields.pop("config", None)
    return _call(args, lambda client: _print(args, client.assistants.create(
        args.graph, config, assistant_id=args.id, if_exists=args.if_exists, **fields)))  # fmt: skip


def _update(args: argparse.Namespace) -> int:
    fields = _fields(args)
    if args.graph is not None:
        fields["graph"] = args.graph
    if not fields:
        print("graphwire: assistants update: give what to change (--name, --config, --context, --metadata, "
              "--description or --graph)", file=sys.stderr)  # fmt: skip
        return 2
    return _call(args, lambda client: _print(args, client.assistants.update(args.id, **fields)))


def _versions(args: argparse.Namespace) -> int:
    def act(client: Any) -> None:
        found = client.assistants.get_versions(args.id, args.metadata, args.limit, args.offset)
        if args.json:
            return _print(args, found)
        rows = [[str(a.version), _when(a), a.name, _compact(a.config), _compact(a.context)] for a in found]
        print(table(["VERSION", "UPDATED (UTC)", "NAME", "CONFIG", "CONTEXT"], rows) if rows else "(no versions)")

    return _call(args, act)


def _set_version(args: argparse.Namespace) -> int:
    return _call(args, lambda client: _print(args, client.assistants.set_latest(args.id, args.version)))


def _delete(args: argparse.Namespace) -> int:
    def act(client: Any) -> None:
        deleted = client.assistants.delete(args.id)
        if args.json:
            print(json.dumps({"assistant_id": args.id, "deleted": deleted}))
        else:
            print(f"deleted assistant {args.id!r}" if deleted else f"no assistant {args.id!r}: nothing deleted")

    return _call(args, act)
