"""The traffic page: judging a server by its real clients' traffic, with ``mcp-resume proxy``
(live) and ``mcp-resume validate`` (a recording), for a server ``verify`` cannot drive."""

from __future__ import annotations

from .markdown import page
from .pages_spec import GENERATED

PROXY_EXAMPLE = '''mcp-resume proxy --upstream http://127.0.0.1:8000/mcp --record traffic.jsonl --json proxy.json
# -> proxy listening on http://127.0.0.1:8808, forwarding to http://127.0.0.1:8000; point your client at http://127.0.0.1:8808/mcp
mcp-resume validate traffic.jsonl            # later, or on a HAR file exported from devtools or mitmproxy'''


def traffic_page() -> str:
    return page(
        "# Judging a server by its real traffic",
        GENERATED + " Options and exit codes: [the command reference](commands.md) (`proxy`, `validate`).",
        "`verify` needs tools that make server requests and notifications for most rules: the "
        "[fixture tools](fixtures.md), or your own tools named with `verify --tool ROLE=NAME`. A server in real "
        "use also has real clients, whose traffic shows what it does on reconnect. Put the proxy in front of it "
        "and point the client (an agent, an IDE, the MCP Inspector, the SDK clients, your own tests) at the proxy:",
        f"```sh\n{PROXY_EXAMPLE}\n```",
        "The proxy forwards and streams unchanged, records, and prints each finding the moment it is seen. "
        "`validate` judges a recording: a HAR file or the proxy's JSON lines (`--format auto|har|jsonl`). With "
        "`--profile auto` (the default) it reads the revision from the traffic: the one `initialize` negotiated, or "
        "2026-07-28 for that revision's request shape (the SDK clients' default), exchange by exchange. A proxy "
        "recording of any length is read line by line, each exchange kept as what the judge reads of it (a "
        "message's kind and ids, never its text: a message is known by where it was sent): memory grows with the exchanges "
        "and events, not the bytes; a 235 MB recording of 107,000 events is judged in under 150 MB.",
        "## How traffic is judged",
        "Each exchange is mapped onto the spec's actions (`initialize`, requests, answers, GET with or without "
        "`Last-Event-ID`, DELETE; the events and server requests seen on each stream; a connection's end) and judged "
        "by the same checks as every other checker (`model/oracle/judge.py`, the one oracle of "
        "[design.md §6](design.md#6-architecture)); each rule's verdict names the exchanges that broke it, and every "
        "FAIL and WARN carries a fix line (a `fix` field in JSON), as `verify`'s do.",
        "What a log cannot show is left open, not guessed: a session whose `initialize` was not recorded is not "
        "judged, and a rule touched only by such exchanges is INCONCLUSIVE, never PASS. What the server may do unseen "
        "is assumed and said: a refusal of a retained cursor is read as eviction, a 404 for a session quiet for 30 s "
        "as the server having ended it (a 404 sooner is judged). The proxy judges a GET's replay, and a DELETE's end "
        "of the session's streams, once a second has passed since its response (the replay window): such a finding "
        "prints a second late rather than wrong. A finding printed live is provisional (it says so): the final "
        "report, judged on every record when the proxy stops, is the one that counts, and a live finding it "
        "revises is said so. Printed lines shorten ids longer than 64 characters; the JSON keeps them whole.",
        "## Reproducers",
        "Each FAIL and WARN of the proxy's final report comes with two reproducers in `--out`, written when the "
        "proxy stops: `<rule>.curl.sh` (the recorded requests) and `<rule>.trace.json`, the spec's steps up to "
        "the finding, which "
        "`mcp-resume replay <rule>.trace.json <server>` runs again.",
        "`replay` takes three kinds of trace: a verify trace (written by `verify` for each FAIL and WARN), run again "
        "against the same server after a fix, or against `spec` to see the expected answers; a spec trace (from "
        "`check`, `explore` or the proxy) against `spec`, `reference`, `design-N`, or a server over HTTP when every "
        "step can be played there (client actions, and server actions its fixture tools play; otherwise it says which "
        "step cannot be and exits 3); a lasso of `liveness` against `spec`, `reference` or `design-N`: its "
        "prefix, then its cycle as often as the trace repeats it, and whether its request is stranded after every "
        "round (exit 1 when it is, under `boundary`; a lasso whose rounds differ from its cycle is refused).",
        "Through the proxy, the official Python SDK client's traffic to the Python SDK server shows its "
        "cross-session replay as a FAIL of `no-cross-session` the moment a second client presents the first one's "
        "event id as its resumption token (`tests/slow/test_traffic_sdk_client.py`; `tests/helpers/recordings/python-sdk-client.har` "
        "is such a recording). [Checking a server in CI](ci.md) records a client test run through the proxy in CI.",
    )
