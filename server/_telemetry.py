"""OpenTelemetry for the server: the SDK from the standard ``OTEL_*`` variables,
and the caller's W3C trace context.

Off unless asked: with none of ``OTEL_TRACES_EXPORTER``,
``OTEL_METRICS_EXPORTER``, ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or its
``_TRACES_``/``_METRICS_`` forms) set, no SDK is installed and the engine's
instrumentation stays a no-op. ``OTEL_SDK_DISABLED=true`` forces it off.

* ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER``: ``otlp`` (the default
  when an endpoint is set), ``console``, ``none``; comma-separated for several.
* ``OTEL_EXPORTER_OTLP_PROTOCOL`` (or ``_TRACES_``/``_METRICS_``): ``grpc``
  (default) or ``http/protobuf``. Endpoint, headers, timeouts, batch sizes and
  the resource (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``) are read
  by the SDK and exporters themselves.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable, Iterable

from opentelemetry import context as otel_context
from opentelemetry import propagate

__all__ = ["setup_from_env", "extract", "TRACE_ID_HEADER"]

log = logging.getLogger("graphwire.telemetry")

#: Initial-metadata key carrying the run's trace id (32 hex digits).
TRACE_ID_HEADER = "graphwire-trace-id"

_ENABLING = (
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)


def _names(var: str) -> list[str]:
    default = "otlp" if any(os.environ.get(k) for k in _ENABLING[2:]) else "none"
    return [n.strip().lower() for n in os.environ.get(var, default).split(",") if n.strip()]


def _protocol(signal: str) -> str:
    return os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL", os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))


def _span_exporters() -> list[Any]:
    out: list[Any] = []
    for name in _names("OTEL_TRACES_EXPORTER"):
        if name == "otlp":
            if _protocol("TRACES").startswith("http"):
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            else:
                from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter  # type: ignore[assignment]
            out.append(OTLPSpanExporter())
        elif name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            out.append(ConsoleSpanExporter())
        elif name != "none":
            raise ValueError(f"OTEL_TRACES_EXPORTER: unknown exporter {name!r} (use otlp, console or none)")
    return out


def _metric_exporters() -> list[Any]:
    out: list[Any] = []
    for name in _names("OTEL_METRICS_EXPORTER"):
        if name == "otlp":
            if _protocol("METRICS").startswith("http"):
                from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
            else:
                from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter  # type: ignore[assignment]
            out.append(OTLPMetricExporter())
        elif name == "console":
            from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

            out.append(ConsoleMetricExporter())
        elif name != "none":
            raise ValueError(f"OTEL_METRICS_EXPORTER: unknown exporter {name!r} (use otlp, console or none)")
    return out


def setup_from_env() -> Callable[[], None] | None:
    """Install the SDK if the environment asks for it; return its shutdown, or None."""
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return None
    if not any(os.environ.get(k) for k in _ENABLING):
        return None
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "graphwire")})
    shutdowns: list[Callable[[], Any]] = []
    span_exporters = _span_exporters()
    if span_exporters:
        tp = TracerProvider(resource=resource)
        for exp in span_exporters:
            tp.add_span_processor(BatchSpanProcessor(exp))
        trace.set_tracer_provider(tp)
        shutdowns.append(tp.shutdown)
    readers = [PeriodicExportingMetricReader(exp) for exp in _metric_exporters()]
    if readers:
        mp = MeterProvider(resource=resource, metric_readers=readers)
        metrics.set_meter_provider(mp)
        shutdowns.append(mp.shutdown)
    log.info("OpenTelemetry on: %d span exporter(s), %d metric reader(s)", len(span_exporters), len(readers))

    def shutdown() -> None:
        for fn in shutdowns:
            try:
                fn()
            except Exception:  # exporting must never stop a shutdown
                log.exception("OpenTelemetry shutdown failed")

    return shutdown


def extract(metadata: Iterable[tuple[str, Any]] | None) -> otel_context.Context:
    """The trace context a caller sent (``traceparent``/``tracestate``), or an empty one."""
    carrier = {k: v for k, v in (metadata or ()) if isinstance(v, str)}
    return propagate.extract(carrier)
