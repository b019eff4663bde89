"""The state a running call holds, beside the graph, and its call in its thread's lane (issue 35, items 4 and 2).

While a run of the gated reminders agent waits in its forecast tool (the gate
is a file the test creates), its thread's card shows the node it is at, the
values as of its last step (the model's tool call, written after its input),
and the tool it is waiting on; once the call returns the card is gone: between
calls the state lives in the checkpointer alone. No sleeps: the test waits on
page conditions.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from graphwire import FinishReason

from tests.conftest import ServerProcess
from tests.inspector._browser import Page
from tests.inspector.conftest import TOKEN

CARD = """(t) => {
  const c = document.querySelector(`#held .held-card[data-thread="${t}"]`);
  return c && {
    node: c.querySelector('.held-node').textContent,
    roles: [...c.querySelectorAll('.transcript li.msg')].map((m) => m.dataset.role),
    calls: [...c.querySelectorAll('.transcript .tool-call')].map((x) => x.textContent),
    waiting: [...c.querySelectorAll('li.inner.tool.waiting')].map((x) => x.dataset.tool),
    border: getComputedStyle(c).borderTopColor,
  };
}"""


@pytest.fixture(autouse=True)
def no_page_problems(page: Page) -> Iterator[None]:
    page.problems()
    yield
    assert page.problems() == []


def test_a_running_threads_state_fills_then_empties_when_its_call_returns(page: Page, inspected: ServerProcess) -> None:
    thread = f"held-{uuid.uuid4().hex[:6]}"
    page.goto(f"{inspected.inspector_url}?token={TOKEN}#graph=reminders_gated")
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")
    page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")
    assert page.eval("() => document.querySelectorAll('#held .held-card').length") == 0
    ask = {"messages": [{"role": "user", "content": "weather in Oslo"}]}
    with ThreadPoolExecutor(1) as pool, inspected.client() as client:
        run = pool.submit(client.invoke, "reminders_gated", thread, ask, timeout=60)
        page.wait(
            "(t) => document.querySelector('#graph g.node[data-node=\"tools\"]').dataset.threads === t", thread, what="tools lit"
        )
        page.wait(f"(t) => ({CARD})(t)?.roles.length === 2", thread, what="the model's step in the held state")
        card = page.eval(CARD, thread)
        assert card["node"] == "tools"
        assert card["roles"] == ["user", "assistant"]  # the reply was written by the model's step, not the input
        assert len(card["calls"]) == 1 and card["calls"][0].startswith("→ forecast(city: Oslo")
        assert card["waiting"] == ["forecast"]  # the tool it waits on, under the node
        swatch = page.eval(
            "(t) => getComputedStyle(document.querySelector(`#threads li[data-thread=\"${t}\"] .swatch`)).backgroundColor", thread
        )
        assert card["border"] == swatch
        # Its call: an open bar in its thread's lane, on the time line every thread shares, its edge moving.
        lane = f'#threads li[data-thread="{thread}"] .lane'
        page.wait(f"() => document.querySelector('{lane} .seg.open')", what="the open call in the thread's lane")
        until = page.eval(f"() => +document.querySelector('{lane} .seg.open').dataset.until")
        page.wait(f"(u) => +document.querySelector('{lane} .seg.open')?.dataset.until > u + 500", until, what="its edge to move")
        assert page.eval(f"() => getComputedStyle(document.querySelector('{lane} .seg.open')).backgroundColor") == swatch
        # Beside the track, the newest call in words: its arguments, and where it is.
        assert page.eval(f"() => document.querySelector('{lane} .caption').textContent") == "Invoke weather in Oslo → running"

        inspected.open_gate(f"forecast-{thread}")
        assert run.result(timeout=60).reason is FinishReason.END
    page.wait("(t) => !document.querySelector(`#held .held-card[data-thread=\"${t}\"]`)", thread, what="the card to go")
    assert "the state lives in the checkpointer alone" in page.eval("() => document.getElementById('held').textContent")
    page.wait(f"() => document.querySelector('{lane} .seg[data-reason=\"END\"]') && !document.querySelector('{lane} .seg.open')", what="the call closed")
    assert page.eval(f"() => document.querySelector('{lane} .caption').textContent") == "Invoke weather in Oslo → END"


INNER = """(t) => [...document.querySelectorAll(`#held .held-card[data-thread="${t}"] li.inner`)].map((li) => ({
  kind: li.dataset.kind, tool: li.dataset.tool ?? null, from: li.dataset.from ?? null, state: ['waiting', 'returned', 'error'].find((c) => li.classList.contains(c)),
  text: li.textContent,
}))"""


def test_what_a_running_node_calls_shows_under_it(page: Page, start_server: Callable[..., ServerProcess]) -> None:
    """The LangChain agent: the chat model's streamed tokens under its step, then the tool
    the tools node runs, with its arguments, visibly waiting (its gate shut), then gone."""
    srv = start_server(token=TOKEN, inspector=True, graphs={"agent": "tests.graphs:reminders_langchain_gated"})
    thread = f"calls-{uuid.uuid4().hex[:6]}"
    page.goto(f"{srv.inspector_url}?token={TOKEN}#graph=agent")
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")
    page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")
    ask = {"messages": [{"role": "user", "content": "weather in Oslo"}]}
    with ThreadPoolExecutor(1) as pool, srv.client() as client:
        run = pool.submit(client.invoke, "agent", thread, ask, timeout=60)
        page.wait(
            f"(t) => ({INNER})(t).some((c) => c.kind === 'tool' && c.state === 'waiting' && c.from === 'event')",
            thread,
            what="the tool's start, from its events",
        )
        inner = page.eval(INNER, thread)
        model = [c for c in inner if c["kind"] == "model"]
        tools = [c for c in inner if c["kind"] == "tool"]
        assert [c["text"] for c in model] == ["chat model Let me look that up."]  # its tokens, joined as they came
        assert [(c["tool"], c["state"], c["from"]) for c in tools] == [("forecast", "waiting", "event")]  # LangGraph's tool events
        assert "(city: Oslo)" in tools[0]["text"] and "… waiting" in tools[0]["text"]
        assert page.eval("(t) => document.querySelector(`#held .held-card[data-thread=\"${t}\"] .held-node`).textContent", thread) == "tools"
        srv.open_gate(f"forecast-{thread}")
        assert run.result(timeout=60).reason is FinishReason.END
    page.wait("(t) => !document.querySelector(`#held .held-card[data-thread=\"${t}\"]`)", thread, what="the card to go")
    page.goto("about:blank")  # leave before this test's server stops


def test_a_subgraphs_nodes_show_under_the_node_that_runs_it(page: Page, start_server: Callable[..., ServerProcess]) -> None:
    srv = start_server(token=TOKEN, inspector=True, graphs={"nested": "tests.graphs:gated_subgraph"})
    thread = f"nested-{uuid.uuid4().hex[:6]}"
    page.goto(f"{srv.inspector_url}?token={TOKEN}#graph=nested")
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")
    page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")
    with ThreadPoolExecutor(1) as pool, srv.client() as client:
        run = pool.submit(client.invoke, "nested", thread, {"gate": f"gate-{thread}", "label": "inner"}, timeout=60)
        page.wait(
            f"(t) => ({INNER})(t).some((c) => c.kind === 'subgraph' && c.text.endsWith('› work') && c.state === 'waiting')",
            thread,
            what="the subgraph's work node under team",
        )
        assert page.eval("(t) => document.querySelector(`#held .held-card[data-thread=\"${t}\"] .held-node`).textContent", thread) == "team"
        assert page.eval("() => document.querySelector('#graph g.node[data-node=\"team\"]').classList.contains('lit')")
        srv.open_gate(f"gate-{thread}")
        assert run.result(timeout=60).reason is FinishReason.END
    page.wait("(t) => !document.querySelector(`#held .held-card[data-thread=\"${t}\"]`)", thread, what="the card to go")
    page.goto("about:blank")  # leave before this test's server stops
