"""The inspector page with many threads of long histories: time to first paint, and per update.

Writes ``--threads`` threads of ``--versions`` versions each of the ``chain3``
test graph straight into a SQLite checkpointer (one transaction per thread),
starts ``graphwire serve`` on it with the inspector, and opens the page in the
headless Chromium the inspector's tests use (tests/inspector/_browser.py).
Prints:

* first paint: from asking for the page until every thread block in view has
  drawn its row of versions (each block reads its thread's versions as it
  comes into view);
* per update: ``--updates`` times, an Invoke on the thread at the top of the
  list, from the call's return until the page has drawn its newest version.

Prints figures; asserts nothing.

    python bench/inspector_scale.py                        # 200 threads × 500 versions
    python bench/inspector_scale.py --threads 50 --versions 100 --updates 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.checkpoint.base import empty_checkpoint  # noqa: E402
from engine.checkpoint.sqlite import SqliteSaver  # noqa: E402
from server._reads import thread_key  # noqa: E402
from tests.conftest import start_server_process  # noqa: E402
from tests.inspector._browser import Page, install_driver, require_browser  # noqa: E402

GRAPH = "chain3"
TOKEN = "bench-token"
ROWS_DRAWN = """() => {
  if (document.body.dataset.ready !== 'true') return false;
  const shown = [...document.querySelectorAll('#threads li')].filter((li) => {
    const r = li.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  });
  return shown.length > 0 && shown.every((li) => li.querySelector('g.version'));
}"""
NEWEST_IS = """([t, id]) => !!document.querySelector(`#threads li[data-thread="${t}"] g.version.latest[data-id="${id}"]`)"""


def fill(db: Path, threads: int, versions: int) -> list[str]:
    names = [f"user-{i:04d}" for i in range(threads)]
    with SqliteSaver.from_conn_string(str(db)) as saver:
        for name in names:
            key = thread_key(GRAPH, name)
            puts = []
            parent = None
            for step in range(versions):
                c = empty_checkpoint()
                c["channel_values"] = {"n": step, "log": []}
                c["channel_versions"] = {"n": step + 1}
                config = {"configurable": {"thread_id": key, "checkpoint_ns": "", **({"checkpoint_id": parent} if parent else {})}}
                puts.append((config, c, {"source": "loop" if step else "input", "step": step - 1, "parents": {}}, {"n": step + 1}))
                parent = c["id"]
            saver.put_many(puts)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=200)
    parser.add_argument("--versions", type=int, default=500)
    parser.add_argument("--updates", type=int, default=10)
    args = parser.parse_args()
    require_browser()
    install_driver()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db = work / "gw.db"
        started = time.perf_counter()
        fill(db, args.threads, args.versions)
        print(f"wrote {args.threads} threads × {args.versions} versions in {time.perf_counter() - started:.1f} s")
        srv = start_server_process(work / "srv", token=TOKEN, inspector=True, db=db)
        page = Page(work / "driver.log")
        try:
            started = time.perf_counter()
            page.goto(f"{srv.inspector_url}?token={TOKEN}#graph={GRAPH}")
            page.wait(ROWS_DRAWN, timeout=120.0, what="the rows in view")
            print(f"first paint (every block in view drawn): {(time.perf_counter() - started) * 1000:.0f} ms")
            page.wait("() => document.getElementById('events-status').dataset.state === 'open'", what="the event stream")
            took = []
            with srv.client() as client:
                for n in range(args.updates):
                    top = page.eval("() => document.querySelector('#threads li').dataset.thread")
                    head = client.invoke(GRAPH, top, {"n": n}, timeout=60).checkpoint.checkpoint_id
                    started = time.perf_counter()
                    page.wait(NEWEST_IS, [top, head], timeout=60.0, what="the new version drawn")
                    took.append((time.perf_counter() - started) * 1000)
            if took:
                print(
                    f"per update ({len(took)} runs of 5 versions each, from the call's return to its last version drawn): "
                    f"median {statistics.median(took):.0f} ms, max {max(took):.0f} ms"
                )
        finally:
            page.close()
            srv.terminate()


if __name__ == "__main__":
    main()
