"""Settings from the file, from GRAPHWIRE_* variables and from flags, and
what a wrong one says (its key, where it came from, what it should be)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import load_config


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ./graphwire.toml of the checkout's is read."""
    monkeypatch.chdir(tmp_path)


def test_the_environment_overrides_the_file_and_flags_override_both(tmp_path: Path) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text('address = "127.0.0.1:1"\ncheckpointer = "file.db"\ngrace_seconds = 3\n[graphs]\na = "m:g"\n')
    env = {"GRAPHWIRE_CONFIG": str(toml), "GRAPHWIRE_CHECKPOINTER": "postgresql://db/x", "GRAPHWIRE_GRACE_SECONDS": "2.5",
           "GRAPHWIRE_MAX_MESSAGE_BYTES": "1000", "GRAPHWIRE_GRAPHS": "b=./b.py:graph, c=pkg.c:graph"}  # fmt: skip
    cfg = load_config(None, {"grace_seconds": 9.0}, environ=env)
    assert cfg.address == "127.0.0.1:1"  # the file's
    assert cfg.checkpointer == "postgresql://db/x" and cfg.max_message_bytes == 1000  # the environment's
    assert cfg.graphs == {"b": "./b.py:graph", "c": "pkg.c:graph"}
    assert cfg.grace_seconds == 9.0  # the flag's
    assert cfg.config_dir == str(tmp_path)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GRAPHWIRE_MAX_MESSAGE_BYTES": "4MB"}, "GRAPHWIRE_MAX_MESSAGE_BYTES must be a whole number, not '4MB'"),
        ({"GRAPHWIRE_LEASE_SECONDS": "soon"}, "GRAPHWIRE_LEASE_SECONDS must be a number of seconds, not 'soon'"),
        ({"GRAPHWIRE_GRAPHS": "agent"}, "GRAPHWIRE_GRAPHS must be name=package.module:attribute,other=./file.py:graph"),
        ({"GRAPHWIRE_LOG_LEVEL": "loud"}, "log_level must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, not 'LOUD'"),
    ],
)
def test_a_bad_variable_says_which_and_why(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError) as failed:
        load_config(None, None, environ=env)
    assert message in str(failed.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("address = 50051", "address must be text, not 50051"),
        ('graphs = "agent"', "graphs must be a table of name = \"spec\", not 'agent'"),
        ("grace_seconds = \"ten\"", "grace_seconds must be a number of seconds, not 'ten'"),
        ("max_history = 0", "max_history must be a whole number of at least 1, not 0"),
    ],
)
def test_a_bad_key_in_the_file_says_which_and_why(tmp_path: Path, line: str, message: str) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text(line + "\n")
    with pytest.raises(ValueError) as failed:
        load_config(str(toml), environ={})
    assert message in str(failed.value)


def test_log_level_is_read_in_any_case() -> None:
    assert load_config(None, {"log_level": "debug"}, environ={}).log_level == "DEBUG"


def test_every_key_has_a_kind_and_a_variable() -> None:
    """A key added to ServerConfig is checked and settable from the environment like the others."""
    from server.config import _KINDS, SETTINGS_KEYS

    assert set(_KINDS) == set(SETTINGS_KEYS)
