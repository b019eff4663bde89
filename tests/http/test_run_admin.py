"""The SDK's calls that look after runs and threads in bulk: ``runs.cancel_many``, ``runs.delete``,
``threads.prune`` and ``threads.join_stream`` (server/http/_run_admin.py, _threads.py, _thread_stream.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from tests.hardening.conftest import until
from tests.http._serving import TOKENS, serving
from tests.http.test_runs import _running, gates, in_loop, made  # noqa: F401 - gates: a fixture

pytestmark = pytest.mark.usefixtures("gates")


async def _status(client: Any, thread: str, run_id: str) -> str:
    return str((await client.runs.get(thread, run_id))["status"])


@in_loop
async def test_cancel_many_by_ids_and_by_status(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        first, second = await made(client, "gated"), await made(client, "gated")
        a = await client.runs.create(first, "gated", input={"gate": "never", "label": "a"})
        b = await client.runs.create(second, "gated", input={"gate": "never", "label": "b"})
        await until(lambda: _running(served, first, a["run_id"]), "run a to start")
        await until(lambda: _running(served, second, b["run_id"]), "run b to start")
        # Another tenant's status sweep reaches none of this tenant's runs: it finds none (404, as
        # LangGraph's server answers a sweep with nothing to cancel).
        other = get_client(url=served.url, api_key=TOKENS["other"])
        with pytest.raises(httpx.HTTPStatusError) as none:
            await other.runs.cancel_many(status="all")
        assert none.value.response.status_code == 404 and none.value.response.json()["detail"] == "No runs found to cancel."
        assert await _status(client, first, a["run_id"]) == "running"
        await client.runs.cancel_many(thread_id=first, run_ids=[a["run_id"]])
        await until(lambda: _status_is(client, first, a["run_id"], "interrupted"), "run a to be cancelled")
        assert await _status(client, second, b["run_id"]) == "running"  # only the runs named
        await client.runs.cancel_many(status="running")
        await until(lambda: _status_is(client, second, b["run_id"], "interrupted"), "run b to be cancelled")
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            both = await http.post("/runs/cancel", json={"status": "all", "thread_id": first})
            assert both.status_code == 422 and "without thread_id" in both.json()["detail"]
            neither = await http.post("/runs/cancel", json={})
            assert neither.status_code == 422
            unknown = await http.post("/runs/cancel", json={"thread_id": first, "run_ids": ["nope"]})
            assert unknown.status_code == 404
            ended = await http.post("/runs/cancel", json={"thread_id": first, "run_ids": [a["run_id"]]})
            assert ended.status_code == 404 and "haven't been deleted or completed" in ended.json()["detail"]
            # one run of a thread cancelled after it ended: the same 404 (its status stays as it ended)
            again = await http.post(f"/threads/{second}/runs/{b['run_id']}/cancel")
            assert again.status_code == 404 and again.json()["detail"] == ended.json()["detail"]
        assert await _status(client, second, b["run_id"]) == "interrupted"


async def _status_is(client: Any, thread: str, run_id: str, status: str) -> bool:
    return await _status(client, thread, run_id) == status


@in_loop
async def test_a_deleted_run_takes_its_versions_and_record_with_it(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "chain3")
        kept = await client.runs.create(thread, "chain3", input={"n": 1})
        await client.runs.join(thread, kept["run_id"])
        before = len(await client.threads.get_history(thread, limit=100))
        gone = await client.runs.create(thread, "chain3", input={"n": 10})
        await client.runs.join(thread, gone["run_id"])
        assert (await client.threads.get_state(thread))["values"]["n"] == 13
        await client.runs.delete(thread, gone["run_id"])
        with pytest.raises(httpx.HTTPStatusError) as missing:
            await client.runs.get(thread, gone["run_id"])
        assert missing.value.response.status_code == 404
        assert len(await client.threads.get_history(thread, limit=100)) == before  # its versions went with it
        assert (await client.threads.get_state(thread))["values"]["n"] == 4
        assert [r["run_id"] for r in await client.runs.list(thread)] == [kept["run_id"]]
        # A run still going is not deleted.
        gated = await made(client, "gated")
        run = await client.runs.create(gated, "gated", input={"gate": "never", "label": "x"})
        await until(lambda: _running(served, gated, run["run_id"]), "the run to start")
        with pytest.raises(httpx.HTTPStatusError) as going:
            await client.runs.delete(gated, run["run_id"])
        assert going.value.response.status_code == 409 and "cancel it first" in going.value.response.json()["detail"]
        await client.runs.cancel(gated, run["run_id"], wait=True)


@in_loop
async def test_prune_deletes_threads_or_keeps_their_newest_version(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        cut, dropped, empty = [await made(client, "chain3") for _ in range(3)]
        for thread in (cut, dropped):
            for n in (1, 2):
                await client.runs.wait(thread, "chain3", input={"n": n})
        assert len(await client.threads.get_history(cut, limit=100)) > 1
        got = await client.threads.prune([cut, "no-such-thread", empty], strategy="keep_latest")
        assert got == {"pruned_count": 1}  # the unknown id and the thread with no version are passed over
        history = await client.threads.get_history(cut, limit=100)
        assert len(history) == 1 and history[0]["values"]["n"] == 5
        assert await client.threads.prune([dropped]) == {"pruned_count": 1}
        with pytest.raises(httpx.HTTPStatusError) as missing:
            await client.threads.get(dropped)
        assert missing.value.response.status_code == 404
        with pytest.raises(httpx.HTTPStatusError) as bad:
            await client.threads.prune([cut], strategy="sometimes")  # type: ignore[arg-type]
        assert bad.value.response.status_code == 422


@in_loop
async def test_a_thread_stream_follows_every_run_of_the_thread(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        parts: list[Any] = []
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}, timeout=30) as http:
            async with http.stream("GET", f"/threads/{thread}/stream") as res:
                assert res.status_code == 200
                lines = res.aiter_lines()
                # Runs started after the stream opened: a background one, then a foreground one.
                first = await client.runs.create(thread, "gated", input={"gate": "", "label": "one"})
                async for line in lines:
                    parts.append(line)
                    if '"run_done"' in line:
                        break
                second = await client.runs.wait(thread, "gated", input={"gate": "", "label": "two"})
                assert second["log"] == ["one", "two"]
                async for line in lines:
                    parts.append(line)
                    if '"run_done"' in line and '"run_id"' in line and first["run_id"] not in line:
                        break
        text = "\n".join(parts)
        assert text.count('"status":"run_done"') == 2
        assert f'{{"run_id":"{first["run_id"]}","attempt":1}}' in text
        assert '"log":["one"]' in text and '"log":["one","two"]' in text  # each run's values
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            bad = await http.get(f"/threads/{thread}/stream", params={"stream_mode": "state_update"})
            assert bad.status_code == 422 and "not served" in bad.json()["detail"]
            resumed = await http.get(f"/threads/{thread}/stream", headers={"last-event-id": "3"})
            assert resumed.status_code == 422
            other = await http.get(f"/threads/{thread}/stream", headers={"x-api-key": TOKENS["other"]})
            assert other.status_code == 404


@in_loop
async def test_history_and_a_fork_from_an_older_checkpoint(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        assert (await client.runs.wait(thread, "gated", input={"gate": "", "label": "a"}))["log"] == ["a"]
        after_a = (await client.threads.get_state(thread))["checkpoint"]["checkpoint_id"]
        assert (await client.runs.wait(thread, "gated", input={"gate": "", "label": "b"}))["log"] == ["a", "b"]
        # Run again from the version after the first turn, with another input: a branch beside "b".
        forked = await client.runs.wait(thread, "gated", input={"gate": "", "label": "c"}, checkpoint_id=after_a)
        assert forked["log"] == ["a", "c"]
        history = await client.threads.get_history(thread, limit=100)
        assert history[0]["values"]["log"] == ["a", "c"]
        logs = [h["values"].get("log") for h in history]
        assert ["a", "b"] in logs  # the other branch is kept
        chain = {h["checkpoint"]["checkpoint_id"]: h for h in history}
        back, branch = history[0], []
        while back["parent_checkpoint"] is not None:  # the branch, from its newest version back to the first
            back = chain[back["parent_checkpoint"]["checkpoint_id"]]
            branch.append(back["checkpoint"]["checkpoint_id"])
        assert after_a in branch and all(chain[c]["values"].get("log") != ["a", "b"] for c in branch)


@in_loop
async def test_a_run_s_stream_joined_by_its_id_alone(tmp_path: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        run = await client.runs.create(None, "chain3", input={"n": 1}, on_completion="keep")  # stateless, background
        async with httpx.AsyncClient(base_url=served.url, headers={"x-api-key": served.key}) as http:
            got = await http.get(f"/runs/{run['run_id']}/stream", params={"stream_mode": "values"})
            assert got.status_code == 200
            events = [line[7:] for line in got.text.splitlines() if line.startswith("event: ")]
            assert events[0] == "metadata" and events[-1] == "values" and '"n":4' in got.text
            other = await http.get(f"/runs/{run['run_id']}/stream", headers={"x-api-key": TOKENS["other"]})
            assert other.status_code == 404


@in_loop
async def test_runs_on_a_busy_thread_are_queued_by_default_and_answered_pending_at_once(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        client = get_client(url=served.url, api_key=served.key)
        thread = await made(client, "gated")
        first = await client.runs.create(thread, "gated", input={"gate": "first", "label": "first"})
        await until(lambda: _running(served, thread, first["run_id"]), "the first run to start")
        # LangGraph's default strategy, "enqueue": each answered at once, pending, then run in turn.
        second = await client.runs.create(thread, "gated", input={"gate": "", "label": "second"})
        third = await client.runs.create(thread, "gated", input={"gate": "", "label": "third"})
        assert (second["status"], third["status"]) == ("pending", "pending")
        assert second["multitask_strategy"] == "enqueue"
        assert await _status(client, thread, second["run_id"]) == "pending"
        dropped = await client.runs.create(thread, "gated", input={"gate": "", "label": "dropped"})
        await client.runs.cancel(thread, dropped["run_id"])  # a queued run cancelled before it started
        (gates / "first").touch()
        assert (await client.runs.join(thread, third["run_id"]))["log"] == ["first", "second", "third"]
        assert [await _status(client, thread, r["run_id"]) for r in (first, second, third, dropped)] == [
            "success", "success", "success", "interrupted"]  # fmt: skip
        # On a free thread a run starts at once, as before (answered as made: "pending", as LangGraph's server).
        fourth = await client.runs.create(thread, "gated", input={"gate": "", "label": "fourth"})
        assert fourth["status"] == "pending" and await _status(client, thread, fourth["run_id"]) in ("running", "success")
