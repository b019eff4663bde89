"""Graph specs → Python objects: ``module.path:attr`` or ``./file.py:attr``.

Two forms, as ``langgraph.json`` has them:

* ``package.module:attribute`` imports a module. Besides everything
  installed, the import path holds the config file's directory (so
  ``mygraph.py`` next to ``graphwire.toml`` imports as ``mygraph``, as
  ``langgraph.json`` makes its directory importable) and the current
  directory (how the demo, ``examples.reminders``, loads from a checkout).
  Both come after the installed packages, so a file there never shadows an
  installed module.
* ``./path/to/file.py:attribute`` (any spec whose module part ends in
  ``.py``) loads that file, relative to the config file's directory (or the
  current directory for ``--graph`` flags and the default). Its directory
  joins the import path, so it can import the files beside it, and it is
  imported under its own name (``file``), as ``python file.py``'s neighbours
  would see it.

``attribute`` may be dotted (``module:holder.graph``). When a spec cannot be
resolved, the error says what was tried (the module, the directories
searched, the file's path, the attributes it does have) and how to fix it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import swap

__all__ = ["SpecError", "raised_at", "resolve_spec", "spec_module"]


class SpecError(ValueError):
    """A graph spec that does not name an importable object; the message says why and what to do."""


def _on_path(directory: str) -> None:
    if directory not in sys.path:
        sys.path.append(directory)


def _search_dirs(base_dir: str) -> list[str]:
    dirs = [base_dir, os.getcwd()]
    return list(dict.fromkeys(os.path.abspath(d) for d in dirs))


def _is_file_spec(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module


def _import_file(path: Path, spec: str, name: str) -> ModuleType:
    if not path.is_file():
        raise SpecError(
            f"graph {name!r}: the file {path} does not exist (spec {spec!r}; a file path is relative to "
            "the config file's directory, or to the current directory without one)"
        )
    if path.suffix != ".py":
        raise SpecError(
            f"graph {name!r}: {path} is not a Python file (spec {spec!r}); graphwire serves Python graphs, "
            "not langgraph.json's JavaScript or TypeScript ones"
        )
    module_name = path.stem
    if not module_name.isidentifier():
        raise SpecError(f"graph {name!r}: {path.name!r} cannot be imported as a module; rename it to a Python name, e.g. my_graph.py")
    loaded = sys.modules.get(module_name)
    if loaded is not None:
        if Path(getattr(loaded, "__file__", "") or "").resolve() == path.resolve():
            return loaded
        raise SpecError(
            f"graph {name!r}: {path} would be imported as {module_name!r}, but that name is already "
            f"the module {getattr(loaded, '__file__', None) or module_name!r}; rename the file"
        )
    _on_path(str(path.parent))
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    assert loader_spec is not None and loader_spec.loader is not None
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except BaseException as e:
        del sys.modules[module_name]
        raise _failed_import(name, spec, str(path), e) from e
    return module


def _failed_import(name: str, spec: str, where: str, e: BaseException) -> SpecError:
    """The module was found but running it failed (a missing dependency, a syntax error, ...)."""
    if isinstance(e, ImportError):
        said = _langgraph_import(e)
        if said is not None:
            return SpecError(f"graph {name!r}: {said}")
        missing = getattr(e, "name", None)
        fix = f"install {missing!r} where the server runs" if missing else "fix that import"
        return SpecError(f"graph {name!r}: {where} was found, but it imports something missing: {e} ({fix})")
    if isinstance(e, SyntaxError):
        return SpecError(f"graph {name!r}: {where} has a syntax error at line {e.lineno}: {e.msg}")
    return SpecError(f"graph {name!r}: importing {where} raised {type(e).__name__}: {e}{raised_at(e)}")


def _langgraph_import(e: ImportError) -> str | None:
    """A failed ``langgraph`` import said in LangGraph's names, with the module that made it; None for others.

    Under the import swap a LangGraph name or module the engine lacks fails
    here; without it, a LangGraph that is not installed does.
    """
    explained = swap.explain(e) if swap.installed() else None  # without the swap, engine.X was imported by that name
    if explained is not None:
        return str(explained)
    missing = getattr(e, "name", None) or ""
    if missing.split(".")[0] != swap.FROM:
        return None
    importer = _importer(e)
    if swap.installed():
        return f"{importer} imports {missing!r}, a module graphwire's engine does not have (the import swap serves langgraph with it)"
    return (
        f"{importer} imports {missing!r}, but LangGraph is not installed and the import swap is off: turn it on "
        "(import_swap = true, or leave it unset) so graphwire's engine serves langgraph"
    )


def _importer(e: BaseException) -> str:
    """The module whose line made the failed import: the innermost frame outside the import machinery
    (importlib's frames, any meta-path finder's or loader's methods) and the engine."""
    found = "a module"
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        filename = code.co_filename
        if (
            not filename.startswith("<")
            and code.co_name not in _IMPORT_MACHINERY
            and not os.path.realpath(filename).startswith(_ENGINE_DIR)
        ):
            found = str(tb.tb_frame.f_globals.get("__name__") or filename)
        tb = tb.tb_next
    return found


_IMPORT_MACHINERY = frozenset({"find_spec", "find_module", "create_module", "exec_module", "load_module"})
_ENGINE_DIR = os.path.join(str(Path(__file__).resolve().parents[1] / "engine"), "")
_LIBRARY_DIRS = tuple(
    os.path.join(os.path.realpath(d), "")
    for d in {
        *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")),
        str(Path(__file__).resolve().parents[1] / "engine"),
        os.path.dirname(os.path.abspath(__file__)),
    }
)


def raised_at(e: BaseException) -> str:
    """`` (at FILE, line N)``: the graph author's own line the error came through last, or ``""``.

    The innermost frame outside the standard library, the installed
    packages, the engine and the server: where the author's code called
    what raised (their own ``raise``, or a library call).
    """
    where = ""
    tb = e.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith("<") and not os.path.realpath(filename).startswith(_LIBRARY_DIRS):
            where = f" (at {filename}, line {tb.tb_lineno})"
        tb = tb.tb_next
    return where


def _import_module(module: str, spec: str, name: str, base_dir: str) -> ModuleType:
    searched = _search_dirs(base_dir)
    for directory in searched:
        _on_path(directory)
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.partition(".")[0]
        if getattr(e, "name", None) not in (module, top) and not module.startswith(f"{getattr(e, 'name', '')}."):
            raise _failed_import(name, spec, _origin(module), e) from e
        if top == "examples":
            raise SpecError(
                f"graph {name!r}: cannot import {module!r}: the examples are not installed (they live in a clone "
                "of the repository, in examples/): run graphwire serve from the repository's root, or serve a "
                "graph of your own: a [graphs] table in graphwire.toml, or --graph NAME=./file.py:graph "
                "(`graphwire init` writes a starter)"
            ) from e
        file_hint = module.replace(".", "/") + ".py"
        raise SpecError(
            f"graph {name!r}: no module named {module!r} (spec {spec!r}); looked in the installed packages "
            f"and in {', '.join(searched)}. Put {file_hint} in one of those directories, install it "
            f"(pip install), or name the file: {name} = \"./path/to/{file_hint.rsplit('/', 1)[-1]}:attribute\""
        ) from e
    except Exception as e:
        raise _failed_import(name, spec, _origin(module), e) from e


def _origin(module: str) -> str:
    """Where ``module``'s file is, for messages; its name when that cannot be told."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return repr(module)
    return found.origin if found is not None and found.origin else repr(module)


def spec_module(spec: str, *, name: str = "?", base_dir: str | None = None) -> ModuleType:
    """The module a spec names, imported (see the module docstring for the forms)."""
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise SpecError(
            f"graph {name!r}: spec {spec!r} must look like 'package.module:attribute' or './file.py:attribute'"
        )
    base = base_dir or os.getcwd()
    if _is_file_spec(module):
        return _import_file(Path(base, module).resolve(), spec, name)
    return _import_module(module, spec, name, base)


def resolve_spec(spec: str, *, name: str = "?", base_dir: str | None = None) -> Any:
    """The object a spec names: the module's attribute (dotted paths allowed)."""
    module = spec_module(spec, name=name, base_dir=base_dir)
    obj: Any = module
    attr = spec.partition(":")[2]
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            where = getattr(module, "__file__", None) or module.__name__
            graphs = _graph_like(module)
            has = f"; it has {', '.join(graphs)}" if graphs else ""
            raise SpecError(f"graph {name!r}: {where} has no attribute {attr!r} (spec {spec!r}){has}") from None
    return obj


def _graph_like(module: ModuleType) -> list[str]:
    """Names in ``module`` a spec may mean: its builders and compiled graphs, else its functions."""
    from engine.graph import StateGraph
    from engine.pregel import Pregel

    from server._langgraph_runtime import built_with_langgraph

    public = {k: v for k, v in vars(module).items() if not k.startswith("_")}
    graphs = [
        k for k, v in public.items()
        if isinstance(v, (StateGraph, Pregel))
        or (not isinstance(v, type) and built_with_langgraph(v) and (hasattr(v, "compile") or hasattr(v, "astream")))
    ]  # fmt: skip
    if graphs:
        return graphs
    return [  # no graph at import time: perhaps a function that builds one
        f"{k}()" for k, v in public.items()
        if callable(v) and not isinstance(v, type) and getattr(v, "__module__", None) == module.__name__
    ]  # fmt: skip
