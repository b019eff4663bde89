"""Numbered SQL migrations of the PostgreSQL cache's table (``NNNN_name.sql``).

A package only so the ``.sql`` files ship with the wheel and load through
``importlib.resources``; it exports nothing. Each file runs with
``search_path`` set to the cache's schema, inside the migration transaction.
"""

from __future__ import annotations

__all__: list[str] = []
