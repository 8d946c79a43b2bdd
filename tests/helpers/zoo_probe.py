"""Self-check of the zoo (``tests/helpers/servers/zoo.py``) with raw httpx: does each variant show its signature?

Run::

    python tests/helpers/zoo_probe.py [NAME ...]

NAME is a variant of ``zoo.VARIANTS``, ``baseline`` (no variant: the correct default server), or several names joined
by commas (one server with all of them, each member's check run against it). With no NAME every variant and the
baseline are checked. Each check starts its own zoo on a free port (``--port 0``, the port is read from the ready
line), speaks raw HTTP to it and kills it by pid at the end. Every HTTP call and every wait has a timeout. Prints one
line per NAME, ``NAME ok`` or ``NAME FAIL why``, and exits 1 on any FAIL.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import httpx

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "helpers" / "servers" / "zoo.py"
sys.path.insert(0, str(ZOO.parent))
from zoo import VARIANTS  # noqa: E402  (the module sits next to the other test servers)

VERSION = "2025-11-25"
STEP = 5.0            # bound of one HTTP exchange or one wait for an event
CHECK_BUDGET = 40.0   # bound of one whole check
START_BUDGET = 15.0   # bound of a zoo start
PARALLEL = 8
SETTLE = 0.3          # time for the server to notice a dropped connection
TOOL_NAMES = {"test_simple_text", "test_tool_with_logging", "test_tool_with_progress", "test_sampling",
              "test_elicitation", "test_reconnection"}


class Fail(Exception):
    """A check saw something else than the variant's signature."""


def expect(condition: Any, why: str) -> None:
    if not condition:
        raise Fail(why)


