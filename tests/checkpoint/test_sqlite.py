"""What only the SQLite saver has: a file, a schema, migrations, transactions."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import SqliteSaver
from engine.checkpoint.base import PendingWrite
from engine._sql.sqlite import run_script
from engine.checkpoint.sqlite import _migrate, _queries
from engine.errors import CheckpointError, SerializationError
from tests.checkpoint._util import cfg, make_cp


def schema_of(conn: sqlite3.Connection) -> dict[str, Any]:
    """Tables, columns, keys and indexes, as SQLite reports them (not as the SQL was spelled)."""
    out: dict[str, Any] = {"user_version": conn.execute("PRAGMA user_version").fetchone()[0]}
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        indexes = {}
        for _, name, unique, origin, partial in conn.execute(f"PRAGMA index_list('{table}')"):
            columns = [tuple(r) for r in conn.execute(f"PRAGMA index_xinfo('{name}')")]
            indexes[name] = (unique, origin, partial, columns)
        out[table] = {
            "columns": [tuple(r) for r in conn.execute(f"PRAGMA table_xinfo('{table}')")],
            "indexes": indexes,
        }
    out["other"] = conn.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE type NOT IN ('table', 'index') ORDER BY name"
    ).fetchall()
    return out


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


# -- migrations ------------------------------------------------------------------------
def test_migrations_are_numbered_and_a_fresh_file_gets_the_latest(tmp_path: Path) -> None:
    numbers = [n for n, _ in _migrate.migrations()]
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    with SqliteSaver.from_conn_string(str(tmp_path / "a.db")):
        pass
    with connect(tmp_path / "a.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == _migrate.latest_version() == numbers[-1]


def test_applying_every_migration_equals_the_fresh_schema(tmp_path: Path) -> None:
    fresh, migrated = connect(tmp_path / "fresh.db"), connect(tmp_path / "migrated.db")
    run_script(fresh, _migrate.fresh_schema())
    fresh.execute(f"PRAGMA user_version = {_migrate.latest_version()}")
    for number, sql in _migrate.migrations():
        run_script(migrated, sql)
        migrated.execute(f"PRAGMA user_version = {number}")
    assert schema_of(fresh)["checkpoints"]["columns"]  # the comparison below compares something
    assert schema_of(migrated) == schema_of(fresh)
    # And the saver's own path through migrate() lands on the same schema.
    with SqliteSaver.from_conn_string(str(tmp_path / "opened.db")):
        pass
    assert schema_of(connect(tmp_path / "opened.db")) == schema_of(fresh)


def test_a_failed_migration_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    SqliteSaver(path).close()
    before = schema_of(connect(path))
    broken = (*_migrate.migrations(), (len(_migrate.migrations()) + 1, "CREATE TABLE extra (a);\nSELECT no_such_fn();"))
    monkeypatch.setattr(_migrate, "migrations", lambda: broken)
    with pytest.raises(CheckpointError, match="no_such_fn"):
        SqliteSaver(path)
    assert schema_of(connect(path)) == before  # no table "extra", same user_version


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SqliteSaver(path).close()
    with connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {_migrate.latest_version() + 1}")
    with pytest.raises(CheckpointError, match="newer"):
        SqliteSaver(path)


# -- the file ----------------------------------------------------------------------------
def test_reopening_the_file_finds_everything(tmp_path: Path) -> None:
    path = str(tmp_path / "keep.db")
    cp = make_cp({"a": (1, 2), "b": {"x"}})
    with SqliteSaver.from_conn_string(path) as saver:
        config = saver.put(cfg(), cp, {"source": "input", "step": -1}, {"a": 1, "b": 1})
        saver.put_writes(config, [("a", 3)], task_id="t")
    with pytest.raises(sqlite3.ProgrammingError):
        saver._conn.execute("SELECT 1")  # from_conn_string closed it
    with SqliteSaver.from_conn_string(path) as reopened:
        got = reopened.get_tuple(cfg())
    assert got is not None and got.checkpoint == cp and got.config == config
    assert got.metadata == {"source": "input", "step": -1}
    assert got.pending_writes == [PendingWrite("t", "a", 3)]


def test_pragmas_are_set(tmp_path: Path) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "p.db")) as saver:
        conn = saver._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_a_connection_passed_in_is_used_and_left_open() -> None:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    saver = SqliteSaver(conn)
    config = saver.put(cfg(), make_cp({"a": 1}), {"source": "input", "step": -1}, {"a": 1})
    saver.close()
    assert conn.execute("SELECT checkpoint_id FROM checkpoints").fetchall() == [(config["configurable"]["checkpoint_id"],)]


# -- atomicity -----------------------------------------------------------------------------
def row_counts(saver: SqliteSaver) -> dict[str, int]:
    return {t: saver._conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("checkpoints", "blobs", "writes")}


def test_a_put_with_an_unstorable_value_writes_nothing(tmp_path: Path) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "x.db")) as saver:
        with pytest.raises(SerializationError, match="state key 'z'"):
            saver.put(cfg(), make_cp({"a": 1, "z": object()}), {"source": "input", "step": -1}, {"a": 1, "z": 1})
        assert row_counts(saver) == {"checkpoints": 0, "blobs": 0, "writes": 0}


def test_a_put_failing_inside_the_transaction_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "x.db")) as saver:
        # The blobs go in first; then the checkpoint row fails.
        monkeypatch.setattr(_queries, "INSERT_CHECKPOINT", "INSERT INTO no_such_table VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        with pytest.raises(CheckpointError, match="no_such_table"):
            saver.put(cfg(), make_cp({"a": [1], "b": [2]}), {"source": "input", "step": -1}, {"a": 1, "b": 1})
        assert row_counts(saver) == {"checkpoints": 0, "blobs": 0, "writes": 0}
        assert not saver._conn.in_transaction
        monkeypatch.undo()
        saver.put(cfg(), make_cp({"a": [1]}), {"source": "input", "step": -1}, {"a": 1})  # still usable (a list: a blob row)
        assert row_counts(saver) == {"checkpoints": 1, "blobs": 1, "writes": 0}


def test_many_threads_share_one_saver(tmp_path: Path) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "x.db")) as saver:
        errors: list[Exception] = []

        def work(n: int) -> None:
            try:
                config = cfg(f"thread-{n}")
                for step in range(20):
                    cp = make_cp({"n": n, "step": step}, version=step + 1)
                    config = saver.put(config, cp, {"source": "loop", "step": step}, cp["channel_versions"])
                    saver.put_writes(config, [("w", step)], task_id="t")
            except Exception as exc:  # noqa: BLE001 - collected, asserted empty below
                errors.append(exc)

        workers = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert errors == []
        assert row_counts(saver)["checkpoints"] == 8 * 20
        for n in range(8):
            got = saver.get_tuple(cfg(f"thread-{n}"))
            assert got is not None and got.checkpoint["channel_values"] == {"n": n, "step": 19}
            assert got.pending_writes == [PendingWrite("t", "w", 19)]


# -- the hot path stays on indexes ------------------------------------------------------------
@pytest.mark.parametrize(
    ("sql", "params", "expected"),
    [
        (_queries.SELECT_LATEST_CHECKPOINT, ("t", ""), "(thread_id=? AND checkpoint_ns=?)"),
        (_queries.SELECT_CHECKPOINT, ("t", "", "c"), "(thread_id=? AND checkpoint_ns=? AND checkpoint_id=?)"),
        (_queries.SELECT_CHAINS, ('[["a", 1]]', "t", "", "[]"), "(thread_id=? AND checkpoint_ns=? AND channel=? AND version=?)"),
        (_queries.SELECT_WRITES, ("t", "", "c"), "(thread_id=? AND checkpoint_ns=? AND checkpoint_id=?)"),
    ],
    ids=["latest", "named", "blobs", "writes"],
)
def test_reads_look_rows_up_by_primary_key(tmp_path: Path, sql: str, params: tuple[Any, ...], expected: str) -> None:
    # A plain JOIN for SELECT_CHAINS would scan every blob of the thread: fine
    # on a short thread, a linear cost per read on a long one.
    with SqliteSaver.from_conn_string(str(tmp_path / "x.db")) as saver:
        plan = [row[3] for row in saver._conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    assert any(step.startswith("SEARCH") and expected in step for step in plan), plan
    # Scanned: only the JSON arguments (virtual tables) and the CTEs' own rows (c, v), never a table.
    assert not any(step.startswith("SCAN") and "VIRTUAL TABLE" not in step and step not in ("SCAN c", "SCAN v") for step in plan), plan
    if sql is _queries.SELECT_CHAINS:  # the writes whose refs a read follows: by key too
        assert any(step.startswith("SEARCH w") and "(thread_id=? AND checkpoint_ns=? AND checkpoint_id=?)" in step for step in plan), plan
