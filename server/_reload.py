"""``graphwire serve --reload``: serve, and serve again when the project's code or configuration changes.

A development aid, as LangGraph's dev server reloads on save. The command
becomes a watcher: it runs ``graphwire serve`` with the same arguments but
``--reload`` as a child process, looks at the watched files' sizes and
modification times twice a second, and on a change stops the child (SIGTERM:
its runs drain as on any stop) and starts another. A fresh process rather
than modules reloaded in place: the import swap, the graphs' modules and
whatever they built at import start over, as they do in production, and a
module that kept a reference to an old class cannot mix the two.

Watched: the config file (graphwire.toml or langgraph.json), langgraph.json's
``.env`` file, and every ``.py`` file under the project's directories: the
config file's (the current one without a file), each local dependency's, and
each graph file's. Directories a project does not edit are skipped: hidden
ones, ``__pycache__``, ``node_modules``, virtual environments (a
``pyvenv.cfg`` in them) and ``site-packages``.

A child that fails to start (a syntax error just saved) has said why on
stderr; the watcher says it waits for the next change, and starts a child
again then. SIGINT or SIGTERM stops the child, then the watcher.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from server.config import ServerConfig

__all__ = ["serve_reloading", "watched_roots", "snapshot"]

log = logging.getLogger("graphwire.reload")
POLL_SECONDS = 0.5  # how often the files are looked at: a person saving a file notices no less
MAX_FILES = 20_000  # a directory this large is no project's own code: watch the first ones, and say so
_SKIPPED = {"__pycache__", "node_modules", "site-packages"}
Snapshot = dict[str, tuple[int, int]]


def watched_roots(config: ServerConfig) -> list[Path]:
    """The directories whose ``.py`` files are the project's code."""
    base = Path(config.config_dir or os.getcwd())
    roots = [base, *(Path(p) for p in (config.project.import_paths if config.project else ()))]
    for spec in config.graphs.values():
        module = spec.partition(":")[0]
        if module.endswith(".py") or "/" in module:  # a file spec: its directory
            roots.append((base / module).resolve().parent)
    return list(dict.fromkeys(r.resolve() for r in roots if r.is_dir()))


def _python_files(roots: Iterable[Path]) -> Iterable[str]:
    for root in roots:
        for directory, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED
                       and not os.path.exists(os.path.join(directory, d, "pyvenv.cfg"))]  # fmt: skip
            yield from (os.path.join(directory, f) for f in files if f.endswith(".py"))


def snapshot(files: Iterable[str], roots: Iterable[Path]) -> Snapshot:
    """Size and modification time of ``files`` and of the ``.py`` files under ``roots`` (a missing one: absent)."""
    seen: Snapshot = {}
    for path in [*files, *_python_files(roots)]:
        if len(seen) >= MAX_FILES:
            break
        try:
            stat = os.stat(path)
        except OSError:
            continue
        seen[path] = (stat.st_mtime_ns, stat.st_size)
    return seen


def _changed(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


class _Child:
    """The ``graphwire serve`` process the watcher runs."""

    def __init__(self, argv: Sequence[str], grace: float) -> None:
        self.argv = [sys.executable, "-m", "server", *argv]
        self.grace = grace
        self.proc: subprocess.Popen[bytes] | None = None
        self.said_exit = False

    def start(self) -> None:
        self.proc = subprocess.Popen(self.argv)  # its output is the terminal's, as without --reload
        self.said_exit = False
        log.info("serving in process %d (it starts again when a watched file changes)", self.proc.pid)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=self.grace + 10)  # its runs get their grace period, as on any SIGTERM
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def note_exit(self) -> None:
        """Say once that the child ended on its own (a failed start), and that a change starts it again."""
        if self.proc is not None and not self.said_exit and self.proc.poll() is not None:
            self.said_exit = True
            log.warning("graphwire serve exited with status %d; waiting for a change to start it again", self.proc.returncode)


def _watched(config: ServerConfig, config_file: str | None) -> tuple[list[str], list[Path]]:
    """The files watched by name (the config file, its .env) and the directories whose .py files are."""
    files = [os.path.abspath(f) for f in (config_file, config.project.env_file if config.project else None) if f]
    return files, watched_roots(config)


def serve_reloading(
    config: ServerConfig, read_again: Callable[[], ServerConfig], config_file: str | None, argv: Sequence[str]
) -> int:
    """Run ``graphwire serve ARGV`` and run it again on every change, until SIGINT or SIGTERM.

    ``read_again``: the configuration read anew, at each change (a dependency
    added to langgraph.json is watched from then on; a configuration that no
    longer reads keeps the last one's watch, and the child says what is wrong).
    """
    files, roots = _watched(config, config_file)
    before = snapshot(files, roots)
    log.info("watching %d file(s): %s and the .py files under %s", len(before), ", ".join(files) or "no config file",
             ", ".join(map(str, roots)))  # fmt: skip
    if len(before) >= MAX_FILES:
        log.warning("over %d files under %s: only the first are watched", MAX_FILES, ", ".join(map(str, roots)))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    child = _Child(argv, config.grace_seconds)
    child.start()
    try:
        while not stop.wait(POLL_SECONDS):
            after = snapshot(files, roots)
            changed = _changed(before, after)
            if not changed:
                child.note_exit()
                continue
            more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
            log.info("%s changed%s: serving again", os.path.relpath(changed[0]), more)
            child.stop()
            try:
                files, roots = _watched(read_again(), config_file)
            except ValueError:
                pass  # the child, starting, says what is wrong with it
            before = snapshot(files, roots)
            child.start()
    finally:
        child.stop()
    return 0
