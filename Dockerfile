# graphwire: an image that serves what its configuration says.
#
#   docker build -t graphwire .
#   docker run -p 50051:50051 -v graphwire-data:/data graphwire              # the demo, SQLite in /data
#   docker run -p 50051:50051 -v "$PWD":/app graphwire                        # your graphwire.toml + graphs
#   docker run -p 50051:50051 -e GRAPHWIRE_CHECKPOINTER=postgresql://… graphwire
#
# The image passes serve no flags: settings come from /app/graphwire.toml
# (the demo's is there; mount your directory over /app, or set
# GRAPHWIRE_CONFIG) and GRAPHWIRE_* variables, which override the file.
# Flags given to `docker run IMAGE --flag …` reach serve too, and override
# both, but the health check reads only the file and the variables: keep
# address and TLS there. See docs/docker.md.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
RUN python -m venv /opt/graphwire
ENV PATH=/opt/graphwire/bin:$PATH
WORKDIR /src

# 1. The dependencies, from the files that declare them and nothing else: this
#    layer is rebuilt when a dependency changes, not when the code does. The
#    three distributions installed here are empty shells (no code yet; the
#    READMEs they name are blanks), removed again below.
COPY pyproject.toml setup.py ./
COPY scripts/build_backend.py scripts/
COPY proto/python/pyproject.toml proto/python/
COPY clients/python/pyproject.toml clients/python/
COPY clients/python/graphwire/_version.py clients/python/graphwire/
RUN touch README.md proto/python/README.md clients/python/README.md \
 && pip install . \
 && pip uninstall --yes graphwire-server graphwire graphwire-proto

# 2. The code: the stubs, the client (for graphwire chat and health) and the
#    server, over the dependencies above.
COPY README.md ./
COPY proto/python proto/python
COPY clients/python clients/python
COPY engine engine
COPY server server
RUN pip install --no-deps ./proto/python ./clients/python . \
 && graphwire --help > /dev/null

# The final image: Python, the virtual environment, the demo. No compiler,
# no wheels, no pip cache, no sources.
FROM python:3.11-slim
ENV PATH=/opt/graphwire/bin:$PATH PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
RUN useradd --system --uid 10001 --home-dir /app graphwire \
 && mkdir -p /data /app && chown graphwire /data /app
COPY --from=build /opt/graphwire /opt/graphwire
WORKDIR /app
# The demo and the config that serves it: no wheel carries examples/; graph
# specs import from the config file's directory and the working directory.
COPY examples/__init__.py examples/
COPY examples/reminders examples/reminders
COPY docker/graphwire.toml ./
USER graphwire
EXPOSE 50051
VOLUME /data
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 CMD ["graphwire", "health"]
ENTRYPOINT ["graphwire", "serve"]
