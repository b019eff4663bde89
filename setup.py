"""graphwire-server's dependencies (``dynamic`` in pyproject.toml, because two of them are siblings in this repository).

``graphwire-proto`` (proto/python) and ``graphwire`` (clients/python) are on
no index: ``scripts/build_backend.py`` says how a wheel and an editable
install name them.
"""

from pathlib import Path

from setuptools import setup

import build_backend

setup(
    install_requires=[
        "grpcio>=1.85.1",
        "grpcio-health-checking>=1.85.1",
        "grpcio-reflection>=1.85.1",
        "protobuf>=7.35.1,<8",
        "msgpack>=1.0",
        "psycopg[binary]>=3.2",  # RawCursor (engine._sql.postgres.conns.kept_raw_cursor)
        "psycopg-pool>=3.2",
        "opentelemetry-api>=1.24",
        "opentelemetry-sdk>=1.24",
        "opentelemetry-exporter-otlp>=1.24",
        "starlette>=0.40",
        "uvicorn>=0.30",
        # LangGraph's Agent Server HTTP API (server/http), with its OpenAPI document, request bodies checked by pydantic v2.
        "fastapi>=0.115",
        "pydantic>=2",
        # The server's event loop (server/_event_loop.py): asyncio's loop with its callbacks, futures and
        # task wake-ups in C: 3-7 % less server CPU a run (bench/README.md, "uvloop"). Not on Windows.
        "uvloop>=0.19; sys_platform != 'win32' and platform_python_implementation == 'CPython'",
        *build_backend.siblings({"graphwire-proto": "proto/python", "graphwire": "clients/python"}, Path(__file__).parent),
    ],
)
