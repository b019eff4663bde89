"""Configuration of a PostgreSQL checkpointer: schema, lease length, and a readable failure to start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DSN = "postgresql://root@127.0.0.1:5432/test"


def test_lease_seconds_and_pg_schema_from_the_file_and_flags(tmp_path: Path) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text(f'checkpointer = "{DSN}"\npg_schema = "gw"\nlease_seconds = 30\n')
    cfg = load_config(str(toml))
    assert (cfg.checkpointer, cfg.pg_schema, cfg.lease_seconds) == (DSN, "gw", 30)
    cfg = load_config(str(toml), {"lease_seconds": 2.5, "pg_schema": "other"})
    assert (cfg.pg_schema, cfg.lease_seconds) == ("other", 2.5)
    assert load_config(None, {"checkpointer": DSN}).lease_seconds == 15.0


@pytest.mark.parametrize("bad", [0, -1, 86400, "15", True])
def test_lease_seconds_must_be_a_sensible_number(bad: object) -> None:
    with pytest.raises(ValueError, match="lease_seconds"):
        load_config(None, {"checkpointer": DSN, "lease_seconds": bad})


def test_pg_schema_needs_a_postgresql_checkpointer() -> None:
    with pytest.raises(ValueError, match="pg_schema"):
        load_config(None, {"checkpointer": "gw.db", "pg_schema": "gw"})


def test_serve_on_an_unreachable_database_fails_at_start_up_readably(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0",
         "--checkpointer", "postgresql://root@127.0.0.1:1/test?connect_timeout=2", "--pg-schema", "gw"],
        check=False, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "graphwire: PostgreSQL: cannot open the checkpoint database" in done.stderr
    assert "Traceback" not in done.stderr


def test_libpq_key_value_form_is_postgresql_not_a_file_name(tmp_path: Path) -> None:
    from graphwire import Client
    from server.app import _redacted
    from server.config import is_postgres
    from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
    from tests.conftest import start_server_process

    assert is_postgres("host=127.0.0.1 dbname=test user=root") and is_postgres(" dbname=test")
    assert not is_postgres("./graphwire.db") and not is_postgres(":memory:") and not is_postgres("hostname.db")
    assert _redacted("host=db password='a b' user=me") == "host=db password=*** user=me"
    require_pg()
    schema = new_schema_name()
    conninfo = "host=127.0.0.1 port=5432 dbname=test user=root"
    srv = start_server_process(tmp_path, graphs={"chain3": "tests.graphs:chain3"}, pg_dsn=conninfo, pg_schema=schema)
    try:
        with Client(srv.address) as client:
            assert client.invoke("chain3", "t1", {"n": 1}).values["n"] == 4
        assert not any(p.name.startswith("host=") for p in tmp_path.iterdir())  # no SQLite file of that name
        assert "password" not in srv.log() or "***" in srv.log()
    finally:
        assert srv.terminate() == 0
        drop_schema(schema)
