"""server/_gc.py: a server's collector waits for more objects between young collections and skips what its
start built, unless the process set its own thresholds or disabled the collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server._gc import DEFAULT_THRESHOLDS, YOUNG_THRESHOLD, freeze_startup, tune_collector


@pytest.fixture
def collector() -> Iterator[None]:
    was, enabled = gc.get_threshold(), gc.isenabled()
    try:
        yield
    finally:
        gc.set_threshold(*was)
        gc.unfreeze()
        (gc.enable if enabled else gc.disable)()


def test_the_defaults_are_raised_and_the_start_frozen(collector: None) -> None:
    gc.set_threshold(*DEFAULT_THRESHOLDS)
    gc.unfreeze()
    assert tune_collector() is True
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *DEFAULT_THRESHOLDS[1:])
    kept = object.__new__(type("Kept", (), {}))  # a tracked object of the start: frozen with it
    freeze_startup()
    assert gc.get_freeze_count() > 0
    assert not any(o is kept for o in gc.get_objects())  # frozen objects are no generation's: no collection walks them
    assert tune_collector() is False  # set once: the thresholds are no longer CPython's own


def test_a_process_s_own_thresholds_or_a_disabled_collector_are_kept(collector: None) -> None:
    gc.unfreeze()
    gc.set_threshold(2000, 5, 5)
    assert tune_collector() is False
    assert gc.get_threshold() == (2000, 5, 5)
    gc.set_threshold(*DEFAULT_THRESHOLDS)
    gc.disable()
    assert tune_collector() is False
    assert gc.get_threshold() == DEFAULT_THRESHOLDS
    freeze_startup()
    assert gc.get_freeze_count() == 0
