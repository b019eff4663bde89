"""Old data: every committed corpus (``corpus/*.sql``, written by an earlier
version with ``make_corpus.py``) opens with the current code, reads back
exactly as recorded, and its interrupted thread resumes to the recorded state.

A failure here means a change broke files already on customers' disks: fix
the change (or add a migration), never the corpus.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import SqliteSaver
from engine.checkpoint.sqlite._migrate import latest_version
from tests._no_langchain import langchain_installed, rerun_without_langchain
from tests.hardening.make_corpus import CORPUS, compile_graph, config, describe, normalize_new_ids

CORPORA = sorted(CORPUS.glob("*.sql"))


def test_there_is_a_corpus() -> None:
    assert CORPORA, f"no corpus in {CORPUS}"


@pytest.fixture(params=CORPORA, ids=[p.stem for p in CORPORA])
def corpus(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """The corpus loaded into a SQLite file (as an old file on disk), and what it must read as."""
    sql: Path = request.param
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(sql.read_text(encoding="utf-8"))
    conn.close()
    expected = json.loads(sql.with_name(f"{sql.stem}.expected.json").read_text(encoding="utf-8"))
    return db, expected


def test_an_old_file_reads_back_exactly(corpus: tuple[Path, dict[str, Any]]) -> None:
    db, expected = corpus
    saver = SqliteSaver(db)  # migrates an older file to the current schema
    try:
        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
        conn.close()
        graph = compile_graph(saver)
        threads = sorted(t.thread_id.partition(":")[2] for t in saver.list_threads(prefix=f"{expected['graph']}:"))
        assert threads == sorted(expected["threads"])
        for thread, recorded in expected["threads"].items():
            assert describe(graph, thread) == recorded, thread
    finally:
        saver.close()


def test_its_interrupted_thread_resumes_identically(corpus: tuple[Path, dict[str, Any]], request: pytest.FixtureRequest) -> None:
    if langchain_installed():
        # The corpus holds dict messages, and the next turn under the langchain
        # extra makes them LangChain messages (see the test below): identical
        # behaviour is that of an installation without it.
        rerun_without_langchain(request.node.nodeid)
        return
    db, expected = corpus
    resume = expected["resume"]
    saver = SqliteSaver(db)
    try:
        graph = compile_graph(saver)
        before = graph.get_state(config(resume["thread"]))
        assert [i.value for i in before.interrupts] == [i["value"] for i in expected["threads"][resume["thread"]]["interrupts"]]
        from engine import Command

        graph.invoke(Command(resume=resume["answer"]), config(resume["thread"]))
        after = describe(graph, resume["thread"])
        assert normalize_new_ids(before.values, after["values"]) == resume["values"]
        assert after["next"] == resume["next"]
        assert [h["metadata"]["source"] for h in after["history"]] == resume["sources"]
    finally:
        saver.close()


def test_with_langchain_its_thread_resumes_with_langchain_messages(corpus: tuple[Path, dict[str, Any]]) -> None:
    pytest.importorskip("langchain_core")
    if not langchain_installed():
        pytest.skip("langchain-core hidden")
    from engine import Command
    from engine.testing import said

    db, expected = corpus
    resume = expected["resume"]
    saver = SqliteSaver(db)
    try:
        graph = compile_graph(saver)
        before = graph.get_state(config(resume["thread"])).values["messages"]
        assert all(isinstance(m, dict) for m in before)  # read back exactly as stored
        graph.invoke(Command(resume=resume["answer"]), config(resume["thread"]))
        after = graph.get_state(config(resume["thread"])).values["messages"]
        assert [type(m).__name__ for m in after[: len(before)]] == [
            {"user": "HumanMessage", "assistant": "AIMessage", "tool": "ToolMessage"}[m["role"]] for m in before
        ]
        assert [(said(m), m.id) for m in after[: len(before)]] == [((m["role"], m["content"]), m["id"]) for m in before]
        want = [m for m in resume["values"]["messages"]]
        assert [said(m) for m in after] == [(m["role"], m["content"]) for m in want]
    finally:
        saver.close()
