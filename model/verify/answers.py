"""The client's answer to a server request, for any tool that sends one.

A fixture tool's ``elicitation/create`` asks for one string field; a server's own
tool (``verify --tool server-request=...``) may ask for any form. ``answer_to(request)``
is the ``result`` verify POSTs back: an elicitation is accepted with a value of the
right JSON type for every property of its ``requestedSchema`` (the first of an
``enum``, a ``default`` when there is one, the ``minimum`` of a number), a URL-mode
elicitation is accepted without content, a sampling request gets a one-line text
completion, ``roots/list`` no roots, anything else an empty result (the result
shapes of the MCP 2025-11-25 schema). Nothing here does I/O.
"""

from __future__ import annotations

from typing import Any

TEXT = "mcp-resume"
"""The text verify puts wherever a string is asked for."""

SAMPLING_RESULT = {"role": "assistant", "content": {"type": "text", "text": TEXT}, "model": TEXT}


def answer_to(method: str | None, params: Any) -> dict[str, Any]:
    """The ``result`` for a server request of ``method`` with ``params`` (``{}`` when unknown)."""
    params = params if isinstance(params, dict) else {}
    if method == "elicitation/create":
        if params.get("mode") == "url":
            return {"action": "accept"}
        return {"action": "accept", "content": form_content(params.get("requestedSchema"))}
    if method == "sampling/createMessage":
        return dict(SAMPLING_RESULT)
    if method == "roots/list":
        return {"roots": []}
    return {}


def form_content(schema: Any) -> dict[str, Any]:
    """A value for every property of an elicitation's flat ``requestedSchema``."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    return {name: _value(spec) for name, spec in properties.items()}


def _value(spec: Any) -> Any:
    spec = spec if isinstance(spec, dict) else {}
    if "default" in spec:
        return spec["default"]
    choices = spec.get("enum") or [option.get("const") for option in spec.get("oneOf") or [] if isinstance(option, dict)]
    if choices:
        return choices[0]
    kind = spec.get("type")
    if kind == "boolean":
        return True
    if kind in ("number", "integer"):
        low = spec.get("minimum", 1)
        return int(low) if kind == "integer" else low
    if kind == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
        first = (items.get("enum") or [option.get("const") for option in items.get("anyOf") or []] or [TEXT])[0]
        return [first] if spec.get("minItems") else []
    return _string(spec)


def _string(spec: dict[str, Any]) -> str:
    formats = {"email": "mcp-resume@example.com", "uri": "https://example.com/mcp-resume", "date": "2025-01-01",
               "date-time": "2025-01-01T00:00:00Z"}
    text = formats.get(spec.get("format"), TEXT)
    low = spec.get("minLength")
    return text.ljust(low, "x") if isinstance(low, int) and len(text) < low else text
