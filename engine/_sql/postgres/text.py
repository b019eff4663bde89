"""SQL text as PostgreSQL needs it, for the statements the parts keep as indented, commented text."""

from __future__ import annotations

__all__ = ["compact"]


def compact(text: str) -> str:
    """``text`` without indentation and comments: what the server needs of it.

    psycopg parses a statement's placeholders once and remembers it, if the
    statement is at most 4,096 bytes long; a longer one (the get, indented)
    is parsed again on every call. No literal here holds ``--`` or spans lines.
    """
    lines = []
    for line in text.splitlines():
        code, dashes, _ = line.partition("--")
        if dashes and code.count("'") % 2:  # "--" inside a literal: keep the line whole
            code = line
        if code.strip():
            lines.append(code.strip())
    return "\n".join(lines)
