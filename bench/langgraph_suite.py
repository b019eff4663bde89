"""LangGraph's own test suites, run on LangGraph and on the engine (the import swap).

The yardstick of the engine's fidelity: the ``tests/`` folders that ship in
the source distributions of langgraph 1.2.22 and langgraph-prebuilt 1.1.3
(and of the packages built on them: langgraph-supervisor, langgraph-swarm,
LangChain 1.x's agents: langchain's ``tests/unit_tests/agents``, its
``create_agent`` and middleware, and CopilotKit's AG-UI adapter, ag-ui-langgraph),
downloaded at run time from the package registry into a cache directory and
never committed here. Each test file runs twice in pytest, in one venv that
has LangGraph and its test dependencies:

* ``langgraph``: as shipped, on LangGraph itself;
* ``engine``: with ``-p _swap_plugin`` (bench/_swap_plugin.py), so every
  ``langgraph`` import the suite, its conftest and the code under test make
  is served by ``engine`` (as engine/swap.py serves it). The suite's own
  SQLite and PostgreSQL savers, stores and caches are then graphwire's. A
  name the engine lacks is a stand-in there that fails the tests that use
  it, not every test of the file that imports it.

Per file it prints: tests run, passed on LangGraph, passed on both, and the
engine's failures among LangGraph's passes by cause:

* ``missing``: an ImportError/AttributeError naming a public LangGraph name;
* ``refused``: NotImplementedError (a feature the engine refuses);
* ``behaviour``: an assertion failed (the engine ran and answered otherwise);
* ``exception``: another exception;
* ``internals``: the test reaches into LangGraph's private modules or
  patches its internals (a ``_``-prefixed module or name): left out of the
  percentage, as LangGraph does not promise them either.

The headline is the engine's passes over LangGraph's passes that use only
its public API. ``--details FILE`` writes every failure (test id, cause,
first line of its message) as JSON, the work list for the engine.

Savers: ``--savers memory`` (default) runs the suite's in-memory and SQLite
parametrisations (LangGraph's ``NO_DOCKER=true``; langgraph-prebuilt's
``LANGGRAPH_TEST_FAST=true`` runs its in-memory ones only); ``--savers all``
adds PostgreSQL (the suite's URI pointed at ``GRAPHWIRE_BENCH_PG_DSN``, default
the local server), Redis (127.0.0.1:6379) and langgraph-prebuilt's SQLite and
PostgreSQL savers and stores (``LANGGRAPH_TEST_FAST=false``).

Usage::

    python bench/langgraph_suite.py                        # everything, memory+SQLite
    python bench/langgraph_suite.py --files test_pregel.py --side engine
    python bench/langgraph_suite.py --savers all --details /tmp/failures.json

The venv: ``--python PATH`` names an interpreter that has LangGraph, its test
dependencies and this repository installed; without it the script makes one
under the cache directory (``--cache``, default ``~/.cache/graphwire/langgraph-suite``).
LangGraph's side is cached per file and saver set (it does not change with
the engine); ``--fresh`` runs it again.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent

#: (distribution, version)
SUITES = [
    ("langgraph", "1.2.22"),
    ("langgraph-prebuilt", "1.1.3"),
    ("langgraph-supervisor", "0.0.31"),
    ("langgraph-swarm", "0.1.0"),
    ("langchain", "1.5.2"),
    ("ag-ui-langgraph", "0.0.47"),  # CopilotKit's AG-UI adapter: astream_events, state reads and updates
    ("langgraph-checkpoint-sqlite", "3.1.2"),  # its saver's and store's own tests, on graphwire's
    ("langgraph-checkpoint-postgres", "3.2.0"),  # the same for PostgreSQL (a database per test, on the local server)
]
#: the folder of a suite's tests under its sdist's root, where it is not ``tests`` (langchain's other
#: unit tests do not run LangGraph)
TEST_FOLDERS = {"langchain": "tests/unit_tests/agents"}
#: What the suites import beside LangGraph (their test dependency groups).
TEST_DEPS = [
    "langgraph==1.2.22", "langgraph-prebuilt==1.1.3", "langgraph-checkpoint-sqlite", "langgraph-checkpoint-postgres",
    "langgraph-supervisor==0.0.31", "langgraph-swarm==0.1.0", "langchain==1.5.2", "langchain-core>=1.0,<2",
    "pytest", "pytest-mock", "pytest-timeout", "pytest-xdist", "pytest-repeat", "syrupy", "httpx", "redis",
    "pycryptodome", "psycopg[binary]", "psycopg-pool", "anyio",
    # langchain's agents suite: its conftests' imports and its pytest settings' plugins
    "blockbuster", "langchain-tests", "langchain-openai", "pytest-asyncio", "pytest-socket", "toml",
    "ag-ui-langgraph==0.0.47", "langgraph-checkpoint-conformance==0.0.2", "aiosqlite", "sqlite-vec",
]
#: the PostgreSQL servers the suites name (LangGraph's on 5442, langgraph-checkpoint-postgres's on
#: 5441), each pointed at ours (GRAPHWIRE_BENCH_PG_DSN, default the local server)
SUITE_PGS = ("postgres://postgres:postgres@localhost:5442/", "postgres://postgres:postgres@localhost:5441/")
CAUSES = ("missing", "refused", "behaviour", "exception", "internals")
_PRIVATE = re.compile(r"\b(?:langgraph|engine)(?:\.\w+)*\._\w+|\b_internal\b")
_NAME = re.compile(r"""(?:cannot import name|has no attribute|No module named) ['"]?([\w.]+)""")


@dataclass
class FileResult:
    name: str
    outcomes: dict[str, tuple[str, str]] = field(default_factory=dict)  # test id -> (outcome, message)
    collect_error: str = ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", help="an interpreter with LangGraph, its test deps and this repository")
    ap.add_argument("--cache", default=str(Path.home() / ".cache/graphwire/langgraph-suite"))
    ap.add_argument("--files", nargs="*", default=[], help="only test files whose path contains one of these")
    ap.add_argument("--suites", nargs="*", default=[d for d, _ in SUITES], help="which distributions' suites")
    ap.add_argument("--savers", choices=("memory", "all"), default="memory")
    ap.add_argument("--side", choices=("both", "engine", "langgraph"), default="both")
    ap.add_argument("--fresh", action="store_true", help="run LangGraph's side again instead of using its cache")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test")
    ap.add_argument("--jobs", type=int, default=1, help="pytest-xdist workers per file")
    ap.add_argument("--details", help="write every engine failure as JSON here")
    args = ap.parse_args()

    cache = Path(args.cache).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    python = args.python or _venv(cache)
    started = time.monotonic()
    rows: list[tuple[str, dict[str, int]]] = []
    details: list[dict[str, str]] = []
    for dist, version in SUITES:
        if dist not in args.suites:
            continue
        root = _sdist(python, cache, dist, version)
        for test_file in sorted((root / TEST_FOLDERS.get(dist, "tests")).rglob("test_*.py")):
            rel = f"{dist}/{test_file.relative_to(root)}"
            if args.files and not any(f in rel for f in args.files):
                continue
            lg = _side(python, cache, root, test_file, "langgraph", args, reuse=not args.fresh)
            en = _side(python, cache, root, test_file, "engine", args, reuse=args.side == "langgraph") if args.side != "langgraph" else None
            counts, failures = _compare(lg, en)
            rows.append((rel, counts))
            details += [{"file": rel, **f} for f in failures]
            _print_row(rel, counts)
    _print_total(rows, time.monotonic() - started)
    if args.details:
        Path(args.details).write_text(json.dumps(details, indent=1))
        print(f"failures: {args.details} ({len(details)})")
    return 0


# -- the venv and the sources ----------------------------------------------


def _venv(cache: Path) -> str:
    venv = cache / "venv"
    python = venv / "bin" / "python"
    stamp = venv / "graphwire-deps.txt"
    wanted = "\n".join(TEST_DEPS)
    if not python.exists():
        print(f"making the suite's venv at {venv} (once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if not stamp.exists() or stamp.read_text() != wanted:
        subprocess.run([str(python), "-m", "pip", "install", "-q", *TEST_DEPS], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "-e", str(ROOT / "proto/python"), "-e", str(ROOT / "clients/python"), "-e", str(ROOT)],
            check=True,
        )
        stamp.write_text(wanted)
    return str(python)


def _sdist(python: str, cache: Path, dist: str, version: str) -> Path:
    """The sdist's folder, downloaded and unpacked once; its PostgreSQL URIs pointed at ours."""
    stem = f"{dist.replace('-', '_')}-{version}"
    root = cache / "src" / stem
    if root.exists():
        return root
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [python, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps", "-d", str(dl), f"{dist}=={version}"],
        check=True,
    )
    archive = next(p for p in dl.iterdir() if p.name.lower().startswith(stem.lower()) and p.name.endswith(".tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(cache / "src", filter="data")
    unpacked = next(p for p in (cache / "src").iterdir() if p.name.lower() == stem.lower())
    if unpacked != root:
        unpacked.rename(root)
    pg = os.environ.get("GRAPHWIRE_BENCH_PG_DSN", "postgres://root@127.0.0.1:5432/").rstrip("/") + "/"
    for conf in (root / "tests").rglob("*.py"):
        text = conf.read_text()
        if any(uri in text for uri in SUITE_PGS):
            for uri in SUITE_PGS:
                text = text.replace(uri, pg)
            # the one database some tests share (langgraph-checkpoint-postgres's DEFAULT_URI): one per side,
            # as each side's savers keep tables of the same names in their own formats
            shared = f'"{pg}postgres?sslmode=disable"'
            text = text.replace(shared, f'"{pg}" + __import__("os").environ["GRAPHWIRE_SUITE_PG_DB"] + "?sslmode=disable"')
            conf.write_text(text)
    return root


# -- running one side of one file -----------------------------------------


def _side(python: str, cache: Path, root: Path, test_file: Path, side: str, args: argparse.Namespace, *, reuse: bool) -> FileResult:
    out = cache / "results" / args.savers / side / root.name / f"{test_file.relative_to(root / 'tests')}.xml"
    if not (reuse and out.exists()):
        out.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, NO_DOCKER="true" if args.savers == "memory" else "false")
        # langgraph-prebuilt's conftest picks its savers by LANGGRAPH_TEST_FAST (memory only unless "false")
        env["LANGGRAPH_TEST_FAST"] = "true" if args.savers == "memory" else "false"
        env["PYTHONPATH"] = os.pathsep.join([str(root), str(BENCH), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env["GRAPHWIRE_SUITE_PG_DB"] = _side_database(side)
        cmd = [
            python, "-m", "pytest", str(test_file.relative_to(root)), "-q", "-p", "no:cacheprovider", "-o", "addopts=",
            f"--junitxml={out}", f"--timeout={args.timeout}", "-W", "ignore",
        ]
        if side == "engine":
            cmd += ["-p", "_swap_plugin"]
        if args.jobs > 1:
            cmd += ["-n", str(args.jobs)]
        with out.with_suffix(".log").open("w") as log:
            subprocess.run(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=3600)
    return _parse(out, test_file.name)


@functools.cache
def _side_database(side: str) -> str:
    """The PostgreSQL database of a side's shared tests (made once on the bench's server when
    reachable; a suite without such tests never connects to it)."""
    name = f"graphwire_suite_{side}"
    pg = os.environ.get("GRAPHWIRE_BENCH_PG_DSN", "postgres://root@127.0.0.1:5432/").rstrip("/") + "/postgres"
    try:
        import psycopg

        with psycopg.connect(pg, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                conn.execute(f"CREATE DATABASE {name}")
    except Exception as exc:  # no server, no psycopg: the tests that need it fail alike on both sides
        print(f"(no database {name}: {exc})", file=sys.stderr)
    return name


def _parse(xml: Path, name: str) -> FileResult:
    result = FileResult(name)
    if not xml.exists():  # pytest stopped before collecting (a conftest that does not import): its last lines say why
        log = xml.with_suffix(".log")
        tail = log.read_text().strip().splitlines()[-6:] if log.exists() else []
        result.collect_error = "\n".join(reversed([ln for ln in tail if ln.strip()])) or "no report (pytest crashed)"
        return result
    for case in ET.parse(xml).getroot().iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, message = child.tag, (child.get("message") or "") + "\n" + (child.text or "")
            elif child.tag == "skipped":
                outcome, message = "skipped", child.get("message") or ""
        if not case.get("name") or (outcome == "error" and "collection failure" in message.lower()):
            result.collect_error = message
            continue
        result.outcomes[test_id] = (outcome, message)
    return result


# -- comparing ----------------------------------------------------------------


def cause_of(message: str) -> str:
    """The cause of one engine failure, read from its message and traceback."""
    head = re.sub(r"^E\s+", "", message.strip().splitlines()[0]) if message.strip() else ""
    head = re.sub(r'^failed on (?:setup|teardown) with "', "", head)  # a fixture's error: read it as the test's
    kind = head.split(":", 1)[0].rsplit(".", 1)[-1]
    text = message[:4000]
    if kind == "InternalsUsed" or "InternalsUsed:" in text:
        return "internals"
    if kind == "PublicNameMissing" or "PublicNameMissing:" in text:
        return "missing"
    if kind in ("ImportError", "ModuleNotFoundError", "AttributeError", "LangGraphNameMissing") or "cannot import name" in text:
        name = _NAME.search(text)
        if name and any(part.startswith("_") for part in name.group(1).split(".")):
            return "internals"
        return "missing"
    if "mocker.patch" in text and _PRIVATE.search(text):
        return "internals"
    if kind == "NotImplementedError" or "NotImplementedError" in head:
        return "refused"
    if kind in ("AssertionError", "Failed") or text.lstrip().startswith("assert"):
        return "behaviour"
    return "exception"


def _compare(lg: FileResult, en: FileResult | None) -> tuple[dict[str, int], list[dict[str, str]]]:
    passed_lg = {t for t, (o, _) in lg.outcomes.items() if o == "passed"}
    counts = {"run": len(lg.outcomes), "lg": len(passed_lg), "both": 0, **dict.fromkeys(CAUSES, 0)}
    failures: list[dict[str, str]] = []
    if en is None:
        return counts, failures
    for test in sorted(passed_lg):
        outcome, message = en.outcomes.get(test, ("error", en.collect_error or "not run on the engine"))
        if outcome == "passed":
            counts["both"] += 1
            continue
        cause = cause_of(message)
        counts[cause] += 1
        failures.append({"test": test, "cause": cause, "message": _first_lines(message)})
    return counts, failures


def _first_lines(message: str, n: int = 3) -> str:
    lines = [ln for ln in message.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:n])[:600]


def _print_row(name: str, c: dict[str, int]) -> None:
    public = c["lg"] - c["internals"]
    pct = f"{100 * c['both'] / public:5.1f}%" if public else "   - "
    causes = " ".join(f"{k}={c[k]}" for k in CAUSES if c[k])
    print(f"{name:70s} run {c['run']:4d}  lg {c['lg']:4d}  both {c['both']:4d}  {pct}  {causes}", flush=True)


def _print_total(rows: list[tuple[str, dict[str, int]]], seconds: float) -> None:
    total = {k: sum(c[k] for _, c in rows) for k in ("run", "lg", "both", *CAUSES)}
    print("-" * 120)
    _print_row("TOTAL", total)
    public = total["lg"] - total["internals"]
    if public:
        print(
            f"the engine passes {total['both']} of the {public} tests that pass on LangGraph and use only its public "
            f"API ({100 * total['both'] / public:.1f}%); {total['internals']} reach into LangGraph's internals "
            f"({seconds:.0f} s)"
        )


if __name__ == "__main__":
    sys.exit(main())
