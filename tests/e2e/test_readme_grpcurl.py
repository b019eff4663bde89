"""The README's grpcurl commands, run as grpcurl runs them: the descriptors
come from the server's reflection service (no stubs), the request is the
README's JSON body parsed with the proto3 JSON mapping, and each response is
printed with that mapping. Values must read as JSON text on the way in and
out (no base64), integers exact, and step 0 must show."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_grpcurl_commands() -> list[tuple[str, str]]:
    """(JSON body, full method name) of each grpcurl command in the README's sh blocks."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text("utf-8"), re.DOTALL):
        for command in block.replace("\\\n", " ").splitlines():
            words = shlex.split(command)
            if words[:1] != ["grpcurl"]:
                continue
            body = words[words.index("-d") + 1]
            commands.append((body, words[-1]))
    return commands


def grpcurl(channel: grpc.Channel, method: str, body: str) -> list[str]:
    """What ``grpcurl -d BODY ADDRESS METHOD`` prints: one JSON text per response message."""
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    service_name, method_name = method.rsplit("/", 1)
    rpc = pool.FindServiceByName(service_name).FindMethodByName(method_name)
    request_class = message_factory.GetMessageClass(rpc.input_type)
    response_class = message_factory.GetMessageClass(rpc.output_type)
    request = json_format.Parse(body, request_class())
    call = (channel.unary_stream if rpc.server_streaming else channel.unary_unary)(
        f"/{service_name}/{method_name}",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=response_class.FromString,
    )
    replies = call(request, timeout=30)
    return [json_format.MessageToJson(m) for m in (replies if rpc.server_streaming else [replies])]


def test_the_readme_grpcurl_conversation_reads_as_json(server: Any, thread_id: str) -> None:
    commands = [(b, m) for b, m in readme_grpcurl_commands() if m.endswith(("/Invoke", "/Resume"))]
    assert [m for _, m in commands] == ["graphwire.v1.GraphService/Invoke", "graphwire.v1.GraphService/Resume"]
    with server.channel() as channel:
        outputs = []
        for body, method in commands:
            assert "base64" not in body
            request = json.loads(body)
            request["thread_id"] = thread_id  # the README says t1; other tests share this server
            outputs.append(grpcurl(channel, method, json.dumps(request)))

    asked, answered = ([json.loads(text) for text in out] for out in outputs)
    # The question and the state are readable text in the printed JSON...
    finished = asked[-1]["runFinished"]
    assert finished["reason"] == "FINISH_REASON_INTERRUPT"
    (interrupt,) = finished["interrupts"]
    assert interrupt["valueJson"] == '"Add a reminder to call mom at 5pm?"'
    assert interrupt["node"] == "ask_user" and interrupt["interruptId"]
    values = json.loads(finished["valuesJson"])
    assert values["messages"][0]["content"] == "remind me to call mom at 5pm"
    # ...and step 0 is printed, not left out as a default value.
    steps = [e["stepStarted"]["step"] for e in asked if "stepStarted" in e]
    assert steps[0] == 0
    assert any('"step": 0' in text for text in outputs[0])

    done = answered[-1]["runFinished"]
    assert done["reason"] == "FINISH_REASON_END"
    assert json.loads(done["valuesJson"])["messages"][-1]["content"] == "Done: I'll remind you to call mom at 5pm."
    assert all(isinstance(e["seq"], int) for e in asked + answered)  # a number, not a string (no 64-bit ints)


def test_the_readme_grpcurl_store_commands_write_and_find_a_memory(server: Any, thread_id: str) -> None:
    commands = [(b, m) for b, m in readme_grpcurl_commands() if not m.endswith(("/Invoke", "/Resume"))]
    assert [m for _, m in commands] == ["graphwire.v1.GraphService/PutItem", "graphwire.v1.GraphService/SearchItems"]
    with server.channel() as channel:
        outputs = []
        for body, method in commands:
            request = json.loads(body)
            for field in ("namespace", "namespace_prefix"):
                if field in request:
                    request[field][1] = thread_id  # the README says user-42; other tests share this server
            outputs.append(grpcurl(channel, method, json.dumps(request)))
    put, (found,) = outputs
    assert put == ["{}"]
    (item,) = json.loads(found)["items"]
    assert item["namespace"] == ["memories", thread_id] and item["key"] == "tea"
    assert json.loads(item["valueJson"]) == {"text": "likes tea"}


def test_integers_past_a_double_cross_the_json_mapping_exactly(server: Any, thread_id: str) -> None:
    big = 2**70 + 1
    body = json.dumps({"graph": "chain3", "thread_id": thread_id, "input_json": json.dumps({"n": big})})
    with server.channel() as channel:
        (last,) = [json.loads(t) for t in grpcurl(channel, "graphwire.v1.GraphService/Invoke", body)][-1:]
    assert json.loads(last["runFinished"]["valuesJson"])["n"] == big + 3  # chain3 adds 1 three times
