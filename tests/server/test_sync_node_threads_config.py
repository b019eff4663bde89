"""``sync_node_threads`` (graphwire.toml, ``--sync-node-threads``) sizes the engine's
threads for sync nodes (see tests/engine/test_sync_node_threads.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server.config import ServerConfig, load_config


def test_the_file_sets_it_and_bad_values_are_refused(tmp_path: Path) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text("sync_node_threads = 3\n")
    assert load_config(str(toml)).sync_node_threads == 3
    assert ServerConfig().sync_node_threads is None  # the engine's default
    for bad in (0, -1, 1.5, True, "8", 5000):
        with pytest.raises(ValueError, match="sync_node_threads must be a whole number"):
            load_config(str(toml), {"sync_node_threads": bad})


def test_the_flag_reaches_the_server(start_server: Any) -> None:
    srv = start_server(args=["--sync-node-threads", "2"])
    with srv.client() as client:
        assert client.invoke("chain3", "sync-threads", {"n": 0}, timeout=30).values["n"] == 3  # chain3's nodes are sync
    assert "sync nodes on 2 threads" in srv.log()
