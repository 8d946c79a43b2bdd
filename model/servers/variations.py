"""The correct variations of DESIGN.md §5, as in-process servers built from ``spec.designs``.

A correct variation departs from the reference server in a way no checker may
blame. Two change what the spec models:

- ``CancelPending``: a session resumption cancels the pending server requests it
  would re-emit (``notifications/cancelled`` on the new stream; each request
  becomes cancelled), the alternative DESIGN.md §2 branch 2 allows;
- ``RingBuffer``: each stream keeps its events in a ring buffer; a cursor naming
  an evicted event is rejected with 400 and the resumption error code (branch 3).

Two change only the bytes on the wire, so in process they are the reference
server and the HTTP façade (``model.http.facade``) reads their flags:

- ``ReserialisedReplay`` (``reserialise_replays``): replayed messages are written
  with another key order and other whitespace;
- ``JsonResponses`` (``json_responses``): a POST request is answered with one
  ``application/json`` body (MCP B13 allows both); what the server sends while
  it works waits for a GET stream.

``VARIATIONS`` maps each variation's target (``variation-<slug>``) to its class.
"""

from __future__ import annotations

from mcp_resume.spec.designs import VARIATIONS as SPECS
from mcp_resume.spec.designs import Deviation

from mcp_resume.model.servers.faulty import server_for
from mcp_resume.model.servers.reference import ReferenceServer


class ReserialisedReplay(ReferenceServer):
    """``Deviation.RESERIALISED_REPLAY``: the reference; the façade re-serialises replays."""

    reserialise_replays = True


class JsonResponses(ReferenceServer):
    """``Deviation.JSON_POST_RESPONSES``: the reference; the façade answers POST with JSON."""

    json_responses = True


BEHAVIOUR: dict[Deviation, type[ReferenceServer]] = {
    Deviation.RESERIALISED_REPLAY: ReserialisedReplay,
    Deviation.JSON_POST_RESPONSES: JsonResponses,
}
"""The server class of each correct variation's deviation."""

VARIATIONS: dict[str, type[ReferenceServer]] = {
    variation.target: server_for(variation, BEHAVIOUR, __name__) for variation in SPECS
    if all(d in BEHAVIOUR for d in variation.deviations)  # TEMP until spec-v2
}
"""Each correct variation's server class, by target (``variation-<slug>``)."""
