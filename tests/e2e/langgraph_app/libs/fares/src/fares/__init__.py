"""Fares, a local package the project lists in its dependencies (src layout), built on LangGraph too."""

from langgraph.config import get_stream_writer


def fare(city: str) -> int:
    get_stream_writer()({"fare_lookup": city})  # a custom event to whoever streams the run
    return 90 + 5 * len(city)
