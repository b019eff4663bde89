"""The import swap: ``import langgraph.X`` served by ``engine.X``.

A LangGraph program, and a package built on LangGraph, runs on the engine
unchanged once :func:`install` has put a finder first on ``sys.meta_path``:
every import of ``langgraph`` or ``langgraph.X`` then gets the module
``engine`` / ``engine.X`` itself. One module object answers to both names,
so a class keeps one identity (``isinstance`` and ``except`` work across
code written with either import).

It is process-wide on purpose: a graph and the packages it imports must see
one LangGraph, and a module imported under the swap keeps the engine's
objects for the rest of the process. A name the engine lacks fails the
import with an :class:`ImportError` naming the LangGraph name, the engine
module it maps to, and the module that asked for it. Other distributions
add packages to LangGraph's ``langgraph.checkpoint``, ``langgraph.store`` and
``langgraph.cache`` namespaces (a Redis or MongoDB saver, the checkpointer
conformance suite): one the engine does not have is loaded as that
distribution ships it, and its ``langgraph`` imports get the engine.

    >>> import engine.swap
    >>> engine.swap.install()
    >>> from langgraph.graph import StateGraph   # engine.graph.StateGraph
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
from types import ModuleType
from typing import Any

__all__ = ["SHARED", "LangGraphNameMissing", "elsewhere", "explain", "install", "installed", "uninstall"]

FROM, TO = "langgraph", "engine"
_MISSING_NAME = re.compile(r"cannot import name '([^']+)' from '([^']+)'")


class LangGraphNameMissing(ImportError):
    """A module imported a LangGraph name that the engine does not have."""


#: LangGraph's namespace packages other distributions add to (savers and stores of other databases,
#: langgraph-checkpoint-conformance): a member the engine does not have is that distribution's own
SHARED = ("langgraph.checkpoint", "langgraph.store", "langgraph.cache")


#: the modules of other distributions loaded under the swap (see :func:`foreign_spec`): theirs, forgotten with it
_foreign: set[str] = set()


def _is_under(name: str, root: str) -> bool:
    return name == root or name.startswith(root + ".")


def foreign_spec(fullname: str) -> Any:
    """The spec of ``fullname``, a member of one of the :data:`SHARED` namespaces that the engine
    does not have, as another installed distribution provides it (found on ``sys.path``); None
    when it is not such a member or nothing provides it. Its own ``langgraph`` imports still get
    the engine: a saver written on LangGraph's base runs on the engine's."""
    parent, _, _ = fullname.rpartition(".")
    if parent not in SHARED or importlib.util.find_spec(TO + fullname[len(FROM) :]) is not None:
        return None
    where = [os.path.join(entry or os.curdir, *parent.split(".")) for entry in sys.path]
    return importlib.machinery.PathFinder.find_spec(fullname, [d for d in where if os.path.isdir(d)])


def elsewhere(fullname: str) -> tuple[bool, Any]:
    """Whether ``langgraph.X`` ``fullname`` is another distribution's, and then its spec: a member
    of a :data:`SHARED` namespace the engine lacks (:func:`foreign_spec`), or a module inside one
    already loaded (None: the path finders find it on its package's path). Remembered, so
    :func:`uninstall` forgets them and :func:`install` does not take them for real LangGraph."""
    if fullname.rpartition(".")[0] in _foreign:
        _foreign.add(fullname)
        return True, None
    found = foreign_spec(fullname)
    if found is not None:
        _foreign.add(fullname)
        return True, found
    return False, None


class _Alias:
    """Finds ``langgraph[.X]`` and loads it as the imported ``engine[.X]``."""

    graphwire_swap = True

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not _is_under(fullname, FROM):
            return None
        theirs, found = elsewhere(fullname)
        if theirs:
            return found
        return importlib.machinery.ModuleSpec(fullname, self, loader_state=TO + fullname[len(FROM) :])  # type: ignore[arg-type]  # a loader by protocol (create_module, exec_module), as importlib takes it

    def create_module(self, spec: Any) -> ModuleType:
        to = spec.loader_state
        try:
            module = importlib.import_module(to)
        except ModuleNotFoundError as e:
            if e.name is None or not _is_under(to, e.name):
                raise  # a dependency of the engine is missing, not the module itself
            raise ModuleNotFoundError(
                f"No module named {spec.name!r} on graphwire's engine (the import swap maps it to {to!r}, "
                f"which the engine does not have)",
                name=spec.name,
            ) from None
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # module_from_spec gave the engine's module our spec; give it back its own.
        spec = module.__spec__
        assert spec is not None  # module_from_spec set it
        module.__spec__ = spec.loader_state


def installed() -> bool:
    """Whether :func:`install` has put the finder on ``sys.meta_path``."""
    return any(getattr(f, "graphwire_swap", False) for f in sys.meta_path)


def install() -> None:
    """Serve every later ``langgraph`` import with the engine (once; idempotent).

    Raises:
        RuntimeError: real LangGraph is already imported in this process, so
            modules imported before would hold its classes and modules
            imported after the engine's.
    """
    if installed():
        return
    loaded = [name for name, m in sys.modules.items() if _is_under(name, FROM) and not _is_engine(m) and name not in _foreign]
    if loaded:
        raise RuntimeError(
            f"the import swap must be installed before LangGraph itself is imported; {sorted(loaded)[0]!r} already is"
        )
    sys.meta_path.insert(0, _Alias())


def uninstall() -> None:
    """Remove the finder, and the ``langgraph`` names it served (the engine's modules stay) or loaded
    from other distributions (they hold the engine's classes)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "graphwire_swap", False)]
    for name in [n for n, m in sys.modules.items() if _is_under(n, FROM) and (_is_engine(m) or n in _foreign)]:
        del sys.modules[name]
    _foreign.clear()


def _is_engine(module: Any) -> bool:
    return _is_under(getattr(module, "__name__", "") or "", TO)


def explain(error: ImportError) -> ImportError | None:
    """``cannot import name 'X' from 'engine.Y'`` said in LangGraph's names, or None.

    None when the error is not about a program's import of a LangGraph name
    (an import inside the engine itself, or of another package).
    """
    m, tb = _MISSING_NAME.match(str(error)), error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if not m or not _is_under(m[2], TO) or tb is None:
        return None
    importer = str(tb.tb_frame.f_globals.get("__name__", ""))
    if _is_under(importer, TO):
        return None
    name, to = m.groups()
    lg = FROM + to[len(TO) :]
    return LangGraphNameMissing(
        f"{importer or 'a module'} imports {name!r} from {lg!r}, which graphwire's engine does not have "
        f"({to!r} has no {name!r})",
        name=lg,
    )
