"""The committed blocking client (and its ``client.store``) is what
scripts/gen_sync_client.py derives from the asyncio one. If this fails, run ``python scripts/gen_sync_client.py``."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import graphwire

REPO = Path(__file__).resolve().parents[2]


def test_sync_client_is_fresh() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_sync_client.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr


def test_both_clients_have_the_same_methods_and_signatures() -> None:
    def public(cls: type) -> dict[str, inspect.Signature]:
        return {
            name: inspect.signature(member)
            for name, member in vars(cls).items()
            if callable(member) and not name.startswith("_")
        }

    for sync_cls, async_cls in [(graphwire.Client, graphwire.AsyncClient), (graphwire.StoreClient, graphwire.AsyncStoreClient)]:
        sync, async_ = public(sync_cls), public(async_cls)
        assert sync.keys() == async_.keys()
        for name in sync:
            assert list(sync[name].parameters) == list(async_[name].parameters), name
    assert set(public(graphwire.StoreClient)) == {"put_item", "get_item", "search_items", "delete_item", "list_namespaces"}
