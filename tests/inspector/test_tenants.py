"""The inspector on a server with tenants (``--auth-tokens``), over HTTP.

Each tenant's token shows that tenant's threads, versions, live runs and
events, read as its RPCs read them; another tenant's thread answers exactly
as a thread that does not exist. Runs in flight are held by gates
(tests/graphs.py), not sleeps.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.conftest import ServerProcess, start_server_process
from tests.inspector.conftest import EventStream, api, wait_until

ACME = "acme-inspector-token-0123"
GLOBEX, GLOBEX_OLD = "globex-inspector-token-0123", "globex-older-token-0123"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    work = tmp_path_factory.mktemp("inspector-tenants")
    tokens = work / "tokens.toml"
    tokens.write_text(f'acme = "{ACME}"\nglobex = ["{GLOBEX}", "{GLOBEX_OLD}"]\n')
    srv = start_server_process(work, inspector=True, args=["--auth-tokens", str(tokens)])
    yield srv
    code = srv.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"


def _get(srv: ServerProcess, token: str, path: str, **params: str) -> Any:
    """The JSON of a request that must succeed."""
    status, body, _ = api(srv, path + "?" + urlencode(params), token=token)
    assert status == 200, (path, params, body)
    return body


def _ids(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def test_each_tenant_reads_only_its_own_threads_and_versions(tenants: ServerProcess) -> None:
    shared, acme_only = _ids("shared"), _ids("acme-only")
    with tenants.client(token=ACME) as acme, tenants.client(token=GLOBEX) as globex:
        acme.invoke("chain3", shared, {"n": 0}, timeout=30)
        acme.invoke("chain3", acme_only, {"n": 0}, timeout=30)
        globex.invoke("chain3", shared, {"n": 10}, timeout=30)
        histories = {ACME: acme.history("chain3", shared), GLOBEX: globex.history("chain3", shared)}

    listed = {t: {r["thread_id"]: r["checkpoint_id"] for r in _get(tenants, t, "/api/threads", graph="chain3")["threads"]} for t in (ACME, GLOBEX)}
    assert {shared, acme_only} <= set(listed[ACME]) and shared in listed[GLOBEX] and acme_only not in listed[GLOBEX]
    assert all("/" not in t and not t.startswith("chain3:") for ids in listed.values() for t in ids)  # callers' ids, not storage keys
    for token, history in histories.items():
        assert listed[token][shared] == history[0].checkpoint.checkpoint_id
        versions = _get(tenants, token, "/api/history", graph="chain3", thread=shared)["versions"]
        assert [v["checkpoint_id"] for v in versions] == [s.checkpoint.checkpoint_id for s in reversed(history)]
    newest = {t: _get(tenants, t, "/api/version", graph="chain3", thread=shared, checkpoint=h[0].checkpoint.checkpoint_id) for t, h in histories.items()}
    assert newest[ACME]["values"] == {"n": 3, "log": ["a", "b", "c"]}
    assert newest[GLOBEX]["values"] == {"n": 13, "log": ["a", "b", "c"]}


def test_another_tenants_thread_answers_as_one_that_does_not_exist(tenants: ServerProcess) -> None:
    theirs, missing = _ids("acme-private"), _ids("never-was")
    with tenants.client(token=ACME) as acme:
        acme.invoke("chain3", theirs, {"n": 0}, timeout=30)
        checkpoint = acme.history("chain3", theirs)[0].checkpoint.checkpoint_id
    assert _get(tenants, ACME, "/api/version", graph="chain3", thread=theirs, checkpoint=checkpoint)["checkpoint_id"] == checkpoint

    def as_globex(path: str, thread: str, **params: str) -> tuple[int, str]:
        status, body, _ = api(tenants, path + "?" + urlencode({"graph": "chain3", "thread": thread, **params}), token=GLOBEX)
        return status, json.dumps(body).replace(thread, "THREAD")

    status, body = as_globex("/api/version", theirs, checkpoint=checkpoint)
    assert status == 404 and json.loads(body)["error"] == "NOT_FOUND"
    assert (status, body) == as_globex("/api/version", missing, checkpoint=checkpoint)
    status, body = as_globex("/api/history", theirs)
    assert status == 200 and json.loads(body)["versions"] == []  # ListHistory's answer for a thread with no versions
    assert (status, body) == as_globex("/api/history", missing)


def test_tokens_unknown_missing_and_rotated(tenants: ServerProcess) -> None:
    status, body, headers = api(tenants, "/api/threads?graph=chain3", token="not-a-tenants-token-0123")
    assert (status, body["error"], body["message"]) == (401, "UNAUTHENTICATED", "wrong bearer token")
    assert headers["www-authenticate"] == "Bearer"
    assert api(tenants, "/api/events", token=None)[1]["message"] == "missing bearer token"
    assert api(tenants, "/", token=None)[0] == 200  # the page itself holds no data

    mine = _ids("rotated")
    with tenants.client(token=GLOBEX_OLD) as globex:
        globex.invoke("chain3", mine, {"n": 0}, timeout=30)
    current, older = (_get(tenants, t, "/api/threads", graph="chain3")["threads"] for t in (GLOBEX, GLOBEX_OLD))
    assert mine in [t["thread_id"] for t in current] and current == older


def test_live_runs_and_events_show_only_the_tenants_own_runs(tenants: ServerProcess) -> None:
    thread, gate = _ids("live"), _ids("gate")
    with tenants.client(token=GLOBEX) as globex:
        globex.invoke("gated", thread, {"label": "globex-first"}, timeout=30)  # globex has a thread of that name

    acme_events, globex_events = EventStream(tenants, ACME), EventStream(tenants, GLOBEX)
    try:
        assert acme_events.next() == {"type": "live", "runs": []}
        assert globex_events.next() == {"type": "live", "runs": []}
        with ThreadPoolExecutor(1) as pool, tenants.client(token=ACME) as acme, tenants.client(token=GLOBEX) as globex:
            held = pool.submit(acme.invoke, "gated", thread, {"gate": gate, "label": "acme"}, timeout=60)
            seen = acme_events.until(lambda m: m["type"] == "node_started" and m["node"] == "work")
            acme_run = seen[-1]["run_id"]
            assert {(m["thread_id"], m["run_id"]) for m in seen} == {(thread, acme_run)}

            # acme's run is in flight on a thread globex also has: only acme sees it.
            assert [(r["thread_id"], r["run_id"]) for r in _get(tenants, ACME, "/api/live")["runs"]] == [(thread, acme_run)]
            assert _get(tenants, GLOBEX, "/api/live")["runs"] == []
            # acme's thread is listed once its run's first version is stored (within the server's version linger)
            wait_until(lambda: len(_get(tenants, ACME, "/api/history", graph="gated", thread=thread)["versions"]) > 0, "acme's first version")
            for token, running in [(ACME, True), (GLOBEX, False)]:
                listed = _get(tenants, token, "/api/threads", graph="gated")["threads"]
                assert {t["thread_id"]: t["running"] for t in listed}[thread] is running, token
                assert _get(tenants, token, "/api/history", graph="gated", thread=thread)["running"] is running, token
            late = EventStream(tenants, GLOBEX_OLD)
            try:
                assert late.next() == {"type": "live", "runs": []}
            finally:
                late.close()

            # globex runs its own thread of that name meanwhile: its stream holds that run alone.
            done = globex.invoke("gated", thread, {"label": "globex-second"}, timeout=30)
            theirs = globex_events.until(lambda m: m["type"] == "run_finished")
            assert len({m["run_id"] for m in theirs}) == 1 and acme_run not in {m["run_id"] for m in theirs}
            assert theirs[-1]["checkpoint_id"] == done.checkpoint.checkpoint_id

            tenants.open_gate(gate)
            rest = acme_events.until(lambda m: m["type"] == "run_finished")
            assert held.result().checkpoint.checkpoint_id == rest[-1]["checkpoint_id"]
        assert {m["run_id"] for m in rest} == {acme_run}  # globex's run, in between, never reached acme
        values = _get(tenants, GLOBEX, "/api/version", graph="gated", thread=thread, checkpoint=done.checkpoint.checkpoint_id)["values"]
        assert values["log"] == ["globex-first", "globex-second"]  # acme's run wrote nothing of globex's
    finally:
        acme_events.close()
        globex_events.close()
