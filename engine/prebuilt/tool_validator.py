"""ValidationNode (``langgraph.prebuilt.tool_validator``): check a model's tool calls against schemas, run nothing.

Written from langgraph-prebuilt 1.1.3's observed behaviour: every tool call
of the last message (an AIMessage, or the node fails) is validated against
the schema of its name (a Pydantic model, v2 or v1, by its class name; a
tool's ``args_schema`` by the tool's name; a function's parameters by its
name), all at once; each answer is a ToolMessage holding the validated
arguments as JSON, or the validation error with ``additional_kwargs={"is_error": True}``
so a model can retry. Deprecated in LangGraph 1.0, as there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_executor_for_config
from langchain_core.tools import BaseTool, create_schema_from_function
from langchain_core.utils.pydantic import is_basemodel_subclass
from pydantic import BaseModel, ValidationError
from pydantic.v1 import BaseModel as BaseModelV1
from pydantic.v1 import ValidationError as ValidationErrorV1
from typing_extensions import deprecated

from engine.warnings import LangGraphDeprecatedSinceV10

__all__ = ["ValidationNode"]

Schema = type[BaseModel] | type[BaseModelV1]


def _default_format_error(error: BaseException, call: ToolCall, schema: Schema) -> str:
    """What the model reads for a call that failed its schema: the error, and what to do."""
    return f"{error!r}\n\nRespond after fixing all validation errors."


def _schema_of(schema: Any) -> tuple[str, Schema]:
    """The name calls use for ``schema`` and the model their arguments are checked with.

    Raises:
        ValueError: a tool without a Pydantic ``args_schema``, or something
            that is no model, tool or function.
    """
    if isinstance(schema, BaseTool):
        if schema.args_schema is None:
            raise ValueError(f"Tool {schema.name} does not have an args_schema defined.")
        if not isinstance(schema.args_schema, type) or not is_basemodel_subclass(schema.args_schema):
            raise ValueError(
                "Validation node only works with tools that have a pydantic BaseModel args_schema. "
                f"Got {schema.name} with args_schema: {schema.args_schema}."
            )
        return schema.name, schema.args_schema
    if isinstance(schema, type) and issubclass(schema, (BaseModel, BaseModelV1)):
        return schema.__name__, schema
    if callable(schema):
        return schema.__name__, create_schema_from_function("Validation", schema)
    raise ValueError(f"Unsupported input to ValidationNode. Expected BaseModel, tool or function. Got: {type(schema)}.")


@deprecated(
    "ValidationNode is deprecated. Please use `create_agent` from `langchain.agents` with custom tool error handling.",
    category=LangGraphDeprecatedSinceV10,
)
class ValidationNode(Runnable[Any, Any]):
    """A node that validates the last AIMessage's tool calls (see the module).

    Args:
        schemas: Pydantic models, tools with a Pydantic ``args_schema``, or functions.
        format_error: ``(error, call, schema) -> str``, the text of a failed call's ToolMessage.
        name: the node's name when added without one.
        tags: tags of its runs.
    """

    def __init__(
        self,
        schemas: Sequence[BaseTool | type[BaseModel] | Callable[..., Any]],
        *,
        format_error: Callable[[BaseException, ToolCall, type[BaseModel]], str] | None = None,
        name: str = "validation",
        tags: list[str] | None = None,
    ) -> None:
        self.name = name
        self.tags = tags
        self._format_error = format_error or _default_format_error
        self.schemas_by_name: dict[str, Schema] = dict(_schema_of(s) for s in schemas)

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return name or self.name or "validation"  # self.name: always a str here (Runnable's is optional)

    def _last_message(self, input: list[AnyMessage] | dict[str, Any]) -> tuple[bool, AIMessage]:
        if isinstance(input, list):
            as_list, messages = True, input
        elif messages := input.get("messages", []):
            as_list = False
        else:
            raise ValueError("No message found in input")
        last = messages[-1]
        if not isinstance(last, AIMessage):
            raise ValueError("Last message is not an AIMessage")
        return as_list, last

    def _check(self, call: ToolCall) -> ToolMessage:
        schema = self.schemas_by_name[call["name"]]
        try:
            if issubclass(schema, BaseModel):
                content = schema.model_validate(call["args"]).model_dump_json()
            else:
                content = schema.validate(call["args"]).json()
            return ToolMessage(content=content, name=call["name"], tool_call_id=str(call["id"]))
        except (ValidationError, ValidationErrorV1) as e:
            return ToolMessage(
                content=self._format_error(e, call, schema),  # type: ignore[arg-type]
                name=call["name"],
                tool_call_id=str(call["id"]),
                additional_kwargs={"is_error": True},
            )

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        as_list, message = self._last_message(input)
        with get_executor_for_config(config or {}) as executor:
            outputs = list(executor.map(self._check, message.tool_calls))
        return outputs if as_list else {"messages": outputs}

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        # validation is quick and CPU-bound: the sync path, as LangGraph's (it has no async one)
        return self.invoke(input, config, **kwargs)
