"""Hostile storage: rows crafted in the database to run code when read.

Each case writes bytes into one table of a real server's database (SQLite
file, PostgreSQL schema), the way someone with write access to the database
but not to the server would: a msgpack ext naming ``os:system`` or
``builtins:eval``, a pickle under a ``pickle`` tag or a ``msgpack`` one, a
JSON constructor payload (LangGraph's ``{"lc": 1, "type": "constructor"}``), an
unknown tag or ext code. Every payload would create a sentinel file if
anything ran it (the serializer's unit tests prove the pickle one is live:
``tests/engine/test_serde.py::test_the_sentinel_payloads_are_live``).

Then every RPC that reads the thread (GetState, ListHistory, Resume, Invoke
continuing it) must fail with DATA_LOSS naming the checkpoint, the sentinel
must stay absent, another thread must read as before, and the server must
stay healthy. Metadata is JSON data and never revived: a constructor payload
there comes back as the plain object it is.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from graphwire import DataLoss, FinishReason
from grpc_health.v1 import health_pb2

from tests.engine.test_serde import OpenOnUnpickle, ext, registered
from tests.hardening.conftest import Hardened

SERVING = health_pb2.HealthCheckResponse.SERVING
ASK = {"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]}


def constructor(path: str) -> bytes:
    """LangGraph's serialized-constructor JSON, naming a callable that would create ``path``."""
    return json.dumps(
        {"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {"command": f"touch {path}"}}
    ).encode()


# (case id, where, (sentinel path -> (type tag, bytes)))
Payload = Callable[[str], tuple[str, bytes]]
PAYLOADS: dict[str, Payload] = {
    "ext os:system": lambda p: ("msgpack", registered("os:system", f"touch {p}")),
    "ext os.system": lambda p: ("msgpack", registered("os.system", f"touch {p}")),
    "ext builtins:eval": lambda p: ("msgpack", registered("builtins:eval", f"open({p!r}, 'w')")),
    "ext inside a list": lambda p: ("msgpack", b"\x92\xa2ok" + registered("subprocess:run", ["touch", p])),
    "unknown ext code": lambda p: ("msgpack", ext(99, p.encode())),
    "pickle tag": lambda p: ("pickle", pickle.dumps(OpenOnUnpickle(p))),
    "pickle under msgpack": lambda p: ("msgpack", pickle.dumps(OpenOnUnpickle(p))),
    "json constructor": lambda p: ("json", constructor(p)),
    "unknown tag": lambda p: ("msgpack+evil", msgpack.packb(["os:system", p])),
    # LangChain's message classes are allowlisted by name; hostile fields must not get far.
    "langchain message, dunder field": lambda p: (
        "msgpack", registered("langchain:AIMessage", {"content": "x", "__class__": "os:system", "__init__": p})
    ),
    "langchain message, constructor as a field": lambda p: (
        "msgpack", registered("langchain:ToolMessage", {"content": "x", "tool_call_id": json.loads(constructor(p))})
    ),
    "langchain message, wrong type": lambda p: (
        "msgpack", registered("langchain:AIMessage", {"content": "x", "type": "constructor", "id": ["os", "system"]})
    ),
    "langchain module path": lambda p: ("msgpack", registered("langchain_core.messages.ai:AIMessage", {"content": p})),
    "langchain loader": lambda p: ("msgpack", registered("langchain_core.load:loads", constructor(p).decode())),
    "langchain base class": lambda p: ("msgpack", registered("langchain:BaseMessage", {"content": p, "type": "x"})),
}
CASES = [(f"{where}: {name}", where, name) for where in ("blob",) for name in PAYLOADS] + [
    ("meta: pickle tag", "meta", "pickle tag"),
    ("meta: ext os:system", "meta", "ext os:system"),
    ("meta: json constructor", "meta", "json constructor"),
    ("write: pickle tag", "write", "pickle tag"),
    ("write: ext builtins:eval", "write", "ext builtins:eval"),
]


@pytest.fixture
def sentinel(tmp_path: Path) -> Any:
    path = tmp_path / "sentinel"
    yield path
    assert not path.exists(), "reading stored bytes ran code"


def asking_thread(h: Hardened, thread: str) -> str:
    """A reminders thread waiting at its question; returns its newest checkpoint id."""
    with h.client() as client:
        assert client.invoke("reminders", thread, ASK, timeout=30).interrupted
    return h.storage.head(f"reminders:{thread}")


def corrupt(h: Hardened, thread: str, where: str, tag: str, data: bytes) -> str:
    """Write a payload into the thread's newest version; returns that version's id."""
    key = f"reminders:{thread}"
    cid = h.storage.head(key)
    if where == "blob":
        h.storage.set_blob(key, "messages", h.storage.versions(key, cid)["messages"], tag, data)
    elif where == "meta":
        h.storage.set_meta(key, cid, tag, data)
    else:
        assert h.storage.set_writes(key, cid, tag, data) >= 1  # the interrupt is a pending write
    return cid


def every_read_fails(h: Hardened, thread: str, cid: str) -> list[str]:
    """Each RPC that reads the thread fails with DATA_LOSS; returns the messages."""
    messages = []
    with h.client() as client:
        calls: list[Callable[[], Any]] = [
            lambda: client.get_state("reminders", thread, timeout=10),
            lambda: client.get_state("reminders", thread, cid, timeout=10),
            lambda: client.history("reminders", thread, timeout=10),
            lambda: client.resume("reminders", thread, "yes", timeout=10),
            lambda: client.invoke("reminders", thread, {"messages": [{"role": "user", "content": "hi"}]}, timeout=10),
            lambda: client.invoke("reminders", thread, None, checkpoint_id=cid, timeout=10),
        ]
        for call in calls:
            with pytest.raises(DataLoss) as lost:
                call()
            messages.append(lost.value.message)
    return messages


def bystander(h: Hardened, thread: str) -> tuple[Any, int]:
    with h.client() as client:
        state = client.get_state("reminders", thread, timeout=10)
        return state.values, len(client.history("reminders", thread, timeout=10))


@pytest.mark.parametrize(("where", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_crafted_rows_run_nothing_and_fail_with_data_loss(
    hardened: Hardened, tid: str, sentinel: Path, where: str, name: str
) -> None:
    other = f"{tid}-bystander"
    asking_thread(hardened, other)
    before = bystander(hardened, other)
    asking_thread(hardened, tid)
    tag, data = PAYLOADS[name](str(sentinel))
    cid = corrupt(hardened, tid, where, tag, data)

    messages = every_read_fails(hardened, tid, cid)

    assert not sentinel.exists()
    for message in messages:
        assert cid in message and f"reminders:{tid}" in message, message
    assert bystander(hardened, other) == before
    assert hardened.server.health() == SERVING


def test_a_value_row_gone_is_data_loss_not_a_thread_without_it(hardened: Hardened, tid: str) -> None:
    # Reading a version whose messages row is missing must not answer with the
    # other channels only, as if the conversation were empty.
    cid = asking_thread(hardened, tid)
    key = f"reminders:{tid}"
    hardened.storage.drop_blob(key, "messages", hardened.storage.versions(key, cid)["messages"])
    for message in every_read_fails(hardened, tid, cid):
        assert cid in message and "'messages'" in message and "no row holds its value" in message, message
    assert hardened.server.health() == SERVING


def test_metadata_is_data_never_revived(hardened: Hardened, tid: str, sentinel: Path) -> None:
    cid = asking_thread(hardened, tid)
    evil = json.loads(constructor(str(sentinel)))
    hardened.storage.set_metadata(f"reminders:{tid}", cid, json.dumps({**evil, "source": "loop", "step": 1}))
    with hardened.client() as client:
        state = client.get_state("reminders", tid, timeout=10)
        assert state.metadata["type"] == "constructor" and state.metadata["id"] == ["os", "system"]
        assert client.history("reminders", tid, timeout=10)[0].metadata.get("lc") == 1
        # The thread goes on: the crafted metadata was inert data.
        assert client.resume("reminders", tid, "yes", timeout=10).reason is FinishReason.END
    assert not sentinel.exists()


@pytest.mark.parametrize(
    "text",
    ['{"source": "loop", "step": ', '[1, 2]', '{"source": "loop", "step": "1; DROP TABLE checkpoints"}'],
    ids=["not JSON", "not an object", "step not an integer"],
)
def test_malformed_metadata_is_data_loss(hardened: Hardened, tid: str, text: str) -> None:
    if hardened.kind == "postgres" and not text.endswith(("]", "}")):
        pytest.skip("PostgreSQL's jsonb column refuses text that is not JSON")
    cid = asking_thread(hardened, tid)
    hardened.storage.set_metadata(f"reminders:{tid}", cid, text)
    for message in every_read_fails(hardened, tid, cid):
        assert cid in message and "metadata" in message, message
