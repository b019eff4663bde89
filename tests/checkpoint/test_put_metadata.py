"""What a put adds to a version's metadata from its config (engine.checkpoint._metadata.put_metadata).

LangGraph hands its savers a run config whose ``metadata`` is a ``ChainMap``
(the call's metadata over what LangGraph adds): it is read as one mapping,
a key's value the first map's that has it.
"""

from __future__ import annotations

from collections import ChainMap

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
