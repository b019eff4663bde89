"""Instructions per superstep of our engine with tracing off, on and bare, counted by callgrind.

Timings of a few µs a step move by more than that on a shared machine; the
instructions a run executes do not (they move by ~1% from run to run: hash
seeds; the collector is off while they are counted). The modes are those of
``engine_overhead.py --tracing``: ``off`` (the API's no-op tracer), ``on`` (the
SDK, a ``BatchSpanProcessor``, the in-memory exporter) and ``bare`` (the same
spans and events made bare from inside the loop: ``bare_trace``). ``on`` minus
``bare`` is what our instrumentation adds (attributes, contexts, making a
node's span current, the write events' extra attribute); ``bare`` minus
``off``, the SDK's own work. Instructions are not time (cache misses, the
collector), but they show what a change removed, without the machine's noise.

Each mode runs N times after a warm-up, in a section of its own: the script
calls ``os.getpriority`` between sections, which ``--dump-before=getpriority``
turns into a dump of the counts so far::

    valgrind --tool=callgrind --dump-before=getpriority --callgrind-out-file=/tmp/gwcg.%p \\
        python bench/tracing_instructions.py chain10 20
    python bench/tracing_instructions.py chain10 20 --read /tmp/gwcg.<pid>

(~3 minutes a row; without valgrind the first command only runs the sections.)
"""

from __future__ import annotations

import gc
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import engine_overhead as eo  # noqa: E402
from _callgrind import main, section_instructions  # noqa: E402
from _overhead_tracing import bare_trace  # noqa: E402

MODES = ("off", "on", "bare")


def run_sections(row_name: str, n: int) -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from engine.pregel import _telemetry

    ms, note = eo.load_ours()
    if ms is None:
        raise SystemExit(note)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    # No timed exports in the middle of a section: spans are taken between runs, as in the bench.
    provider.add_span_processor(BatchSpanProcessor(exporter, max_queue_size=1 << 16, schedule_delay_millis=600_000,
                                                   max_export_batch_size=1 << 15))
    sdk = provider.get_tracer("graphwire.engine")
    real = (_telemetry.RunTrace, _telemetry.timed_write)
    bare = bare_trace(sdk, _telemetry)
    tracers = {"off": trace.NoOpTracer(), "on": sdk, "bare": sdk}
    row = eo.ROWS[row_name]
    graph = row.build(ms).compile(checkpointer=ms.make_memory())

    def run(mode: str) -> None:
        provider.force_flush()
        exporter.clear()
        _telemetry.tracer = tracers[mode]
        _telemetry.RunTrace, _telemetry.timed_write = bare if mode == "bare" else real
        config = {"configurable": {"thread_id": uuid.uuid4().hex}, "recursion_limit": row.steps + 10}
        out = graph.invoke(row.make_input(), config)
        if not row.check(out):
            raise AssertionError(f"unexpected final state: {str(out)[:200]}")

    try:
        for _ in range(3):
            for mode in MODES:
                run(mode)
        # The collector off while counting: a full collection lands in one section or another and
        # moves its count by more than a change of ours (the timed bench keeps the collector on).
        gc.collect()
        gc.disable()
        for mode in MODES:
            os.getpriority(os.PRIO_PROCESS, 0)  # callgrind dumps what came before
            for _ in range(n):
                run(mode)
            provider.force_flush()
            exporter.clear()
        os.getpriority(os.PRIO_PROCESS, 0)
    finally:
        gc.enable()
        _telemetry.tracer = trace.get_tracer("graphwire.engine")
        _telemetry.RunTrace, _telemetry.timed_write = real
        provider.shutdown()


def read(prefix: str, row_name: str, n: int) -> None:
    """Per-step instructions of each mode, from the dumps ``prefix.2`` .. (``.1``: start-up)."""
    steps = eo.ROWS[row_name].steps
    per_step: dict[str, float] = {}
    for i, mode in enumerate(MODES, start=2):
        per_step[mode] = section_instructions(prefix, i) / n / steps
    for mode in MODES:
        print(f"{row_name} {mode:5} {per_step[mode] / 1e3:8.1f}k instructions/step")
    print(f"{row_name} SDK's own (bare - off) {(per_step['bare'] - per_step['off']) / 1e3:.1f}k; "
          f"ours (on - bare) {(per_step['on'] - per_step['bare']) / 1e3:.1f}k instructions/step")


if __name__ == "__main__":
    main(__doc__, run_sections, read, "runs per mode")
