"""The inspector's limits as settings (graphwire.toml, GRAPHWIRE_INSPECTOR_*, flags), and how many
connections it may hold given the process's descriptors (issue 28 item 4; the servers under a flood
are in test_flood.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import ServerConfig, load_config
from server._gate import connection_cap, free_descriptors


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ./graphwire.toml of the checkout's is read."""
    monkeypatch.chdir(tmp_path)


def test_the_file_the_environment_and_flags_set_them(tmp_path: Path) -> None:
    assert (ServerConfig().inspector_max_connections, ServerConfig().inspector_request_seconds) == (100, 10.0)
    assert ServerConfig().inspector_keepalive_seconds == 5.0
    toml = tmp_path / "graphwire.toml"
    toml.write_text("inspector_max_connections = 20\ninspector_request_seconds = 4\ninspector_keepalive_seconds = 2.5\n")
    cfg = load_config(str(toml), environ={"GRAPHWIRE_INSPECTOR_REQUEST_SECONDS": "3.5"})
    assert (cfg.inspector_max_connections, cfg.inspector_request_seconds, cfg.inspector_keepalive_seconds) == (20, 3.5, 2.5)
    assert load_config(str(toml), {"inspector_max_connections": 7}, environ={}).inspector_max_connections == 7


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "8", 10**7])
def test_a_connection_limit_that_bounds_nothing_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="inspector_max_connections must be a whole number from 1 to 1000000"):
        load_config(None, {"inspector_max_connections": bad}, environ={})


@pytest.mark.parametrize("key", ["inspector_request_seconds", "inspector_keepalive_seconds"])
@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), float("nan"), 3601, True, "5"])
def test_a_time_that_bounds_nothing_is_refused(key: str, bad: object) -> None:
    with pytest.raises(ValueError, match=f"{key} must be a number of seconds above 0 and at most 3600"):
        load_config(None, {key: bad}, environ={})


def test_a_bad_variable_says_which() -> None:
    with pytest.raises(ValueError, match="GRAPHWIRE_INSPECTOR_MAX_CONNECTIONS must be a whole number, not 'many'"):
        load_config(None, None, environ={"GRAPHWIRE_INSPECTOR_MAX_CONNECTIONS": "many"})


@pytest.mark.parametrize(
    ("wanted", "soft", "open_now", "cap"),
    [
        (100, 1024, 24, 100),  # the usual limit: the setting
        (1000, 1024, 24, 500),  # half of the 1,000 free; the other half is gRPC's and storage's
        (100, 256, 22, 100),
        (1000, 256, 22, 117),
        (100, 40, 37, 1),  # nearly none free: still one, so that the page opens
        (100, None, 24, 100),  # unlimited
        (100, 1024, None, 100),  # the open ones cannot be counted
    ],
)
def test_the_cap_leaves_half_the_free_descriptors_to_the_rest(wanted: int, soft: int | None, open_now: int | None, cap: int) -> None:
    assert connection_cap(wanted, soft, open_now) == cap


def test_the_descriptors_are_read_from_the_process() -> None:
    soft, open_now = free_descriptors()
    assert soft is not None and open_now is not None  # Linux: RLIMIT_NOFILE and /proc/self/fd
    with open(__file__, "rb"):
        assert free_descriptors()[1] == open_now + 1
