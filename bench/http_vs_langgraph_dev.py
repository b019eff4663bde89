"""The same langgraph-sdk programs against ``graphwire serve --http`` and ``langgraph dev``; what differs.

Both servers serve bench/peers_app/ (one langgraph.json, one graph module
with ``langgraph`` imports): graphwire on a SQLite file, ``langgraph dev``
(langgraph-cli[inmem], installed once in a venv of its own under
~/.cache/graphwire-bench/peers, with this venv's langgraph) in memory. The
programs (bench/_peers_programs.py) are ordinary async ``langgraph-sdk``
programs: a multi-turn chat with tool calls streamed in messages-tuple and
values modes; an interrupt answered with ``command={"resume": ...}``; history
and a fork from an older checkpoint; a background run joined; store calls; and
(bench/_peers_more.py) threads with ``update_state`` and searches by values,
the other stream modes, assistants, a failing run, an interrupt inside a
subgraph, a ``Send`` fan-out, stateless runs and a static breakpoint resumed.

What each program saw on each server is masked (ids become ``<id#n>``
numbered by first appearance, so which id is which still compares; times
become ``<time>``) and compared: first the sequence of what was seen (SSE
event names, calls), then each value, path by path. Prints ``same`` or the
differing paths as ``path: graphwire value | langgraph dev value`` (paths
that differ alike at several list indexes or occurrences folded into one,
with ``[*]`` and ``(xN)``). It
asserts nothing and exits 0 when both servers ran (1 when one could not).

Usage::

    python bench/http_vs_langgraph_dev.py           # every program, 20 differences each at most
    python bench/http_vs_langgraph_dev.py -v        # every difference, values in full
    python bench/http_vs_langgraph_dev.py --json seen.json   # and what each program saw, masked, to a file
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

_ROOT = str(Path(__file__).resolve().parent.parent)
if not any(Path(p or ".").resolve() == Path(_ROOT) for p in sys.path):
    sys.path.insert(1, _ROOT)

from bench._peers_more import MORE  # noqa: E402
from bench._peers_programs import ABSENT, Seen, diff, grouped, mask  # noqa: E402
from bench._peers_programs import PROGRAMS as FIRST  # noqa: E402
from bench._peers_proc import Served  # noqa: E402
from bench._peers_systems import graphwire_start, langgraph_dev_start, langgraph_dev_venv  # noqa: E402

SIDES = ("graphwire", "langgraph dev")
#: bench/_peers_programs.py's, then bench/_peers_more.py's.
PROGRAMS = {**FIRST, **MORE}
SHORT = 20


async def run_programs(url: str) -> dict[str, Seen]:
    from langgraph_sdk import get_client

    client = get_client(url=url, api_key=None)
    try:
        return {name: await program(client) for name, program in PROGRAMS.items()}
    finally:
        await client.aclose()


def keyed(seen: Seen) -> dict[str, Any]:
    """What a program saw, masked, as ``{"label #k": value}`` (k: the label's occurrence), for a path-wise diff."""
    ids: dict[str, str] = {}
    out: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for label, value in map(lambda pair: (mask(pair[0]), pair[1]), seen):  # a subgraph's event names its task's id
        counts[label] = counts.get(label, 0) + 1
        out[f"{label} #{counts[label]}"] = mask(value, ids)
    return out


def _show(value: Any, verbose: bool) -> str:
    text = value if value == ABSENT else json.dumps(value, default=str)
    return text if verbose or len(text) <= 70 else text[:67] + "..."


def compare(name: str, ours: Seen, theirs: Seen, verbose: bool) -> int:
    """Print how one program's two runs differ; the number of differences."""
    found: list[tuple[str, Any, Any]] = []
    labels = ([mask(label) for label, _ in ours], [mask(label) for label, _ in theirs])
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=labels[0], b=labels[1], autojunk=False).get_opcodes():
        if op != "equal":  # what one server sent (or answered) and the other did not, at that place
            found.append((f"(seen, after {labels[0][i1 - 1] if i1 else 'the start'!r})", labels[0][i1:i2] or ABSENT, labels[1][j1:j2] or ABSENT))
    diff(keyed(ours), keyed(theirs), "", found)
    if not found:
        print(f"{name}: same")
        return 0
    lines = grouped(found)
    print(f"{name}: {len(found)} difference{'s' * (len(found) != 1)} in {len(lines)} kind(s) ({SIDES[0]} | {SIDES[1]})")
    for path, times, a, b in lines if verbose else lines[:SHORT]:
        print(f"  {path}{f' (x{times})' if times > 1 else ''}: {_show(a, verbose)} | {_show(b, verbose)}")
    if not verbose and len(lines) > SHORT:
        print(f"  ... {len(lines) - SHORT} more (-v shows all)")
    return len(found)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-v", "--verbose", action="store_true", help="every difference, values in full")
    p.add_argument("--json", type=Path, help="write what each program saw on each server (masked) to this file")
    p.add_argument("--no-install", action="store_true", help="do not install langgraph dev if it is missing")
    args = p.parse_args(argv)
    bin_dir, why = langgraph_dev_venv(not args.no_install)
    if bin_dir is None:
        print(f"langgraph dev skipped: {why}")
        return 1
    seen: dict[str, dict[str, Seen]] = {}
    with tempfile.TemporaryDirectory(prefix="gw-vs-dev-") as tmp:
        starts = {SIDES[0]: graphwire_start("graphwire HTTP SQLite", "", http=True), SIDES[1]: langgraph_dev_start(bin_dir)}
        for side, start in starts.items():
            served: Served | None = None
            try:
                served = start(Path(tmp))
                seen[side] = asyncio.run(run_programs(served.target))
            except Exception as exc:  # say which server failed, with its log
                print(f"{side} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                if served is not None:
                    print(served.tail(), file=sys.stderr)
                return 1
            finally:
                if served is not None:
                    served.stop()
    print(f"the same langgraph-sdk programs against {SIDES[0]} (serve --http, SQLite) and {SIDES[1]} (in memory); "
          "ids and times masked\n")  # fmt: skip
    total = sum(compare(name, seen[SIDES[0]][name], seen[SIDES[1]][name], args.verbose) for name in PROGRAMS)
    print(f"\n{total} difference(s) in {len(PROGRAMS)} programs")
    if args.json:
        args.json.write_text(json.dumps({side: {n: keyed(s) for n, s in by.items()} for side, by in seen.items()},
                                        indent=1, default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
