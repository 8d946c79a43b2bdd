"""A server's own tools in the roles of the fixture tools: ``verify --tool ROLE=NAME[:ARGUMENTS_JSON]``.

A ``ToolUse`` is one tool verify calls for a role (``fixture_tools.Role``), with the
arguments it passes: either a fixture tool the server lists (``given=False``, no
arguments) or a tool the user named with ``--tool`` (``given=True``). Wherever verify
would call a fixture tool of a role it calls the tools given for that role instead;
what they do is judged by the same spec checks (``model.oracle.judge``).

``parse_tool_option`` and ``check_listed`` raise ``ToolRoleError`` (a usage error,
exit code 2) with a message that says what to do. Nothing here does I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp_resume.model.verify.fixture_tools import PAGE, Role, names_of

OPTION = "--tool ROLE=NAME[:ARGUMENTS_JSON]"
ROLES = ", ".join(role.value for role in Role)


class ToolRoleError(ValueError):
    """A ``--tool`` value verify cannot use; the message is one line saying what to do."""


@dataclass(frozen=True)
class ToolUse:
    """One tool verify calls for ``role``: its ``name``, the ``arguments`` of every call
    (a JSON object), and whether the user gave it (``--tool``) or it is a fixture tool."""

    role: Role
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    given: bool = False

    def __str__(self) -> str:
        return self.name

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role.value, "tool": self.name, "arguments": self.arguments, "given": self.given}


def parse_tool_option(text: str) -> ToolUse:
    """``ROLE=NAME`` or ``ROLE=NAME:ARGUMENTS_JSON`` as a ``ToolUse``; ``ToolRoleError``
    for an unknown role, an empty name, or arguments that are not a JSON object."""
    role_text, equals, rest = text.partition("=")
    if not equals:
        raise ToolRoleError(f"--tool {text!r}: expected ROLE=NAME[:ARGUMENTS_JSON], e.g. "
                            "--tool server-request=book_flight:'{\"to\": \"Oslo\"}'")
    try:
        role = Role(role_text.strip())
    except ValueError:
        raise ToolRoleError(f"--tool {text!r}: unknown role {role_text.strip()!r}; the roles are {ROLES} "
                            f"(see {PAGE})") from None
    name, colon, arguments_text = rest.partition(":")
    name = name.strip()
    if not name:
        raise ToolRoleError(f"--tool {text!r}: no tool name after {role.value}=")
    arguments: Any = {}
    if colon:
        try:
            arguments = json.loads(arguments_text)
        except ValueError as error:
            raise ToolRoleError(f"--tool {text!r}: the arguments after {name}: are not JSON ({error}); "
                                "give a JSON object, e.g. {\"to\": \"Oslo\"}") from None
        if not isinstance(arguments, dict):
            raise ToolRoleError(f"--tool {text!r}: the arguments after {name}: must be a JSON object "
                                f"(the tool's 'arguments'), got {type(arguments).__name__}")
    return ToolUse(role, name, arguments, given=True)


def check_listed(uses: list[ToolUse], listed: list[str]) -> None:
    """``ToolRoleError`` naming the first given tool the server's ``tools/list`` lacks."""
    for use in uses:
        if use.name not in listed:
            shown = ", ".join(listed[:20]) or "no tools"
            raise ToolRoleError(f"--tool {use.role.value}={use.name}: the server does not list a tool "
                                f"{use.name!r} (tools/list answered: {shown}); name one of its tools")


def tools_for(role: Role, listed: list[str], uses: list[ToolUse]) -> list[ToolUse]:
    """The tools verify calls for ``role``: those given for it, else the fixture tools of
    that role the server lists (in definition order, without arguments)."""
    given = [use for use in uses if use.role is role]
    return given or [ToolUse(role, name) for name in names_of(role) if name in listed]


def not_played(use: ToolUse, what: str) -> str:
    """The report's line for a tool given for a role it did not play: ``what`` its call did not do."""
    return (f"tool {use.name} (--tool {use.role.value}={use.name}) does not play its role: {what}; it drives no "
            f"rule, and verify judged what it could without it (see {PAGE} for what a {use.role.value} tool must do)")


def recorded_uses(entries: Any) -> list[ToolUse]:
    """The given tools a verify trace recorded (its ``tools``, ``ToolUse.to_json`` each) as
    ``ToolUse``s; ``ToolRoleError`` for an entry that is not one (an unknown role, no name,
    arguments that are not a JSON object)."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise ToolRoleError(f"the trace's tools must be a list, got {type(entries).__name__}")
    uses = []
    for entry in entries:
        if not (isinstance(entry, dict) and isinstance(entry.get("tool"), str) and entry["tool"].strip()
                and isinstance(entry.get("arguments", {}), dict)):
            raise ToolRoleError(f"the trace's tools hold {entry!r}: expected "
                                "{\"role\": ROLE, \"tool\": NAME, \"arguments\": {...}}")
        try:
            role = Role(entry.get("role"))
        except ValueError:
            raise ToolRoleError(f"the trace's tools name an unknown role {entry.get('role')!r}; "
                                f"the roles are {ROLES}") from None
        uses.append(ToolUse(role, entry["tool"].strip(), entry.get("arguments", {}), given=True))
    return uses
