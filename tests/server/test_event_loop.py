"""The server's event loop (``event_loop``, ``--event-loop``; server._event_loop).

uvloop where it is installed (the server depends on it on Linux), asyncio's own
on request or without it. Every other server test runs on the default, so the
uvloop path is what the suite covers; the asyncio path is served here.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from server._event_loop import _factory, check_event_loop, loop_name, run_on
from server.config import load_config
from tests.conftest import start_server_process


def test_a_setting_that_names_no_loop_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="event_loop must be one of 'auto', 'asyncio', 'uvloop', not 'trio'"):
        load_config(None, {"event_loop": "trio"}, environ={})
    assert load_config(None, {}, environ={"GRAPHWIRE_EVENT_LOOP": "asyncio"}).event_loop == "asyncio"
    assert load_config(None, {}, environ={}).event_loop == "auto"


def test_without_uvloop_auto_takes_asyncio_and_uvloop_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as where it is not installed: its import fails
    with pytest.raises(ValueError, match=r'event_loop = "uvloop" needs the uvloop package \(pip install uvloop\)'):
        check_event_loop("uvloop")
    check_event_loop("auto")
    assert _factory("auto") is None
    assert run_on("auto", _name()) == "asyncio"


def test_auto_and_uvloop_run_on_uvloop_where_it_is_installed() -> None:
    pytest.importorskip("uvloop")
    assert run_on("auto", _name()) == "uvloop"
    assert run_on("uvloop", _name()) == "uvloop"
    assert run_on("asyncio", _name()) == "asyncio"


async def _name() -> str:
    await asyncio.sleep(0)
    return loop_name()


@pytest.mark.parametrize("choice", ["asyncio", "auto"])
def test_a_server_serves_runs_on_the_loop_it_names_at_start(tmp_path: Path, choice: str) -> None:
    pytest.importorskip("uvloop")
    srv = start_server_process(tmp_path, args=["--event-loop", choice])
    try:
        with srv.client() as client:
            result = client.invoke("chain3", "t1", {"n": 1}, timeout=30)
            assert result.values["n"] == 4, result.values
            assert len(client.history("chain3", "t1", timeout=30)) == 5  # input, START, a, b, c
        expected = "uvloop" if choice == "auto" else "asyncio"
        assert f"event loop: {expected})" in srv.log(), srv.log()
    finally:
        assert srv.terminate() == 0, srv.log()
