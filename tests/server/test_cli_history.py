"""How ``graphwire history`` labels branches, and how it reads id prefixes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from server._cli_history import AmbiguousId, render_history, resolve_checkpoint


def version(cid: str, parent: str | None, step: int, source: str) -> SimpleNamespace:
    ref = SimpleNamespace(checkpoint_id=cid, parent_id=parent, step=step, source=source)
    return SimpleNamespace(checkpoint=ref, next=())


def test_a_fork_that_is_not_current_is_forked_from_and_the_first_path_is_abandoned() -> None:
    # a0 ─ a1 ─ a2 (the first path after a1), then two forks from a1: b1 (left
    # behind) and, newest, c1 (current).
    snaps = [
        version("id-00000-a0", None, -1, "input"),
        version("id-00001-a1", "id-00000-a0", 0, "loop"),
        version("id-00002-a2", "id-00001-a1", 1, "loop"),
        version("id-00003-b1", "id-00001-a1", 1, "fork"),
        version("id-00004-c1", "id-00001-a1", 1, "fork"),
    ]
    lines = render_history(snaps).splitlines()
    assert lines[0].startswith("branch 1 (current): ") and "*[1 fork →END id-00004" in lines[0]
    assert lines[1].startswith("branch 2 (abandoned at id-00001") and "id-00002" in lines[1]
    assert lines[2].startswith("branch 3 (forked from id-00001") and "id-00003" in lines[2]


def test_prefixes() -> None:
    ids = ["1f1e-aaaa-1", "1f1e-aaab-2", "1f1e-bbbb-3"]
    calls = []

    def listing() -> list[str]:
        calls.append(1)
        return ids

    assert resolve_checkpoint("1f1e-b", "t", listing) == "1f1e-bbbb-3"
    assert resolve_checkpoint("1f1e-aaab-2", "t", listing) == "1f1e-aaab-2"
    with pytest.raises(AmbiguousId, match=r"'1f1e-aaa' starts 2 version ids of thread 't'"):
        resolve_checkpoint("1f1e-aaa", "t", listing)
    with pytest.raises(AmbiguousId, match="no version whose id starts with 'x'"):
        resolve_checkpoint("x", "t", listing)
    assert len(calls) == 4
