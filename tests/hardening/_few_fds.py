"""``python -m tests.hardening._few_fds serve ...``: graphwire's CLI in a process that may open only
``GRAPHWIRE_TEST_NOFILE`` descriptors (RLIMIT_NOFILE, soft and hard), as a server started under a low
``ulimit -n`` would be. The limit is set before anything opens, so the server starts with it."""

from __future__ import annotations

import os
import resource
import sys

from server.cli import main

_limit = int(os.environ["GRAPHWIRE_TEST_NOFILE"])
resource.setrlimit(resource.RLIMIT_NOFILE, (_limit, _limit))
raise SystemExit(main(sys.argv[1:]))
