"""docs/inspector-users.png: the page with six chat users on the gated reminders agent
(issue 35, item 6): one forked (a regenerated reply), one waiting at its question, two
running (each waiting in its forecast tool, whose gate the test holds shut), one whose
call failed, and one done. The test waits on page conditions, then copies the shot to
test-artifacts/ (docs/ holds the committed copy)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graphwire import FinishReason

from tests.conftest import ServerProcess
from tests.inspector._browser import Page
from tests.inspector.conftest import ARTIFACTS, TOKEN

GRAPH = "reminders_gated"


def said(text: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def test_screenshot_of_six_users(page: Page, inspected: ServerProcess) -> None:
    forked, asking, oslo, rome, failed, done = (f"user-{n}" for n in (41, 42, 43, 44, 45, 46))
    with ThreadPoolExecutor(2) as pool, inspected.client() as client:
        assert client.invoke(GRAPH, forked, said("remind me to call mom at 5pm"), timeout=30).interrupted
        client.resume(GRAPH, forked, "yes", timeout=30)
        before_reply = next(s for s in client.history(GRAPH, forked) if s.next == ("model",))
        assert client.fork(GRAPH, forked, before_reply.checkpoint.checkpoint_id, timeout=30).reason is FinishReason.END
        assert client.invoke(GRAPH, asking, said("remind me to buy milk at 6pm"), timeout=30).interrupted
        assert client.invoke(GRAPH, done, said("hello"), timeout=30).reason is FinishReason.END
        assert client.invoke(GRAPH, failed, said(42), timeout=30).reason is FinishReason.ERROR  # the model reads text only
        page.goto(f"{inspected.inspector_url}?token={TOKEN}#graph={GRAPH}&thread={forked}")
        page.wait("() => document.body.dataset.ready === 'true'", what="the page to load")
        page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")
        runs = [pool.submit(client.invoke, GRAPH, t, said(f"weather in {t}"), timeout=60) for t in (oslo, rome)]
        page.wait(
            "(ts) => ts.every((t) => document.querySelector(`#held .held-card[data-thread=\"${t}\"] li.inner.tool.waiting`))",
            [oslo, rome],
            what="both weather questions waiting in their tool",
        )
        page.wait("(n) => document.querySelectorAll('#threads li .lane .seg').length >= n", 8, what="the calls")
        page.wait(
            "() => [...document.querySelectorAll('#threads li')].filter((li) => li.getBoundingClientRect().top < innerHeight)"
            "  .every((li) => li.querySelector('g.version'))",
            what="the rows in view",
        )
        shot = page.screenshot(ARTIFACTS / "inspector-users.png")
        for t in (oslo, rome):
            inspected.open_gate(f"forecast-{t}")
        assert [r.result(timeout=60).reason for r in runs] == [FinishReason.END, FinishReason.END]
    assert shot.stat().st_size > 10_000
