"""``graphwire chat``, ``history``, ``state`` and ``fork``: a running server, from a terminal.

They find the server as ``graphwire health`` does: ``--address``, else the
address ``graphwire serve`` would listen on, read the same way (the config
file, ``GRAPHWIRE_*`` variables), reached through loopback when it is a
wildcard; with TLS when ``tls_cert`` is set (the certificate trusted as
``health`` trusts it), and with the configured ``auth_token`` unless
``--token`` (or ``GRAPHWIRE_AUTH_TOKEN``) gives one.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import Any

__all__ = ["chat", "configurable_arg", "fork", "history", "state"]


def _reach(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The address to call and the client's options (token, TLS), from the flags and serve's configuration."""
    from server._health_check import cert_name, target
    from server.config import load_config

    config = load_config(args.config, {"address": args.address})
    options: dict[str, Any] = {"token": args.token or config.auth_token}
    if config.tls_cert:
        try:
            with open(config.tls_cert, "rb") as f:
                options["tls"] = f.read()
        except OSError as e:
            raise ValueError(f"tls_cert {config.tls_cert!r}: {e.strerror}") from None
        name = cert_name(config.tls_cert)
        if name:
            options["options"] = [("grpc.ssl_target_name_override", name)]
    return target(config.address), options


def _client(args: argparse.Namespace) -> Any:
    """A client of the server (see :func:`_reach`); without ``--graph``, the server's one graph is the graph."""
    from graphwire import Client

    args.address, options = _reach(args)
    client = Client(args.address, **options)
    if args.graph is None:
        try:
            names = [g.name for g in client.graphs(timeout=30)]
        except BaseException:
            client.close()
            raise
        if len(names) != 1:
            client.close()
            raise ValueError(f"the server runs {len(names)} graphs ({', '.join(names)}): pick one with --graph NAME")
        args.graph = names[0]
    return client


def configurable_arg(text: str) -> dict[str, Any]:
    """``--configurable``'s value: a JSON object (argparse names the option when this raises)."""
    try:
        found = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {e}") from None
    if not isinstance(found, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, not {type(found).__name__}")
    return found


def _print_reply(result: Any, out: Any) -> None:
    msgs = (result.values or {}).get("messages") if isinstance(result.values, dict) else None
    if result.reason == "ERROR" or result.reason == "RECURSION_LIMIT":
        print(f"[run ended: {result.reason}: {result.error.type}: {result.error.message}]", file=out)
    elif msgs:
        from graphwire import message_role, message_text

        last = msgs[-1]
        if isinstance(last, dict) and message_role(last) == "assistant" and message_text(last):
            print(f"assistant: {message_text(last)}", file=out)


def chat(args: argparse.Namespace) -> int:
    from graphwire import GraphwireError

    thread = args.thread or f"cli-{uuid.uuid4().hex[:8]}"
    out = sys.stdout
    try:
        client = _client(args)
    except (GraphwireError, ValueError) as e:
        print(f"graphwire: {_failure(e, args.address)}", file=sys.stderr)
        return 1
    print(f"graphwire chat: graph {args.graph!r}, thread {thread!r} (Ctrl-D to quit)", file=out)
    try:
        # Only to show it: a server that is down or slow does not hold the prompt back (the first
        # message says what is wrong), nor a Ctrl-C at it (the client retries an unreachable server).
        description = client.graph(args.graph, timeout=2).description
    except GraphwireError:
        description = ""  # an unknown graph, or no answer yet: the first message says so
    if description:
        print(description, file=out)
    with client:
        while True:
            try:
                line = input("you: ")
            except EOFError:
                print(file=out)
                return 0
            if not line.strip():
                continue
            try:
                turn = {"messages": [{"role": "user", "content": line}]}
                result = client.invoke(args.graph, thread, turn, configurable=args.configurable)
                while result.interrupted:
                    for intr in result.interrupts:
                        print(f"? {intr.value}", file=out)
                    try:
                        answer = input("answer: ")
                    except EOFError:
                        print(file=out)
                        return 0
                    result = client.resume(args.graph, thread, answer, configurable=args.configurable)
                _print_reply(result, out)
            except GraphwireError as e:
                print(f"[error {e.code.name}: {e.message}]", file=out)


def history(args: argparse.Namespace) -> int:
    from graphwire import GraphwireError

    from server._cli_history import render_history

    try:
        with _client(args) as client:
            snaps = client.history(args.graph, args.thread)
    except (GraphwireError, ValueError) as e:
        print(f"graphwire: {_failure(e, args.address)}", file=sys.stderr)
        return 1
    print(render_history(snaps))
    return 0


def _checkpoint(client: Any, args: argparse.Namespace, prefix: str | None) -> str | None:
    """The full id of the thread's version ``prefix`` names (``history`` shows ids shortened)."""
    from server._cli_history import resolve_checkpoint

    if prefix is None:
        return None
    return resolve_checkpoint(
        prefix, args.thread, lambda: [s.checkpoint.checkpoint_id for s in client.history(args.graph, args.thread)]
    )


def fork(args: argparse.Namespace) -> int:
    from graphwire import GraphwireError

    try:
        with _client(args) as client:
            cid = _checkpoint(client, args, args.checkpoint)
            result = client.fork(args.graph, args.thread, cid, configurable=args.configurable)
    except (GraphwireError, ValueError) as e:
        print(f"graphwire: {_failure(e, args.address)}", file=sys.stderr)
        return 1
    print(f"forked {args.thread!r} from {cid}: run ended {result.reason}, newest version {result.checkpoint.checkpoint_id}")
    for intr in result.interrupts:
        print(f"? {intr.value}")
    _print_reply(result, sys.stdout)
    return 0


def _failure(e: Exception, address: str | None = None) -> str:
    code = getattr(e, "code", None)
    if code is None:
        return str(e)
    said = f"{code.name}: {e.message}"  # type: ignore[attr-defined]
    if code.name == "UNAVAILABLE" and address and "failed to connect" in e.message:  # type: ignore[attr-defined]
        said += f" (is `graphwire serve` running on {address}? start it, or name its address with --address)"
    return said


def state(args: argparse.Namespace) -> int:
    from graphwire import GraphwireError

    try:
        with _client(args) as client:
            s = client.get_state(args.graph, args.thread, _checkpoint(client, args, args.checkpoint))
    except (GraphwireError, ValueError) as e:
        print(f"graphwire: {_failure(e, args.address)}", file=sys.stderr)
        return 1
    ref = s.checkpoint
    print(f"checkpoint {ref.checkpoint_id} (step {ref.step}, {ref.source}, parent {ref.parent_id or '-'})")
    print(f"next: {', '.join(s.next) or 'END'}")
    for i in s.interrupts:
        print(f"pending interrupt {i.interrupt_id} at {i.node}: {json.dumps(i.value, ensure_ascii=False)}")
    print(json.dumps(s.values, indent=2, ensure_ascii=False))
    return 0
