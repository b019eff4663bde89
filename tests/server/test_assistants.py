"""Assistants over gRPC (issue 33 item 5): records, versions, search, and runs that name one.

The server is test_langgraph_runtime_runs.py's (:func:`lg`, on SQLite and on
PostgreSQL), serving each graph on LangGraph and on the engine: a run that
names an assistant is tested on both runtimes (``served``). Its graphs'
default assistants are made at start, with the ids LangGraph's Agent Server
gives them.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from graphwire import AlreadyExists, FinishReason, InvalidArgument, NotFound, PermissionDenied  # noqa: E402

from tests.conftest import ServerProcess  # noqa: E402
from tests.server._langgraph_graphs import NAMES, backend, graph_args, served  # noqa: E402, F401 - the runtime and storage under test
from tests.server.test_langgraph_runtime_runs import lg  # noqa: E402, F401 - the module's server

#: The namespace of LangGraph's Agent Server's default assistant ids.
LANGGRAPH_NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")


def _mark() -> dict[str, str]:
    """Metadata no other test's assistants have (the module's server is shared)."""
    return {"test": uuid.uuid4().hex}


def test_each_graph_has_its_default_assistant_with_langgraphs_id(lg: ServerProcess) -> None:
    with lg.client() as client:
        found = client.assistants.search(metadata={"created_by": "system"}, limit=1000)
        default = client.assistants.get(str(uuid.uuid5(LANGGRAPH_NAMESPACE, "ask")))
    by_graph = {a.graph: a for a in found}
    assert set(NAMES) | {f"engine_{n}" for n in NAMES} <= set(by_graph)
    assert default.graph == "ask" and default.name == "ask" and default.version == 1
    assert (default.config, default.context, default.metadata) == ({}, {}, {"created_by": "system"})
    assert by_graph["ask"] == default


def test_create_update_versions_set_latest_and_delete(lg: ServerProcess) -> None:
    mark = _mark()
    with lg.client() as client:
        made = client.assistants.create("configured", {"configurable": {"who": "v1"}}, context={"user": "u"}, metadata=mark, name="Greeter")
        assert (made.version, made.name, made.description, made.config) == (1, "Greeter", None, {"configurable": {"who": "v1"}})
        with pytest.raises(AlreadyExists):
            client.assistants.create("configured", assistant_id=made.assistant_id)
        assert client.assistants.create("ask", assistant_id=made.assistant_id, if_exists="do_nothing") == made
        v2 = client.assistants.update(made.assistant_id, config={"configurable": {"who": "v2"}}, metadata={"tier": 2}, description="d")
        assert (v2.version, v2.config, v2.metadata, v2.description, v2.name) == (2, {"configurable": {"who": "v2"}}, {**mark, "tier": 2}, "d", "Greeter")
        assert v2.created_at == made.created_at and v2.updated_at >= made.updated_at
        assert [v.version for v in client.assistants.get_versions(made.assistant_id)] == [2, 1]
        assert [v.version for v in client.assistants.get_versions(made.assistant_id, metadata={"tier": 2})] == [2]
        back = client.assistants.set_latest(made.assistant_id, 1)
        assert back.version == 1 and client.assistants.get(made.assistant_id).config == {"configurable": {"who": "v1"}}
        with pytest.raises(NotFound):
            client.assistants.set_latest(made.assistant_id, 9)
        assert client.assistants.search(metadata=mark) == [client.assistants.get(made.assistant_id)]
        assert client.assistants.count(metadata=mark) == 1
        assert client.assistants.count(metadata=mark, graph="ask") == 0
        assert client.assistants.delete(made.assistant_id) is True
        assert client.assistants.delete(made.assistant_id) is False
        with pytest.raises(NotFound):
            client.assistants.get(made.assistant_id)


def test_search_orders_and_pages(lg: ServerProcess) -> None:
    mark = _mark()
    with lg.client() as client:
        ids = [client.assistants.create("gated", metadata=mark, name=f"Pager {i}").assistant_id for i in range(4)]
        newest_first = [a.assistant_id for a in client.assistants.search(metadata=mark)]
        by_name = [a.name for a in client.assistants.search(metadata=mark, sort_by="name", sort_order="asc", limit=2, offset=1)]
        named = client.assistants.search(name="pager 3", metadata=mark)
    assert newest_first == ids[::-1]
    assert by_name == ["Pager 1", "Pager 2"]
    assert [a.assistant_id for a in named] == [ids[3]]


def test_bad_requests_say_which_field(lg: ServerProcess) -> None:
    with lg.client() as client:
        with pytest.raises(NotFound, match="unknown graph 'nope'"):
            client.assistants.create("nope")
        with pytest.raises(InvalidArgument, match=r"config_json\.callbacks"):
            client.assistants.create("gated", {"callbacks": ["x"]})
        with pytest.raises(InvalidArgument, match=r"config_json\.configurable\.thread_id"):
            client.assistants.create("gated", {"configurable": {"thread_id": "t"}})
        with pytest.raises(InvalidArgument, match=r"config_json\.recursion_limit"):
            client.assistants.create("gated", {"recursion_limit": 0})
        made = client.assistants.create("gated", metadata=_mark())
        with pytest.raises(InvalidArgument, match="sets nothing"):
            client.assistants.update(made.assistant_id)
        with pytest.raises(NotFound):
            client.assistants.update("no-such-assistant", name="x")


def test_a_run_that_names_an_assistant_takes_its_defaults_and_the_calls_values_win(
    lg: ServerProcess, thread_id: str, served: Callable[[str], str]
) -> None:
    with lg.client() as client:
        bot = client.assistants.create(served("configured"), {"configurable": {"who": "assistant"}}, context={"user": "a-user"}, metadata=_mark())
        plain = client.invoke("", thread_id, {"log": []}, assistant_id=bot.assistant_id, timeout=30)
        mine = client.invoke("", f"{thread_id}-2", {"log": []}, assistant_id=bot.assistant_id, configurable={"who": "caller"}, timeout=30)
        history = client.history(served("configured"), thread_id)
        by_graph_name = client.invoke("", f"{thread_id}-3", {"log": []}, assistant_id=served("configured"), configurable={"who": "x"}, timeout=30)
        with pytest.raises(InvalidArgument, match="runs graph"):
            client.invoke(served("gated"), thread_id, {"log": []}, assistant_id=bot.assistant_id, timeout=30)
        with pytest.raises(NotFound, match="no assistant"):
            client.invoke("", thread_id, {"log": []}, assistant_id="missing", timeout=30)
        client.assistants.update(bot.assistant_id, config={"configurable": {"who": "second"}})
        later = client.invoke(served("configured"), f"{thread_id}-4", {"log": []}, assistant_id=bot.assistant_id, timeout=30)
    assert plain.reason is FinishReason.END and plain.values["log"] == ["assistant", "a-user"]
    assert mine.values["log"] == ["caller", "a-user"]
    assert {s.metadata.get("assistant_id") for s in history} == {bot.assistant_id}
    assert by_graph_name.values["log"] == ["x", "None"]  # the graph's default assistant: no defaults
    assert later.values["log"] == ["second", "a-user"]


def test_a_resume_and_a_fork_name_the_assistant_too(lg: ServerProcess, thread_id: str, served: Callable[[str], str]) -> None:
    with lg.client() as client:
        bot = client.assistants.create(served("ask"), {"recursion_limit": 50}, metadata=_mark())
        paused = client.invoke("", thread_id, {"log": []}, assistant_id=bot.assistant_id, timeout=30)
        assert paused.reason is FinishReason.INTERRUPT
        done = client.resume("", thread_id, "yes", assistant_id=bot.assistant_id, timeout=30)
        first = client.history(served("ask"), thread_id)[-1]
        forked = client.fork("", thread_id, first.checkpoint.checkpoint_id, assistant_id=bot.assistant_id, timeout=30)
    assert done.reason is FinishReason.END
    assert forked.reason is FinishReason.INTERRUPT


def test_tenants_have_their_own_assistants_and_share_the_defaults(
    start_server: Any, tmp_path: Path, backend: dict[str, Any]
) -> None:
    graphs, args = graph_args(tmp_path)
    tokens = tmp_path / "tokens.toml"
    tokens.write_text('acme = "acme-token-0123456789"\nbeta = "beta-token-0123456789"\n')
    srv = start_server(graphs=graphs, args=[*args, "--auth-tokens", str(tokens)], **backend)
    default = str(uuid.uuid5(LANGGRAPH_NAMESPACE, "gated"))
    with srv.client(token="acme-token-0123456789") as acme, srv.client(token="beta-token-0123456789") as beta:
        mine = acme.assistants.create("gated", name="Acme's", assistant_id="shared-name")
        with pytest.raises(NotFound):
            beta.assistants.get(mine.assistant_id)
        theirs = beta.assistants.create("gated", name="Beta's", assistant_id="shared-name")  # the same id: its own
        assert acme.assistants.get("shared-name").name == "Acme's" and theirs.name == "Beta's"
        assert {a.name for a in beta.assistants.search(graph="gated")} == {"Beta's", "gated"}
        assert beta.assistants.get(default).graph == "gated"
        with pytest.raises(PermissionDenied):
            beta.assistants.update(default, name="taken over")
        with pytest.raises(PermissionDenied):
            beta.assistants.delete(default)
        with pytest.raises(AlreadyExists):  # a tenant's own may not hide a shared one
            beta.assistants.create("ask", assistant_id=default)
        assert beta.assistants.create("ask", assistant_id=default, if_exists="do_nothing").graph == "gated"
        ran = beta.invoke("", "t1", {"gate": None, "label": "b"}, assistant_id=default, timeout=30)
        assert ran.reason is FinishReason.END
        assert acme.assistants.delete("shared-name") is True
        assert beta.assistants.get("shared-name").name == "Beta's"
