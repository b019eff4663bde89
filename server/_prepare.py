"""What ``graphwire serve`` does to its process before the graphs load.

Two things are process-wide, so they are done once, here, by the process
that serves (``graphwire serve``), and never by :func:`server.app.build_server`,
which a program may call inside a process of its own:

* **A LangGraph project's needs** (:class:`server._langgraph_json.Project`):
  its ``env`` variables (a variable already set in the environment keeps its
  value: the operator's word beats the file's), its local dependencies put on
  the import path (after what is installed, as graph directories are), and
  its named dependencies looked up, the missing ones named in one line.
* **The import swap** (:mod:`engine.swap`): the graph modules, and whatever
  they import (a package built on LangGraph, such as langgraph-supervisor),
  get graphwire's engine when they import ``langgraph`` or ``langgraph.X``,
  whether or not LangGraph itself is installed. It is process-wide by design:
  every module of the process must see one LangGraph, or a class would have
  two identities. :func:`swap_choice` decides, and the decision is said in
  one line at start.

The swap's setting is ``import_swap`` (graphwire.toml, ``GRAPHWIRE_IMPORT_SWAP``,
``--import-swap`` / ``--no-import-swap``): unset, it is on unless a graph
runs on LangGraph itself (``[runtimes]``: a graph named ``"langgraph"``):
then :func:`swap_choice` turns the swap off for the process and says why, as
every module must see one LangGraph.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from engine import swap
from server._langgraph_json import SWAPPED_PACKAGES, Project
from server._web import is_loopback
from server.config import ServerConfig, parse_address

__all__ = ["SwapChoice", "prepare_process", "swap_choice"]

log = logging.getLogger("graphwire.server")
_OFF = "import_swap = false, --no-import-swap or GRAPHWIRE_IMPORT_SWAP=false"


@dataclass(frozen=True, slots=True)
class SwapChoice:
    """Whether ``langgraph`` imports get the engine in this process, and why (said at start)."""

    on: bool
    why: str


def swap_choice(
    setting: bool | None, *, langgraph_graphs: Sequence[str] = (), langgraph_imported: str | None = None
) -> SwapChoice:
    """The one decision about the import swap.

    Args:
        setting: ``import_swap`` as configured (None: unset).
        langgraph_graphs: the graphs served by LangGraph itself.
        langgraph_imported: a module of real LangGraph already imported in
            this process (the swap can no longer give one LangGraph to all).

    Raises:
        ValueError: ``import_swap = true`` where it cannot hold.
    """
    if setting is False:
        return SwapChoice(False, "import_swap is false")
    if langgraph_graphs:
        names = ", ".join(langgraph_graphs)
        if setting:
            raise ValueError(f"import_swap = true, but graph(s) {names} run on LangGraph itself; leave import_swap unset")
        return SwapChoice(False, f"graph(s) {names} run on LangGraph itself, so langgraph imports must get it")
    if langgraph_imported is not None:
        if setting:
            raise ValueError(
                f"import_swap = true, but LangGraph itself ({langgraph_imported!r}) was imported before the server could "
                "put the engine in its place; start graphwire serve in a process of its own"
            )
        return SwapChoice(False, f"LangGraph itself ({langgraph_imported!r}) was imported before the server started")
    return SwapChoice(True, "import_swap is on" if setting else "the default")


def prepare_process(config: ServerConfig) -> SwapChoice:
    """Apply the project's needs and the import swap to this process, saying each at start.

    Raises:
        ValueError: the swap cannot be as configured (see :func:`swap_choice`).
    """
    project = config.project
    if project is not None:
        _check_auth(project, config)
        for note in project.notes:
            log.warning("%s", note)
        _apply_env(project)
        for directory in project.import_paths:
            if directory not in sys.path:
                sys.path.append(directory)  # after the installed packages, as graph directories are
    loaded = sys.modules.copy()  # a copy: another thread may import while this looks
    imported = next((n for n, m in sorted(loaded.items()) if n.split(".")[0] == swap.FROM and not _is_engine(m)), None)
    on_langgraph = sorted(n for n, r in config.runtimes.items() if r == "langgraph")
    choice = swap_choice(config.import_swap, langgraph_graphs=on_langgraph, langgraph_imported=imported)
    if choice.on:
        swap.install()
    log.info("%s", _swap_line(choice))
    if project is not None:
        _name_missing(project, choice.on)
    return choice


def _check_auth(project: Project, config: ServerConfig) -> None:
    """A project whose langgraph.json names custom auth, which graphwire does not run, is not served open to
    other hosts: it takes graphwire's tokens there (on loopback, the note said at start is enough)."""
    if project.auth is None or config.auth_token or config.auth_tokens:
        return
    wide = [a for a in (config.address, config.http) if a and not a.startswith("unix:") and not is_loopback(parse_address(a)[0])]
    if wide:
        raise ValueError(
            f"{os.path.basename(project.path)} names custom auth ({project.auth}), which graphwire does not run: on "
            f"{' and '.join(wide)} this server would answer anyone. Give it tokens (auth_token or auth_tokens in the "
            "graphwire section, or GRAPHWIRE_AUTH_TOKEN), or listen on loopback"
        )


def _is_engine(module: object) -> bool:
    return (getattr(module, "__name__", "") or "").split(".")[0] == swap.TO


def _installed_langgraph() -> str | None:
    try:
        return importlib.metadata.version("langgraph")
    except importlib.metadata.PackageNotFoundError:
        return None


def _swap_line(choice: SwapChoice) -> str:
    installed = _installed_langgraph()
    if choice.on:
        beside = f"; LangGraph {installed}, installed here, is not used by them" if installed else ""
        return (
            "import swap on: the graphs' `langgraph` and `langgraph.X` imports get graphwire's engine, for the whole "
            f"process ({choice.why}{beside}); turn it off with {_OFF}"
        )
    there = f"LangGraph {installed}" if installed else "LangGraph, which is not installed here"
    return f"import swap off ({choice.why}): the graphs' `langgraph` imports get {there}"


def _apply_env(project: Project) -> None:
    kept = sorted(k for k in project.env if k in os.environ)
    for key, value in project.env.items():
        os.environ.setdefault(key, value)
    if project.env:
        source = os.path.relpath(project.env_file) if project.env_file else "langgraph.json's env"
        but = f" ({', '.join(kept)} already set in the environment, kept)" if kept else ""
        log.info("%d variable(s) from %s set for the graphs%s", len(project.env) - len(kept), source, but)
    settings = sorted(k for k in project.env if k.startswith("GRAPHWIRE_"))
    if settings:
        log.warning(
            "%s: set for the graphs, not read as graphwire settings (the settings are read before the env file); "
            "put them in langgraph.json's graphwire section or in the server's environment",
            ", ".join(settings),
        )


def _name_missing(project: Project, swapped: bool) -> None:
    missing = []
    for name in project.packages:
        if swapped and _normal(name) in SWAPPED_PACKAGES:
            continue  # its imports get the engine
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        log.warning(
            "langgraph.json dependencies not installed here: %s (pip install them where graphwire serve runs)",
            ", ".join(missing),
        )


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")
