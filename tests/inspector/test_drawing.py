"""What the inspector draws, read back from the page (issue 35, item 5 and item 1).

Edges are routed round the node boxes (checked on the drawn geometry: every
edge path, sampled along its length, stays out of every box but its own two
ends'); the threads shown get distinct colours; a fork's call names the
version it went back to as the row does; messages read as a transcript with
the raw JSON a click away; and every listed thread's row of versions shows at
once, the selected one highlighted, a long row collapsed to its newest.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from graphwire import FinishReason

from tests.conftest import ServerProcess
from tests.inspector._browser import Page
from tests.inspector.conftest import TOKEN, api

USER = {"role": "user", "content": "remind me to call mom at 5pm"}

# Every edge path sampled each pixel along its length: the points inside a node box
# that is neither of its ends. Also, as a control, the same for the straight line
# between the centres of the two ends (what a naive drawing would do).
CROSSINGS = """() => {
  const boxes = [...document.querySelectorAll('#graph g.node')].map((g) => {
    const m = g.transform.baseVal.consolidate().matrix;
    const r = g.querySelector('rect');
    return { name: g.dataset.node, x0: m.e, y0: m.f, x1: m.e + r.width.baseVal.value, y1: m.f + r.height.baseVal.value };
  });
  const inside = (x, y, b) => x > b.x0 + 0.5 && x < b.x1 - 0.5 && y > b.y0 + 0.5 && y < b.y1 - 0.5;
  const centre = (name) => { const b = boxes.find((x) => x.name === name); return [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2]; };
  const drawn = [], straight = [];
  for (const e of document.querySelectorAll('#graph g.edge')) {
    const { source, target } = e.dataset;
    const others = boxes.filter((b) => b.name !== source && b.name !== target);
    const p = e.querySelector('path');
    const len = p.getTotalLength();
    for (let s = 0; s <= len; s += 1) {
      const pt = p.getPointAtLength(s);
      for (const b of others) if (inside(pt.x, pt.y, b)) drawn.push(`${source}>${target} crosses ${b.name}`);
    }
    const [ax, ay] = centre(source), [bx, by] = centre(target);
    for (let k = 0; k <= 200; k++) {
      const x = ax + ((bx - ax) * k) / 200, y = ay + ((by - ay) * k) / 200;
      for (const b of others) if (inside(x, y, b)) straight.push(`${source}>${target} crosses ${b.name}`);
    }
  }
  return { edges: document.querySelectorAll('#graph g.edge').length, drawn: [...new Set(drawn)], straight: [...new Set(straight)] };
}"""

SWATCHES = """() => [...document.querySelectorAll('#threads li')].map((li) =>
  [li.dataset.thread, getComputedStyle(li.querySelector('.swatch')).backgroundColor])"""


@pytest.fixture(autouse=True)
def no_page_problems(page: Page) -> Iterator[None]:
    page.problems()
    yield
    assert page.problems() == []


def open_page(page: Page, srv: ServerProcess, fragment: str) -> None:
    page.goto(f"{srv.inspector_url}?token={TOKEN}{fragment}")
    page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")
    page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")


def test_no_edge_is_drawn_through_a_node_box(page: Page, inspected: ServerProcess) -> None:
    _, listing, _ = api(inspected, "/api/graphs")
    names = [g["name"] for g in listing["graphs"]]
    assert {"reminders", "reminders_langchain", "supervisor"} <= set(names)
    for name in names:
        open_page(page, inspected, f"#graph={name}")
        got = page.eval(CROSSINGS)
        assert got["edges"] > 0 and got["drawn"] == [], (name, got)
        if name == "reminders":
            # The router's edge to END, drawn straight, would cross the tools box (the misreading).
            assert "model>__end__ crosses tools" in got["straight"]
    # Opened subgraphs too: their nodes join the layers the edges pass.
    open_page(page, inspected, "#graph=supervisor")
    page.click('#graph g.node[data-node="researcher"]')
    page.wait("() => !!document.querySelector('#graph g.group[data-group=\"researcher\"]')", what="the researcher opened")
    page.click('#graph g.node[data-node="writer"]')
    page.wait("() => !!document.querySelector('#graph g.group[data-group=\"writer\"]')", what="the writer opened")
    got = page.eval(CROSSINGS)
    assert got["edges"] > 0 and got["drawn"] == [], got


def test_twelve_threads_get_twelve_distinct_colours(page: Page, inspected: ServerProcess) -> None:
    suffix = uuid.uuid4().hex[:6]
    threads = [f"colour-{i:02d}-{suffix}" for i in range(12)]
    with inspected.client() as client:
        for t in threads:
            client.invoke("chain3", t, {"n": 0}, timeout=30)
    open_page(page, inspected, "#graph=chain3")
    page.wait("(ts) => ts.every((t) => document.querySelector(`#threads li[data-thread=\"${t}\"]`))", threads, what="the twelve threads")
    colours = dict(page.eval(SWATCHES))
    mine = [colours[t] for t in threads]
    assert len(set(mine)) == 12, mine
    assert len(set(colours.values())) == len(colours)  # every thread shown, not only these


def conversation(client: Any, graph: str, thread: str) -> None:
    assert client.invoke(graph, thread, {"messages": [USER]}, timeout=30).interrupted
    assert client.resume(graph, thread, "yes", timeout=30).reason is FinishReason.END


def test_a_forks_call_names_the_version_it_went_back_to(page: Page, inspected: ServerProcess) -> None:
    thread = f"forked-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        conversation(client, "reminders", thread)
        before_reply = next(s for s in client.history("reminders", thread) if s.next == ("model",))
        assert client.fork("reminders", thread, before_reply.checkpoint.checkpoint_id, timeout=30).reason is FinishReason.END
    open_page(page, inspected, f"#graph=reminders&thread={thread}")
    page.wait("() => document.querySelector('#calls .call[data-call=\"Fork\"]')", what="the fork's call")
    label = page.eval("() => document.querySelector('#calls .call[data-call=\"Fork\"] .call-label').textContent")
    assert label == f"from step {before_reply.checkpoint.step} · model"
    # Not the id's first characters, which every version of the thread shares.
    assert before_reply.checkpoint.checkpoint_id[:8] not in label


TRANSCRIPT = """() => [...document.querySelectorAll('#detail section[data-section=values] .transcript li.msg')].map((m) => ({
  role: m.dataset.role, text: m.querySelector('.text')?.textContent ?? '',
  calls: [...m.querySelectorAll('.tool-call')].map((c) => c.textContent),
}))"""


def test_messages_read_as_a_transcript_with_the_raw_json_a_click_away(page: Page, inspected: ServerProcess) -> None:
    thread = f"chat-{uuid.uuid4().hex[:6]}"
    with inspected.client() as client:
        conversation(client, "reminders_langchain", thread)
        head = client.get_state("reminders_langchain", thread).checkpoint.checkpoint_id
    open_page(page, inspected, f"#graph=reminders_langchain&thread={thread}&version={head}")
    page.wait("(id) => document.getElementById('detail').dataset.version === id", head, what="the newest version")
    said = page.eval(TRANSCRIPT)
    assert [m["role"] for m in said] == ["user", "assistant", "tool", "assistant"]
    assert said[0]["text"] == USER["content"]
    (call,) = said[1]["calls"]
    assert call.startswith("→ add_reminder(") and "5pm" in call
    assert said[2]["text"].startswith("Done: I'll remind you to call mom")
    # LangChain's fields are not in the transcript, but in the raw JSON, folded until clicked.
    values = "#detail section[data-section=values]"
    assert "additional_kwargs" not in page.eval(f"() => document.querySelector('{values} ol.messages').textContent")
    assert not page.eval(f"() => document.querySelector('{values} details.raw').open")
    page.click(f"{values} details.raw summary")
    page.wait(f"() => document.querySelector('{values} details.raw').open", what="the raw JSON")
    assert "additional_kwargs" in page.eval(f"() => document.querySelector('{values} details.raw pre').innerText")


ROWS_SHOWN = """() => {
  const box = document.getElementById('threads-scroll').getBoundingClientRect();
  return [...document.querySelectorAll('#threads li')].map((li) => {
    const r = li.getBoundingClientRect();
    const scroll = li.querySelector('.row-scroll');
    const newest = li.querySelector('g.version.latest');
    const s = scroll && scroll.getBoundingClientRect();
    const n = newest && newest.getBoundingClientRect();
    return {
      thread: li.dataset.thread, selected: li.classList.contains('selected'),
      inView: r.top >= box.top - 1 && r.bottom <= box.bottom + 1,
      versions: li.querySelectorAll('g.version').length,
      older: li.querySelector('button.older')?.textContent ?? null,
      newestInView: !!(n && s && n.left >= s.left - 1 && n.right <= s.right + 1),
    };
  });
}"""


def test_every_threads_row_of_versions_shows_at_once(page: Page, inspected: ServerProcess) -> None:
    suffix = uuid.uuid4().hex[:6]
    threads = [f"row-{i}-{suffix}" for i in range(6)]
    with inspected.client() as client:
        for t in threads:
            client.invoke("gated", t, {"label": t}, timeout=30)  # no gate: START, work, END
        long_thread = threads[0]
        for n in range(5):  # 3 more versions a run: a row longer than the collapsed width
            client.invoke("gated", long_thread, {"label": f"again {n}"}, timeout=30)
        lengths = {t: len(client.history("gated", t)) for t in threads}
    assert lengths[long_thread] > 12 and all(lengths[t] == 3 for t in threads[1:])

    open_page(page, inspected, f"#graph=gated&thread={threads[2]}")
    page.wait(
        "(ts) => ts.every((t) => document.querySelector(`#threads li[data-thread=\"${t}\"] g.version`))",
        threads,
        what="every thread's versions",
    )
    shown = {r["thread"]: r for r in page.eval(ROWS_SHOWN)}
    assert set(shown) == set(threads)
    for t in threads:
        row = shown[t]
        assert row["inView"], f"{t}'s row is out of view: {row}"
        assert row["newestInView"], f"{t}'s newest version is out of view: {row}"
        assert row["selected"] == (t == threads[2])
    # Short rows whole; the long one collapsed to its newest twelve, the older behind a button.
    assert all(shown[t]["versions"] == 3 and shown[t]["older"] is None for t in threads[1:])
    assert shown[long_thread]["versions"] == 12
    assert shown[long_thread]["older"] == f"⋯ {lengths[long_thread] - 12} older"
    page.click(f'#threads li[data-thread="{long_thread}"] button.older')
    page.wait(
        "([t, n]) => document.querySelectorAll(`#threads li[data-thread=\"${t}\"] g.version`).length === n",
        [long_thread, lengths[long_thread]],
        what="the long row opened",
    )
    # The selected thread's row alone carries short ids; the highlight follows a click.
    assert page.eval("() => document.querySelectorAll('#threads li:not(.selected) .short-id').length") == 0
    page.click(f'#threads li[data-thread="{threads[4]}"] .row-head')
    page.wait("(t) => document.querySelector('#threads li.selected')?.dataset.thread === t", threads[4], what="the new selection")
