"""Issue 34's run options ``stream_mode="events"`` and ``config.tags``, against a live ``graphwire serve --http``
driven by the real ``langgraph-sdk``, on both runtimes (tests/http/_options_graphs.py).

The frames' shapes against LangGraph's own ``astream_events`` are tests/http/test_sse_events.py's; here a
served run streams its callback events beside other modes, its node sees the run's tags, and the events
are of the one real run: one run record, the versions of one run, the node run once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess, start_server_process
from tests.http._options_graphs import graph_args
from tests.http.conftest import sync_client
from tests.server._langgraph_graphs import served  # noqa: F401 - the runtime under test


@pytest.fixture(scope="module")
def options_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = Path(tmp_path_factory.mktemp("options"))
    graphs, args = graph_args(directory)
    srv = start_server_process(directory, graphs=graphs, http=True, args=args)
    yield srv
    assert srv.terminate() == 0, srv.log()


def test_events_stream_beside_values_from_the_one_run(options_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(options_server)
    name = served("tagged")
    thread = client.threads.create(graph_id=name)["thread_id"]
    label = f"ev-{name}"
    parts = list(client.runs.stream(thread, name, input={"label": label}, stream_mode=["events", "values"], config={"tags": ["t1", "t0"]}))
    assert parts[0].event == "metadata"
    run_id = parts[0].data["run_id"]
    events = [p.data for p in parts if p.event == "events"]
    values = [p.data for p in parts if p.event == "values"]
    assert values[-1] == {"label": label, "log": [["t0", "t1"], f"hi {label}"]}  # the node saw the run's tags
    # LangChain's events of the graph's run (named by the run's id), its node's and the chat model's tokens.
    assert (events[0]["event"], events[0]["name"], events[0]["run_id"]) == ("on_chain_start", name, run_id)
    assert events[0]["data"]["input"] == {"label": label}
    assert (events[-1]["event"], events[-1]["run_id"]) == ("on_chain_end", run_id)
    assert events[-1]["data"]["output"]["log"] == [["t0", "t1"], f"hi {label}"]
    assert [e["name"] for e in events if e["event"] == "on_chain_start"] == [name, "tagged"]
    tokens = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert "".join(t["content"] for t in tokens) == f"hi {label}" and {t["id"] for t in tokens} == {f"m-{label}"}
    assert all({"t1", "t0"} <= set(e["tags"]) for e in events)  # the run's tags on every callback event
    assert all(e["metadata"]["run_id"] == run_id and e["metadata"]["thread_id"] == thread for e in events)
    # One run: one record, the versions of one run (its input's and its two steps'), the node run once.
    runs = client.runs.list(thread)
    assert [(r["run_id"], r["status"]) for r in runs] == [(run_id, "success")]
    history = client.threads.get_history(thread)
    assert [(v["metadata"]["source"], v["metadata"]["step"]) for v in history] == [("loop", 1), ("loop", 0), ("input", -1)]
    assert (options_server.gates / f"ran-{label}").read_text() == "1"


def test_events_of_a_background_run_are_joined(options_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(options_server)
    name = served("tagged")
    thread = client.threads.create(graph_id=name)["thread_id"]
    run = client.runs.create(thread, name, input={"label": "bg"}, stream_mode=["events"], config={"tags": ["kept"]})
    assert run["kwargs"]["config"]["tags"] == ["kept"]  # where LangGraph's server keeps a run's tags
    parts = list(client.runs.join_stream(thread, run["run_id"], stream_mode="events"))
    events = [p.data for p in parts if p.event == "events"]
    assert events[0]["event"] == "on_chain_start" and events[-1]["event"] == "on_chain_end"
    assert client.runs.get(thread, run["run_id"])["kwargs"]["config"]["tags"] == ["kept"]
    assert client.threads.get_state(thread)["values"]["log"] == [["kept"], "hi bg"]


def test_an_assistants_tags_are_a_runs_unless_it_gives_its_own(options_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(options_server)
    name = served("tagged")
    bot = client.assistants.create(name, config={"tags": ["bot", "a"]}, name=f"tagged {name}")
    thread = client.threads.create(graph_id=name)["thread_id"]
    client.runs.wait(thread, bot["assistant_id"], input={"label": f"a1-{name}"})
    client.runs.wait(thread, bot["assistant_id"], input={"label": f"a2-{name}"}, config={"tags": ["mine"]})
    # As LangGraph's server: the assistant's tags when the run gives none; the run's own replace them.
    assert client.threads.get_state(thread)["values"]["log"] == [["a", "bot"], f"hi a1-{name}", ["mine"], f"hi a2-{name}"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.assistants.create(name, config={"tags": "bot"})
    assert refused.value.response.status_code == 422 and "config_json.tags" in refused.value.response.text


def test_a_run_without_events_sends_none(options_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(options_server)
    name = served("tagged")
    thread = client.threads.create(graph_id=name)["thread_id"]
    parts = list(client.runs.stream(thread, name, input={"label": "plain"}, stream_mode=["values", "updates"]))
    assert {p.event for p in parts} == {"metadata", "values", "updates"}
    assert [p.data for p in parts if p.event == "updates"] == [{"tagged": {"log": [[], "hi plain"]}}]


@pytest.mark.parametrize(
    ("tags", "message"),
    [("t", "config.tags: a list of strings"), ([1], "config.tags: a list of strings"), ([""], "config.tags: each tag is 1 to 256"),
     (["x"] * 65, "config.tags: 65 tags; a run has at most 64")],
)  # fmt: skip
def test_bad_tags_are_refused_by_name(options_server: ServerProcess, tags: Any, message: str) -> None:
    client = sync_client(options_server)
    thread = client.threads.create(graph_id="tagged")["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.wait(thread, "tagged", input={"label": "bad"}, config={"tags": tags})
    assert refused.value.response.status_code == 422 and message in refused.value.response.json()["detail"]
    assert client.runs.list(thread) == []  # nothing ran


def test_a_cancelled_run_with_events_ends_as_a_cancelled_run(options_server: ServerProcess, served: Callable[[str], str]) -> None:
    client = sync_client(options_server)
    name = served("waiting")
    thread = client.threads.create(graph_id=name)["thread_id"]
    run = client.runs.create(thread, name, input={"label": "c", "gate": f"never-{name}"}, stream_mode=["events", "values"])
    seen = []
    for part in client.runs.join_stream(thread, run["run_id"], stream_mode=["events", "values"]):
        seen.append(part)
        if part.event == "events" and (part.data["event"], part.data["name"]) == ("on_chain_start", "wait"):
            client.runs.cancel(thread, run["run_id"], wait=True)  # the node waits for a gate no one opens
    assert seen[-1].event == "error" and seen[-1].data["error"] == "UserInterrupt"
    assert client.runs.get(thread, run["run_id"])["status"] == "interrupted"
    # as LangGraph's server: cancelled with its node still due, the thread is interrupted (was idle)
    assert client.threads.get_state(thread)["next"] == ["wait"] and client.threads.get(thread)["status"] == "interrupted"
    options_server.open_gate("open")  # the thread is free again: a run after it runs
    assert client.runs.wait(thread, name, input={"label": "after", "gate": "open"})["log"] == ["after"]
