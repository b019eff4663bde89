"""LangGraph's low-level API: NodeBuilder nodes on channels, ``Pregel(nodes=, channels=, input_channels=, ...)``."""

from __future__ import annotations

import operator
from typing import Any

import pytest

from engine.channels import BinaryOperatorAggregate, LastValue, Topic
from engine.errors import InvalidUpdateError
from engine.pregel import NodeBuilder, Pregel


def _add_one(x: int) -> int:
    return x + 1


def test_a_node_reads_its_channel_and_writes_its_result():
    one = NodeBuilder().subscribe_only("input").do(_add_one).write_to("output", fixed=5, plus=lambda x: x + 1)
    app = Pregel(
        nodes={"one": one},
        channels={"input": LastValue(int), "output": LastValue(int), "fixed": LastValue(int), "plus": LastValue(int)},
        input_channels="input",
        output_channels=["output", "fixed", "plus"],
    )
    assert app.invoke(2) == {"output": 3, "fixed": 5, "plus": 4}
    assert app.invoke(2, output_keys="output") == 3
    assert app.input_schema.model_json_schema() == {"title": "LangGraphInput", "type": "integer"}


def test_two_nodes_chain_through_a_channel_and_stream_their_updates():
    one = NodeBuilder().subscribe_only("input").do(_add_one).write_to("output", "between")
    two = NodeBuilder().subscribe_only("between").do(_add_one).write_to("output")
    app = Pregel(
        nodes={"one": one, "two": two},
        channels={"input": LastValue(int), "between": LastValue(int), "output": LastValue(int)},
        stream_channels=["output", "between"],
        input_channels="input",
        output_channels="output",
    )
    assert list(app.stream(2, stream_mode="updates")) == [{"one": {"between": 3, "output": 3}}, {"two": {"output": 4}}]
    assert list(app.stream(2)) == [{"between": 3, "output": 3}, {"between": 3, "output": 4}]
    assert app.invoke(2) == 4


def test_a_reducer_channel_read_before_it_is_written_is_its_empty_value(checkpointer: Any):
    """``BinaryOperatorAggregate(int, add)`` reads 0 at first; the total accumulates across calls on a thread."""
    one = NodeBuilder().subscribe_to("input").read_from("total").do(lambda d: d["input"] + d["total"]).write_to("output", "total")
    app = Pregel(
        nodes={"one": one},
        channels={"total": BinaryOperatorAggregate(int, operator.add), "input": LastValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
        checkpointer=checkpointer,
    )
    config = {"configurable": {"thread_id": "low"}}
    assert app.invoke(2, config) == 2
    assert app.invoke(3, config) == 5
    assert app.get_state(config).values["total"] == 7


def test_several_do_steps_run_in_order_and_a_topic_collects_writes():
    one = NodeBuilder().subscribe_only("input").do(_add_one).do(lambda x: x * 10).write_to("inbox")
    two = NodeBuilder().subscribe_only("input").do(_add_one).write_to("inbox")
    three = NodeBuilder().subscribe_only("inbox").do(sum).write_to("output")
    app = Pregel(
        nodes={"one": one, "two": two, "three": three},
        channels={"input": LastValue(int), "inbox": Topic(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    assert app.invoke(2) == 33


def test_a_low_level_graph_is_checked_as_langgraph_checks_it():
    one = NodeBuilder().subscribe_only("between").do(_add_one).write_to("output")
    with pytest.raises(TypeError):
        Pregel(nodes={"one": one})
    with pytest.raises(ValueError, match="Input channel input is not subscribed to by any node"):
        Pregel(nodes={"one": one}, channels={"input": LastValue(int), "between": LastValue(int), "output": LastValue(int)},
               input_channels="input", output_channels="output")  # fmt: skip
    with pytest.raises(ValueError, match="Node one reads channel 'between' not in known channels"):
        Pregel(nodes={"one": one}, channels={"output": LastValue(int)}, input_channels="output", output_channels="output")


def test_two_writes_to_a_plain_channel_say_so_in_langgraphs_words():
    one = NodeBuilder().subscribe_only("input").write_to("output")
    two = NodeBuilder().subscribe_only("input").write_to("output")
    app = Pregel(nodes={"one": one, "two": two}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")  # fmt: skip
    with pytest.raises(InvalidUpdateError, match="At key 'output': Can receive only one value per step"):
        app.invoke(2)


def test_debug_prints_updates_and_values(capsys: pytest.CaptureFixture[str]):
    one = NodeBuilder().subscribe_only("input").do(_add_one).write_to("output")
    app = Pregel(nodes={"one": one}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")  # fmt: skip
    assert app.invoke(2, debug=True) == 3
    printed = capsys.readouterr().out
    assert "[updates]\x1b[0m {'one': 3}" in printed and "[values]\x1b[0m 3" in printed
    assert list(app.stream(2, print_mode="values")) == [{"input": 2, "output": 3}]
    assert "[values]" in capsys.readouterr().out


def test_a_nodes_retry_and_cache_policies_and_the_graphs_context_schema():
    from dataclasses import dataclass

    from engine.types import CachePolicy, RetryPolicy

    @dataclass
    class Ctx:
        user: str

    calls: list[int] = []

    def flaky(x: int) -> int:
        calls.append(x)
        if len(calls) == 1:
            raise ConnectionError("once")
        return x * 2

    one = (
        NodeBuilder().subscribe_only("input").do(flaky).write_to("output")
        .add_retry_policies(RetryPolicy(initial_interval=0.0, jitter=False)).add_cache_policy(CachePolicy())
    )  # fmt: skip
    app = Pregel(nodes={"one": one}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output", context_schema=Ctx)  # fmt: skip
    assert app.invoke(4) == 8 and calls == [4, 4]
    assert app.nodes["one"].cache_policy is not None
    assert app.get_context_jsonschema() == {
        "properties": {"user": {"title": "User", "type": "string"}}, "required": ["user"], "title": "Ctx", "type": "object",
    }  # fmt: skip
    # LangGraph's old config schema has the context schema as its configurable (LangGraph's server lists it so)
    with pytest.warns(DeprecationWarning, match="`get_config_jsonschema` is deprecated"):
        config = app.get_config_jsonschema(include=["tags"])
    assert list(config["properties"]) == ["configurable", "tags"] and config["$defs"]["Ctx"]["required"] == ["user"]
    assert config["properties"]["configurable"] == {"$ref": "#/$defs/Ctx", "default": None}


def test_a_low_level_graph_in_debug_prints_and_a_node_copies(capsys: pytest.CaptureFixture[str]):
    one = NodeBuilder().subscribe_only("input").do(_add_one).write_to("output")
    app = Pregel(nodes={"one": one}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output", debug=True)  # fmt: skip
    assert app.invoke(1) == 2 and "[updates]" in capsys.readouterr().out
    copied = app.nodes["one"].copy({"metadata": {"k": 1}})
    assert copied.metadata == {"k": 1} and app.nodes["one"].metadata == {}