# --------------------------------------------------------------------------------------------------------------------
# A raw SSE reader
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class Sse:
    """One HTTP response read in the background. ``status``, ``headers``; for ``text/event-stream`` the parsed
    ``events`` (dicts with ``id``, ``data``, ``retry``, ``event``) and ``ended`` once the body is over; otherwise
    ``body`` (bytes)."""

    response: httpx.Response
    events: list[dict[str, Any]] = field(default_factory=list)
    body: bytes = b""
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    @property
    def status(self) -> int:
        return self.response.status_code

    @property
    def is_sse(self) -> bool:
        return self.response.headers.get("content-type", "").startswith("text/event-stream")

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages of the events so far (priming events left out)."""
        return [json.loads(e["data"]) for e in self.events if e.get("data")]

    @property
    def ids(self) -> list[str]:
        return [e["id"] for e in self.events if "id" in e]

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    async def read(self) -> None:
        """Parse the body into events (``id``, ``data``, ``retry``, ``event`` fields, blank line dispatches)."""
        current: dict[str, Any] = {}
        try:
            async for line in self.response.aiter_lines():
                if line == "":
                    if current:
                        self.events.append(current)
                        current = {}
                        self.changed.set()
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data":
                    current["data"] = current["data"] + "\n" + value if "data" in current else value
                elif name in ("id", "event"):
                    current[name] = value
                elif name == "retry" and value.isdigit():
                    current["retry"] = int(value)
        except (httpx.HTTPError, asyncio.CancelledError):
            pass
        finally:
            self.ended.set()
            self.changed.set()

    async def until(self, test: Callable[[list[dict[str, Any]]], bool], timeout: float = STEP) -> bool:
        """Wait (at most ``timeout``) until ``test(messages)`` holds; False if it did not."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not test(self.messages):
            left = deadline - loop.time()
            if left <= 0 or self.ended.is_set():
                return test(self.messages)
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass
        return True

    async def response_to(self, rid: Any, timeout: float = STEP) -> dict[str, Any] | None:
        """The response with JSON-RPC id ``rid`` once it arrives (``None`` after ``timeout``)."""
        await self.until(lambda ms: any(is_response(m, rid) for m in ms), timeout)
        return next((m for m in self.messages if is_response(m, rid)), None)

    async def ends(self, timeout: float = STEP) -> bool:
        try:
            await asyncio.wait_for(self.ended.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    async def close(self) -> None:
        """Drop the connection (the client side of a network break)."""
        if self.task is not None:
            self.task.cancel()
        await self.response.aclose()


def is_response(message: dict[str, Any], rid: Any) -> bool:
    return "method" not in message and message.get("id") == rid and ("result" in message or "error" in message)


def requests_in(messages: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("method") == method and "id" in m]


def notices_in(messages: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("method") == method and "id" not in m]


# --------------------------------------------------------------------------------------------------------------------
# A raw client
# --------------------------------------------------------------------------------------------------------------------


class Client:
    """Raw HTTP to one zoo: ``url`` of ``/mcp``; every exchange is bounded by ``STEP``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(STEP, read=None))
        self.next_id = 100

    def rid(self) -> int:
        self.next_id += 1
        return self.next_id

    async def open(self, method: str, headers: dict[str, str] | None = None, body: Any = None) -> Sse:
        """Send a request and start reading its answer in the background."""
        head = {"accept": "application/json, text/event-stream", **(headers or {})}
        request = self.http.build_request(method, self.url, headers=head,
                                          content=None if body is None else json.dumps(body).encode(),
                                          extensions={"timeout": httpx.Timeout(STEP, read=None).as_dict()})
        if body is not None:
            request.headers["content-type"] = "application/json"
        response = await asyncio.wait_for(self.http.send(request, stream=True), STEP)
        sse = Sse(response)
        if sse.is_sse:
            sse.task = asyncio.create_task(sse.read())
        else:
            sse.body = await asyncio.wait_for(response.aread(), STEP)
            sse.ended.set()
        return sse

    async def initialize(self) -> Session:
        """``initialize`` + ``notifications/initialized``; the Session holds its id and the init stream."""
        sse = await self.open("POST", body={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": VERSION, "clientInfo": {"name": "zoo-probe", "version": "1"},
            "capabilities": {"sampling": {}, "elicitation": {}}}})
        sid = sse.response.headers.get("mcp-session-id")
        expect(sid, f"initialize gave no Mcp-Session-Id (status {sse.status})")
        if sse.is_sse:
            expect(await sse.response_to(1), "no initialize response")
        session = Session(self, sid, sse)
        status = (await session.post({"jsonrpc": "2.0", "method": "notifications/initialized"})).status
        expect(status in (200, 202), f"notifications/initialized got {status}")
        return session

    async def aclose(self) -> None:
        await self.http.aclose()


@dataclass
class Session:
    """One probe session: the ``client``, the session ``sid`` and its ``init`` stream."""

    client: Client
    sid: str
    init: Sse

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"mcp-session-id": self.sid, "mcp-protocol-version": VERSION, **(extra or {})}

    async def post(self, message: dict[str, Any], extra: dict[str, str] | None = None) -> Sse:
        return await self.client.open("POST", self.headers(extra), message)

    async def call(self, tool: str, args: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
                   extra: dict[str, str] | None = None) -> tuple[int, Sse]:
        """``tools/call`` of ``tool``; returns (request id, answer)."""
        rid = self.client.rid()
        params: dict[str, Any] = {"name": tool, "arguments": args or {}}
        if meta:
            params["_meta"] = meta
        return rid, await self.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}, extra)

    async def request(self, method: str, extra: dict[str, str] | None = None) -> tuple[int, Sse]:
        rid = self.client.rid()
        return rid, await self.post({"jsonrpc": "2.0", "id": rid, "method": method, "params": {}}, extra)

    async def get(self, leid: str | None = None) -> Sse:
        return await self.client.open("GET", self.headers({"last-event-id": leid} if leid is not None else None))

    async def answer(self, request: dict[str, Any], text: str = "zebra") -> int:
        """Answer a sampling or elicitation request; returns the HTTP status."""
        if request["method"] == "sampling/createMessage":
            result = {"role": "assistant", "content": {"type": "text", "text": text}, "model": "probe",
                      "stopReason": "endTurn"}
        else:
            result = {"action": "accept", "content": {"answer": text}}
        return (await self.post({"jsonrpc": "2.0", "id": request["id"], "result": result})).status

    async def delete(self) -> int:
        return (await self.client.open("DELETE", self.headers())).status


async def first_request(sse: Sse, method: str, timeout: float = STEP) -> dict[str, Any]:
    """The first ``method`` request on ``sse`` (Fail after ``timeout``)."""
    await sse.until(lambda ms: bool(requests_in(ms, method)), timeout)
    found = requests_in(sse.messages, method)
    expect(found, f"no {method} request arrived")
    return found[0]


def text_of(response: dict[str, Any] | None) -> str:
    content = ((response or {}).get("result") or {}).get("content") or [{}]
    return str(content[0].get("text", ""))


# --------------------------------------------------------------------------------------------------------------------
# Checks: one per variant, plus the baseline
# --------------------------------------------------------------------------------------------------------------------


async def check_guards(c: Client) -> None:
    """Session and version guards (B32, B30, B33, C40) and the Last-Event-ID-without-session case."""
    ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
    cases = [
        ("POST", {}, ping, 400, "POST without session"),
        ("POST", {"mcp-session-id": "bad id"}, ping, 400, "malformed session id"),
        ("POST", {"mcp-session-id": "no-such-session"}, ping, 404, "unknown session"),
        ("GET", {}, None, 400, "GET without session"),
        ("DELETE", {}, None, 400, "DELETE without session"),
        ("GET", {"last-event-id": "1"}, None, 400, "GET with Last-Event-ID, no session"),
    ]
    for method, headers, body, status, what in cases:
        got = (await c.open(method, headers, body)).status
        expect(got == status, f"{what}: {got}, expected {status}")
    s = await c.initialize()
    got = (await s.post(ping, {"mcp-protocol-version": "1999-01-01"})).status
    expect(got == 400, f"unsupported protocol version: {got}")


async def check_priming_and_replay(s: Session) -> None:
    """Priming first (D8, retry), ids on every event (B22), replay of exactly the later events (B25)."""
    first = s.init.events[0] if s.init.events else {}
    expect(first.get("id") and first.get("data") == "" and first.get("retry") == 1000,
           f"initialize stream does not open with a priming event: {first}")
    rid, sse = await s.call("test_tool_with_logging")
    expect(await sse.response_to(rid), "no response to test_tool_with_logging")
    expect(await sse.ends(), "POST stream did not end after its response")
    expect(all("id" in e for e in sse.events), "an event without id")
    expect(len(notices_in(sse.messages, "notifications/message")) == 3, "not three log notifications")
    resumed = await s.get(sse.events[1]["id"])
    expect(resumed.status == 200, f"resume gave {resumed.status}")
    await resumed.ends()
    expect([(e["id"], e.get("data")) for e in resumed.events] == [(e["id"], e.get("data")) for e in sse.events[2:]],
           "the replay is not exactly the events after Last-Event-ID")


async def check_bad_leid(c: Client, s: Session) -> None:
    """Unknown and foreign Last-Event-ID -> 400 "Invalid Last-Event-ID", never 404."""
    other = await c.initialize()
    for leid, what in (("no-such-event", "unknown"), (other.init.events[0]["id"], "another session's")):
        got = await s.get(leid)
        expect(got.status == 400, f"{what} Last-Event-ID got {got.status}")
        expect("Invalid Last-Event-ID" in got.body.decode(), f"{what} Last-Event-ID: body {got.body!r}")


async def drop_after_request(s: Session, method: str = "sampling/createMessage") -> tuple[int, Sse, dict[str, Any]]:
    """Call the tool behind ``method``, read its request, then drop the POST connection."""
    rid, sse = await s.call("test_sampling" if method.startswith("sampling") else "test_elicitation")
    request = await first_request(sse, method)
    await sse.close()
    await asyncio.sleep(SETTLE)
    return rid, sse, request


async def check_reemit(s: Session) -> None:
    """Session resumption: a stranded request is sent again with the same id after the priming event, and the
    answer completes the call, seen on a stream resumption of the POST stream (B24/B25)."""
    rid, post, request = await drop_after_request(s)
    get = await s.get()
    again = await first_request(get, "sampling/createMessage")
    expect(again["id"] == request["id"], "re-sent with another id")
    expect(get.events[0].get("data") == "", "the re-sent request came before the priming event")
    expect(await s.answer(again, "okapi") == 202, "the answer was not 202")
    resumed = await s.get(post.ids[-1])
    response = await resumed.response_to(rid)
    expect("okapi" in text_of(response), f"the resumed POST stream did not carry the result: {response}")
    await get.close()


async def check_no_double_send(s: Session) -> None:
    """B21: a pending request whose stream is still connected is not sent again on a new GET."""
    rid, post = await s.call("test_elicitation")
    request = await first_request(post, "elicitation/create")
    get = await s.get()
    await get.until(lambda ms: False, 0.5)
    expect(not requests_in(get.messages, "elicitation/create"), "sent again while its stream was connected")
    await s.answer(request)
    expect(await post.response_to(rid), "no response after the elicitation answer")
    await get.close()


async def check_reconnection_tool(s: Session) -> None:
    """test_reconnection: the connection closes after one log with retry (D9/D10); resumption gets the rest."""
    rid, sse = await s.call("test_reconnection")
    expect(await sse.ends(), "test_reconnection did not close its connection")
    expect(not any(is_response(m, rid) for m in sse.messages), "the response came before the break")
    expect(sse.events[-1].get("retry") == 1000, "the last event before the break has no retry")
    resumed = await s.get(sse.ids[-1])
    expect(await resumed.response_to(rid), "the resumed stream did not bring the response")


async def baseline(c: Client) -> None:
    """The default server: guards, priming, replay, invalid ids, re-emission, B21, polling tool, DELETE."""
    await check_guards(c)
    s = await c.initialize()
    expect(all(0x21 <= ord(ch) <= 0x7E for ch in s.sid), "session id outside 0x21-0x7E")
    expect((await s.post({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})).status == 202,
           "a notification was not answered 202")
    rid, sse = await s.request("no/such/method")
    expect(((await sse.response_to(rid)) or {}).get("error", {}).get("code") == -32601, "unknown method not -32601")
    rid, sse = await s.request("tools/list")
    tools = {t["name"] for t in ((await sse.response_to(rid)) or {}).get("result", {}).get("tools", [])}
    expect(tools == TOOL_NAMES, f"tools/list: {sorted(tools)}")
    await check_priming_and_replay(s)
    await check_bad_leid(c, s)
    await check_reemit(s)
    await check_no_double_send(s)
    await check_reconnection_tool(s)
    expect(await s.delete() == 200, "DELETE was not 200")
    expect((await s.request("ping"))[1].status == 404, "a deleted session was not 404")


async def counter_ids(c: Client) -> None:
    """Two sessions' streams both start at "1"; ids go on 1,2,3... across streams; request ids count from 0."""
    a, b = await c.initialize(), await c.initialize()
    expect(a.init.ids[:2] == ["1", "2"] and b.init.ids[:2] == ["1", "2"],
           f"initialize ids {a.init.ids} / {b.init.ids}")
    for s in (a, b):
        rid, sse = await s.call("test_sampling")
        request = await first_request(sse, "sampling/createMessage")
        expect(request["id"] == 0, f"first server request id {request['id']!r}, expected 0")
        expect(sse.ids[0] == "3", f"the second stream starts at {sse.ids[0]}, expected 3")
        await s.answer(request)
        expect(await sse.response_to(rid), "no response after sampling")
        expect(sse.ids == [str(n) for n in range(3, 3 + len(sse.ids))], f"ids {sse.ids}")


async def opaque_ids(c: Client) -> None:
    """Ids are opaque (not counters), unique, and still resume their stream."""
    s = await c.initialize()
    rid, sse = await s.call("test_tool_with_logging")
    expect(await sse.response_to(rid), "no response")
    ids = s.init.ids + sse.ids
    expect(len(set(ids)) == len(ids), "duplicate event id")
    expect(not any(i.isdigit() for i in ids) and min(map(len, ids)) >= 8, f"ids look like counters: {ids}")
    resumed = await s.get(sse.ids[2])
    await resumed.ends()
    expect(resumed.ids == sse.ids[3:], "resumption with an opaque id did not replay the rest")


async def global_counter(c: Client) -> None:
    """One counter for the server: the second session goes on where the first stopped."""
    a, b = await c.initialize(), await c.initialize()
    expect(a.init.ids == ["1", "2"] and b.init.ids == ["3", "4"], f"ids {a.init.ids} / {b.init.ids}")


async def get_405(c: Client) -> None:
    """GET without Last-Event-ID -> 405; the request stays on the POST stream, which a GET with Last-Event-ID
    resumes (replay carries it)."""
    s = await c.initialize()
    expect((await s.get()).status == 405, "a plain GET was not 405")
    rid, post, request = await drop_after_request(s)
    expect((await s.get()).status == 405, "a plain GET after the drop was not 405")
    resumed = await s.get(post.ids[0])
    again = await first_request(resumed, "sampling/createMessage")
    expect(again == request, "the replay did not carry the same request")
    await s.answer(again)
    expect(await resumed.response_to(rid), "no response on the resumed POST stream")


async def one_standalone(c: Client) -> None:
    """A second GET ends the first GET's connection and is served itself."""
    s = await c.initialize()
    first = await s.get()
    await first.until(lambda ms: False, 0.2)
    second = await s.get()
    expect(second.status == 200, f"second GET {second.status}")
    expect(await first.ends(2.0), "the older GET connection stayed open")
    expect(not await second.ends(0.3), "the newer GET connection closed")
    await second.close()


def second_get(code: int) -> Callable[[Client], Awaitable[None]]:
    async def check(c: Client) -> None:
        """A second concurrent GET is refused ``code``; after the first leaves a GET is accepted again."""
        s = await c.initialize()
        first = await s.get()
        expect(first.status == 200, f"first GET {first.status}")
        second = await s.get()
        expect(second.status == code, f"second GET {second.status}, expected {code}")
        await first.close()
        await asyncio.sleep(SETTLE)
        third = await s.get()
        expect(third.status == 200, f"GET after the first left: {third.status}")
        await third.close()
    return check


async def polling(c: Client) -> None:
    """The POST connection closes after priming + first message (with retry); GET + Last-Event-ID gets the rest."""
    s = await c.initialize()
    rid, sse = await s.call("test_tool_with_logging")
    expect(await sse.ends(), "the POST connection was not closed")
    expect(len(sse.events) == 2 and sse.events[1].get("retry") == 1000,
           f"expected priming + one message with retry, got {sse.events}")
    resumed = await s.get(sse.ids[-1])
    expect(await resumed.response_to(rid), "resumption did not bring the response")
    expect(len(notices_in(resumed.messages, "notifications/message")) == 2, "resumption lost logs")


async def batch_close(c: Client) -> None:
    """A resumed connection writes what is due and closes without the stream ending; a further one continues."""
    s = await c.initialize()
    rid, sse = await s.call("test_reconnection")
    expect(await sse.ends(), "test_reconnection did not break")
    first = await s.get(sse.ids[-1])
    expect(await first.ends(), "the resumed connection did not close")
    expect(len(first.events) == 1 and not any(is_response(m, rid) for m in first.messages),
           f"first resumption: {first.messages}")
    second = await s.get(first.ids[-1])
    expect(await second.response_to(rid), "the second resumption did not bring the response")


async def ring_buffer(c: Client) -> None:
    """Only the last 3 events stay: evicted ids -> 400, a retained one replays exactly the rest."""
    s = await c.initialize()
    rid, sse = await s.call("test_tool_with_logging")
    expect(await sse.response_to(rid), "no response")
    expect(len(sse.ids) == 5, f"expected 5 events, got {len(sse.ids)}")
    for evicted in sse.ids[:2]:
        expect((await s.get(evicted)).status == 400, "an evicted id was not refused 400")
    resumed = await s.get(sse.ids[2])
    await resumed.ends()
    expect(resumed.ids == sse.ids[3:], f"replay {resumed.ids}, expected {sse.ids[3:]}")


async def cancel_on_resume(c: Client) -> None:
    """A session resumption cancels the stranded request; the call ends with an error result."""
    s = await c.initialize()
    rid, post, request = await drop_after_request(s)
    get = await s.get()
    await get.until(lambda ms: bool(notices_in(ms, "notifications/cancelled")))
    cancels = notices_in(get.messages, "notifications/cancelled")
    expect(cancels and cancels[0]["params"].get("requestId") == request["id"], "no notifications/cancelled for it")
    expect(not requests_in(get.messages, "sampling/createMessage"), "it was sent again as well")
    resumed = await s.get(post.ids[-1])
    response = await resumed.response_to(rid)
    expect(response and response["result"].get("isError") is True, f"not an error result: {response}")
    await get.close()


async def json_answers(c: Client) -> None:
    """Requests are answered application/json; the sampling request travels on the GET stream."""
    s = await c.initialize()
    expect(not s.init.is_sse and s.init.json()["result"]["protocolVersion"] == VERSION,
           "initialize was not answered with JSON")
    rid, ping = await s.request("ping")
    expect(not ping.is_sse and ping.json() == {"jsonrpc": "2.0", "id": rid, "result": {}}, "ping not JSON")
    get = await s.get()
    call = asyncio.create_task(s.call("test_sampling"))
    request = await first_request(get, "sampling/createMessage")
    expect(await s.answer(request, "gnu") == 202, "the answer was not 202")
    rid, answer = await asyncio.wait_for(call, STEP)
    expect(not answer.is_sse and "gnu" in text_of(answer.json()), f"the call's JSON answer: {answer.body!r}")
    await get.close()


async def session_ttl(c: Client) -> None:
    """A session idle longer than --session-ttl (1 s here) is gone: 404; an active one is not."""
    s = await c.initialize()
    await asyncio.sleep(0.6)
    expect((await s.request("ping"))[1].status == 200, "the session expired too early")
    await asyncio.sleep(1.6)
    expect((await s.request("ping"))[1].status == 404, "the idle session did not expire")


async def same_text(c: Client) -> None:
    """Two calls of test_tool_with_logging log exactly the same text."""
    s = await c.initialize()
    texts = []
    for _ in range(2):
        rid, sse = await s.call("test_tool_with_logging")
        expect(await sse.response_to(rid), "no response")
        texts += [m["params"]["data"] for m in notices_in(sse.messages, "notifications/message")]
    expect(len(texts) == 6 and len(set(texts)) == 1, f"texts differ: {texts}")


async def response_on_get(c: Client) -> None:
    """With a GET stream connected, the tool's response arrives on the GET and not on the POST stream."""
    s = await c.initialize()
    get = await s.get()
    await get.until(lambda ms: False, 0.2)
    rid, post = await s.call("test_simple_text")
    expect(await get.response_to(rid), "the response did not arrive on the GET stream")
    expect(await post.ends(), "the POST stream did not end")
    expect(not any(is_response(m, rid) for m in post.messages), "the response came on the POST stream too")
    await get.close()


async def cross_call_notices(c: Client) -> None:
    """Two concurrent progress calls: some progress lands on the other call's POST stream."""
    s = await c.initialize()
    (ra, a), (rb, b) = await asyncio.gather(s.call("test_tool_with_progress", meta={"progressToken": "tok-a"}),
                                            s.call("test_tool_with_progress", meta={"progressToken": "tok-b"}))
    for rid, sse in ((ra, a), (rb, b)):
        expect(await sse.response_to(rid), "no response")
    foreign = [m for sse, mine in ((a, "tok-a"), (b, "tok-b"))
               for m in notices_in(sse.messages, "notifications/progress") if m["params"]["progressToken"] != mine]
    expect(foreign, "no progress notification landed on the other call's stream")


async def post_resume_replay(c: Client) -> None:
    """A POST with Last-Event-ID gets the events after that id before its own response."""
    s = await c.initialize()
    rid, sse = await s.call("test_tool_with_logging")
    expect(await sse.response_to(rid), "no response")
    ping_id, ping = await s.request("ping", {"last-event-id": sse.ids[1]})
    expect(await ping.response_to(ping_id), "no ping response")
    replayed = [m for m in ping.messages if m.get("method") == "notifications/message" or is_response(m, rid)]
    expect(len(replayed) == 3, f"expected 2 logs + the old response replayed, got {ping.messages}")


async def notification_200(c: Client) -> None:
    """A POSTed notification gets 200 with a JSON-RPC error body."""
    s = await c.initialize()
    got = await s.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    expect(got.status == 200 and "error" in (got.json() or {}), f"got {got.status} {got.body!r}")


async def silent_drop(c: Client) -> None:
    """test_sampling sends nothing but priming and does not finish."""
    s = await c.initialize()
    rid, sse = await s.call("test_sampling")
    await sse.until(lambda ms: bool(ms), 1.5)
    expect(not sse.messages and not sse.ended.is_set(), f"messages {sse.messages}, ended {sse.ended.is_set()}")
    await sse.close()


async def predictable_ids(c: Client) -> None:
    """Session ids are session-1, session-2."""
    a, b = await c.initialize(), await c.initialize()
    expect((a.sid, b.sid) == ("session-1", "session-2"), f"session ids {a.sid}, {b.sid}")


async def past_end_200(c: Client) -> None:
    """A Last-Event-ID past the end of a real stream: 200 and nothing delivered."""
    s = await c.initialize()
    rid, sse = await s.call("test_tool_with_logging")
    expect(await sse.response_to(rid), "no response")
    stream, _, seq = sse.ids[-1].rpartition("_")
    expect(seq.isdigit(), f"ids are not <stream>_<seq>: {sse.ids[-1]}")
    got = await s.get(f"{stream}_{int(seq) + 5}")
    expect(got.status == 200, f"past-the-end id got {got.status}")
    await got.until(lambda ms: bool(ms), 0.5)
    expect(not got.events, f"events were delivered: {got.events}")
    expect((await s.get(f"{stream}_x")).status == 400, "a malformed id was not 400")


async def per_session_global_lookup(c: Client) -> None:
    """Session B resuming "3" gets session A's events."""
    a = await c.initialize()
    rid, sse = await a.call("test_tool_with_logging")
    expect(await sse.response_to(rid), "no response")
    b = await c.initialize()
    leak = await b.get("3")
    expect(leak.status == 200, f"B's resume of 3 got {leak.status}")
    await leak.ends()
    expect(notices_in(leak.messages, "notifications/message"), f"B did not get A's logs: {leak.messages}")


async def unknown_session_400(c: Client) -> None:
    """Unknown and deleted sessions get 400."""
    s = await c.initialize()
    expect((await s.delete()) == 200, "DELETE was not 200")
    expect((await s.request("ping"))[1].status == 400, "a deleted session was not 400")
    got = await c.open("POST", {"mcp-session-id": "no-such-session"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"})
    expect(got.status == 400, f"an unknown session got {got.status}")


async def no_reemit(c: Client) -> None:
    """A session resumption leaves the stranded request unsent."""
    s = await c.initialize()
    await drop_after_request(s)
    get = await s.get()
    await get.until(lambda ms: bool(ms), 1.0)
    expect(get.status == 200 and len(get.events) == 1 and not get.messages, f"GET brought {get.messages}")
    await get.close()


async def headless_get(c: Client) -> None:
    """A GET without Last-Event-ID gets no response head within 2 s; one with a cursor is answered."""
    s = await c.initialize()
    try:
        got = await asyncio.wait_for(s.get(), 2.0)
    except asyncio.TimeoutError:
        got = None
    expect(got is None, f"a plain GET was answered {got and got.status}")
    expect((await s.get("no-such-event")).status == 400, "a GET with an unknown cursor was not refused 400")


@dataclass(frozen=True)
class Check:
    """A check: the zoo's extra command-line arguments and the coroutine that probes it."""

    run: Callable[[Client], Awaitable[None]]
    args: tuple[str, ...] = ()


CHECKS: dict[str, Check] = {
    "baseline": Check(baseline),
    "counter-ids": Check(counter_ids),
    "opaque-ids": Check(opaque_ids),
    "global-counter": Check(global_counter),
    "get-405": Check(get_405),
    "one-standalone": Check(one_standalone),
    "second-get-409": Check(second_get(409)),
    "second-get-400": Check(second_get(400)),
    "polling": Check(polling),
    "batch-close": Check(batch_close),
    "ring-buffer": Check(ring_buffer),
    "cancel-on-resume": Check(cancel_on_resume),
    "json-answers": Check(json_answers),
    "session-ttl": Check(session_ttl, ("--session-ttl", "1")),
    "same-text": Check(same_text),
    "response-on-get": Check(response_on_get),
    "cross-call-notices": Check(cross_call_notices),
    "post-resume-replay": Check(post_resume_replay),
    "notification-200": Check(notification_200),
    "silent-drop": Check(silent_drop),
    "predictable-ids": Check(predictable_ids),
    "past-end-200": Check(past_end_200),
    "per-session-global-lookup": Check(per_session_global_lookup),
    "unknown-session-400": Check(unknown_session_400),
    "no-reemit": Check(no_reemit),
    "headless-get": Check(headless_get),
}


# --------------------------------------------------------------------------------------------------------------------
# Running the zoo
# --------------------------------------------------------------------------------------------------------------------


async def start_zoo(variants: list[str], args: tuple[str, ...]) -> tuple[asyncio.subprocess.Process, str]:
    """Start the zoo on a free port; returns (process, url) once its ready line is read (``START_BUDGET``)."""
    command = [sys.executable, str(ZOO), "--port", "0", *args]
    if variants:
        command += ["--variant", ",".join(variants)]
    with tempfile.TemporaryFile() as errors:
        process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE, stderr=errors)
        try:
            line = (await asyncio.wait_for(process.stdout.readline(), START_BUDGET)).decode().strip()
        except asyncio.TimeoutError:
            line = ""
        if not line.startswith("zoo listening on "):
            await stop_zoo(process)
            errors.seek(0)
            err = errors.read().decode(errors="replace").strip().splitlines()
            raise Fail(f"the zoo did not start: {line or (err[-1] if err else 'no output')}")
    return process, line.removeprefix("zoo listening on ")


async def stop_zoo(process: asyncio.subprocess.Process) -> None:
    """SIGTERM by pid, then SIGKILL after 3 s."""
    if process.returncode is not None:
        return
    process.terminate()
    try:
        await asyncio.wait_for(process.wait(), 3.0)
    except asyncio.TimeoutError:
        process.kill()
        await asyncio.wait_for(process.wait(), 3.0)


async def probe(name: str) -> str | None:
    """Run the check(s) of ``name`` (one variant, ``baseline`` or a comma-joined set); None if all held."""
    members = [n for n in name.split(",") if n]
    variants = [n for n in members if n != "baseline"]
    unknown = [n for n in members if n not in CHECKS]
    if unknown:
        return f"no such variant: {', '.join(unknown)}"
    args = tuple(a for n in members for a in CHECKS[n].args)
    process, url = await start_zoo(variants, args)
    client = Client(url)
    try:
        for member in members:
            await asyncio.wait_for(CHECKS[member].run(client), CHECK_BUDGET)
        return None
    except Fail as failure:
        return str(failure)
    except asyncio.TimeoutError:
        return f"the check took longer than {CHECK_BUDGET:g} s"
    except (httpx.HTTPError, OSError, KeyError, IndexError, TypeError, ValueError) as problem:
        return f"{type(problem).__name__}: {problem}"
    finally:
        await client.aclose()
        await stop_zoo(process)


async def probe_all(names: list[str]) -> int:
    """Probe ``names`` ``PARALLEL`` at a time; print one line each, in order; 1 if any failed."""
    gate = asyncio.Semaphore(PARALLEL)

    async def one(name: str) -> str | None:
        async with gate:
            try:
                return await probe(name)
            except Fail as failure:
                return str(failure)

    results = await asyncio.gather(*(one(n) for n in names))
    for name, why in zip(names, results):
        print(f"{name} ok" if why is None else f"{name} FAIL {why}", flush=True)
    return 1 if any(why is not None for why in results) else 0


def main(argv: list[str]) -> int:
    names = argv or ["baseline", *VARIANTS]
    missing = [v for v in VARIANTS if v not in CHECKS]
    if missing:
        print(f"variants without a check: {', '.join(missing)}", file=sys.stderr)
        return 1
    return asyncio.run(probe_all(names))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
