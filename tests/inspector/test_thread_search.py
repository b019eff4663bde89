"""The inspector's thread list reads the thread records (issue 33 item 6): each thread's status and
metadata, and a search by metadata (contained in theirs) and status, through ``/api/threads`` and
the page's search box."""

from __future__ import annotations

import json
import uuid
from urllib.parse import quote

from tests.conftest import ServerProcess
from tests.inspector._browser import Page
from tests.inspector.conftest import api
from tests.inspector.test_page import open_page


def _q(**params: str) -> str:
    return "?" + "&".join(f"{k}={quote(v)}" for k, v in params.items())


def test_the_list_shows_status_and_metadata_and_searches(inspected: ServerProcess) -> None:
    tag = uuid.uuid4().hex[:8]
    with inspected.client() as client:
        client.threads.create("chain3", f"a-{tag}", metadata={"tag": tag, "user": "ann"})
        client.invoke("chain3", f"a-{tag}", {"n": 1})
        client.threads.create("chain3", f"b-{tag}", metadata={"tag": tag, "user": "bob"})
        client.invoke("questions", f"q-{tag}", {})
        client.threads.update("questions", f"q-{tag}", metadata={"tag": tag})
    listed = {t["thread_id"]: t for t in api(inspected, "/api/threads" + _q(graph="chain3", limit="1000"))[1]["threads"]}
    assert listed[f"a-{tag}"]["status"] == "idle" and listed[f"a-{tag}"]["metadata"] == {"tag": tag, "user": "ann"}
    assert listed[f"a-{tag}"]["checkpoint_id"]  # the listing of versions, as before
    assert listed[f"a-{tag}"]["label"] == "ann"  # the record's metadata names the thread on the page
    status, body, _ = api(inspected, "/api/threads" + _q(graph="chain3", metadata=json.dumps({"tag": tag})))
    assert status == 200 and [t["thread_id"] for t in body["threads"]] == [f"b-{tag}", f"a-{tag}"]  # newest update first
    assert body["threads"][0]["checkpoint_id"] is None and body["threads"][0]["metadata"]["user"] == "bob"
    one = api(inspected, "/api/threads" + _q(graph="chain3", metadata=json.dumps({"tag": tag, "user": "ann"})))[1]["threads"]
    assert [t["thread_id"] for t in one] == [f"a-{tag}"]
    asked = api(inspected, "/api/threads" + _q(graph="questions", status="interrupted", metadata=json.dumps({"tag": tag})))[1]
    assert [(t["thread_id"], t["waiting"]["value"]) for t in asked["threads"]] == [(f"q-{tag}", "first?")]
    for bad in (_q(graph="chain3", metadata="[1]"), _q(graph="chain3", metadata="{nope"), _q(graph="chain3", status="sleepy")):
        status, body, _ = api(inspected, "/api/threads" + bad)
        assert status == 400, body
    assert api(inspected, "/api/threads" + _q(graph="nope", status="idle"))[0] == 404



def test_the_page_searches_threads_by_metadata_and_shows_their_status(page: Page, inspected: ServerProcess) -> None:
    tag = uuid.uuid4().hex[:8]
    with inspected.client() as client:
        for who in ("ann", "bob"):
            client.threads.create("chain3", f"{who}-{tag}", metadata={"tag": tag, "user": who})
            client.invoke("chain3", f"{who}-{tag}", {"n": 1})
    page.problems()  # what earlier pages said is theirs
    open_page(page, inspected, "#graph=chain3")
    item = f'#threads li[data-thread="ann-{tag}"]'
    page.wait(f"() => document.querySelector('{item} .meta')?.textContent.includes('ann')", what="its metadata")
    assert page.eval(f"() => document.querySelector('{item} .status').textContent") == "idle"
    assert page.eval(f"() => document.querySelector('{item} .thread-id').textContent") == "ann"  # its label, not its id
    search = json.dumps({"tag": tag, "user": "bob"})
    page.eval(
        "(q) => { const f = document.getElementById('search-threads'); f.elements.metadata.value = q; f.requestSubmit(); }", search
    )
    page.wait("() => document.querySelectorAll('#threads li').length === 1", what="the search's one thread")
    assert page.eval("() => document.querySelector('#threads li').dataset.thread") == f"bob-{tag}"
    page.eval("() => { const f = document.getElementById('search-threads'); f.elements.metadata.value = '[1]'; f.requestSubmit(); }")
    page.wait("() => document.getElementById('threads-note').textContent.includes('JSON object')", what="the search's error")
    assert [p for p in page.problems() if "400" not in p] == []  # the refused search's request is the only one
