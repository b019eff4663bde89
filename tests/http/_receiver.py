"""A small HTTP server a test starts to receive webhooks: it keeps each POST's JSON body and answers as told."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """Listens on 127.0.0.1 (``url``); answers each POST with the next of ``answers`` (then 200), keeping its body."""

    def __init__(self, answers: tuple[int, ...] = ()) -> None:
        self.bodies: list[Any] = []
        self.statuses: list[int] = []
        self._answers = list(answers)
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with receiver._lock:
                    status = receiver._answers.pop(0) if receiver._answers else 200
                    receiver.bodies.append(body)
                    receiver.statuses.append(status)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
