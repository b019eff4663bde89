"""The start-up note for a server inside a container that listens on loopback: only what to do, and only
if outside clients must connect (a sidecar or a test is right to listen on loopback)."""

from __future__ import annotations

import pytest

from server._startup import container_note


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_loopback_in_a_container_says_what_to_do_if_outside_clients_must_connect(host: str) -> None:
    assert container_note(host, 50051, in_container=True) == (
        f"listening on {host} inside a container; if clients outside it must connect, listen on every interface: "
        'address = "0.0.0.0:50051" (or GRAPHWIRE_ADDRESS=0.0.0.0:50051)'
    )


@pytest.mark.parametrize(("host", "in_container"), [("127.0.0.1", False), ("0.0.0.0", True), ("10.0.0.5", True)])
def test_nothing_to_say_otherwise(host: str, in_container: bool) -> None:
    assert container_note(host, 50051, in_container=in_container) is None
