"""What the project's ASGI apps (the HTTP façade, the recording proxy) share."""

from __future__ import annotations


async def read_body(receive, limit: int) -> tuple[bytes, bool]:
    """The request body from ASGI ``receive`` and whether it was longer than ``limit``
    bytes (then only the chunks within the limit are kept; the rest is read and dropped).
    A client that disconnects ends the body where it stopped."""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= limit:
            parts.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(parts), size > limit
