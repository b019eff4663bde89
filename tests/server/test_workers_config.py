"""``workers`` (graphwire.toml, ``GRAPHWIRE_WORKERS``, ``--workers``): how many server processes
serve the address, and where more than one is refused (tests/replicas/test_workers.py runs them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.config import ServerConfig, load_config
from tests.conftest import ROOT

PG = "postgresql://u@db/gw"


def test_the_default_is_every_cpu_on_postgresql_and_one_otherwise(tmp_path: Path) -> None:
    cpus = len(os.sched_getaffinity(0))
    assert ServerConfig(checkpointer=PG).worker_count() == cpus
    assert ServerConfig(checkpointer=PG, cache="off").worker_count() == cpus
    assert ServerConfig().worker_count() == 1  # SQLite
    assert ServerConfig(checkpointer=PG, store=str(tmp_path / "store.db")).worker_count() == 1  # one database is SQLite
    assert ServerConfig(checkpointer=PG, workers=3).worker_count() == 3


def test_the_file_and_the_environment_set_it_and_bad_values_are_refused(tmp_path: Path) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text(f'checkpointer = "{PG}"\nworkers = 3\n')
    assert load_config(str(toml), environ={}).workers == 3
    assert load_config(str(toml), environ={"GRAPHWIRE_WORKERS": "2"}).workers == 2
    for bad in (0, -1, 1.5, True, "2", 5000):
        with pytest.raises(ValueError, match="workers must be a whole number"):
            load_config(str(toml), {"workers": bad}, environ={})


@pytest.mark.parametrize(
    "settings, named",
    [
        ({"checkpointer": "gw.db"}, "'gw.db'"),
        ({"checkpointer": ":memory:"}, "':memory:'"),
        ({"checkpointer": PG, "store": "store.db"}, "'store.db'"),
        ({"checkpointer": PG, "cache": ":memory:"}, "':memory:'"),
    ],
)
def test_more_than_one_worker_needs_every_database_on_postgresql(settings: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError, match=f"workers = 2 needs PostgreSQL: {named} is not a postgresql:// DSN"):
        load_config(None, {**settings, "workers": 2}, environ={})
    assert load_config(None, {**settings, "workers": 1}, environ={}).worker_count() == 1


def test_more_than_one_worker_needs_a_tcp_port() -> None:
    with pytest.raises(ValueError, match="share a TCP port; 'unix:/tmp/gw.sock' is a unix socket"):
        load_config(None, {"checkpointer": PG, "address": "unix:/tmp/gw.sock", "workers": 2}, environ={})


def test_serve_refuses_workers_on_sqlite_before_starting_anything(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", "gw.db", "--workers", "2"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "graphwire: workers = 2 needs PostgreSQL: 'gw.db'" in done.stderr
    assert "one process writes a SQLite file" in done.stderr
    assert not (tmp_path / "gw.db").exists()  # refused before the file was opened
