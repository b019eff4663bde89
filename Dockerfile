# graphwire: a small image that serves the configured graphs.
#   docker build -t graphwire .
#   docker run -p 50051:50051 -v graphwire-data:/data graphwire
# Mount a graphwire.toml at /app/graphwire.toml (or pass flags) for your own graphs.

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY scripts/build_backend.py scripts/
COPY proto/python proto/python
COPY clients/python clients/python
COPY engine engine
COPY server server
# Wheels for graphwire-server, its siblings (the stubs and the client, which
# its wheel names by file URL into /src) and every dependency: the final stage
# needs no compiler.
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home /app graphwire \
 && mkdir -p /data /app && chown graphwire /data /app
COPY --from=build /wheels /wheels
# --no-deps: /wheels already holds every dependency, and the server's wheel
# names its siblings by paths of the build stage.
RUN pip install --no-cache-dir --no-deps /wheels/*.whl && rm -rf /wheels
USER graphwire
WORKDIR /app
# The demo: no wheel carries examples/; graph specs import from the working directory.
COPY examples/__init__.py examples/
COPY examples/reminders examples/reminders
EXPOSE 50051
VOLUME /data
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD python -c "import grpc, sys; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; \
s = g.HealthStub(grpc.insecure_channel('127.0.0.1:50051')).Check(h.HealthCheckRequest(), timeout=2); \
sys.exit(0 if s.status == h.HealthCheckResponse.SERVING else 1)"
ENTRYPOINT ["graphwire", "serve", "--address", "0.0.0.0:50051", "--checkpointer", "/data/graphwire.db"]
