"""Traces: a sequence of the spec's actions that any adapter can replay.

A counterexample found by Hypothesis, the explorer or Z3 is one ``Trace``. Its
JSON form (``TRACE_FORMAT``)::

    {"format": "mcp-resume-trace/1", "profile": "boundary",
     "actions": [{"kind": "initialize"}, {"kind": "call_tool", "session": "S1"}, ...],
     "failure": {"step": 7, "rule": "reemit-pending", "message": "..."} | null,
     "source": "hypothesis" | "explorer" | "z3" | ...}

Handles in actions (``S1``, ``T2``, ``E3``, ``R1``) are the spec's; adapters map
them to the ids of the server under test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, action_from_json, action_to_json, describe
from .profiles import DEFAULT_PROFILE, Profile

TRACE_FORMAT = "mcp-resume-trace/1"
NESTED_TOO_DEEPLY = "trace is JSON nested too deeply to read (a trace nests three levels: trace, actions, action)"


@dataclass(frozen=True)
class Failure:
    """Where a trace fails: the 1-based step, the rule broken, what was seen."""

    step: int
    rule: str
    message: str


@dataclass(frozen=True)
class Trace:
    actions: tuple[Action, ...]
    profile: Profile = DEFAULT_PROFILE
    failure: Failure | None = None
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": TRACE_FORMAT,
            "profile": self.profile.value,
            "source": self.source,
            "actions": [action_to_json(a) for a in self.actions],
            "failure": None if self.failure is None else self.failure.__dict__,
            "meta": self.meta,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"

    def describe(self) -> str:
        """One numbered line per action, the failing one marked."""
        lines = []
        for number, action in enumerate(self.actions, start=1):
            mark = "  <-- " + self.failure.rule if self.failure and self.failure.step == number else ""
            lines.append(f"{number:3}. {describe(action)}{mark}")
        return "\n".join(lines)


def trace_from_json(data: object) -> Trace:
    """The trace in ``data`` (the shape ``Trace.to_json`` writes).

    Raises ``ValueError`` saying what is wrong when ``data`` is not such a trace.
    """
    if not isinstance(data, dict) or data.get("format") != TRACE_FORMAT:
        raise ValueError(f"not an mcp-resume trace: expected an object with \"format\": \"{TRACE_FORMAT}\"")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise ValueError("trace field 'actions' must be a list")
    parsed = []
    for index, item in enumerate(actions, start=1):
        try:
            parsed.append(action_from_json(item))
        except ValueError as error:
            raise ValueError(f"trace action {index}: {error}") from None
    failure = data.get("failure")
    if failure is not None:
        try:
            failure = Failure(int(failure["step"]), str(failure["rule"]), str(failure["message"]))
        except (TypeError, KeyError, ValueError):
            raise ValueError("trace field 'failure' must be null or {step, rule, message}") from None
    profile = Profile.parse(data.get("profile", DEFAULT_PROFILE.value))
    meta = data.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    return Trace(tuple(parsed), profile, failure, str(data.get("source", "")), meta)


def loads(text: str) -> Trace:
    """Parse a trace from JSON text; ``ValueError`` on bad JSON (also nested too deeply
    for Python's parser) or a bad shape."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"trace is not valid JSON: {error}") from None
    except RecursionError:
        raise ValueError(NESTED_TOO_DEEPLY) from None
    return trace_from_json(data)
