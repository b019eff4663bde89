"""Configuring the server's store: where it lives, TTLs and their sweeper, the index, start-up failures, outages."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from graphwire import AsyncClient, Unavailable
from psycopg import sql

from engine.store import InMemoryStore
from server.app import build_server
from server.config import ServerConfig, load_config
from tests._private_pg import PrivateCluster, private_pg  # noqa: F401 - the fixture
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.store.conftest import Clock

ROOT = Path(__file__).resolve().parents[2]
GRAPHS = {"memories": "tests.graphs:memories"}


# -- the config ---------------------------------------------------------------------
@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ./graphwire.toml of the checkout's, and no GRAPHWIRE_* of the environment's, is read."""
    monkeypatch.chdir(tmp_path)
    for var in [v for v in os.environ if v.startswith("GRAPHWIRE_")]:
        monkeypatch.delenv(var)


@pytest.mark.usefixtures("elsewhere")
def test_store_settings_from_the_file_the_environment_and_the_flag(tmp_path: Path) -> None:
    toml = tmp_path / "settings.toml"
    toml.write_text(
        'checkpointer = "gw.db"\nstore = "memories.db"\n'
        "[store_ttl]\ndefault_ttl = 60\nrefresh_on_read = false\nsweep_interval_minutes = 1.5\n"
        '[store_index]\nembed = "tests.graphs:letters"\ndims = 3\nfields = ["text"]\n'
    )
    cfg = load_config(str(toml))
    assert cfg.store_spec() == "memories.db"
    assert cfg.store_ttl == {"default_ttl": 60, "refresh_on_read": False, "sweep_interval_minutes": 1.5}
    assert cfg.store_index == {"embed": "tests.graphs:letters", "dims": 3, "fields": ["text"]}
    assert load_config(str(toml), {"store": "other.db"}).store_spec() == "other.db"
    assert load_config(None, {"checkpointer": "gw.db"}).store_spec() == "gw.db"  # default: the checkpointer's
    env = {"GRAPHWIRE_STORE": "env.db", "GRAPHWIRE_STORE_TTL": "{default_ttl = 5, omit_expired = true}"}
    cfg = load_config(str(toml), environ=env)
    assert (cfg.store_spec(), cfg.store_ttl) == ("env.db", {"default_ttl": 5, "omit_expired": True})
    with pytest.raises(ValueError, match="GRAPHWIRE_STORE_TTL must be a TOML inline table"):
        load_config(None, environ={"GRAPHWIRE_STORE_TTL": "default_ttl=5"})
    with pytest.raises(ValueError, match="store_ttl must be a table of settings"):
        toml.write_text("store_ttl = 5\n")
        load_config(str(toml))


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"store_ttl": {"default": 5}}, "store_ttl: unknown key 'default'"),
        ({"store_ttl": {"default_ttl": 0}}, "store_ttl.default_ttl must be a number of minutes above 0"),
        ({"store_ttl": {"sweep_interval_minutes": "5"}}, "store_ttl.sweep_interval_minutes"),
        ({"store_ttl": {"default_ttl": 1e308}}, "store_ttl.default_ttl must be at most 1,000,000,000 minutes"),
        ({"store_ttl": {"refresh_on_read": 1}}, "store_ttl.refresh_on_read must be true or false"),
        ({"store_index": {"dims": 3}}, "store_index needs embed"),
        ({"store_index": {"embed": "m:f", "dims": 0}}, "store_index.dims"),
        ({"store_index": {"embed": "m:f", "dims": 3, "fields": "text"}}, "store_index.fields"),
        ({"store_index": {"embed": "m:f", "dims": 3, "model": "x"}}, "store_index: unknown key"),
        ({"store": ""}, "store must be"),
        ({"pg_schema": "gw"}, "pg_schema applies to a postgresql:// checkpointer or store"),
    ],
)
@pytest.mark.usefixtures("elsewhere")
def test_bad_store_settings_are_refused_readably(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        load_config(None, {"checkpointer": "gw.db", **overrides})


@pytest.mark.usefixtures("elsewhere")
def test_pg_schema_may_be_for_the_store_alone() -> None:
    cfg = load_config(None, {"checkpointer": "gw.db", "store": DSN, "pg_schema": "gw"})
    assert (cfg.store_spec(), cfg.pg_schema) == (DSN, "gw")


def _serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", *args],
        check=False, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip


def test_an_unreachable_store_fails_at_start_up_readably(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--checkpointer", "gw.db", "--store", "postgresql://root@127.0.0.1:1/test?connect_timeout=2")
    assert done.returncode == 2, done.stderr
    assert "graphwire: PostgreSQL: cannot open the store's database" in done.stderr
    assert "Traceback" not in done.stderr


# -- where it lives -----------------------------------------------------------------
def test_store_flag_puts_the_store_in_its_own_file(start_server: Any, tmp_path: Path) -> None:
    own = tmp_path / "memories.db"
    srv = start_server(graphs=GRAPHS, args=["--store", str(own)])
    with srv.client() as client:
        client.store.put_item(("m",), "k", {"v": 1})
    with sqlite3.connect(own) as conn:
        assert conn.execute("SELECT count(*) FROM store_items").fetchone() == (1,)
    with sqlite3.connect(srv.db) as conn:
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'store_items'").fetchone() is None


def test_on_postgresql_the_store_is_migrated_into_the_checkpointers_schema(start_server: Any) -> None:
    dsn = require_pg()
    schema = new_schema_name()
    try:
        srv = start_server(graphs=GRAPHS, pg_dsn=dsn, pg_schema=schema)
        with psycopg.connect(dsn) as conn:
            versions = conn.execute(sql.SQL("SELECT max(version) FROM {}").format(sql.Identifier(schema, "store_migrations"))).fetchone()
            assert versions is not None and versions[0] >= 1
        with srv.client() as client:
            client.store.put_item(("m", "u"), "k", {"v": 1})
            assert client.invoke("memories", "t", {"user_id": "u", "fact": "x"}, timeout=30).values["known"] == ["x"]
        with psycopg.connect(dsn) as conn:
            rows = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, "store_items"))).fetchone()
            assert rows == (2,)
        assert srv.terminate() == 0
    finally:
        drop_schema(schema)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_semantic_search_through_the_configured_index(start_server: Any, tmp_path: Path, kind: str) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text('[store_index]\nembed = "tests.graphs:letters"\ndims = 3\nfields = ["text"]\n')
    schema = new_schema_name()
    pg = {"pg_dsn": require_pg(), "pg_schema": schema} if kind == "postgres" else {}
    try:
        _search_through(start_server(graphs=GRAPHS, args=["--config", str(toml)], **pg))
    finally:
        if pg:
            drop_schema(schema)


