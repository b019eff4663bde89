"""Tenants: each token names a tenant, and a tenant sees only the threads it created.

Another tenant reading, resuming, forking, updating, streaming, listing or
deleting a thread gets exactly what a thread that does not exist gets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from graphwire import FailedPrecondition, NotFound, Unauthenticated

ACME, GLOBEX = "acme-token-0123456789", "globex-token-0123456789"
USER = {"role": "user", "content": "remind me to call mom at 5pm"}


@pytest.fixture(scope="module")
def tenants_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import start_server_process

    work = tmp_path_factory.mktemp("tenants")
    tokens = work / "tokens.toml"
    tokens.write_text(f'acme = "{ACME}"\nglobex = ["{GLOBEX}", "globex-older-token-0123"]\n')
    srv = start_server_process(work, args=["--auth-tokens", str(tokens)])
    yield srv
    assert srv.terminate() == 0, srv.log()


def _not_found_message(call: Any) -> str:
    with pytest.raises(NotFound) as info:
        call()
    return info.value.message


def test_another_tenant_cannot_tell_a_thread_exists(tenants_server: Any) -> None:
    with tenants_server.client(token=ACME) as acme, tenants_server.client(token=GLOBEX) as globex:
        asked = acme.invoke("reminders", "shared-id", {"messages": [USER]}, timeout=30)
        assert asked.interrupted
        first = acme.history("reminders", "shared-id", timeout=30)[-1].checkpoint.checkpoint_id

        # Every way of reaching acme's thread answers globex as for a thread that does not exist.
        for name, call, nobody in [
            ("get_state", lambda c, t: c.get_state("reminders", t, timeout=30), None),
            ("get_state at a version", lambda c, t: c.get_state("reminders", t, first, timeout=30), None),
            ("fork", lambda c, t: c.fork("reminders", t, first, timeout=30), None),
            ("delete", lambda c, t: c.delete_thread("reminders", t, timeout=30), None),
            ("resume", lambda c, t: c.resume("reminders", t, "yes", timeout=30), None),
        ]:
            theirs = _not_found_message(lambda: call(globex, "shared-id"))
            missing = _not_found_message(lambda: call(globex, "no-such-thread"))
            assert theirs == missing.replace("no-such-thread", "shared-id"), (name, theirs, missing)
        assert globex.history("reminders", "shared-id", timeout=30) == []
        with pytest.raises(NotFound):
            globex.update_state("reminders", "shared-id", {"reminders": []}, checkpoint_id=first, timeout=30)
        assert globex.cancel("reminders", "shared-id", timeout=30) is False

        # globex using the same id makes a thread of its own; acme's is untouched.
        mine = globex.invoke("reminders", "shared-id", {"messages": [{"role": "user", "content": "hello"}]}, timeout=30)
        assert mine.reason == "END"
        assert acme.get_state("reminders", "shared-id", timeout=30).interrupts[0].value == asked.interrupts[0].value
        assert acme.resume("reminders", "shared-id", "yes", timeout=30).reason == "END"
        with pytest.raises(FailedPrecondition):
            globex.resume("reminders", "shared-id", "yes", timeout=30)  # its own thread has nothing pending


def test_a_rotated_token_is_the_same_tenant_and_unknown_tokens_are_refused(tenants_server: Any) -> None:
    with tenants_server.client(token=GLOBEX) as globex:
        globex.invoke("chain3", "rot", {"n": 0}, timeout=30)
    with tenants_server.client(token="globex-older-token-0123") as older:
        assert older.get_state("chain3", "rot", timeout=30).values["n"] == 3
    with tenants_server.client(token="not-a-tenant-token-000") as stranger, pytest.raises(Unauthenticated):
        stranger.graphs(timeout=30)
    with tenants_server.client(token=None) as anonymous, pytest.raises(Unauthenticated):
        anonymous.graphs(timeout=30)


@pytest.mark.parametrize(
    "content,message",
    [
        ('acme = "short"\n', "at least 16 characters"),
        ('"bad/name" = "0123456789abcdef"\n', "tenant name"),
        ('a = "0123456789abcdef"\nb = "0123456789abcdef"\n', "both"),
    ],
)
def test_a_bad_tokens_file_stops_the_server_with_a_readable_message(tmp_path: Path, content: str, message: str) -> None:
    import subprocess
    import sys

    tokens = tmp_path / "tokens.toml"
    tokens.write_text(content)
    done = subprocess.run(
        [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", ":memory:",
         "--auth-tokens", str(tokens)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )  # fmt: skip
    assert done.returncode == 2 and message in done.stderr, done.stderr
