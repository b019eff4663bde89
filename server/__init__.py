"""graphwire's gRPC host: graphs, runs, errors, auth, health, the CLI.

It adapts; it does not decide run semantics (those live in ``engine``).
"""

from server.app import Server, build_server, open_checkpointer, serve
from server.config import ServerConfig, load_config

__all__ = ["Server", "ServerConfig", "build_server", "load_config", "open_checkpointer", "serve"]
