"""What a put adds to a version's metadata from its config (engine.checkpoint._metadata.put_metadata).

LangGraph hands its savers a run config whose ``metadata`` is a ``ChainMap``
(the call's metadata over what LangGraph adds): it is read as one mapping,
a key's value the first map's that has it.
"""

from __future__ import annotations

from collections import ChainMap

from engine.checkpoint import _metadata
from engine.checkpoint._metadata import put_metadata


def test_a_chain_map_of_metadata_is_read_as_its_lookups_read_it() -> None:
    config = {
        "metadata": ChainMap({"a": 1, "__private": 0}, {"a": 2, "b": "x", "c": [1]}, {"d": 4.5}),
        "configurable": {"thread_id": "t", "b": "from configurable", "e": True},
    }
    assert put_metadata(config, {"source": "loop", "step": 1}) == {
        "source": "loop", "step": 1, "a": 1, "b": "x", "d": 4.5, "e": True,
    }  # fmt: skip


def test_the_versions_own_metadata_wins_and_a_config_without_any_leaves_it_as_it_is() -> None:
    own = {"source": "input", "step": -1}
    assert put_metadata({"metadata": ChainMap({"source": "x"}), "configurable": {}}, own) == own
    assert put_metadata({}, own) is own


def test_a_config_that_adds_nothing_leaves_the_metadata_as_it_is() -> None:
    """LangGraph's loop's config: ids, private keys and values that are not plain, nothing to add."""
    own = {"source": "loop", "step": 3, "parents": {}}
    config = {
        "metadata": ChainMap({"thread_id": "t", "__pregel_key": 1}),
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c", "__pregel_runtime": object(), "obj": [1]},
    }
    assert put_metadata(config, own) is own
    assert put_metadata({**config, "metadata": ChainMap({"__graphwire_run_id__": "r"})}, own) == {**own, "__graphwire_run_id__": "r"}
    assert own == {"source": "loop", "step": 3, "parents": {}}  # (the caller's dict is never changed)


def test_keys_met_before_that_add_nothing_do_not_hide_one_that_adds() -> None:
    """A config whose keys were all met before and add nothing is answered without a walk; a key
    never met (or one the version lacks) still gets its walk, and what it adds, in the config's order."""
    own = {"source": "loop", "step": 1}
    quiet = {"configurable": {"thread_id": "t", "checkpoint_id": "c", "__pregel_x": 1}}
    for _ in range(2):
        assert put_metadata(quiet, own) is own
    loud = {"configurable": {"thread_id": "t", "__pregel_x": 1, "user": "u", "checkpoint_id": "c", "n": 2}}
    assert list(put_metadata(loud, own).items()) == [("source", "loop"), ("step", 1), ("user", "u"), ("n", 2)]
    assert put_metadata({"configurable": {"__pregel_x": 1, "step": 9}}, own) is own  # the version's own wins


def test_the_keys_remembered_as_adding_nothing_stay_few() -> None:
    own = {"source": "loop", "step": 1}
    for i in range(3000):
        assert put_metadata({"configurable": {f"__private_{i}": i}}, own) is own
    assert len(_metadata._never_copied) <= _metadata._NEVER_COPIED_SIZE
    assert put_metadata({"configurable": {"__private_1": 1, "plain": 1}}, own) == {**own, "plain": 1}
