"""The HTTP API's routers are matched in ROUTES' order (server/http/_app.py), the runs' first for
speed: that is safe only while no route is taken by a route of a router before it, which this
checks for every route, on paths made from its template with the words the API's paths use."""

from __future__ import annotations

import importlib
import re
from typing import Any

from fastapi import APIRouter

from server.http._app import ROUTES


def _taken(routers: list[tuple[str, list[Any]]]) -> list[tuple[str, str, str, str]]:
    """(path, its router, the earlier router, the route there that takes it) for each route that a
    route of an earlier router, with a method in common, matches."""
    words = ("0b8e6a7e-2f7e-4a7e-9a1e-2f7e4a7e9a1e", "x1") + tuple(
        sorted({w for _, routes in routers for r in routes for w in r.path.split("/") if w and "{" not in w})
    )
    taken = []
    for i, (name, routes) in enumerate(routers):
        for route in routes:
            for path in sorted({re.sub(r"{\w+(?::\w+)?}", word, route.path) for word in words}):
                if not route.path_regex.match(path):
                    continue
                for earlier, earlier_routes in routers[:i]:
                    taken += [(path, name, earlier, r.path) for r in earlier_routes if r.methods & route.methods and r.path_regex.match(path)]
    return taken


def test_no_route_is_taken_by_a_route_of_an_earlier_router() -> None:
    assert _taken([(name, importlib.import_module(name).router.routes) for name in ROUTES]) == []
    assert ROUTES[0] == "server.http._runs"  # a chat's every turn: matched first


def test_the_check_finds_a_route_taken_by_an_earlier_routers() -> None:
    first, second = APIRouter(), APIRouter()
    first.get("/things/{thing_id}")(lambda thing_id: None)
    second.get("/things/search")(lambda: None)
    second.post("/things/{thing_id}/go")(lambda thing_id: None)
    assert _taken([("first", first.routes), ("second", second.routes)]) == [("/things/search", "second", "first", "/things/{thing_id}")]
    # the other way round, the thing whose id is "search" is the one that cannot be reached
    assert _taken([("second", second.routes), ("first", first.routes)]) == [("/things/search", "first", "second", "/things/search")]
