"""The bounds of the tests that verify a server started on this machine."""

from __future__ import annotations

from dataclasses import replace

from mcp_resume.model.http.client import Timeouts

SHORT_BOUNDS = replace(Timeouts.from_timeout(2.0), connect=10.0)
"""``--timeout 2``'s bounds, but ten seconds to connect: with the suite's workers on two cores a
server (or this process's event loop) may take seconds to get a connection through, and a server
that answers never makes a run wait for it. A 2 s connect bound made a rule INCONCLUSIVE in CI
("no connection within 2 s") on the TypeScript SDK's server."""


SHORT_SETTLE_BOUNDS = replace(SHORT_BOUNDS, settle=0.2)
"""``SHORT_BOUNDS`` with a 0.2 s quiet period (``settle``), for a test whose verdicts rest on a status,
a header or a stream's first event, never on what a stream brings later: a read that ends early
changes nothing there, and the default second of quiet was most of each such test."""
