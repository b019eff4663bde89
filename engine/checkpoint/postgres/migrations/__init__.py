"""Numbered SQL migrations of the PostgreSQL saver's schema (``NNNN_name.sql``).

A package only so the ``.sql`` files ship with the wheel and load through
``importlib.resources``; it exports nothing. Each file is plain SQL for one
schema: it runs with ``search_path`` set to the saver's schema, inside the
migration transaction, so it names tables without a schema.
"""

from __future__ import annotations

__all__: list[str] = []
