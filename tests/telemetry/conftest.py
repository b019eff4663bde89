"""In-process OpenTelemetry SDK for the engine's instrumentation tests.

The global providers can be set once per process, so one session fixture
installs a tracer provider with an in-memory exporter and a meter provider
with an in-memory reader; tests read what they produced by run id.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest


@pytest.fixture(scope="session")
def otel() -> Iterator[Any]:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    mp = MeterProvider(metric_readers=[reader])
    trace.set_tracer_provider(tp)
    metrics.set_meter_provider(mp)

    class Otel:
        exporter = spans
        metric_reader = reader

    yield Otel
