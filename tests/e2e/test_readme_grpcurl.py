"""The grpcurl commands of the README and the docs, run as grpcurl runs them: the descriptors
come from the server's reflection service (no stubs), the request is the
README's JSON body parsed with the proto3 JSON mapping, and each response is
printed with that mapping. Values must read as JSON text on the way in and
out (no base64), integers exact, and step 0 must show."""

from __future__ import annotations

import json
import re
from typing import Any

from tests._readme import blocks, grpcurl, grpcurl_commands, pages

FIRST_SCREEN = "From a clone to your own graph"  # its grpcurl call: tests/e2e/test_readme_first_screen.py


def readme_grpcurl_commands() -> list[tuple[str, str]]:
    """The grpcurl commands of every section but the first screen, in README then docs order."""
    headings = [h for page in pages() for h in re.findall(r"^## (.+)$", page.read_text("utf-8"), re.MULTILINE)]
    return [c for h in headings if h != FIRST_SCREEN for code in blocks(h, "sh") for c in grpcurl_commands(code)]


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
