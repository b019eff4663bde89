"""The client's version (read by pyproject.toml and sent in the user agent)."""

__version__ = "0.1.0"
