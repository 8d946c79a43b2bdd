"""The façade re-emits a request whose connection closed just before a session resumption.

A client may close a POST connection and at once send the GET of a session
resumption; when the server's thread was held up across both, the close and the
GET reach the event loop together (docs/design.md §2). The ASGI app is driven
here directly (no sockets) so that the two arrive in the same loop turn, which
is the order a busy machine gives and a test over HTTP cannot pin.
"""

from __future__ import annotations

import asyncio
import json

from mcp_resume.model.serving.facade import MCP_PATH, FacadeApp
from mcp_resume.model.servers.reference import ReferenceServer

ACCEPT = (b"accept", b"application/json, text/event-stream")


class Exchange:
    """One ASGI request: what the app receives (a body, then whatever the test puts) and what it sends."""

    def __init__(self, method: str, body: dict | None = None, session: str | None = None) -> None:
        headers = [ACCEPT, (b"content-type", b"application/json")]
        if session is not None:
            headers.append((b"mcp-session-id", session.encode()))
        self.scope = {"type": "http", "method": method, "path": MCP_PATH, "headers": headers}
        self.incoming: asyncio.Queue = asyncio.Queue()
        if body is not None:
            self.incoming.put_nowait({"type": "http.request", "body": json.dumps(body).encode(), "more_body": False})
        self.headers: dict[str, str] = {}
        self.text = ""
        self.arrived = asyncio.Event()

    async def receive(self) -> dict:
        return await self.incoming.get()

    async def send(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            self.headers = {k.decode(): v.decode() for k, v in message["headers"]}
        else:
            self.text += message.get("body", b"").decode()
        self.arrived.set()

    def close(self) -> None:
        self.incoming.put_nowait({"type": "http.disconnect"})

    async def until(self, text: str, seconds: float = 2.0) -> bool:
        """Whether ``text`` is sent within ``seconds``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while text not in self.text and loop.time() < deadline:
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                break
        return text in self.text


def _request(rid: int, method: str, params: dict) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


async def _close_and_resume_together() -> tuple[str, str]:
    app = FacadeApp(ReferenceServer())
    init = Exchange("POST", _request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                        "clientInfo": {"name": "t", "version": "1"}}))
    await app(init.scope, init.receive, init.send)
    session = init.headers["mcp-session-id"]
    call = Exchange("POST", _request(2, "tools/call", {"name": "test_elicitation", "arguments": {}}), session)
    calling = asyncio.ensure_future(app(call.scope, call.receive, call.send))
    assert await call.until("elicitation/create"), call.text
    resume = Exchange("GET", session=session)
    call.close()  # the close and the GET of the session resumption in the same loop turn
    resuming = asyncio.ensure_future(app(resume.scope, resume.receive, resume.send))
    try:
        await resume.until("elicitation/create")
        return call.text, resume.text
    finally:
        resume.close()
        for task in (calling, resuming, *app.tasks):
            task.cancel()
        await asyncio.gather(calling, resuming, *app.tasks, return_exceptions=True)


def test_a_request_whose_connection_closes_as_the_session_resumes_is_re_emitted_there():
    call, resumed = asyncio.run(_close_and_resume_together())
    request_id = json.loads(next(line[6:] for line in call.splitlines() if "elicitation/create" in line))["id"]
    assert "elicitation/create" in resumed, resumed
    reemitted = json.loads(next(line[6:] for line in resumed.splitlines() if "elicitation/create" in line))
    assert reemitted["id"] == request_id
