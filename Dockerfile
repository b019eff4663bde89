# graphwire: a small image that serves the configured graphs.
#   docker build -t graphwire .
#   docker run -p 50051:50051 -v graphwire-data:/data graphwire
# Mount a graphwire.toml at /app/graphwire.toml (or pass flags) for your own graphs.

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY clients/python clients/python
COPY engine engine
COPY server server
COPY examples examples
# Wheels for graphwire, its client and every dependency: the final stage needs no compiler.
RUN pip wheel --no-cache-dir --wheel-dir /wheels ./clients/python .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home /app graphwire \
 && mkdir -p /data /app && chown graphwire /data /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER graphwire
WORKDIR /app
EXPOSE 50051
VOLUME /data
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD python -c "import grpc, sys; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; \
s = g.HealthStub(grpc.insecure_channel('127.0.0.1:50051')).Check(h.HealthCheckRequest(), timeout=2); \
sys.exit(0 if s.status == h.HealthCheckResponse.SERVING else 1)"
ENTRYPOINT ["graphwire", "serve", "--address", "0.0.0.0:50051", "--checkpointer", "/data/graphwire.db"]
