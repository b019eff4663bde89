#!/usr/bin/env python3
"""Derive the blocking Python ``Client`` from the asyncio ``AsyncClient``.

Usage::

    python scripts/gen_sync_client.py           # rewrite _sync_client.py
    python scripts/gen_sync_client.py --check   # exit 1 if it is stale

``clients/python/graphwire/_async_client.py`` is the only place a client
method is written. grpcio's blocking and asyncio APIs have the same shape
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
SOURCE = PACKAGE / "_async_client.py"
TARGET = PACKAGE / "_sync_client.py"

HEADER = '''\
# Generated from graphwire/_async_client.py by scripts/gen_sync_client.py. DO NOT EDIT.
"""``Client``: the blocking client, derived from ``AsyncClient``.

Each method works as its ``AsyncClient`` twin does, without ``await``; see
``_async_client.py`` for why this file is generated. A ``Client`` may be
shared by threads.
"""
'''

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
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\bcontextlib\.aclosing\b", "contextlib.closing"),
    (r"\bfor asyncio code\b", "for blocking code"),
]

# What must not survive the rewrite.
LEFTOVER = re.compile(r"\basync\s+(?:def|for|with)\b|\bawait\b|\bgrpc\.aio\b|\basyncio\b|\baclos\w*|\bAsync[A-Z]\w*")


def render() -> str:
    source = SOURCE.read_text("utf-8")
    docstring = ast.parse(source).body[0]
    if not (isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)):
        raise RuntimeError(f"{SOURCE.name} must start with a module docstring")
    assert docstring.end_lineno is not None
    body = "".join(source.splitlines(keepends=True)[docstring.end_lineno :])
    for pattern, replacement in RULES:
        body = re.sub(pattern, replacement, body)
    for line in body.splitlines():
        match = LEFTOVER.search(line)
        if match:
            raise RuntimeError(
                f"gen_sync_client: {match.group(0)!r} survived the rewrite in {line.strip()!r};"
                f" add a rule for it or reword {SOURCE.name}"
            )
    text = HEADER + body
    ast.parse(text)  # the result must at least be Python
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if _sync_client.py is stale")
    args = parser.parse_args(argv)
    text = render().encode("utf-8")
    current = TARGET.read_bytes() if TARGET.exists() else None
    if args.check:
        if current != text:
            print(
                f"stale: {TARGET.relative_to(REPO)} differs from what {SOURCE.name} gives."
                " Run: python scripts/gen_sync_client.py",
                file=sys.stderr,
            )
            return 1
        return 0
    if current != text:
        TARGET.write_bytes(text)
        print(f"wrote {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
