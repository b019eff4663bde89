"""Tokens and tenants over LangGraph's HTTP API: the gRPC API's, read from ``x-api-key`` or ``Authorization: Bearer``.

A missing or wrong token is 401 (``{"detail": ...}``); ``/ok`` stays open.
With tenants, each sees only its own threads, assistants and store items
(another's are 404, as to a gRPC call), and may not change the shared
default assistants (403); on SQLite and PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import AuthenticationError, NotFoundError, PermissionDeniedError

from engine.host import default_assistant_id
from tests.conftest import ServerProcess
from tests.http.conftest import GRAPHS, sdk_url, sync_client
from tests.server._langgraph_graphs import backend  # noqa: F401  (the fixture)

TOKEN = "http-token-0123456789"
ANN, BOB = "ann-token-0123456789", "bob-token-0123456789"


def test_one_token(start_server: Callable[..., ServerProcess]) -> None:
    srv = start_server(graphs={"chain3": GRAPHS["chain3"]}, http=True, token=TOKEN)
    with pytest.raises(AuthenticationError) as missing:
        sync_client(srv).assistants.search()
    assert missing.value.body == {"detail": "missing token (send x-api-key or Authorization: Bearer)"}
    with pytest.raises(AuthenticationError) as wrong:
        sync_client(srv, api_key="not-the-token").assistants.search()
    assert wrong.value.body == {"detail": "wrong token"}
    assert [a["graph_id"] for a in sync_client(srv, api_key=TOKEN).assistants.search()] == ["chain3"]
    bearer = sync_client(srv, headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.threads.create()["metadata"] == {"graph_id": "chain3"}  # the only graph: no graph_id needed
    assert httpx.get(f"{sdk_url(srv)}/ok").json() == {"ok": True}


def test_tenants_isolated(start_server: Callable[..., ServerProcess], tmp_path: Path, backend: dict[str, Any]) -> None:  # noqa: F811
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(f'ann = "{ANN}"\nbob = "{BOB}"\n')
    srv = start_server(graphs={"chain3": GRAPHS["chain3"]}, http=True, args=["--auth-tokens", str(tokens)], **backend)
    ann, bob = sync_client(srv, api_key=ANN), sync_client(srv, headers={"Authorization": f"Bearer {BOB}"})
    tid = str(uuid.uuid4())
    ann.threads.create(thread_id=tid, metadata={"who": "ann"})
    ann.threads.update_state(tid, {"log": ["ann's"]}, as_node="a")
    helper = ann.assistants.create("chain3", name="ann's helper")
    ann.store.put_item(["notes"], "k", {"v": "ann's"})
    with pytest.raises(NotFoundError):
        bob.threads.get(tid)
    with pytest.raises(NotFoundError):
        bob.threads.get_state(tid)
    assert bob.threads.search() == [] and bob.threads.count() == 0
    with pytest.raises(NotFoundError):
        bob.assistants.get(helper["assistant_id"])
    assert [a["name"] for a in bob.assistants.search()] == ["chain3"]  # the shared default only
    assert bob.store.get_item(["notes"], "k") is None  # none of bob's: null, as any missing item
    bob.threads.create(thread_id=tid)  # the same id: bob's own thread
    assert bob.threads.get(tid)["values"] is None and ann.threads.get(tid)["values"] == {"log": ["ann's"]}
    with pytest.raises(PermissionDeniedError) as shared:
        bob.assistants.update(default_assistant_id("chain3"), name="mine now")
    assert "shared by every tenant" in shared.value.body["detail"]
