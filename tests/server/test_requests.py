"""server._requests: requests → engine arguments, pure, driven with plain messages;
the reads raise engine errors; ServerConfig checks PostgreSQL settings once."""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb

from engine import events as ev
from engine.checkpoint import InMemorySaver
from engine.errors import NotFoundError
from server import _requests as req
from server._errors import RpcError, status_for
from server._reads import Reads
from server._registry import GraphEntry
from server.config import ServerConfig, check_postgres, load_config
from tests.graphs import chain3

DSN = "postgresql://root@127.0.0.1:5432/test"


def _bad(call: object, *args: object, **kwargs: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(RpcError) as failed:
        call(*args, **kwargs)  # type: ignore[operator]
    return failed.value.code, failed.value.message


def test_config_is_the_one_shape_of_a_call_on_a_thread() -> None:
    assert req.config("g:t") == {"configurable": {"thread_id": "g:t"}}
    assert req.config("g:t", "c1", checkpoint_ns="sub:1", recursion_limit=5, metadata={"a": 1}) == {
        "configurable": {"thread_id": "g:t", "checkpoint_ns": "sub:1", "checkpoint_id": "c1"},
        "recursion_limit": 5,
        "metadata": {"a": 1},
    }


def test_run_config_takes_the_request_over_the_servers_default() -> None:
    rc = pb.RunConfig(recursion_limit=3, metadata_json=json.dumps({"who": "me"}))
    assert req.run_config("g:t", "c1", rc, default_recursion_limit=50) == {
        "configurable": {"thread_id": "g:t", "checkpoint_id": "c1"},
        "recursion_limit": 3,
        "metadata": {"who": "me"},
    }
    assert req.run_config("g:t", None, None, default_recursion_limit=50) == {"configurable": {"thread_id": "g:t"}, "recursion_limit": 50}
    assert _bad(req.run_config, "g:t", None, pb.RunConfig(recursion_limit=0), default_recursion_limit=None) == (
        grpc.StatusCode.INVALID_ARGUMENT, "config.recursion_limit: must be at least 1",
    )  # fmt: skip
    code, message = _bad(req.run_config, "g:t", None, pb.RunConfig(metadata_json=json.dumps({"x": "y" * 70_000})), default_recursion_limit=None)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and message.startswith("config.metadata_json: ")


def test_run_options_name_the_bad_field() -> None:
    graph = chain3.compile()
    wanted, opts = req.run_options(graph, pb.RunConfig(durability=pb.DURABILITY_SYNC), [pb.EVENT_KIND_VALUES])
    assert wanted == {ev.ValuesEvent, ev.RunStarted, ev.RunFinished} and opts == {"durability": "sync"}
    assert req.run_options(graph, None, []) == (None, {})
    assert _bad(req.run_options, graph, pb.RunConfig(interrupt_before=["zzz"]), []) == (
        grpc.StatusCode.INVALID_ARGUMENT, "config.interrupt_before: unknown node 'zzz'",
    )  # fmt: skip
    assert _bad(req.run_options, graph, None, [99])[1] == "event_kinds: unknown event kind 99"


def test_resume_answers_are_one_answer_or_a_map_never_both() -> None:
    assert req.resume_answers(pb.ResumeRequest(resume_json='"yes"')) == {"answer": "yes"}
    assert req.resume_answers(pb.ResumeRequest(resumes_json={"i1": "1"})) == {"answers": {"i1": 1}}
    assert _bad(req.resume_answers, pb.ResumeRequest(resume_json="1", resumes_json={"i": "1"}))[1].startswith("resumes_json: ")
    assert _bad(req.resume_answers, pb.ResumeRequest())[1].startswith("resume_json: required")


def test_ids_namespaces_and_filters() -> None:
    assert req.ident("t", "thread_id") == "t"
    assert _bad(req.ident, "", "thread_id")[1] == "thread_id: required"
    assert _bad(req.ident, "a\x00b", "graph")[1] == "graph: must not contain NUL"
    assert req.namespace("sub:1|inner:2") == "sub:1|inner:2"
    assert "not a subgraph namespace" in _bad(req.namespace, "sub:")[1]
    assert req.history_filter(pb.ListHistoryRequest(filter_json='{"source": "loop"}')) == {"source": "loop"}
    assert req.history_filter(pb.ListHistoryRequest()) is None
    assert _bad(req.history_filter, pb.ListHistoryRequest(filter_json='{"a": [1]}'))[1].startswith("filter_json: value of 'a'")


def test_reads_raise_engine_errors_that_the_one_table_maps() -> None:
    saver = InMemorySaver()
    graph = chain3.compile(checkpointer=saver)
    reads = Reads({"chain": GraphEntry("chain", "tests.graphs:chain3", graph, "")}, saver, max_history=10)
    with pytest.raises(NotFoundError) as unknown:
        reads.graph("nope")
    assert status_for(unknown.value) == (grpc.StatusCode.NOT_FOUND, "unknown graph 'nope' (this server runs: chain)")
    with pytest.raises(NotFoundError, match="thread 'missing' does not exist in graph 'chain'"):
        asyncio.run(reads.state("chain", "missing"))
    with pytest.raises(NotFoundError, match="thread 'missing' has no checkpoint 'c1'"):
        asyncio.run(reads.saved("chain", "missing", "c1"))


def test_postgres_settings_are_checked_once_in_the_config() -> None:
    assert load_config(None, {"checkpointer": DSN, "pg_schema": "gw"}, environ={}).schema_for(DSN) == "gw"
    cfg = load_config(None, {"checkpointer": "x.db", "store": DSN, "pg_schema": "gw"}, environ={})
    assert (cfg.schema_for(cfg.checkpointer), cfg.schema_for(cfg.store_spec())) == (None, "gw")
    with pytest.raises(ValueError, match="pg_schema must be a PostgreSQL identifier"):
        load_config(None, {"checkpointer": DSN, "pg_schema": "1; drop"}, environ={})
    with pytest.raises(ValueError, match="lease_seconds"):
        check_postgres(ServerConfig(checkpointer=DSN, lease_seconds=0))
    with pytest.raises(ValueError, match="pg_schema applies to a postgresql:// checkpointer or store or node cache only"):
        check_postgres(ServerConfig(checkpointer="x.db", pg_schema="gw"))
