"""Configuring the server's node cache: where it lives (default: the checkpointer's database), "off", failures.

What a served graph does with it (a hit on a later call, a restart, another
replica, another tenant) is in tests/e2e/test_node_cache.py,
tests/replicas/test_cache_across_replicas.py and
tests/hardening/test_cache_tenants.py.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cache._scoped import ScopedCache
from engine.cache.memory import InMemoryCache
from engine.cache.postgres import PostgresCache
from engine.cache.sqlite import SqliteCache
from engine.checkpoint import InMemorySaver
from server._store import TenantCache
from server._tenants import TENANT
from server.app import build_server
from server.config import ServerConfig, load_config
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg

ROOT = Path(__file__).resolve().parents[2]
GRAPHS = {"cached": "tests.graphs:cached", "own": "tests.server.test_cache_config:own_cache_graph"}


def own_cache_graph() -> Any:
    """``cached``, compiled with a cache of its own (which the server keeps)."""
    from tests.graphs import cached

    return cached.compile(cache=InMemoryCache())


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ./graphwire.toml of the checkout's, and no GRAPHWIRE_* of the environment's, is read."""
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("GRAPHWIRE_")]:
        monkeypatch.delenv(var)


@pytest.mark.usefixtures("elsewhere")
def test_cache_settings_from_the_file_the_environment_and_the_flag(tmp_path: Path) -> None:
    assert load_config(None, {"checkpointer": "gw.db"}).cache_spec() == "gw.db"  # default: the checkpointer's
    toml = tmp_path / "settings.toml"
    toml.write_text('checkpointer = "gw.db"\ncache = "cache.db"\n')
    assert load_config(str(toml)).cache_spec() == "cache.db"
    assert load_config(str(toml), environ={"GRAPHWIRE_CACHE": "off"}).cache_spec() is None
    assert load_config(str(toml), {"cache": ":memory:"}).cache_spec() == ":memory:"
    cfg = load_config(None, {"checkpointer": "gw.db", "cache": DSN, "pg_schema": "gw"})  # pg_schema for the cache alone
    assert (cfg.cache_spec(), cfg.pg_schema) == (DSN, "gw")
    with pytest.raises(ValueError, match="cache must be a SQLite path"):
        load_config(None, {"checkpointer": "gw.db", "cache": ""})
    with pytest.raises(ValueError, match="cache must be text"):
        toml.write_text("cache = false\n")
        load_config(str(toml))
    with pytest.raises(ValueError, match="pg_schema applies to a postgresql:// checkpointer or store or node cache"):
        load_config(None, {"checkpointer": "gw.db", "cache": "off", "pg_schema": "gw"})


def _served(config: ServerConfig, **given: Any) -> dict[str, Any]:
    """Start a server in process; the caches its graphs got, then stop it."""

    async def go() -> dict[str, Any]:
        srv = await build_server(config, **given)
        try:
            return {name: e.graph.cache for name, e in srv.service.graphs.items()} | {"$opened": srv.cache}
        finally:
            await srv.stop(0)

    return asyncio.run(go())


def test_by_default_graphs_get_a_cache_in_the_checkpointers_sqlite_file(tmp_path: Path) -> None:
    caches = _served(ServerConfig(address="127.0.0.1:0", checkpointer=str(tmp_path / "gw.db"), graphs=GRAPHS))
    served, opened = caches["cached"], caches["$opened"]
    assert isinstance(served, TenantCache) and served.cache is opened and isinstance(opened, SqliteCache)
    assert isinstance(caches["own"], InMemoryCache)  # compiled with its own: kept
    assert opened._conn is None  # closed with the server


def test_cache_off_gives_graphs_none_and_keeps_their_own(tmp_path: Path) -> None:
    caches = _served(ServerConfig(address="127.0.0.1:0", checkpointer=str(tmp_path / "gw.db"), graphs=GRAPHS, cache="off"))
    assert caches["cached"] is None and caches["$opened"] is None
    assert isinstance(caches["own"], InMemoryCache)


def test_a_server_given_a_saver_gets_an_in_memory_cache_with_the_savers_serializer() -> None:
    saver = InMemorySaver()
    caches = _served(ServerConfig(address="127.0.0.1:0", graphs=GRAPHS), checkpointer=saver)
    assert isinstance(caches["$opened"], InMemoryCache) and caches["$opened"].serde is saver.serde


def test_on_postgresql_the_cache_is_in_the_checkpointers_schema() -> None:
    dsn = require_pg()
    schema = new_schema_name()
    try:
        caches = _served(ServerConfig(address="127.0.0.1:0", checkpointer=dsn, pg_schema=schema, graphs=GRAPHS))
        assert isinstance(caches["$opened"], PostgresCache) and caches["$opened"].schema == schema
    finally:
        drop_schema(schema)


def test_with_tenants_each_tenant_sees_its_own_scope_and_no_tenant_fails_closed(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text('acme = "acme-token-0123456789"\n')
    config = ServerConfig(address="127.0.0.1:0", checkpointer=str(tmp_path / "gw.db"), graphs=GRAPHS, auth_tokens=str(tokens))

    async def go() -> None:
        srv = await build_server(config)
        try:
            served = srv.service.graphs["cached"].graph.cache
            own = srv.service.graphs["own"].graph.cache
            assert isinstance(served, TenantCache) and isinstance(own, TenantCache) and isinstance(own.cache, InMemoryCache)
            with pytest.raises(RuntimeError, match="outside a tenant's call"):
                await served.aget([(("n",), "k")])
            token = TENANT.set("acme")
            try:
                view = served.view()
                assert isinstance(view, ScopedCache) and view.root == "tenant.acme"
                await served.aset({(("n",), "k"): ("acme's", None)})
                assert await served.aget([(("n",), "k")]) == {(("n",), "k"): "acme's"}
            finally:
                TENANT.reset(token)
            assert await srv.cache.aget([(("n",), "k")]) == {}  # type: ignore[union-attr]
            assert await srv.cache.aget([(("tenant.acme", "n"), "k")]) == {(("tenant.acme", "n"), "k"): "acme's"}  # type: ignore[union-attr]
        finally:
            await srv.stop(0)

    asyncio.run(go())


def _serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHWIRE_")} | {"PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", *args],
        check=False, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip


def test_a_cache_that_cannot_be_opened_fails_at_start_up_readably(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--checkpointer", "gw.db", "--cache", str(tmp_path / "no-such-dir" / "cache.db"))
    assert done.returncode == 2, done.stderr
    assert f"graphwire: cache {str(tmp_path / 'no-such-dir' / 'cache.db')!r}: the directory" in done.stderr
    assert "does not exist" in done.stderr
    assert "Traceback" not in done.stderr
    done = _serve(tmp_path, "--checkpointer", "gw.db", "--cache", "postgresql://root@127.0.0.1:1/test?connect_timeout=2")
    assert done.returncode == 2, done.stderr
    assert "graphwire: PostgreSQL: cannot open the cache's database" in done.stderr


def test_a_cache_failure_during_a_call_is_unavailable() -> None:
    import grpc

    from engine.errors import CacheError
    from server._errors import status_for

    assert status_for(CacheError("PostgreSQL cache: no connection")) == (
        grpc.StatusCode.UNAVAILABLE,
        "node cache unavailable: PostgreSQL cache: no connection",
    )
