"""The inspector's calls time line in headless Chromium, against real servers.

Each run of the shown thread is a bar from its call to its return, read
from the run records: an open run's edge moves with the clock, then closes
with INTERRUPT and the question; the Resume that answers it closes with END;
a run another replica ran (two servers on one PostgreSQL schema) shows that
replica's name. No sleeps: the gated node waits for a file the test creates,
and the test waits on page conditions.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
from tests.conftest import ServerProcess, start_server_process
from tests.inspector._browser import Page
from tests.inspector.conftest import TOKEN, wait_until

CALLS = """() => [...document.querySelectorAll('#calls .call')].map((c) => ({
  run: c.dataset.run, call: c.dataset.call, reason: c.dataset.reason, status: c.dataset.status,
  open: c.dataset.open === 'true', replica: c.dataset.replica, elsewhere: c.classList.contains('elsewhere'),
  attempts: +c.dataset.attempts, label: c.querySelector('.call-label').textContent,
  end: c.querySelector('.call-end').textContent, until: +c.querySelector('.bar').dataset.until,
}))"""


@pytest.fixture(autouse=True)
def no_page_problems(page: Page) -> Iterator[None]:
    page.problems()
    yield
    assert page.problems() == []


def open_page(page: Page, srv: ServerProcess, fragment: str) -> None:
    page.goto(f"{srv.inspector_url}?token={TOKEN}{fragment}")
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")


def test_an_open_run_moves_then_closes_with_its_question_and_the_resume_with_end(page: Page, inspected: ServerProcess) -> None:
    thread = f"calls-{uuid.uuid4().hex[:6]}"
    gate = f"gate-{thread}"
    with ThreadPoolExecutor(1) as pool, inspected.client() as client:
        first = pool.submit(client.invoke, "gated_question", thread, {"gate": gate, "label": "the plan"}, timeout=60)
        wait_until(lambda: client.list_runs("gated_question", thread), "the run's record")
        open_page(page, inspected, f"#graph=gated_question&thread={thread}")
        page.wait("() => document.querySelector('#calls .call[data-open=\"true\"]') !== null", what="the open run")
        (open_run,) = page.eval(CALLS)
        assert open_run["call"] == "Invoke" and open_run["status"] == "running" and open_run["reason"] == ""
        assert "the plan" in open_run["label"] and open_run["end"] == "running"
        # Its edge moves with the clock while it is open.
        page.wait(
            "(edge) => +document.querySelector('#calls .call[data-open=\"true\"] .bar').dataset.until > edge + 500",
            open_run["until"],
            what="the open run's edge to move",
        )
        inspected.open_gate(gate)
        assert first.result(timeout=60).interrupted
        page.wait("() => document.querySelector('#calls .call').dataset.reason === 'INTERRUPT'", what="the run to close")
        (asked,) = page.eval(CALLS)
        assert not asked["open"] and asked["end"] == "INTERRUPT · Go on with the plan?"
        closed_at = asked["until"]

        assert client.resume("gated_question", thread, "yes, go", timeout=60).values["log"] == ["the plan: yes, go"]
    page.wait("() => document.querySelectorAll('#calls .call').length === 2", what="the resume's bar")
    page.wait("() => document.querySelectorAll('#calls .call')[1].dataset.reason === 'END'", what="the resume to close")
    asked, resumed = page.eval(CALLS)  # oldest first
    assert (resumed["call"], resumed["label"], resumed["end"]) == ("Resume", "yes, go", "END")
    assert asked["until"] == closed_at  # a closed run's bar no longer moves
    assert not asked["elsewhere"] and not resumed["elsewhere"]  # this server ran both


@pytest.fixture
def two_replicas(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two servers on one PostgreSQL schema; the first serves the inspector."""
    dsn = require_pg()
    schema = new_schema_name()
    gates = tmp_path / "gates"
    started: list[ServerProcess] = []
    try:
        for name, inspector in (("a", True), ("b", False)):
            started.append(
                start_server_process(
                    tmp_path / name, token=TOKEN, inspector=inspector, pg_dsn=dsn, pg_schema=schema, gates=gates
                )
            )
        yield started[0], started[1]
    finally:
        codes = [srv.terminate() for srv in started]
        drop_schema(schema)
    assert codes == [0] * len(started)


def test_a_run_of_another_replica_shows_with_its_replica(page: Page, two_replicas: tuple[ServerProcess, ServerProcess]) -> None:
    here, there = two_replicas
    thread = f"replicas-{uuid.uuid4().hex[:6]}"
    with there.client() as client:
        elsewhere = client.invoke("chain3", thread, {"n": 0}, timeout=60)
        their_replica = client.get_run(elsewhere.run_id).replica
    with here.client() as client:
        local = client.invoke("chain3", thread, {"n": 10}, timeout=60)
        our_replica = client.get_run(local.run_id).replica
    assert their_replica != our_replica
    open_page(page, here, f"#graph=chain3&thread={thread}")
    try:
        page.wait("() => document.querySelectorAll('#calls .call[data-reason=\"END\"]').length === 2", what="both runs")
        first, second = page.eval(CALLS)
    finally:
        page.goto("about:blank")  # the page stops polling before these servers stop
    assert (first["run"], first["replica"], first["elsewhere"]) == (elsewhere.run_id, their_replica, True)
    assert (second["run"], second["replica"], second["elsewhere"]) == (local.run_id, our_replica, False)


def test_a_run_recovered_after_its_server_died_shows_its_attempts(page: Page, start_server: Callable[..., ServerProcess]) -> None:
    thread = f"recovered-{uuid.uuid4().hex[:6]}"
    gate = f"gate-{thread}"
    first = start_server(token=TOKEN, inspector=True)
    with first.client() as client:
        run = client.stream("gated_question", thread, {"gate": gate, "label": "the rest"}, background=True)
        assert [type(e).__name__ for e in run] == ["RunStarted"]
        wait_until(lambda: client.get_state("gated_question", thread).next == ("work",), "the run to wait at its gate")
    first.kill()  # mid-step: its run is left RUNNING in the records
    second = start_server(token=TOKEN, inspector=True, db=first.db, gates=first.gates)
    open_page(page, second, f"#graph=gated_question&thread={thread}")
    try:
        # The restarted server takes the run over (attempt 2); it waits at the same gate, open.
        page.wait(
            "() => { const c = document.querySelector('#calls .call'); return c && c.dataset.attempts === '2' && c.dataset.open === 'true'; }",
            timeout=30,
            what="the run continued by the restarted server",
        )
        (open_run,) = page.eval(CALLS)
        assert open_run["run"] == run.run_id and "↻ 2 attempts" in page.eval("() => document.querySelector('#calls .call .attempts').textContent")
        second.open_gate(gate)
        page.wait("() => document.querySelector('#calls .call').dataset.reason === 'INTERRUPT'", timeout=30, what="the run to end")
        (ended,) = page.eval(CALLS)
        assert (ended["attempts"], ended["end"], ended["elsewhere"]) == (2, "INTERRUPT · Go on with the rest?", False)
    finally:
        page.goto("about:blank")
