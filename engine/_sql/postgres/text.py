"""SQL text as PostgreSQL needs it, for the statements the parts keep as indented, commented text."""

from __future__ import annotations

import re

__all__ = ["compact", "positional"]

_NAMED = re.compile(r"%\((\w+)\)[sb]|%%")


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



def positional(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with PostgreSQL's own placeholders for its named ones (``%(name)s``, ``%(name)b``:
    ``$1``, ``$2``, ... one per name, in order of first use; ``%%`` as ``%``) and the names in that
    order: a statement for a raw cursor (:func:`~engine._sql.postgres.conns.kept_raw_cursor`), whose
    values are a list in that order.

    Why: psycopg turns a statement's named placeholders into positional ones itself, and remembers the
    result for a statement of at most 4,096 bytes only; a longer one is parsed again on every call
    (~0.15 ms for 5 KB). A raw cursor parses nothing. The statement binds exactly as psycopg's own
    conversion would have bound it (one parameter per name, each in the format psycopg picks for its
    value: a ``%(name)b`` is a ``bytes`` value, which psycopg sends binary either way).
    """
    names: dict[str, int] = {}

    def number(found: re.Match[str]) -> str:
        if found.group(1) is None:
            return "%"
        return f"${names.setdefault(found.group(1), len(names) + 1)}"

    return _NAMED.sub(number, text), tuple(names)
