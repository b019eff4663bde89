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
module it maps to, and the module that asked for it.

    >>> import engine.swap
    >>> engine.swap.install()
    >>> from langgraph.graph import StateGraph   # engine.graph.StateGraph
"""

from __future__ import annotations

import importlib
import importlib.machinery
import re
import sys
from types import ModuleType
from typing import Any

__all__ = ["LangGraphNameMissing", "explain", "install", "installed", "uninstall"]

FROM, TO = "langgraph", "engine"
_MISSING_NAME = re.compile(r"cannot import name '([^']+)' from '([^']+)'")


class LangGraphNameMissing(ImportError):
    """A module imported a LangGraph name that the engine does not have."""


def _is_under(name: str, root: str) -> bool:
    return name == root or name.startswith(root + ".")


class _Alias:
    """Finds ``langgraph[.X]`` and loads it as the imported ``engine[.X]``."""

    graphwire_swap = True

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not _is_under(fullname, FROM):
            return None
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
    loaded = [name for name, m in sys.modules.items() if _is_under(name, FROM) and not _is_engine(m)]
    if loaded:
        raise RuntimeError(
            f"the import swap must be installed before LangGraph itself is imported; {sorted(loaded)[0]!r} already is"
        )
    sys.meta_path.insert(0, _Alias())


def uninstall() -> None:
    """Remove the finder, and the ``langgraph`` names it served (the engine's modules stay)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "graphwire_swap", False)]
    for name in [n for n, m in sys.modules.items() if _is_under(n, FROM) and _is_engine(m)]:
        del sys.modules[name]


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
