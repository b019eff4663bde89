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
