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
