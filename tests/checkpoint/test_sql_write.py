"""The SQL savers' direct write preparation (engine/checkpoint/_sql_write.py) stores the rows the
shared planner and the serializer store: a corpus of puts (small scalars inline, lists that grow,
a dict repeating a stored list, a namespace starting from its parent's list, a version read back
then extended, LangChain messages when installed), with and without ``json_safe``, a size limit
and a codec, stored once each way, gives byte-identical rows; and a put either way refuses
the same way, with the same error."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from engine.checkpoint import BaseCheckpointSaver, SqliteSaver
from engine.checkpoint import _sql_write
from engine.checkpoint.base import empty_checkpoint
from engine.checkpoint.postgres import PostgresSaver
from engine.serde import Serializer
from tests.checkpoint._pg import clean_schema
from tests.checkpoint.conftest import make_saver

try:
    from langchain_core.messages import AIMessage, HumanMessage
except ImportError:  # pragma: no cover - optional
    AIMessage = HumanMessage = None


class _Xor:
    """A codec (a byte flipped): its tag is part of every row, and the meta goes through the serializer."""

    name = "xor"

    def encode(self, data: bytes) -> bytes:
        return bytes(b ^ 0x5A for b in data)

    def decode(self, data: bytes) -> bytes:
        return self.encode(data)


def _messages(n: int) -> list[Any]:
    if HumanMessage is None:
        return [{"role": "user" if i % 2 == 0 else "ai", "content": f"m{i}"} for i in range(n)]
    return [(HumanMessage if i % 2 == 0 else AIMessage)(content=f"m{i}", id=f"id{i}") for i in range(n)]


MESSAGES = _messages(6)


def _steps() -> list[dict[str, Any]]:
    """Channel values of each version (an absent channel has no value; ``changed`` lists the new versions)."""
    m = MESSAGES
    return [
        {"values": {"__start__": {"n": 0}}, "changed": ["__start__"]},
        {"values": {"n": 0, "branch:to:a": None, "messages": m[:1], "route": "a"}, "changed": ["__start__", "n", "branch:to:a", "messages", "route"]},
        {"values": {"n": 1, "branch:to:b": None, "messages": m[:2], "route": "a"}, "changed": ["n", "branch:to:a", "branch:to:b", "messages"]},
        {"values": {"n": 2, "score": 0.5, "messages": m[:3], "big": "é" * 300, "route": "a"}, "changed": ["n", "branch:to:b", "score", "messages", "big"]},
        {"values": {"n": True, "score": -1.25, "messages": m[:4], "input": {"messages": m[:4], "k": 1}, "route": "a"}, "changed": ["n", "score", "messages", "input"]},
        {"values": {"n": 2**63, "messages": m[1:3], "flag": False, "route": "b" * 70}, "changed": ["n", "score", "messages", "flag", "route"]},
        {"values": {"n": 5, "messages": [*m[1:3], m[5]], "route": "c", "blob": b"\x00\xff"}, "changed": ["n", "messages", "route", "blob"]},
    ]


def _checkpoint(step: int, thread_versions: dict[str, int], values: dict[str, Any], changed: list[str]) -> tuple[Any, dict[str, int]]:
    new = {ch: ((step + 1) << 32) | i for i, ch in enumerate(changed)}
    thread_versions.update(new)
    cp = empty_checkpoint()
    cp["id"] = f"1f1f0e74-{step:04d}-6000-8000-000000000000"
    cp["ts"] = f"2026-12-05T20:05:0{step}.5{step}0000+00:00"
    cp["channel_values"] = dict(values)
    cp["channel_versions"] = dict(thread_versions)
    cp["versions_seen"] = {"__input__": {}, **{f"node{i}": {ch: v} for i, (ch, v) in enumerate(list(new.items())[:2])}}
    cp["updated_channels"] = sorted(changed)
    return cp, new


async def _store(saver: BaseCheckpointSaver, thread_id: str, reopen: Callable[[], BaseCheckpointSaver]) -> None:
    """The corpus as one thread's chain: single puts, then batches with writes, a child namespace, and
    (on a saver opened again, which learns the thread from a read) more versions."""
    versions: dict[str, int] = {}
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}, "metadata": {"user": "u1"}}
    md = {"source": "loop", "parents": {}, "__graphwire_run_id__": "75e66383-da20-4dbb-a9aa-d5b48ba59e62"}
    steps = _steps()
    for step, s in enumerate(steps[:3]):
        cp, new = _checkpoint(step, versions, s["values"], s["changed"])
        config = {**await saver.aput(config, cp, {**md, "step": step}, new), "metadata": {"user": "u1"}}
    batch = []
    for step, s in enumerate(steps[3:5], start=3):
        cp, new = _checkpoint(step, versions, s["values"], s["changed"])
        batch.append((config, cp, {**md, "step": step}, new))
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": cp["id"]}}
    writes = [(batch[0][0], [("messages", MESSAGES[:4]), ("n", 7)], "task-a", "path")]
    config = (await saver.aput_many(batch, writes=writes))[-1]
    child = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "child:1"}}
    cp, new = _checkpoint(9, {}, {"messages": [*MESSAGES[:4], MESSAGES[4]], "x": 1}, ["messages", "x"])
    await saver.aput(child, cp, {**md, "step": 0}, new)
    again = reopen()  # knows the thread only from what it reads
    assert await again.aget_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}) is not None
    for step, s in enumerate(steps[5:], start=5):
        cp, new = _checkpoint(step, versions, s["values"], s["changed"])
        config = await again.aput(config, cp, {**md, "step": step}, new)


def _rows(saver: BaseCheckpointSaver, thread_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row of the thread, by table, without the thread's id (each way stores its own thread)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in ("checkpoints", "blobs", "writes"):
        if isinstance(saver, SqliteSaver):
            cur = saver._conn.execute(f"SELECT * FROM {table} WHERE thread_id = ?", (thread_id,))
            found, names = cur.fetchall(), [d[0] for d in cur.description]
        else:
            assert isinstance(saver, PostgresSaver)
            with psycopg.connect(saver._dsn) as conn:
                cur = conn.execute(f"SELECT * FROM {saver._q.tables[table]} WHERE thread_id = %s", (thread_id,))
                found, names = cur.fetchall(), [d.name for d in cur.description or ()]
        keep = [i for i, name in enumerate(names) if name != "thread_id"]
        out[table] = sorted((tuple(bytes(r[i]) if isinstance(r[i], memoryview) else r[i] for i in keep) for r in found), key=repr)
    return out


@pytest.fixture(params=["sqlite", "postgres"])
def build(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., BaseCheckpointSaver]]:
    """Savers of one kind on one storage (a file, or the module's schema emptied)."""
    kind, schema, made = request.param, None, []
    if kind == "postgres":
        schema = request.getfixturevalue("pg_schema")
        clean_schema(request.getfixturevalue("pg_admin"), schema)

    def make(serde: Serializer | None = None, **options: Any) -> BaseCheckpointSaver:
        if kind == "sqlite":
            saver: BaseCheckpointSaver = SqliteSaver(tmp_path / "rows.db", serde=serde, **options)
        else:
            saver = make_saver(kind, tmp_path, serde, schema=schema, **options)
        made.append(saver)
        return saver

    yield make
    for s in made:
        s.close()


def _planner_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every put through DeltaCache.plan and dump_meta, as before the direct path."""
    monkeypatch.setattr(_sql_write, "_plan_direct", lambda *args: None)
    monkeypatch.setattr(_sql_write, "_meta_direct", lambda *args: None)


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each direct step made its result (not None); each plan made is checked against the
    planner's for the same put (what the cache learns: lists, sizes, the version's form)."""
    made = {"plan": 0, "meta": 0}
    for key, name in (("plan", "_plan_direct"), ("meta", "_meta_direct")):
        real = getattr(_sql_write, name)

        def counted(*args: Any, _real: Any = real, _key: str = key) -> Any:
            out = _real(*args)
            made[_key] += out is not None
            if _key == "plan" and out is not None:
                assert out == args[0].plan(*args[1:])
            return out

        monkeypatch.setattr(_sql_write, name, counted)
    return made


SETTINGS = [
    pytest.param({"json_safe": True}, {"max_state_bytes": 8 << 20}, id="json_safe-limit"),
    pytest.param({"json_safe": False}, {}, id="plain"),
    pytest.param({"json_safe": True}, {}, id="json_safe"),
    pytest.param({"json_safe": False, "codec": _Xor()}, {"max_state_bytes": 8 << 20}, id="codec-limit"),
    pytest.param({"json_safe": True}, {"max_state_bytes": 8 << 20, "delta_fanout": None}, id="no-deltas"),
]


@pytest.mark.parametrize(("serde_options", "saver_options"), SETTINGS)
def test_the_direct_path_stores_the_planners_rows(
    build: Callable[..., BaseCheckpointSaver], monkeypatch: pytest.MonkeyPatch, serde_options: dict[str, Any],
    saver_options: dict[str, Any],
) -> None:  # fmt: skip
    def saver() -> BaseCheckpointSaver:
        return build(Serializer(**serde_options), **saver_options)

    direct = saver()
    with monkeypatch.context() as m:
        made = _counting(m)
        asyncio.run(_store(direct, "direct", saver))
    with monkeypatch.context() as m:
        _planner_only(m)
        planned = saver()
        asyncio.run(_store(planned, "planned", saver))
    rows = _rows(direct, "direct")
    assert rows == _rows(planned, "planned")
    blobs = rows["blobs"]
    assert len(rows["checkpoints"]) == 8 and blobs and rows["writes"]
    if saver_options.get("delta_fanout", 32):  # deltas and a ref were stored, not only full values
        assert any(isinstance(r[5], int) for r in blobs) and any(r[7] is not None for r in blobs)
    assert made["plan"] >= 8  # (each put of the batch, and more: a batch's puts may be prepared twice)
    assert made["meta"] == (0 if "codec" in serde_options else made["plan"])


BAD: list[tuple[str, dict[str, Any], Any]] = [  # (what, the version's changes, a change to its checkpoint)
    ("unstorable", {"n": object()}, None),
    ("NaN inline", {"n": math.nan}, None),
    ("infinity", {"score": -math.inf}, None),
    ("too long", {"big": "x" * 5000}, None),
    ("lone surrogate", {"route": "\ud800"}, None),
    ("a node key that is not text", {"n": 1}, ("versions_seen", {1: {"n": 1}})),
    ("a tuple of updated channels", {"n": 1}, ("updated_channels", ("n",))),
    ("a surrogate in updated channels", {"n": 1}, ("updated_channels", ["\udc80"])),
    ("a version that is not an int", {"n": 1}, ("channel_versions", {"n": "x"})),
    ("a float v", {"n": 1}, ("v", math.nan)),
    ("a map for a version seen", {"n": 1}, ("versions_seen", {"a": {"n": {1: 2}}})),
    ("a channel name that is not text", {"n": 1}, ("channel_versions", {"n": 1, 2: 1})),
    ("a lone surrogate in a node's name", {"n": 1}, ("versions_seen", {"\udc80": {"n": 1}})),
]


@pytest.mark.parametrize("limit", [4096, None])
@pytest.mark.parametrize("json_safe", [True, False])
def test_a_put_is_refused_the_same_way_either_way(
    build: Callable[..., BaseCheckpointSaver], monkeypatch: pytest.MonkeyPatch, json_safe: bool, limit: int | None
) -> None:
    def outcomes(thread: str) -> list[tuple[str, str]]:
        saver = build(Serializer(json_safe=json_safe), max_state_bytes=limit)
        out = []
        for what, values, change in BAD:
            cp = empty_checkpoint()
            cp["id"] = "1f1f0e74-0001-6000-8000-000000000000"
            cp["ts"] = "2026-12-05T20:05:00.500000+00:00"
            cp["channel_values"] = values
            cp["channel_versions"] = dict.fromkeys(values, 1)
            cp["versions_seen"] = {"a": {"n": 1}}
            cp["updated_channels"] = list(values)
            if change is not None:
                cp[change[0]] = change[1]  # type: ignore[literal-required]
            config = {"configurable": {"thread_id": f"{thread}-{what}", "checkpoint_ns": ""}}
            try:
                asyncio.run(saver.aput(config, cp, {"source": "loop", "step": 1}, dict(cp["channel_versions"])))
            except Exception as exc:  # noqa: BLE001 - what is refused, and how, is the point
                out.append((type(exc).__name__, str(exc).replace(thread, "")))
            else:
                out.append(("stored", ""))
        return out

    direct = outcomes("direct")
    with monkeypatch.context() as m:
        _planner_only(m)
        assert direct == outcomes("planned")
    assert direct[0][0] == "SerializationError" and (direct[3][0] == "StateTooLargeError") is (limit is not None)
    assert (direct[1][0] == "SerializationError") is json_safe  # a NaN is refused only where JSON carries state
