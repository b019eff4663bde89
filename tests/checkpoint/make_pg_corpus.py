"""Write a PostgreSQL corpus: the rows a version of graphwire stores for two threads.

    python tests/checkpoint/make_pg_corpus.py NAME     (e.g. "postgres-v3": the schema version it writes)

Run it with the version of graphwire whose rows you want first on
``sys.path`` (``PYTHONPATH=/path/to/that/checkout``). It writes
``tests/checkpoint/corpus/NAME.sql`` (INSERTs of every row of the saver's
three tables, to load into a schema at that version) and
``NAME.expected.json`` (what reading them must give).
``tests/checkpoint/test_pg_old_rows.py`` loads each corpus under the current
code, which migrates it, and checks the reads, then goes on writing.

The threads: ``chat`` (a model and a counter: its ``messages`` as delta
chains) and ``supervisor`` (a supervisor and an agent subgraph under a
namespace per call: the subgraph's rows and its output as pending writes).
Messages are plain dicts merged by id (no LangChain needed to read them).
A committed corpus is never regenerated: it stands for data already stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any, TypedDict

import psycopg
from psycopg import sql

HERE = Path(__file__).resolve().parent
DSN = os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
TABLES = ("checkpoints", "blobs", "writes")


def merge(left: list[Any] | None, right: list[Any] | Any) -> list[Any]:
    """Messages merged by id (a new id appends, a known one replaces)."""
    out = list(left or [])
    index = {m["id"]: i for i, m in enumerate(out)}
    for m in right if isinstance(right, list) else [right]:
        if m["id"] in index:
            out[index[m["id"]]] = m
        else:
            index[m["id"]] = len(out)
            out.append(m)
    return out


class Chat(TypedDict, total=False):
    messages: Annotated[list, merge]
    turns: int


def reply(state: Chat) -> dict[str, Any]:
    n = len(state["messages"])
    return {"messages": [{"role": "assistant", "content": f"reply {n} " + "y" * 40, "id": f"a{n}"}]}


def count(state: Chat) -> dict[str, Any]:
    return {"turns": state.get("turns", 0) + 1}


def build(saver: Any, graph: str) -> Any:
    from engine import END, START, StateGraph

    g = StateGraph(Chat)
    if graph == "chat":
        g.add_node("model", reply)
        g.add_node("post", count)
        g.add_edge(START, "model")
        g.add_edge("model", "post")
        g.add_edge("post", END)
        return g.compile(checkpointer=saver)
    agent = StateGraph(Chat)
    agent.add_node("model", reply)
    agent.add_edge(START, "model")
    agent.add_edge("model", END)
    g.add_node("supervisor", count)
    g.add_node("agent", agent.compile())
    g.add_edge(START, "supervisor")
    g.add_edge("supervisor", "agent")
    g.add_edge("agent", END)
    return g.compile(checkpointer=saver)


def user(turn: int) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": f"question {turn} " + "x" * 40, "id": f"u{turn}"}]}


def digest(value: Any) -> str:
    """A short, exact stand-in for a value (a history's values would repeat the conversation quadratically)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def describe(saver: Any, thread: str) -> list[dict[str, Any]]:
    """Every stored version of the thread, every namespace, as the saver reads it back (JSON)."""
    out = []
    for t in saver.list({"configurable": {"thread_id": thread}}):
        out.append({
            "ns": t.config["configurable"]["checkpoint_ns"], "id": t.checkpoint["id"],
            "values": digest(t.checkpoint["channel_values"]), "versions": t.checkpoint["channel_versions"],
            "writes": digest([[w[1], w[2]] for w in t.pending_writes]),
        })  # fmt: skip
    return sorted(out, key=lambda d: (d["ns"], d["id"]))


def main(name: str) -> None:
    from engine.checkpoint.postgres import PostgresSaver

    schema = "gwcorpus_" + uuid.uuid4().hex[:8]
    saver = PostgresSaver.from_dsn(DSN, schema=schema)
    try:
        expected: dict[str, Any] = {}
        for graph, turns in (("chat", 20), ("supervisor", 4)):
            compiled = build(saver, graph)
            for turn in range(turns):
                compiled.invoke(user(turn), {"configurable": {"thread_id": graph}})
            expected[graph] = describe(saver, graph)
        lines = [f"-- Rows graphwire stored (schema version of {name}); see make_pg_corpus.py."]
        with psycopg.connect(DSN, autocommit=True) as conn:
            for table in TABLES:
                columns = [r[0] for r in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s"
                    " ORDER BY ordinal_position", (schema, table)).fetchall()]  # fmt: skip
                as_text = sql.SQL(", ").join(sql.SQL("{}::text").format(sql.Identifier(c)) for c in columns)
                # A delta's base goes in first (a lower seq); t.: the typed columns, not the text ones.
                order = sql.SQL("t.seq, t.version" if table == "blobs" else "t.checkpoint_id")
                cur = conn.execute(sql.SQL("SELECT {} FROM {} AS t ORDER BY t.thread_id, t.checkpoint_ns, {}").format(
                    as_text, sql.Identifier(schema, table), order))  # fmt: skip
                for row in cur.fetchall():
                    values = sql.SQL(", ").join(sql.Literal(v) for v in row).as_string(conn)
                    lines.append(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({values});")
        (HERE / "corpus" / f"{name}.sql").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (HERE / "corpus" / f"{name}.expected.json").write_text(json.dumps(expected, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    finally:
        saver.close()
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "postgres-v3")
