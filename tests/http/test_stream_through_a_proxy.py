"""A resumable stream whose connection a proxy cuts mid-run: the SDK reconnects on its own (to the
stream's ``Location``, with ``Last-Event-ID``) and its caller gets every part once, in order, as if
nothing had happened (issue 34). The proxy is tests/_proxy.py's, between the SDK and the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph_sdk import get_client

from tests._proxy import TcpProxy
from tests.http._serving import serving
from tests.http.test_runs import gates, in_loop, made  # noqa: F401 - gates: a fixture


@in_loop
async def test_the_sdk_resumes_a_stream_a_proxy_cut(tmp_path: Path, gates: Path) -> None:
    async with serving(tmp_path) as served:
        proxy = TcpProxy(served.url.removeprefix("http://").rstrip("/")).start()
        try:
            client = get_client(url=f"http://{proxy.address}", api_key=served.key)
            thread = await made(client, "gated")
            parts: list[Any] = []
            stream = client.runs.stream(
                thread, "gated", input={"gate": "proxy", "label": "x"}, stream_mode=["values", "custom"],
                stream_resumable=True, on_disconnect="continue",
            )  # fmt: skip
            async for part in stream:
                parts.append(part)
                if part.event == "custom" and not proxy.cuts:
                    assert proxy.cut() >= 1  # the node waits at its gate: the connection dies under the SDK
                    (gates / "proxy").touch()
            assert proxy.accepted >= 2  # it came back through the proxy
            run_id = parts[0].data["run_id"]
            whole = [p async for p in get_client(url=served.url, api_key=served.key).runs.join_stream(
                thread, run_id, stream_mode=["values", "custom"])]  # fmt: skip
            # What the caller saw across the cut is the run's stream as a whole, nothing lost or twice.
            assert [(p.event, p.data) for p in parts] == [(p.event, p.data) for p in whole]
            assert [p.event for p in parts].count("custom") == 1
            assert parts[-1].event == "values" and parts[-1].data["log"] == ["x"]
        finally:
            proxy.close()
