"""Tenants: tokens that name who is calling, and threads that belong to them.

``--auth-tokens FILE`` maps bearer tokens to tenant names (a TOML table,
``tenant = "token"`` or ``tenant = ["token", "older-token"]`` for rotation).
A call's tenant is set for the duration of its handler in :data:`TENANT`, and
:func:`server._reads.thread_key` puts it in front of the storage key, so a
thread belongs to the tenant that created it: another tenant's calls address
a different key, and get exactly what a thread that does not exist gets
(NOT_FOUND, or a new thread of their own). Nothing matches by prefix across
tenants; ids are compared exactly.
"""

from __future__ import annotations

import contextvars
import re
from typing import Mapping

from server.config import read_toml

__all__ = ["TENANT", "TENANT_NAME", "load_tokens"]

#: The calling tenant (None: no tenants configured, or a single shared token).
TENANT: contextvars.ContextVar[str | None] = contextvars.ContextVar("graphwire_tenant", default=None)

TENANT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def load_tokens(path: str) -> dict[str, str]:
    """token → tenant from a TOML file; ValueError with a readable message when it is wrong."""
    return tokens_from(read_toml(path, "auth tokens file"), path)


def tokens_from(data: Mapping[str, object], where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for tenant, value in data.items():
        if not TENANT_NAME.match(tenant):
            raise ValueError(f"{where}: tenant name {tenant!r}: use letters, digits, '_', '.', '-' (at most 64)")
        tokens = [value] if isinstance(value, str) else value
        if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) and len(t) >= 16 for t in tokens):
            raise ValueError(f"{where}: tenant {tenant!r} needs a token (or a list of them) of at least 16 characters")
        for t in tokens:
            if t in out:
                raise ValueError(f"{where}: a token is given to both {out[t]!r} and {tenant!r}")
            out[t] = tenant
    if not out:
        raise ValueError(f"{where}: no tenants")
    return out
