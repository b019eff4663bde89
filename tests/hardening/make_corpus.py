"""Write a corpus of checkpoints as this version of graphwire stores them.

    python tests/hardening/make_corpus.py [NAME]     (default NAME: the SQLite schema, e.g. "sqlite-v2")

writes ``tests/hardening/corpus/NAME.sql`` (a text dump of a SQLite
checkpoint file, ``PRAGMA user_version`` included, so it loads into a file
the saver then opens as the old file it is) and ``NAME.expected.json``
(what reading it must give, and what resuming its interrupted thread must
produce). ``tests/hardening/test_old_data.py`` loads every corpus in the
directory with the current code and checks both.

A committed corpus is never regenerated: it stands for data already written
in customers' files. When the storage format changes, run this again under a
new NAME and commit it next to the old ones; every later version must read
them all.

The threads are the reminders agent's (storage keys ``reminders:<thread>``,
as the server writes them), chosen to cover what storage holds: a question
pending (an interrupt as a pending write), finished turns with a tool call,
an answered and a refused question, a fork (two branches sharing rows), an
``update`` version, and a conversation long enough that its messages are
stored as delta chains across two fan-out levels.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
GRAPH = "reminders"
RESUME_THREAD = "asking"
RESUME_ANSWER = "yes"


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def config(thread: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": f"{GRAPH}:{thread}"}
    if checkpoint_id:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


def compile_graph(saver: Any) -> Any:
    from examples.reminders import build_graph

    return build_graph(forecast_delay=0).compile(checkpointer=saver, name=GRAPH)


def digest(values: Any) -> str:
    """A short, exact stand-in for a version's values (the history would repeat them quadratically)."""
    return hashlib.sha256(json.dumps(values, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def describe(graph: Any, thread: str) -> dict[str, Any]:
    """What reading a thread gives: its newest state and its whole history, as JSON data."""
    state = graph.get_state(config(thread))
    history = [
        {
            "checkpoint_id": s.config["configurable"]["checkpoint_id"],
            "parent_id": (s.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
            "metadata": s.metadata,
            "next": list(s.next),
            "values_sha256": digest(s.values),
            "interrupts": [{"id": i.id, "value": i.value} for i in s.interrupts],
            "tasks": [{"name": t.name, "error": t.error} for t in s.tasks],
        }
        for s in graph.get_state_history(config(thread))
    ]
    return {
        "values": state.values,
        "next": list(state.next),
        "checkpoint_id": state.config["configurable"]["checkpoint_id"],
        "interrupts": [{"id": i.id, "value": i.value} for i in state.interrupts],
        "history": history,
    }


def normalize_new_ids(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """``after``'s values with the ids of messages that ``before`` did not have replaced by "<new>".

    A resumed run writes new messages whose ids are random (the scripted
    model's, add_messages'); everything else it writes is determined by the
    stored thread, and must come out the same in every version.
    """
    known = {m.get("id") for m in before.get("messages", [])}
    messages = [m if m.get("id") in known else {**m, "id": "<new>"} for m in after.get("messages", [])]
    return {**after, "messages": messages}


def populate(graph: Any) -> None:
    graph.invoke(user("remind me to call mom at 5pm"), config(RESUME_THREAD))

    graph.invoke(user("weather in Oslo"), config("weather"))

    graph.invoke(user("remind me to pay rent on friday"), config("refused"))
    graph.invoke(_resume("no"), config("refused"))

    graph.invoke(user("remind me to water the plants at 8am"), config("forked"))
    question = graph.get_state(config("forked")).config["configurable"]["checkpoint_id"]
    graph.invoke(_resume("yes"), config("forked"))
    graph.invoke(None, config("forked", question))  # back to the question, on a new branch
    graph.invoke(_resume("no"), config("forked"))

    graph.invoke(user("hello"), config("updated"))
    graph.update_state(config("updated"), {"reminders": [{"text": "stretch", "at": "noon"}]}, as_node="tools")

    for i in range(14):  # > 32 versions of messages: deltas on deltas on a full value
        graph.invoke(user(f"note number {i}" if i % 4 else f"weather in city {i}"), config("long"))


def _resume(answer: str) -> Any:
    from engine import Command

    return Command(resume=answer)


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from engine.checkpoint import SqliteSaver
    from engine.checkpoint.sqlite._migrate import latest_version

    name = argv[1] if len(argv) > 1 else f"sqlite-v{latest_version()}"
    sql_path, expected_path = CORPUS / f"{name}.sql", CORPUS / f"{name}.expected.json"
    if sql_path.exists() or expected_path.exists():
        print(f"{sql_path.name} exists: a committed corpus is never rewritten (pick a new NAME)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "corpus.db"
        saver = SqliteSaver(db)
        graph = compile_graph(saver)
        populate(graph)
        threads = sorted(t.thread_id.partition(":")[2] for t in saver.list_threads(prefix=f"{GRAPH}:"))
        expected: dict[str, Any] = {
            "written_by": f"graphwire (SQLite schema version {latest_version()})",
            "graph": GRAPH,
            "threads": {t: describe(graph, t) for t in threads},
        }
        saver.close()
        # The resume is recorded on a copy, so the corpus keeps the thread waiting.
        copy = Path(tmp) / "resumed.db"
        with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
        resumed_saver = SqliteSaver(copy)
        resumed = compile_graph(resumed_saver)
        resumed.invoke(_resume(RESUME_ANSWER), config(RESUME_THREAD))
        after = describe(resumed, RESUME_THREAD)
        resumed_saver.close()
        expected["resume"] = {
            "thread": RESUME_THREAD,
            "answer": RESUME_ANSWER,
            "values": normalize_new_ids(expected["threads"][RESUME_THREAD]["values"], after["values"]),
            "next": after["next"],
            "sources": [h["metadata"]["source"] for h in after["history"]],
        }
        with sqlite3.connect(db) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            dump = "\n".join(conn.iterdump())
        conn.close()
    CORPUS.mkdir(exist_ok=True)
    sql_path.write_text(
        f"-- {expected['written_by']}: written by tests/hardening/make_corpus.py; never edit or regenerate.\n"
        f"PRAGMA user_version = {version};\n{dump}\n",
        encoding="utf-8",
    )
    expected_path.write_text(json.dumps(expected, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {sql_path} ({sql_path.stat().st_size} bytes) and {expected_path.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
