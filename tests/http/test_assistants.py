"""Assistants over LangGraph's HTTP API, driven by the real ``langgraph-sdk`` (sync and async clients).

Create, get, patch (a new version), versions, latest, search (filters,
sort, select, the next page's header), count, delete; the default assistant
of each graph; the drawing, schemas and subgraphs of an assistant's graph;
and the errors as the SDK raises them (404, 409, 422 naming the field).
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from langgraph_sdk.errors import ConflictError, NotFoundError, UnprocessableEntityError

from engine.host import default_assistant_id
from tests.conftest import ServerProcess
from tests.http.conftest import async_client, sync_client

DEFAULT_CHAIN3 = default_assistant_id("chain3")


def test_create_get_patch_versions_latest_delete(served: ServerProcess) -> None:
    client = sync_client(served)
    name = f"bot-{uuid.uuid4().hex[:8]}"
    made = client.assistants.create("chain3", config={"configurable": {"who": "a"}}, metadata={"team": name}, name=name, description="first")
    assert made["graph_id"] == "chain3" and made["version"] == 1 and made["name"] == name
    assert made["config"] == {"configurable": {"who": "a"}} and made["metadata"] == {"team": name} and made["description"] == "first"
    assert client.assistants.get(made["assistant_id"]) == made
    patched = client.assistants.update(made["assistant_id"], config={"configurable": {"who": "b"}}, name=f"{name}-2")
    assert patched["version"] == 2 and patched["config"] == {"configurable": {"who": "b"}} and patched["name"] == f"{name}-2"
    versions = client.assistants.get_versions(made["assistant_id"])
    assert [v["version"] for v in versions] == [2, 1] and versions[1]["config"] == {"configurable": {"who": "a"}}
    assert all("updated_at" not in v for v in versions)  # as LangGraph's AssistantVersion: made once, never changed
    back = client.assistants.set_latest(made["assistant_id"], 1)
    assert back["version"] == 1 and back["name"] == name and client.assistants.get(made["assistant_id"])["version"] == 1
    client.assistants.delete(made["assistant_id"])
    with pytest.raises(NotFoundError) as missing:
        client.assistants.get(made["assistant_id"])
    assert missing.value.body == {"detail": f"no assistant {made['assistant_id']!r}"}


def test_search_count_and_paging(served: ServerProcess) -> None:
    client = sync_client(served)
    team = uuid.uuid4().hex
    ids = [client.assistants.create("gated", name=f"s{i}", metadata={"team": team})["assistant_id"] for i in range(3)]
    found = client.assistants.search(metadata={"team": team}, sort_by="name", sort_order="asc")
    assert [a["name"] for a in found] == ["s0", "s1", "s2"] and {a["assistant_id"] for a in found} == set(ids)
    assert client.assistants.count(metadata={"team": team}) == 3
    assert client.assistants.count(metadata={"team": team}, graph_id="chain3") == 0
    page = client.assistants.search(metadata={"team": team}, limit=2, sort_by="name", sort_order="asc", response_format="object")
    assert [a["name"] for a in page["assistants"]] == ["s0", "s1"] and page["next"] == "2"
    rest = client.assistants.search(metadata={"team": team}, limit=2, offset=2, sort_by="name", sort_order="asc")
    assert [a["name"] for a in rest] == ["s2"]
    narrow = client.assistants.search(metadata={"team": team}, select=["assistant_id", "graph_id"], limit=1)
    assert set(narrow[0]) == {"assistant_id", "graph_id"}


def test_default_assistants_and_conflicts(served: ServerProcess) -> None:
    client = sync_client(served)
    default = client.assistants.get(DEFAULT_CHAIN3)  # LangGraph's id for a graph's default assistant
    assert default["graph_id"] == "chain3" and default["metadata"] == {"created_by": "system"}
    mine = str(uuid.uuid4())
    client.assistants.create("chain3", assistant_id=mine)
    with pytest.raises(ConflictError):
        client.assistants.create("chain3", assistant_id=mine)
    again = client.assistants.create("chain3", assistant_id=mine, if_exists="do_nothing")
    assert again["assistant_id"] == mine
    with pytest.raises(NotFoundError) as unknown:
        client.assistants.create("no_such_graph")
    assert "unknown graph 'no_such_graph'" in unknown.value.body["detail"]


def test_refused_bodies_name_the_field(served: ServerProcess) -> None:
    client = sync_client(served)
    with pytest.raises(UnprocessableEntityError) as extra:
        client.http.post("/assistants", json={"graph_id": "chain3", "temperature": 1})
    assert extra.value.body == {"detail": "body.temperature: unknown field (graphwire refuses options it does not apply)"}
    with pytest.raises(UnprocessableEntityError) as wrong:
        client.http.post("/assistants/search", json={"limit": "many"})
    assert wrong.value.body["detail"].startswith("body.limit: ")
    with pytest.raises(UnprocessableEntityError) as missing:
        client.http.post("/assistants", json={})
    assert missing.value.body == {"detail": "body.graph_id: required"}
    with pytest.raises(UnprocessableEntityError) as checked:  # the gRPC side's own check, same words
        client.assistants.create("chain3", config={"callbacks": ["x"]})
    assert "config_json.callbacks" in checked.value.body["detail"]
    with pytest.raises(UnprocessableEntityError) as named:  # a graph's name names its default assistant
        client.assistants.create("chain3", assistant_id="chain3")
    assert "is a graph's name" in named.value.body["detail"]


def test_graph_schemas_subgraphs(served: ServerProcess) -> None:
    client = sync_client(served)
    drawn = client.assistants.get_graph(DEFAULT_CHAIN3)  # the graph's own to_json(), as LangGraph's server draws it
    assert drawn["nodes"][:2] == [
        {"id": "__start__", "type": "runnable", "data": {"name": "__start__"}}, {"id": "a", "type": "runnable", "data": {"name": "a"}},
    ]  # fmt: skip
    assert [n["id"] for n in drawn["nodes"]] == ["__start__", "a", "b", "c", "__end__"] and drawn["nodes"][-1] == {"id": "__end__"}
    assert [(e["source"], e["target"]) for e in drawn["edges"]] == [("__start__", "a"), ("a", "b"), ("b", "c"), ("c", "__end__")]
    with pytest.raises(UnprocessableEntityError, match="Invalid xray value"):
        client.assistants.get_graph(DEFAULT_CHAIN3, xray=0)
    flat = client.assistants.get_graph("schemed")  # a graph's name: its default assistant
    assert "inner:count" not in [n["id"] for n in flat["nodes"]]
    deep = client.assistants.get_graph("schemed", xray=True)
    assert "inner:count" in [n["id"] for n in deep["nodes"]]
    schemas = client.assistants.get_schemas("schemed")
    assert schemas["graph_id"] == "schemed"
    assert set(schemas["input_schema"]["properties"]) == {"topic", "log", "n"}
    assert set(schemas["context_schema"]["properties"]) == {"user"}
    # The two LangGraph's server makes itself: the state as optional output channels, titled by the served
    # name (the graph has LangGraph's default one); the configurable's, which is the context schema's.
    state = schemas["state_schema"]
    assert (state["title"], set(state["properties"]), state.get("required")) == ("schemed_state", {"topic", "log", "n"}, None)
    assert (schemas["config_schema"]["title"], set(schemas["config_schema"]["properties"])) == ("Who", {"user"})
    subgraphs = client.assistants.get_subgraphs("schemed")  # named by their own names, without a graph_id
    assert list(subgraphs) == ["inner"] and set(subgraphs["inner"]["input_schema"]["properties"]) == {"n"}
    assert "graph_id" not in subgraphs["inner"] and subgraphs["inner"]["state_schema"]["title"] == "LangGraphState"
    assert client.assistants.get_subgraphs(DEFAULT_CHAIN3) == {}


def test_a_graph_named_by_its_author_keeps_its_name(served: ServerProcess) -> None:
    """As LangGraph's server: `compile(name=...)` names the default assistant and the schemas; only a graph
    left with LangGraph's default name is named by the name it is served under."""
    client = sync_client(served)
    (default,) = client.assistants.search(graph_id="named")
    assert default["name"] == "Counting Graph" and default["metadata"] == {"created_by": "system"}
    schemas = client.assistants.get_schemas(default["assistant_id"])
    titles = [schemas[k]["title"] for k in ("input_schema", "output_schema", "state_schema")]
    assert titles == ["CounterState", "CounterState", "Counting GraphState"]  # a TypedDict state's own name, as LangGraph's
    assert client.runs.wait(None, "named", input={"n": 1}) == {"n": 2}
    (plain,) = client.assistants.search(graph_id="schemed")
    assert plain["name"] == "schemed"


def test_async_client(served: ServerProcess) -> None:
    async def main() -> None:
        client = async_client(served)
        made = await client.assistants.create("gated", name="async one")
        assert (await client.assistants.get(made["assistant_id"]))["name"] == "async one"
        assert (await client.assistants.update(made["assistant_id"], metadata={"k": 1}))["version"] == 2
        await client.assistants.delete(made["assistant_id"])
        with pytest.raises(NotFoundError):
            await client.assistants.delete(made["assistant_id"])

    asyncio.run(main())
