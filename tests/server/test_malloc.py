"""``graphwire serve`` pins glibc's mmap threshold (server/_malloc.py), unless told otherwise."""

from __future__ import annotations

import platform

import pytest

from server._malloc import fix_mmap_threshold


def test_the_threshold_is_pinned_on_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    assert fix_mmap_threshold() is (platform.libc_ver()[0] == "glibc")


def test_an_explicit_setting_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "4194304")
    assert fix_mmap_threshold() is False


def test_a_trim_follows_a_call_that_held_memory_once_for_calls_ending_together() -> None:
    import asyncio

    from server._malloc import Trimmer, glibc_trim
    from tests.hardening.conftest import until

    assert (glibc_trim() is not None) is (platform.libc_ver()[0] == "glibc")
    calls: list[str] = []

    async def body() -> Trimmer:
        trimmer = Trimmer(lambda: calls.append("trim"), every=0.01)
        for _ in range(10):  # ten calls ending together
            trimmer.soon()
        await until(lambda: trimmer.trims == 1, "the first trim")
        trimmer.soon()
        await until(lambda: trimmer.trims == 2, "the next one")
        return trimmer

    assert asyncio.run(body()).trims == 2 and calls == ["trim", "trim"]
    assert Trimmer(None).soon() is None  # another C library: nothing to do