def _search_through(srv: Any) -> None:
    with srv.client() as client:
        store = client.store
        store.put_item(("d",), "a", {"text": "aaa"})
        store.put_item(("d",), "b", {"text": "bbb"})
        store.put_item(("d",), "title", {"text": "ccc", "title": "aaaa"}, index=["title"])
        store.put_item(("d",), "off", {"text": "aaa"}, index=False)
        found = store.search_items(("d",), query="a")
        assert [i.key for i in found] == ["a", "title", "b", "off"]
        assert found[0].score == pytest.approx(1.0) and found[2].score == pytest.approx(0.0) and found[3].score is None
        assert [i.key for i in store.search_items(("d",), query="b", limit=1)] == ["b"]


# -- TTLs ------------------------------------------------------------------------------
def test_the_ttl_sweeper_deletes_expired_items_and_stops_with_the_server() -> None:
    async def scenario() -> None:
        clock = Clock()
        store = InMemoryStore()
        store._now = clock  # type: ignore[assignment]
        config = ServerConfig(
            address="127.0.0.1:0", checkpointer=":memory:", graphs=GRAPHS, store_ttl={"sweep_interval_minutes": 0.0005}
        )
        srv = await build_server(config, store=store)
        try:
            assert srv.sweeper is not None and srv.sweeper.running
            async with AsyncClient(f"127.0.0.1:{srv.port}") as client:
                await client.store.put_item(("m",), "short", {"v": 1}, ttl=1)
                await client.store.put_item(("m",), "long", {"v": 2}, ttl=10)
                await client.store.put_item(("m",), "forever", {"v": 3})
                clock.advance(5)
                # Two more sweeps: the second started after the clock moved.
                await asyncio.wait_for(srv.sweeper.wait_sweeps(srv.sweeper.sweeps + 2), 30)
                assert [i.key for i in await client.store.search_items(("m",))] == ["long", "forever"]
                clock.advance(20)
                await asyncio.wait_for(srv.sweeper.wait_sweeps(srv.sweeper.sweeps + 2), 30)
                assert [i.key for i in await client.store.search_items(("m",))] == ["forever"]
        finally:
            await srv.stop(1)
        assert not srv.sweeper.running

    asyncio.run(scenario())


def test_ttl_from_the_config_and_from_the_call(start_server: Any, tmp_path: Path) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text("[store_ttl]\ndefault_ttl = 60\nrefresh_on_read = false\n")
    srv = start_server(graphs=GRAPHS, args=["--config", str(toml)])
    with srv.client() as client:
        client.store.put_item(("m",), "default", {"v": 1})
        client.store.put_item(("m",), "never", {"v": 1}, ttl=0)
        client.store.put_item(("m",), "short", {"v": 1}, ttl=0.5)
    with sqlite3.connect(srv.db) as conn:
        ttls = dict(conn.execute("SELECT key, ttl_minutes FROM store_items"))
    assert ttls == {"default": 60, "never": None, "short": 0.5}
    assert "TTL sweep every 5 min" in srv.log()


# -- outages ------------------------------------------------------------------------------
def test_a_store_whose_database_is_down_is_unavailable_until_it_is_back(start_server: Any, private_pg: PrivateCluster) -> None:
    srv = start_server(graphs=GRAPHS, args=["--store", private_pg.dsn])
    with srv.client() as client:
        client.store.put_item(("m",), "k", {"v": 1})
        private_pg.stop()
        with pytest.raises(Unavailable, match=r"store unavailable: PostgreSQL store"):
            client.store.get_item(("m",), "k", timeout=30)
        with pytest.raises(Unavailable):
            client.store.put_item(("m",), "k2", {"v": 2}, timeout=30)
        private_pg.start()
        assert client.store.get_item(("m",), "k", timeout=30).value == {"v": 1}  # type: ignore[union-attr]
        assert client.store.get_item(("m",), "k2", timeout=30) is None


def test_an_embedding_provider_by_name_goes_to_langchain() -> None:
    """langgraph.json's ``"embed": "openai:text-embedding-3-small"`` is a provider and model, not a module spec."""
    from server._store import open_store
    from server._specs import SpecError

    try:
        store = open_store(":memory:", index={"embed": "openai:text-embedding-3-small", "dims": 3})
    except SpecError as e:  # before: imported as the module 'openai', attribute 'text-embedding-3-small'
        pytest.fail(f"taken for a module spec: {e}")
    except (ValueError, ImportError) as e:  # what LangChain's init_embeddings (or its absence) says
        assert "openai" in str(e) or "langchain" in str(e)
    else:
        asyncio.run(store.aclose())
