"""``python -m server`` is ``graphwire``."""

from server.cli import main

raise SystemExit(main())
