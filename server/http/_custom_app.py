"""A project's own routes beside LangGraph's HTTP API (``http.app`` in langgraph.json, ``http_app`` in graphwire.toml).

As LangGraph's server mounts such an app: the project's app (a Starlette or
FastAPI app) is the one served; its routes come first, so one of them may
override an API route; the API is mounted after them; the app's middleware
wraps both, and its lifespan (startup, shutdown) runs with the web port. Its
routes are not behind graphwire's tokens, as LangGraph's server leaves custom
routes unauthenticated by default; the API's stay behind them.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.routing import Mount

from server._specs import SpecError, spec_module

__all__ = ["load_custom_app", "with_custom_app"]

#: how the spec's messages name what it names (server._specs words them for a graph)
_WHAT = "http.app"


def load_custom_app(spec: str, base_dir: str | None) -> Starlette:
    """The app ``spec`` (``./webapp.py:app``, ``package.module:app``) names; SpecError saying why not."""
    try:
        module = spec_module(spec, name=_WHAT, base_dir=base_dir)
    except SpecError as e:
        raise SpecError(str(e).replace(f"graph {_WHAT!r}", _WHAT, 1)) from None
    obj: Any = module
    for part in spec.partition(":")[2].split("."):
        if not hasattr(obj, part):
            raise SpecError(f"{_WHAT}: {getattr(module, '__file__', None) or module.__name__} has no attribute {part!r} (spec {spec!r})")
        obj = getattr(obj, part)
    if not isinstance(obj, Starlette):
        raise SpecError(
            f"{_WHAT}: {spec!r} names a {type(obj).__module__}.{type(obj).__qualname__}, not a Starlette or FastAPI app "
            "(app = FastAPI() or app = Starlette(...))"
        )
    return obj


def with_custom_app(api: Any, custom: Starlette) -> Starlette:
    """``custom`` serving its own routes, then ``api``'s (see the module)."""
    custom.router.routes.append(Mount("", app=api))
    return custom
