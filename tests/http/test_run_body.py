"""A LangGraph run body read into the run call graphwire makes (server/http/_run_body.py): pure, no server."""

from __future__ import annotations

import json

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb

from server._errors import RpcError
from server.http._run_body import parse_run_body


def test_every_option_lands_on_the_run_call() -> None:
    body = {
        "assistant_id": "agent", "input": {"messages": [{"role": "user", "content": "hi"}]},
        "stream_mode": ["values", "messages-tuple"], "stream_subgraphs": True, "stream_resumable": True,
        "config": {"configurable": {"model": "m", "thread_id": "t-1"}, "recursion_limit": 7, "metadata": {"a": 1}, "tags": []},
        "context": {"user_id": "u"}, "metadata": {"b": 2}, "interrupt_before": ["tools"], "interrupt_after": "*",
        "checkpoint": {"checkpoint_id": "c-1", "checkpoint_ns": ""}, "multitask_strategy": "rollback",
        "if_not_exists": "reject", "on_disconnect": "continue", "durability": "sync", "webhook": None,
    }  # fmt: skip
    run = parse_run_body(body, "t-1")
    r = run.request
    assert isinstance(r, pb.InvokeRequest)
    assert (r.thread_id, r.assistant_id, r.checkpoint_id) == ("t-1", "agent", "c-1")
    assert json.loads(r.input_json) == body["input"]
    assert json.loads(r.config.configurable_json) == {"model": "m"}  # the thread is the path's
    assert r.config.recursion_limit == 7 and r.config.durability == pb.DURABILITY_SYNC
    assert json.loads(r.config.metadata_json) == {"a": 1, "b": 2} and json.loads(r.config.context_json) == {"user_id": "u"}
    assert list(r.config.interrupt_before) == ["tools"] and list(r.config.interrupt_after) == ["*"]
    assert r.multitask_strategy == pb.MULTITASK_STRATEGY_ROLLBACK and r.on_disconnect == pb.ON_DISCONNECT_CONTINUE
    assert r.request_id.startswith("http-")  # a resumable stream's run keeps its events
    assert set(r.event_kinds) >= {pb.EVENT_KIND_VALUES, pb.EVENT_KIND_MESSAGE_CHUNK}
    assert (run.modes, run.subgraphs, run.resumable, run.if_not_exists, run.on_completion) == (
        ("values", "messages-tuple"), True, True, "reject", "keep",
    )


def test_a_resume_answers_the_pending_interrupt_or_each_by_id() -> None:
    one = parse_run_body({"assistant_id": "a", "command": {"resume": "yes"}}, "t").request
    assert isinstance(one, pb.ResumeRequest) and one.resume_json == '"yes"'
    ids = {"0" * 32: "first", "f" * 32: {"ok": True}}
    by_id = parse_run_body({"assistant_id": "a", "command": {"resume": ids}}, "t").request
    assert isinstance(by_id, pb.ResumeRequest)
    assert {k: json.loads(v) for k, v in by_id.resumes_json.items()} == ids
    plain = parse_run_body({"assistant_id": "a", "command": {"resume": {"answer": 1}}}, "t").request
    assert isinstance(plain, pb.ResumeRequest) and json.loads(plain.resume_json) == {"answer": 1}


def test_a_command_with_update_or_goto_is_an_invoke_carrying_it_whole() -> None:
    command = {"update": {"x": 1}, "goto": ["b"], "resume": "yes"}
    run = parse_run_body({"assistant_id": "a", "command": command, "checkpoint_id": "c1"}, "t").request
    assert isinstance(run, pb.InvokeRequest) and json.loads(run.command_json) == command
    assert run.checkpoint_id == "c1" and not run.input_json
    empty = parse_run_body({"assistant_id": "a", "command": {"resume": None, "goto": "b", "update": None}}, "t").request
    assert isinstance(empty, pb.InvokeRequest) and json.loads(empty.command_json) == {"goto": "b"}


def test_a_stateless_run_deletes_its_thread_unless_kept() -> None:
    assert parse_run_body({"assistant_id": "a"}, "t", stateless=True).on_completion == "delete"
    assert parse_run_body({"assistant_id": "a", "on_completion": "keep"}, "t", stateless=True).on_completion == "keep"


def test_a_webhook_is_kept_and_needs_a_run_record_that_outlives_the_run() -> None:
    assert parse_run_body({"assistant_id": "a", "webhook": "https://x/hook"}, "t").webhook == "https://x/hook"
    kept = parse_run_body({"assistant_id": "a", "webhook": "http://x/", "on_completion": "keep"}, "t", stateless=True)
    assert kept.webhook == "http://x/"
    with pytest.raises(RpcError, match="on_completion='keep'"):
        parse_run_body({"assistant_id": "a", "webhook": "http://x/"}, "t", stateless=True)
    assert parse_run_body({"assistant_id": "a"}, "t", background=True).request.background


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "assistant_id"),
        ({"assistant_id": "a", "nope": 1}, "nope: not a field"),
        ({"assistant_id": "a", "webhook": "ftp://x"}, "webhook: an http:// or https:// URL"),
        ({"assistant_id": "a", "webhook": 3}, "webhook: an http:// or https:// URL"),
        ({"assistant_id": "a", "after_seconds": -3}, "after_seconds: a number of seconds"),
        ({"assistant_id": "a", "feedback_keys": ["k"]}, "feedback_keys"),
        ({"assistant_id": "a", "stream_mode": ["values", "nope"]}, "stream_mode 'nope' is not a stream mode"),
        ({"assistant_id": "a", "command": {"update": {"x": 1}, "jump": "b"}}, "command.jump: not a command field"),
        ({"assistant_id": "a", "command": {"resume": 1}, "input": {}}, "input: give input or command"),
        ({"assistant_id": "a", "config": {"run_name": "x"}}, "config.run_name"),
        ({"assistant_id": "a", "config": {"tags": "t"}}, "config.tags: a list of strings"),
        ({"assistant_id": "a", "config": {"recursion_limit": 0}}, "config.recursion_limit"),
        ({"assistant_id": "a", "config": {"configurable": {"thread_id": "other"}}}, "config.configurable.thread_id"),
        ({"assistant_id": "a", "multitask_strategy": "later"}, "multitask_strategy: 'later'"),
        ({"assistant_id": "a", "durability": "never"}, "durability"),
        ({"assistant_id": "a", "checkpoint": {"checkpoint_ns": "sub:1"}}, "checkpoint.checkpoint_ns"),
        ({"assistant_id": "a", "on_completion": "delete"}, "on_completion"),
        ({"assistant_id": "a", "durability": "sync", "checkpoint_during": True}, "checkpoint_during"),
    ],
)
def test_a_field_not_honoured_is_refused_by_name(body: dict[str, object], field: str) -> None:
    with pytest.raises(RpcError) as refused:
        parse_run_body(body, "t")
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert field in refused.value.message
