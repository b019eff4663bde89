"""Numbered SQL migrations of the SQLite cache's table (``NNNN_name.sql``).

A package only so the ``.sql`` files ship with the wheel and load through
``importlib.resources``; it exports nothing.
"""

from __future__ import annotations

__all__: list[str] = []
