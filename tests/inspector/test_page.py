"""The inspector page in headless Chromium, against a real server.

The reminders conversation runs through the Python client; the page must
show its versions in one row with the node due next under each, a
regenerate (fork) as a branch above the row, a clicked version's values,
and, while ``gated`` runs hold at their gate, the node they are at lit in
each thread's colour. No sleeps: the test waits on page conditions, and the
gated node waits for a file the test creates.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import pytest
from graphwire import FinishReason

from tests.conftest import ServerProcess
from tests.inspector._browser import Page
from tests.inspector.conftest import ARTIFACTS, TOKEN

USER = {"role": "user", "content": "remind me to call mom at 5pm"}
QUESTION = "Add a reminder to call mom at 5pm?"
CONVERSATION_LABELS = ["START", "model", "ask_user", "tools", "model", "END"]

# -- what the page shows, read in the page ------------------------------------------

ROWS = """() => [...document.querySelectorAll('#threads li.selected g.version')]
  .map((g) => ({
    id: g.dataset.id, row: +g.dataset.row, col: +g.dataset.col, step: +g.dataset.step,
    source: g.dataset.source, label: g.querySelector('.next-label').textContent,
    latest: g.classList.contains('latest'), fill: getComputedStyle(g.querySelector('.dot')).fill,
  }))
  .sort((a, b) => a.row - b.row || a.col - b.col)"""

MAIN_ROW_IS = """(want) => {
  const row = [...document.querySelectorAll('#threads li.selected g.version[data-row="0"]')]
    .sort((a, b) => a.dataset.col - b.dataset.col)
    .map((g) => g.querySelector('.next-label').textContent);
  return JSON.stringify(row) === JSON.stringify(want);
}"""

LINKS = """() => [...document.querySelectorAll('#threads li.selected path.link[data-from]')]
  .map((p) => ({ from: p.dataset.from, to: p.dataset.to, fork: p.classList.contains('fork-link') }))"""

NODE_THREADS = """(node) => {
  const g = document.querySelector(`#graph g.node[data-node="${node}"]`);
  return g ? { lit: g.classList.contains('lit'), threads: g.dataset.threads.split(' ').filter(Boolean),
               chips: [...g.querySelectorAll('.chip')].map((c) => c.dataset.thread),
               stroke: getComputedStyle(g.querySelector('rect')).stroke } : null;
}"""


def open_page(page: Page, srv: ServerProcess, fragment: str = "") -> None:
    page.goto(f"{srv.inspector_url}?token={TOKEN}{fragment}")
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")
    page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")


def show_thread(page: Page, thread: str) -> None:
    page.click(f'#threads li[data-thread="{thread}"] .row-head')
    page.wait("(t) => location.hash.includes('thread=' + encodeURIComponent(t))", thread, what=f"thread {thread}")


@pytest.fixture(autouse=True)
def no_page_problems(page: Page) -> Iterator[None]:
    """Every test ends without console errors, page errors or requests off this machine."""
    page.problems()
    yield
    assert page.problems() == []


@pytest.fixture(scope="module")
def conversation(inspected: ServerProcess) -> dict[str, Any]:
    """The reminders conversation (ask → interrupt → "yes" → END) on a new thread."""
    thread = f"mom-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        assert client.invoke("reminders", thread, {"messages": [USER]}, timeout=30).interrupted
        assert client.resume("reminders", thread, "yes", timeout=30).reason is FinishReason.END
        history = client.history("reminders", thread)  # newest first
    return {"thread": thread, "history": history}


def test_versions_row_with_next_node_labels(page: Page, inspected: ServerProcess, conversation: dict[str, Any]) -> None:
    open_page(page, inspected, "#graph=reminders")
    assert page.eval("() => location.search") == ""  # the token left the URL; the page keeps it in sessionStorage

    # The graph: its nodes, and the router's edges dashed.
    nodes = page.eval("() => [...document.querySelectorAll('#graph g.node')].map((g) => g.dataset.node)")
    assert sorted(nodes) == sorted(["__start__", "model", "ask_user", "tools", "__end__"])
    dashed = page.eval(
        """() => Object.fromEntries([...document.querySelectorAll('#graph g.edge')].map((g) =>
             [g.dataset.source + '>' + g.dataset.target, getComputedStyle(g.querySelector('path')).strokeDasharray !== 'none']))"""
    )
    assert dashed == {
        "__start__>model": False,
        "tools>model": False,
        "model>ask_user": True,
        "model>tools": True,
        "model>__end__": True,
        "ask_user>tools": True,
        "ask_user>model": True,
    }

    show_thread(page, conversation["thread"])
    page.wait(MAIN_ROW_IS, CONVERSATION_LABELS, what="the conversation's versions")
    rows = page.eval(ROWS)
    history = list(reversed(conversation["history"]))  # oldest first
    assert [r["id"] for r in rows] == [s.checkpoint.checkpoint_id for s in history]
    assert [(r["row"], r["col"], r["step"], r["source"]) for r in rows] == [
        (0, i, s.checkpoint.step, s.checkpoint.source) for i, s in enumerate(history)
    ]
    # The latest is filled (in the thread's colour); the others are not.
    assert [r["latest"] for r in rows] == [False] * 5 + [True]
    assert rows[-1]["fill"] != "rgb(255, 255, 255)" and {r["fill"] for r in rows[:-1]} == {"rgb(255, 255, 255)"}
    # Each version is linked to its parent.
    links = page.eval(LINKS)
    assert sorted((l["from"], l["to"]) for l in links) == sorted(
        (s.checkpoint.parent_id, s.checkpoint.checkpoint_id) for s in history[1:]
    )
    assert not any(l["fork"] for l in links)


def test_clicking_a_version_shows_its_values(page: Page, inspected: ServerProcess, conversation: dict[str, Any]) -> None:
    thread = conversation["thread"]
    open_page(page, inspected, f"#graph=reminders&thread={thread}")
    page.wait(MAIN_ROW_IS, CONVERSATION_LABELS, what="the conversation's versions")
    asked = next(s for s in conversation["history"] if s.checkpoint.step == 1)  # model asked; ask_user is due

    page.click(f'#threads li.selected g.version[data-id="{asked.checkpoint.checkpoint_id}"]')
    page.wait("(id) => document.getElementById('detail').dataset.version === id", asked.checkpoint.checkpoint_id)
    detail = page.eval(
        """() => Object.fromEntries([...document.querySelectorAll('#detail section')].map((s) => [s.dataset.section, s.innerText]))"""
    )
    assert USER["content"] in detail["values"] and "add_reminder" in detail["values"]
    assert '"source": "loop"' in detail["metadata"] and '"step": 1' in detail["metadata"]
    # The writes that produced it: model ran and appended its tool call.
    assert "Ran: model" in detail["writes"] and "appended" in detail["writes"] and "add_reminder" in detail["writes"]
    # Its interrupt, answered since (the run went on from here).
    assert QUESTION in detail["interrupts"] and "ask_user" in detail["interrupts"]
    assert page.eval("() => document.querySelector('#detail [data-field=next]').textContent") == "ask_user"


def test_a_regenerate_appears_as_a_fork_above_the_row(page: Page, inspected: ServerProcess) -> None:
    thread = f"regen-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        client.invoke("reminders", thread, {"messages": [USER]}, timeout=30)
        client.resume("reminders", thread, "yes", timeout=30)
        open_page(page, inspected, "#graph=reminders")
        show_thread(page, thread)
        page.wait(MAIN_ROW_IS, CONVERSATION_LABELS, what="the conversation's versions")
        before = client.history("reminders", thread)
        old_reply, before_reply = before[0].checkpoint, before[1].checkpoint  # the answer, and the version before it
        # Regenerate the answer from another client while the page watches.
        assert client.fork("reminders", thread, before_reply.checkpoint_id, timeout=30).reason is FinishReason.END

    page.wait(MAIN_ROW_IS, [*CONVERSATION_LABELS[:-1], "model", "END"], what="the regenerated branch in the row")
    page.wait("() => document.querySelectorAll('#threads li.selected g.version.off-branch').length === 1", what="the old branch above")
    rows = page.eval(ROWS)
    above = [r for r in rows if r["row"] > 0]
    assert [(r["id"], r["row"], r["label"]) for r in above] == [(old_reply.checkpoint_id, 1, "END")]
    parent = next(r for r in rows if r["id"] == before_reply.checkpoint_id)
    assert parent["row"] == 0 and above[0]["col"] == parent["col"] + 1  # drawn right above, one step on
    assert {"from": before_reply.checkpoint_id, "to": old_reply.checkpoint_id, "fork": True} in page.eval(LINKS)
    fork = next(r for r in rows if r["source"] == "fork")
    assert (fork["row"], fork["col"], fork["label"]) == (0, parent["col"] + 1, "model")
    main = [r for r in rows if r["row"] == 0]
    assert main[-1]["latest"] and [r["latest"] for r in rows].count(True) == 1


def test_live_runs_light_their_node_in_each_threads_colour(page: Page, inspected: ServerProcess) -> None:
    suffix = uuid.uuid4().hex[:6]
    first, second = f"live-a-{suffix}", f"live-b-{suffix}"
    open_page(page, inspected, "#graph=gated")
    # Subscribed (the stream is open): both runs are reported from their start.
    with ThreadPoolExecutor(2) as pool, inspected.client() as client:
        runs = {
            t: pool.submit(client.invoke, "gated", t, {"gate": f"gate-{t}", "label": t}, timeout=60) for t in (first, second)
        }
        page.wait(
            "(want) => { const g = document.querySelector('#graph g.node[data-node=\"work\"]');"
            " return g.classList.contains('lit') && want.every((t) => g.dataset.threads.split(' ').includes(t)); }",
            [first, second],
            what="work lit by both runs",
        )
        work = page.eval(NODE_THREADS, "work")
        assert sorted(work["chips"]) == sorted([first, second])
        # Each in its thread's colour: the chip's, and the node's for the first, match the thread's swatch.
        colours = page.eval(
            """(ts) => ts.map((t) => [
                 getComputedStyle(document.querySelector(`#graph .chip[data-thread="${t}"] rect`)).fill,
                 getComputedStyle(document.querySelector(`#threads li[data-thread="${t}"] .swatch`)).backgroundColor])""",
            [first, second],
        )
        assert all(chip == swatch for chip, swatch in colours), colours
        assert work["stroke"] == colours[0][0]
        assert not page.eval(NODE_THREADS, "__end__")["lit"]
        page.wait(
            "(ts) => ts.every((t) => document.querySelector(`#threads li[data-thread=\"${t}\"]`)?.classList.contains('running'))",
            [first, second],
            what="both threads listed as running",
        )

        # The first thread's versions appear as they are saved, the run's node beside them.
        show_thread(page, first)
        page.wait(MAIN_ROW_IS, ["START", "work"], what="the versions saved so far")
        assert page.eval("() => document.querySelector('#threads li.selected .ghost .next-label').textContent") == "running work"

        inspected.open_gate(f"gate-{first}")
        assert runs[first].result().reason is FinishReason.END
        page.wait(MAIN_ROW_IS, ["START", "work", "END"], what="the first run's last version")
        page.wait("(t) => document.querySelector('#graph g.node[data-node=\"work\"]').dataset.threads === t", second)
        page.wait("() => document.querySelector('#threads li.selected .ghost') === null", what="the run's ghost to go")

        inspected.open_gate(f"gate-{second}")
        assert runs[second].result().reason is FinishReason.END
        page.wait("() => !document.querySelector('#graph g.node.lit')", what="no node lit")


def test_a_thread_waiting_at_an_interrupt_is_marked_in_the_list(page: Page, inspected: ServerProcess) -> None:
    thread = f"asks-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        assert client.invoke("reminders", thread, {"messages": [USER]}, timeout=30).interrupted
        open_page(page, inspected, "#graph=reminders")
        item = f'#threads li[data-thread="{thread}"]'
        page.wait(f"() => document.querySelector('{item} .waiting')?.textContent === '? waiting at ask_user'", what="the mark")
        assert page.eval(f"() => document.querySelector('{item} .waiting').title") == f'"{QUESTION}"'
        client.resume("reminders", thread, "yes", timeout=30)
    page.wait(f"() => !document.querySelector('{item} .waiting') && !!document.querySelector('{item} .when')", what="the mark gone")


def test_screenshot_of_the_demo_with_a_fork_a_question_and_a_live_run(
    page: Page, start_server: Callable[..., ServerProcess]
) -> None:
    """test-artifacts/inspector.png (docs/inspector.png is a copy): the demo agent itself, a
    regenerated reply, a thread waiting at its question, and a weather question in flight."""
    # The demo as `graphwire serve` runs it, its forecast tool slow enough to be seen at
    # work: the test waits for the page to show it there, then cancels that run.
    demo = start_server(
        token=TOKEN, inspector=True, graphs={"reminders": "examples.reminders:graph"},
        env={"GRAPHWIRE_FORECAST_DELAY": "600"},
    )  # fmt: skip
    chat, waiting, weather = "user-42", "user-44", "user-43"
    with ThreadPoolExecutor(1) as pool, demo.client() as client:
        client.invoke("reminders", chat, {"messages": [USER]}, timeout=30)
        client.resume("reminders", chat, "yes", timeout=30)
        history = client.history("reminders", chat)
        before_reply = next(s for s in history if s.next == ("model",))  # regenerate the last reply
        client.fork("reminders", chat, before_reply.checkpoint.checkpoint_id, timeout=30)
        buy = {"role": "user", "content": "remind me to buy milk at 6pm"}
        assert client.invoke("reminders", waiting, {"messages": [buy]}, timeout=30).interrupted
        asked = next(s for s in history if s.checkpoint.step == 1)
        open_page(page, demo, f"#graph=reminders&thread={chat}&version={asked.checkpoint.checkpoint_id}")
        page.wait("() => document.querySelector('#detail section[data-section=interrupts]')", what="the opened version")
        page.wait(f"() => document.querySelector('#threads li[data-thread=\"{waiting}\"] .waiting')", what="the mark")
        asking = pool.submit(
            client.invoke, "reminders", weather, {"messages": [{"role": "user", "content": "weather in Oslo"}]}, timeout=60
        )
        page.wait(
            "(t) => document.querySelector('#graph g.node[data-node=\"tools\"]').dataset.threads === t",
            weather,
            what="tools lit by the weather question",
        )
        shot = page.screenshot(ARTIFACTS / "inspector.png")
        assert client.cancel("reminders", weather)
        assert asking.result().reason is FinishReason.CANCELLED
    page.goto("about:blank")  # leave before this test's server stops, so the page sees no refused reconnect
    assert shot.stat().st_size > 10_000


def test_the_page_asks_for_the_token_it_lacks(page: Page, inspected: ServerProcess) -> None:
    page.goto(str(inspected.inspector_url))
    page.eval("() => sessionStorage.clear()")
    page.goto(str(inspected.inspector_url))
    page.wait("() => !document.getElementById('token-dialog').hidden", what="the token prompt")
    assert any("401" in p for p in page.problems())  # the refused API call, as the browser logs it
    page.eval(
        "(token) => { const f = document.querySelector('#token-dialog form'); f.elements.token.value = token; f.requestSubmit(); }",
        TOKEN,
    )
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load with the typed token")
    assert page.eval("() => document.getElementById('token-dialog').hidden")


GRAPH_NODES = "() => [...document.querySelectorAll('#graph g.node')].map((g) => g.dataset.node)"


def test_a_subgraph_node_expands_in_place_and_its_task_lists_its_versions(page: Page, inspected: ServerProcess) -> None:
    thread = f"team-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        assert client.invoke("supervisor", thread, {"messages": [{"role": "user", "content": "tidal power"}]}, timeout=30).interrupted
        head = client.get_state("supervisor", thread).checkpoint.checkpoint_id
    open_page(page, inspected, f"#graph=supervisor&thread={thread}")

    # Collapsed: the agents are one node each, marked as subgraphs.
    assert sorted(page.eval(GRAPH_NODES)) == sorted(["__start__", "supervisor", "researcher", "writer", "__end__"])
    assert page.eval("() => [...document.querySelectorAll('#graph g.node.subgraph')].map((g) => g.dataset.node).sort()") == ["researcher", "writer"]
    # Expanded: the researcher's nodes replace it, in a frame, the parent's edges moved to them.
    page.click('#graph g.node[data-node="researcher"]')
    page.wait("() => !!document.querySelector('#graph g.group[data-group=\"researcher\"]')", what="the researcher's frame")
    assert sorted(page.eval(GRAPH_NODES)) == sorted(["__start__", "supervisor", "researcher:research", "researcher:handoff", "writer", "__end__"])
    edges = page.eval("() => [...document.querySelectorAll('#graph g.edge')].map((g) => g.dataset.source + '>' + g.dataset.target).sort()")
    assert {"supervisor>researcher:research", "researcher:research>researcher:handoff", "researcher:handoff>writer"} <= set(edges)
    page.screenshot(ARTIFACTS / "inspector-subgraph.png")
    # Collapsed again from the frame's title.
    page.click('#graph g.group[data-group="researcher"] text.group-title')
    page.wait("() => !document.querySelector('#graph g.group')", what="the frame to go")
    assert "researcher" in page.eval(GRAPH_NODES)

    # The newest version waits in the writer: its task opens on the writer's own versions.
    page.click(f'#threads li.selected g.version[data-id="{head}"]')
    page.wait("(id) => document.getElementById('detail').dataset.version === id", head)
    page.click("#detail details.subgraph-task summary")
    page.wait("() => document.querySelector('#detail details.subgraph-task').dataset.loaded === 'true'", what="the writer's versions")
    nexts = page.eval("() => [...document.querySelectorAll('#detail ol.subversions li [data-field=next]')].map((s) => s.textContent)")
    assert nexts == ["START", "draft", "approve"]
    page.click("#detail ol.subversions li:last-child")
    page.wait("() => !document.querySelector('#detail ol.subversions li:last-child pre').hidden", what="its values")
    assert "Draft: tidal power" in page.eval("() => document.querySelector('#detail ol.subversions li:last-child pre').textContent")
