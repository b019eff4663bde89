"""A pytest plugin (``-p _swap_plugin``) that serves every ``langgraph`` import with the engine.

bench/langgraph_suite.py loads it before LangGraph's test suite collects
anything, so the suite's conftest and tests import ``engine.X`` wherever they
name ``langgraph.X`` (the module object itself, as engine/swap.py serves it).

A test file often imports, at its top, a name the engine lacks that only a
few of its tests use: a private one (a ``_``-prefixed part, such as
``langgraph._internal._constants``, which LangGraph does not promise), or a
public one the engine has not built yet. So that one such import does not
hide a whole file, a name or module the engine lacks is served here, and
only here, as a stand-in that raises when a test uses it: the tests that use
it fail with that cause ("internals" or "missing"), the others run.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any, Callable

from engine.swap import elsewhere


class InternalsUsed(Exception):
    """A test used a private LangGraph name the engine does not have (not part of what the engine promises)."""


class PublicNameMissing(Exception):
    """A test used a public LangGraph name the engine does not have yet."""


def _private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


class _StandIn:
    """A LangGraph name the engine lacks: fine to import, an error to use."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        name = object.__getattribute__(self, "_name")
        if _private(name):
            raise InternalsUsed(f"the test uses LangGraph internals the engine lacks: {name}")
        raise PublicNameMissing(f"cannot import name {name.rsplit('.', 1)[-1]!r} from {name.rsplit('.', 1)[0]!r}: the engine lacks it")

    __call__ = _fail

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        self._fail()

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        self._fail()
        return ()

    __iter__ = __getitem__ = __eq__ = __hash__ = __bool__ = __or__ = __ror__ = _fail  # type: ignore[assignment]


def _asked_by_engine() -> bool:
    """Whether the code looking the name up is the engine's own (past the import machinery's frames)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("importlib"):
        frame = frame.f_back
    caller = frame.f_globals.get("__name__", "") if frame is not None else ""
    return caller == "engine" or caller.startswith("engine.")


def _fallback(name: str, previous: Callable[[str], Any] | None, engine_name: str | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__``: the module's own first, then its submodule, then a stand-in for a name it lacks.

    The engine's own look-ups (``from engine._langchain import stream as _lc_stream`` before
    that submodule was imported, ``getattr(module, name, None)``) must see the
    engine as it is, so they get the submodule or an AttributeError, never a stand-in.
    """

    def __getattr__(attr: str) -> Any:
        if previous is not None:
            try:
                return previous(attr)
            except AttributeError:
                pass
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        if engine_name is not None:
            try:
                return importlib.import_module(f"{engine_name}.{attr}")
            except ModuleNotFoundError as e:
                if e.name != f"{engine_name}.{attr}":
                    raise
        if _asked_by_engine():
            raise AttributeError(f"module {engine_name or name!r} has no attribute {attr!r}")
        return _StandIn(f"{name}.{attr}")

    __getattr__.bench_fallback = True  # type: ignore[attr-defined]
    return __getattr__


class _Swap(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``langgraph[.X]`` → the engine's ``engine[.X]`` (names it lacks stood in), or a stand-in module."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "langgraph" and not fullname.startswith("langgraph."):
            return None
        theirs, found = elsewhere(fullname)  # another distribution's (langgraph-checkpoint-conformance), as engine/swap.py
        if theirs:
            return found
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: Any) -> ModuleType:
        to = "engine" + spec.name[len("langgraph") :]
        try:
            module = importlib.import_module(to)
        except ModuleNotFoundError as e:
            if e.name is None or not (to == e.name or to.startswith(e.name + ".")):
                raise  # a dependency of the engine is missing, not the module itself
            module = ModuleType(spec.name)
            module.__path__ = []  # a package: its submodules stand in too
            module.__getattr__ = _fallback(spec.name, None)  # type: ignore[method-assign]
            return module
        current = module.__dict__.get("__getattr__")
        if not getattr(current, "bench_fallback", False):
            module.__getattr__ = _fallback(spec.name, current, to)  # type: ignore[method-assign]
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        if module.__spec__.loader_state is not None:  # the engine's module: give it back its own spec
            module.__spec__ = module.__spec__.loader_state


sys.meta_path.insert(0, _Swap())
