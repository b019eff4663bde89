#!/usr/bin/env python3
"""Derive the blocking Python ``Client`` from the asyncio ``AsyncClient``.

Usage::

    python scripts/gen_sync_client.py           # rewrite the _sync_*.py files
    python scripts/gen_sync_client.py --check   # exit 1 if either is stale

``clients/python/graphwire/_async_client.py`` (and ``_async_store.py``, the
store's methods, ``client.store``) is the only place a client method is
written. grpcio's blocking and asyncio APIs have the same shape
(``stub.Method(request, timeout=, metadata=)`` returns the response or an
iterable call; channels are made and closed the same way), so the blocking
client is the async one with ``async``/``await`` removed and ``grpc.aio``
replaced by ``grpc`` — a token rewrite, in the manner of ``unasync``. The
rewrite refuses to finish if any asyncio construct survives it.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "clients/python/graphwire"

# (source, target, header): each blocking module and the asyncio one it is derived from.
FILES: list[tuple[str, str, str]] = [
    (
        "_async_client.py",
        "_sync_client.py",
        '''\
# Generated from graphwire/_async_client.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``Client``: the blocking client, derived from ``AsyncClient``.

Each method works as its ``AsyncClient`` twin does, without ``await``; see
``_async_client.py`` for why this file is generated. A ``Client`` may be
shared by threads.
"""
''',
    ),
    (
        "_async_run.py",
        "_sync_run.py",
        '''\
# Generated from graphwire/_async_run.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``Run``: one run's events across retries and re-joins, derived from ``AsyncRun``.

It works as its ``AsyncRun`` twin does, without ``await`` (``for event in
run``, ``run.result()``); see ``_async_run.py`` for how, and
``_async_client.py`` for why this file is generated.
"""
''',
    ),
    (
        "_async_store.py",
        "_sync_store.py",
        '''\
# Generated from graphwire/_async_store.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``StoreClient``: the blocking ``client.store``, derived from ``AsyncStoreClient``.

Each method works as its ``AsyncStoreClient`` twin does, without ``await``;
see ``_async_client.py`` for why this file is generated.
"""
''',
    ),
    (
        "_async_threads.py",
        "_sync_threads.py",
        '''\
# Generated from graphwire/_async_threads.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``ThreadsClient``: the blocking ``client.threads``, derived from ``AsyncThreadsClient``.

Each method works as its ``AsyncThreadsClient`` twin does, without ``await``;
see ``_async_client.py`` for why this file is generated.
"""
''',
    ),
    (
        "_async_assistants.py",
        "_sync_assistants.py",
        '''\
# Generated from graphwire/_async_assistants.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``AssistantsClient``: the blocking ``client.assistants``, derived from ``AsyncAssistantsClient``.

Each method works as its ``AsyncAssistantsClient`` twin does, without ``await``;
see ``_async_client.py`` for why this file is generated.
"""
''',
    ),
]

# (pattern, replacement), applied in order to everything after the module
# docstring.
RULES: list[tuple[str, str]] = [
    (r"\basync def\b", "def"),
    (r"\basync for\b", "for"),
    (r"\basync with\b", "with"),
    (r"\bawait ", ""),
    (r"\bgrpc\.aio\.", "grpc."),
    (r"\bAsyncIterator\b", "Iterator"),
    (r"\bAsyncClient\b", "Client"),
    (r"\bAsyncStoreClient\b", "StoreClient"),
    (r"\bAsyncThreadsClient\b", "ThreadsClient"),
    (r"\bAsyncAssistantsClient\b", "AssistantsClient"),
    (r"\bAsyncRun\b", "Run"),
    (r"\b_async_(client|store|run|threads|assistants)\b", r"_sync_\1"),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\b__aiter__\b", "__iter__"),
    (r"\b__anext__\b", "__next__"),
    (r"\baclose\b", "close"),
    (r"\basync_pause\b", "pause"),
    (r"\bcontextlib\.aclosing\b", "contextlib.closing"),
    (r"\bfor asyncio code\b", "for blocking code"),
]

# What must not survive the rewrite.
LEFTOVER = re.compile(r"\basync\s+(?:def|for|with)\b|\bawait\b|\bgrpc\.aio\b|\basyncio\b|\baclos\w*|\bAsync[A-Z]\w*")


def render(name: str, header: str) -> str:
    source = (PACKAGE / name).read_text("utf-8")
    docstring = ast.parse(source).body[0]
    if not (isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)):
        raise RuntimeError(f"{name} must start with a module docstring")
    assert docstring.end_lineno is not None
    body = "".join(source.splitlines(keepends=True)[docstring.end_lineno :])
    for pattern, replacement in RULES:
        body = re.sub(pattern, replacement, body)
    for line in body.splitlines():
        match = LEFTOVER.search(line)
        if match:
            raise RuntimeError(
                f"gen_sync_client: {match.group(0)!r} survived the rewrite in {line.strip()!r};"
                f" add a rule for it or reword {name}"
            )
    text = header + body
    ast.parse(text)  # the result must at least be Python
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated module is stale")
    args = parser.parse_args(argv)
    stale = 0
    for source, target_name, header in FILES:
        target = PACKAGE / target_name
        text = render(source, header).encode("utf-8")
        current = target.read_bytes() if target.exists() else None
        if current == text:
            continue
        if args.check:
            print(
                f"stale: {target.relative_to(REPO)} differs from what {source} gives. Run: python scripts/gen_sync_client.py",
                file=sys.stderr,
            )
            stale = 1
        else:
            target.write_bytes(text)
            print(f"wrote {target.relative_to(REPO)}")
    return stale


if __name__ == "__main__":
    sys.exit(main())
